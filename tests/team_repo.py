"""Another team's repository, as the installed-wheel test meets it: a billing library in Python and the HTTP
gateway in front of it in Go, each function documented for its readers, built up over a dozen commits with the
subjects people write.

Nothing here knows about pytest-chunkeval. The code is written as a small team would write it, not tuned to make
any chunking strategy win: ``chunkeval init`` has to find its queries in the doc comments and the commit subjects
the way it would in a real repository.
"""
from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

README = """\
# acme-billing

Invoices, VAT and payment matching (`billing/`, Python), and the HTTP gateway that rate-limits and retries calls
to the billing API (`gateway/`, Go).

    pip install -e . && pytest
    go test ./...
"""

PYPROJECT = """\
[project]
name = "acme-billing"
version = "0.3.0"
requires-python = ">=3.11"

[tool.ruff]
line-length = 100
"""

GITIGNORE = """\
__pycache__/
*.egg-info/
.venv/
.pytest_cache/
/bin/
"""

GO_MOD = """\
module example.com/acme/billing

go 1.22
"""

MONEY_V1 = '''\
"""Money amounts as integer cents, so that sums never drift the way floats do."""
from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal


def to_cents(amount: str) -> int:
    """Parse a decimal amount such as "12.50" or "-3" into integer cents.

    More than two decimal places is an error: a price typed with a typo is refused, not rounded silently.
    """
    value = Decimal(amount.strip())
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2:
        raise ValueError(f"more than two decimal places: {amount!r}")
    return int(value * 100)


def format_cents(cents: int, currency: str = "EUR") -> str:
    """Format an amount for display on an invoice, with thousands separators and the currency code."""
    sign = "-" if cents < 0 else ""
    whole, fraction = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{fraction:02d} {currency}"


def round_half_even(value: Decimal) -> int:
    """Round a fractional number of cents to a whole cent with banker's rounding, as the tax office does."""
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def split_evenly(cents: int, parts: int) -> list[int]:
    """Split an amount into instalments that differ by at most one cent and add up to the total.

    The first instalments carry the remainder, so the customer never pays more at the end.
    """
    if parts < 1:
        raise ValueError("at least one instalment")
    base, remainder = divmod(cents, parts)
    return [base + 1 if i < remainder else base for i in range(parts)]
'''

# A refund split into instalments came out wrong: divmod rounds towards minus infinity.
MONEY_V2 = MONEY_V1.replace('''\
    base, remainder = divmod(cents, parts)
    return [base + 1 if i < remainder else base for i in range(parts)]
''', '''\
    sign = -1 if cents < 0 else 1
    base, remainder = divmod(abs(cents), parts)
    return [sign * (base + 1 if i < remainder else base) for i in range(parts)]
''')

TAX_V1 = '''\
"""Value-added tax on invoice lines."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from billing.money import round_half_even

RATES = {"standard": Decimal("0.21"), "reduced": Decimal("0.10"), "zero": Decimal("0")}


def line_tax(net_cents: int, category: str) -> int:
    """Compute the VAT of one invoice line from its net amount and its tax category."""
    try:
        rate = RATES[category]
    except KeyError:
        raise ValueError(f"unknown tax category {category!r}; expected one of {sorted(RATES)}") from None
    return round_half_even(Decimal(net_cents) * rate)


def tax_breakdown(lines: Iterable[tuple[int, str]]) -> dict[str, int]:
    """Sum the tax of an invoice per category, as it must be printed at the bottom of the invoice."""
    totals: dict[str, int] = defaultdict(int)
    for net_cents, category in lines:
        totals[category] += line_tax(net_cents, category)
    return dict(sorted(totals.items()))
'''

TAX_V2 = TAX_V1 + '''

EU_COUNTRIES = frozenset(
    "AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK".split()
)


def is_reverse_charge(seller_country: str, buyer_country: str, buyer_vat_id: str | None) -> bool:
    """Tell whether the buyer pays the VAT instead of us: a business in another EU country with a VAT number."""
    if not buyer_vat_id or seller_country == buyer_country:
        return False
    return seller_country in EU_COUNTRIES and buyer_country in EU_COUNTRIES
'''

INVOICES = '''\
"""Invoices: their lines, their numbers and what they add up to."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import date

from billing.tax import line_tax


@dataclass(frozen=True)
class Line:
    description: str
    quantity: int
    unit_cents: int
    category: str = "standard"

    @property
    def net_cents(self) -> int:
        return self.quantity * self.unit_cents


@dataclass
class Invoice:
    number: str
    customer: str
    issued: date
    lines: list[Line] = field(default_factory=list)


def next_invoice_number(last: str | None, year: int) -> str:
    """Return the next invoice number of the year, like 2024-0042; numbering starts again every January."""
    if last is None or not last.startswith(f"{year}-"):
        return f"{year}-0001"
    sequence = int(last.split("-", 1)[1]) + 1
    return f"{year}-{sequence:04d}"


def invoice_total(invoice: Invoice) -> int:
    """Total amount due on an invoice in cents: the net amounts of all lines plus their tax."""
    return sum(line.net_cents + line_tax(line.net_cents, line.category) for line in invoice.lines)


def apply_discount(lines: list[Line], percent: int) -> list[Line]:
    """Apply a percentage discount to every line, rounding each unit price down to the cent."""
    if not 0 <= percent <= 100:
        raise ValueError(f"discount must be between 0 and 100 percent, got {percent}")
    return [replace(line, unit_cents=math.floor(line.unit_cents * (100 - percent) / 100)) for line in lines]
'''

DATES = '''\
"""Payment terms: due dates in working days and how late a payment is."""
from __future__ import annotations

from collections.abc import Container
from datetime import date, timedelta


def is_working_day(day: date, holidays: Container[date] = frozenset()) -> bool:
    """Tell whether the office is open on a day: Monday to Friday and not a public holiday."""
    return day.weekday() < 5 and day not in holidays


def add_business_days(start: date, days: int, holidays: Container[date] = frozenset()) -> date:
    """Move a date forward by a number of working days, skipping weekends and public holidays."""
    current = start
    while days > 0:
        current += timedelta(days=1)
        if is_working_day(current, holidays):
            days -= 1
    return current


def due_date(issued: date, terms_days: int = 30, holidays: Container[date] = frozenset()) -> date:
    """Compute when an invoice must be paid; a deadline on a weekend or holiday moves to the next working day."""
    due = issued + timedelta(days=terms_days)
    while not is_working_day(due, holidays):
        due += timedelta(days=1)
    return due


def days_overdue(due: date, today: date) -> int:
    """Count how many calendar days a payment is late; zero while it is not late yet."""
    return max(0, (today - due).days)
'''

EXPORT = '''\
"""Data exchange with the accounting software and the bank."""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from typing import TextIO

from billing.invoices import Invoice, invoice_total
from billing.money import to_cents

INVOICE_NUMBER = re.compile(r"\\b(\\d{4}-\\d{4})\\b")


@dataclass(frozen=True)
class Payment:
    booked: str
    reference: str
    cents: int


def invoices_to_csv(invoices: list[Invoice], out: TextIO) -> int:
    """Write one CSV row per invoice for the accounting software and return how many rows were written."""
    writer = csv.writer(out, delimiter=";")
    writer.writerow(["number", "customer", "issued", "total_cents"])
    for invoice in invoices:
        writer.writerow([invoice.number, invoice.customer, invoice.issued.isoformat(), invoice_total(invoice)])
    return len(invoices)


def parse_bank_statement(text: str) -> list[Payment]:
    """Read the bank's semicolon-separated statement export and keep the incoming payments only."""
    payments = []
    for row in csv.DictReader(text.splitlines(), delimiter=";"):
        cents = to_cents(row["Amount"].replace(",", "."))
        if cents > 0:
            payments.append(Payment(row["Booking date"], row["Reference"].strip(), cents))
    return payments


def match_payments(invoices: list[Invoice], payments: list[Payment]) -> dict[str, Payment]:
    """Match incoming payments to open invoices by the invoice number quoted in the payment reference."""
    open_numbers = {invoice.number for invoice in invoices}
    matched: dict[str, Payment] = {}
    for payment in payments:
        found = INVOICE_NUMBER.search(payment.reference)
        if found and found.group(1) in open_numbers and found.group(1) not in matched:
            matched[found.group(1)] = payment
    return matched
'''

TEST_MONEY = '''\
from decimal import Decimal

import pytest

from billing.money import format_cents, round_half_even, split_evenly, to_cents


def test_to_cents_refuses_fractions_of_a_cent():
    assert to_cents("12.50") == 1250
    with pytest.raises(ValueError):
        to_cents("0.001")


def test_format_and_rounding():
    assert format_cents(123456) == "1,234.56 EUR"
    assert round_half_even(Decimal("2.5")) == 2


def test_split_evenly_adds_up():
    assert split_evenly(1000, 3) == [334, 333, 333]
    assert split_evenly(-1000, 3) == [-334, -333, -333]
'''

RATELIMIT = '''\
// Package gateway is the HTTP layer in front of the billing API: rate limits, retries and request IDs.
package gateway

import (
	"sync"
	"time"
)

// Limiter keeps one token bucket per client key.
type Limiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	buckets map[string]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// NewLimiter creates a limiter that allows rate requests per second to each client, with bursts of up to burst.
func NewLimiter(rate float64, burst int) *Limiter {
	return &Limiter{rate: rate, burst: float64(burst), buckets: map[string]*bucket{}, now: time.Now}
}

// Allow reports whether a client may make one more request now, and takes a token from its bucket if so.
func (l *Limiter) Allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.refill(now, l.rate, l.burst)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// refill adds the tokens a client earned since its last request, never more than the burst size.
func (b *bucket) refill(now time.Time, rate, burst float64) {
	elapsed := now.Sub(b.last).Seconds()
	b.tokens += elapsed * rate
	if b.tokens > burst {
		b.tokens = burst
	}
	b.last = now
}

// Forget drops the buckets of clients that have been idle for longer than maxIdle, so memory stays bounded.
func (l *Limiter) Forget(maxIdle time.Duration) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	removed := 0
	cutoff := l.now().Add(-maxIdle)
	for key, b := range l.buckets {
		if b.last.Before(cutoff) {
			delete(l.buckets, key)
			removed++
		}
	}
	return removed
}
'''

RETRY = '''\
package gateway

import (
	"context"
	"errors"
	"math/rand"
	"net"
	"net/http"
	"time"
)

// ErrGaveUp is returned by Do when every attempt failed with a retryable error.
var ErrGaveUp = errors.New("gateway: upstream still failing after all retries")

// Backoff returns how long to wait before a retry: exponential growth from base, capped at max, with full jitter.
func Backoff(attempt int, base, max time.Duration, rnd *rand.Rand) time.Duration {
	ceiling := base << attempt
	if ceiling <= 0 || ceiling > max {
		ceiling = max
	}
	return time.Duration(rnd.Int63n(int64(ceiling) + 1))
}

// Retryable reports whether a failed upstream call is worth trying again: timeouts, 429 and 5xx except 501.
func Retryable(status int, err error) bool {
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true
	}
	if err != nil {
		return false
	}
	return status == http.StatusTooManyRequests || (status >= 500 && status != http.StatusNotImplemented)
}

// Do calls fn until it succeeds, fails in a way that is not retryable, runs out of attempts or ctx is done.
func Do(ctx context.Context, attempts int, rnd *rand.Rand, fn func() (int, error)) error {
	for attempt := 0; attempt < attempts; attempt++ {
		status, err := fn()
		if err == nil && status < 400 {
			return nil
		}
		if !Retryable(status, err) {
			if err == nil {
				err = errors.New(http.StatusText(status))
			}
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(Backoff(attempt, 100*time.Millisecond, 5*time.Second, rnd)):
		}
	}
	return ErrGaveUp
}
'''

MIDDLEWARE = '''\
package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"regexp"
	"strings"
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9-]{8,64}$`)

// RequestID gives every request an ID, reusing the caller's X-Request-ID header when it is valid, and echoes it.
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-ID")
		if !validID(id) {
			id = newID()
			r.Header.Set("X-Request-ID", id)
		}
		w.Header().Set("X-Request-ID", id)
		next.ServeHTTP(w, r)
	})
}

// validID reports whether an ID sent by a client is safe to put in our logs: 8 to 64 letters, digits or dashes.
func validID(id string) bool {
	return idPattern.MatchString(id)
}

// newID makes a random 128-bit request ID in hexadecimal.
func newID() string {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(raw[:])
}

// RateLimit answers 429 Too Many Requests with a Retry-After header to clients that are over their limit.
func RateLimit(l *Limiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !l.Allow(clientKey(r)) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "rate limit exceeded", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// clientKey identifies the caller by its API key, or by its IP address when it sent none.
func clientKey(r *http.Request) string {
	if key := strings.TrimSpace(r.Header.Get("X-Api-Key")); key != "" {
		return "key:" + key
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip:" + host
}
'''

CONFIG = '''\
package gateway

import (
	"fmt"
	"strconv"
	"time"
)

// Config holds the gateway's settings.
type Config struct {
	Listen      string
	UpstreamURL string
	Timeout     time.Duration
	RatePerSec  float64
	Burst       int
}

// LoadConfig reads the gateway settings from environment variables; only the upstream URL has no default.
func LoadConfig(getenv func(string) string) (Config, error) {
	cfg := Config{Listen: ":8080", Timeout: 10 * time.Second, RatePerSec: 5, Burst: 20}
	if v := getenv("GATEWAY_LISTEN"); v != "" {
		cfg.Listen = v
	}
	cfg.UpstreamURL = getenv("GATEWAY_UPSTREAM_URL")
	if cfg.UpstreamURL == "" {
		return cfg, fmt.Errorf("GATEWAY_UPSTREAM_URL is not set")
	}
	timeout, err := parseDuration(getenv("GATEWAY_TIMEOUT"), cfg.Timeout)
	if err != nil {
		return cfg, fmt.Errorf("GATEWAY_TIMEOUT: %w", err)
	}
	cfg.Timeout = timeout
	if v := getenv("GATEWAY_RATE"); v != "" {
		if cfg.RatePerSec, err = strconv.ParseFloat(v, 64); err != nil {
			return cfg, fmt.Errorf("GATEWAY_RATE: %w", err)
		}
	}
	return cfg, nil
}

// parseDuration accepts plain seconds ("30") as well as Go durations ("1m30s"); empty means the fallback.
func parseDuration(value string, fallback time.Duration) (time.Duration, error) {
	if value == "" {
		return fallback, nil
	}
	if seconds, err := strconv.Atoi(value); err == nil {
		return time.Duration(seconds) * time.Second, nil
	}
	return time.ParseDuration(value)
}
'''

HEALTH = '''\
package gateway

import (
	"net/http"
	"time"
)

// Health answers the load balancer's health check: 200 while the upstream answered recently, 503 otherwise.
func Health(lastSeen func() time.Time, maxAge time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		age := time.Since(lastSeen())
		if age > maxAge {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("upstream silent for " + age.Round(time.Second).String() + "\\n"))
			return
		}
		_, _ = w.Write([]byte("ok\\n"))
	})
}
'''

MAIN_GO = '''\
// Command gateway serves the billing API behind rate limits, retries and request IDs.
package main

import (
	"log"
	"net/http"
	"os"

	"example.com/acme/billing/gateway"
)

func main() {
	cfg, err := gateway.LoadConfig(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	limiter := gateway.NewLimiter(cfg.RatePerSec, cfg.Burst)
	mux := http.NewServeMux()
	mux.Handle("/", gateway.RateLimit(limiter, http.NotFoundHandler()))
	log.Printf("listening on %s, upstream %s", cfg.Listen, cfg.UpstreamURL)
	log.Fatal(http.ListenAndServe(cfg.Listen, gateway.RequestID(mux)))
}
'''

RETRY_TEST = '''\
package gateway

import (
	"math/rand"
	"testing"
	"time"
)

func TestBackoffStaysUnderTheCap(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for attempt := 0; attempt < 20; attempt++ {
		if d := Backoff(attempt, 100*time.Millisecond, time.Second, rnd); d > time.Second {
			t.Fatalf("attempt %d waited %v", attempt, d)
		}
	}
}
'''

#: The history, oldest first: (subject, files written by that commit with their whole new content).
HISTORY: list[tuple[str, dict[str, str]]] = [
    ("Start the billing library and the gateway",
     {"README.md": README, "pyproject.toml": PYPROJECT, ".gitignore": GITIGNORE, "go.mod": GO_MOD,
      "billing/__init__.py": '"""Invoicing, VAT and payments for the shop."""\n'}),
    ("Store money amounts as integer cents", {"billing/money.py": MONEY_V1}),
    ("Compute VAT per invoice line and per category", {"billing/tax.py": TAX_V1}),
    ("Number invoices per year and compute their totals", {"billing/invoices.py": INVOICES}),
    ("Skip weekends and public holidays when computing due dates", {"billing/dates.py": DATES}),
    ("Add a token bucket rate limiter per client", {"gateway/ratelimit.go": RATELIMIT}),
    ("Retry upstream calls with exponential backoff and jitter", {"gateway/retry.go": RETRY}),
    ("Tag each request with an ID and reject clients over their limit", {"gateway/middleware.go": MIDDLEWARE}),
    ("Read the gateway settings from environment variables",
     {"gateway/config.go": CONFIG, "cmd/gateway/main.go": MAIN_GO}),
    ("Export invoices to CSV and match bank payments to them", {"billing/export.py": EXPORT}),
    ("Add tests for money helpers and retry backoff",
     {"tests/test_money.py": TEST_MONEY, "gateway/retry_test.go": RETRY_TEST}),
    ("Report the gateway unhealthy when the upstream stops answering", {"gateway/health.go": HEALTH}),
    ("Shift VAT to business customers in other EU countries", {"billing/tax.py": TAX_V2}),
    ("Fix instalment split for negative amounts", {"billing/money.py": MONEY_V2}),
]


def git(repo: Path, *args: str, env: Mapping[str, str]) -> str:
    """One git command in ``repo``; its stdout, or an assertion error with its output."""
    proc = subprocess.run(["git", *args], cwd=repo, env=dict(env), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"git {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}"
    return proc.stdout.strip()


def write_team_repo(repo: Path, env: Mapping[str, str]) -> list[str]:
    """``git init`` in ``repo`` and :data:`HISTORY` committed one commit at a time (a day apart, fixed dates, so the
    same test makes the same commits); returns their shas, oldest first."""
    repo.mkdir(parents=True)
    git(repo, "init", "--quiet", "--initial-branch=main", env=env)
    git(repo, "config", "user.name", "Ana Moreno", env=env)
    git(repo, "config", "user.email", "ana@acme.example", env=env)
    shas = []
    for day, (subject, files) in enumerate(HISTORY, start=1):
        for rel, text in files.items():
            path = repo / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        git(repo, "add", *files, env=env)
        stamp = f"2024-03-{day:02d}T10:00:00+01:00"
        git(repo, "commit", "--quiet", "-m", subject,
            env={**env, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
        shas.append(git(repo, "rev-parse", "HEAD", env=env))
    return shas
