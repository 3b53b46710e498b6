package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/pagebound/shipping/internal/carrier"
)

// Packaging constants used to turn a list of books into a parcel.
const (
	boxWeightGrams     = 180
	maxParcelGrams     = 20000
	defaultBookGrams   = 450
	defaultBookThickMM = 30
)

var postcodePattern = regexp.MustCompile(`^[A-Z]{1,2}[0-9][A-Z0-9]? ?[0-9][A-Z]{2}$`)

// Handlers holds the dependencies of the HTTP endpoints.
type Handlers struct {
	db       *sql.DB
	carriers *carrier.Registry
	log      *slog.Logger
}

// NewRouter wires every endpoint of the shipping service.
func NewRouter(db *sql.DB, carriers *carrier.Registry, log *slog.Logger) http.Handler {
	h := &Handlers{db: db, carriers: carriers, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", h.health)
	mux.HandleFunc("POST /quotes", h.quote)
	mux.HandleFunc("POST /shipments", h.createShipment)
	mux.HandleFunc("GET /shipments/{orderID}", h.getShipment)
	mux.HandleFunc("POST /webhooks/tracking", h.trackingWebhook)
	return mux
}

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

type apiError struct {
	Error   string            `json:"error"`
	Message string            `json:"message,omitempty"`
	Fields  map[string]string `json:"fields,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

type bookItem struct {
	ISBN        string `json:"isbn"`
	Quantity    int    `json:"quantity"`
	WeightGrams int    `json:"weight_grams"`
	ThickMM     int    `json:"thickness_mm"`
}

type quoteRequest struct {
	OrderID  string     `json:"order_id"`
	Items    []bookItem `json:"items"`
	Postcode string     `json:"postcode"`
	Country  string     `json:"country"`
}

// validate checks a quote or shipment request and returns per-field errors.
func (q *quoteRequest) validate() map[string]string {
	errs := map[string]string{}
	if len(q.Items) == 0 {
		errs["items"] = "at least one item is required"
	}
	for _, item := range q.Items {
		if item.Quantity <= 0 {
			errs["items"] = "quantities must be positive"
			break
		}
	}
	q.Country = strings.ToUpper(strings.TrimSpace(q.Country))
	if len(q.Country) != 2 {
		errs["country"] = "two-letter country code required"
	}
	q.Postcode = strings.ToUpper(strings.TrimSpace(q.Postcode))
	if q.Country == "GB" && !postcodePattern.MatchString(q.Postcode) {
		errs["postcode"] = "invalid UK postcode"
	}
	return errs
}

// buildParcel estimates weight and box size for a set of books. Books are
// stacked flat, so the parcel height is the sum of the spine thicknesses.
func buildParcel(items []bookItem, postcode, country string) (carrier.Parcel, error) {
	weight := boxWeightGrams
	height := 0
	for _, item := range items {
		w := item.WeightGrams
		if w == 0 {
			w = defaultBookGrams
		}
		t := item.ThickMM
		if t == 0 {
			t = defaultBookThickMM
		}
		weight += w * item.Quantity
		height += t * item.Quantity
	}
	if weight > maxParcelGrams {
		return carrier.Parcel{}, errors.New("order too heavy for a single parcel; split shipment required")
	}
	return carrier.Parcel{
		WeightGrams: weight,
		LengthMM:    320,
		WidthMM:     240,
		HeightMM:    height + 20,
		Postcode:    postcode,
		Country:     country,
	}, nil
}

// ---------------------------------------------------------------------------
// endpoints
// ---------------------------------------------------------------------------

func (h *Handlers) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	if err := h.db.PingContext(ctx); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "db_unreachable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// quote returns delivery options for a basket, cheapest first.
func (h *Handlers) quote(w http.ResponseWriter, r *http.Request) {
	var req quoteRequest
	if err := decodeJSON(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "bad_json", Message: err.Error()})
		return
	}
	if errs := req.validate(); len(errs) > 0 {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{Error: "validation_failed", Fields: errs})
		return
	}
	parcel, err := buildParcel(req.Items, req.Postcode, req.Country)
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{Error: "too_heavy", Message: err.Error()})
		return
	}
	quotes, err := h.carriers.Quotes(r.Context(), parcel)
	if errors.Is(err, carrier.ErrNoQuote) {
		writeJSON(w, http.StatusBadGateway, apiError{Error: "no_carrier", Message: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"parcel": parcel, "quotes": quotes})
}

// createShipment buys a label with the cheapest carrier for a packed order and
// records it. Calling it twice for the same order returns the first shipment.
func (h *Handlers) createShipment(w http.ResponseWriter, r *http.Request) {
	var req quoteRequest
	if err := decodeJSON(r, &req); err != nil || req.OrderID == "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "bad_request", Message: "order_id and items are required"})
		return
	}
	if errs := req.validate(); len(errs) > 0 {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{Error: "validation_failed", Fields: errs})
		return
	}
	if existing, err := h.loadShipment(r.Context(), req.OrderID); err == nil {
		writeJSON(w, http.StatusOK, existing)
		return
	}
	parcel, err := buildParcel(req.Items, req.Postcode, req.Country)
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, apiError{Error: "too_heavy", Message: err.Error()})
		return
	}
	quotes, err := h.carriers.Quotes(r.Context(), parcel)
	if err != nil {
		writeJSON(w, http.StatusBadGateway, apiError{Error: "no_carrier", Message: err.Error()})
		return
	}
	best := quotes[0]
	label, err := h.carriers.BuyLabel(r.Context(), best.Carrier, best.Service, parcel)
	if err != nil {
		h.log.Error("label purchase failed", "order", req.OrderID, "carrier", best.Carrier, "err", err)
		writeJSON(w, http.StatusBadGateway, apiError{Error: "label_failed", Message: err.Error()})
		return
	}
	_, err = h.db.ExecContext(r.Context(),
		`INSERT INTO shipments (order_id, carrier, service, tracking_number, tracking_url, price_minor, label_pdf)
		 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (order_id) DO NOTHING`,
		req.OrderID, label.Carrier, best.Service, label.TrackingNumber, label.TrackingURL, best.PriceMinor, label.PDFBase64)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: "db_error"})
		return
	}
	h.publishShipped(r.Context(), req.OrderID, label)
	writeJSON(w, http.StatusCreated, label)
}

func (h *Handlers) loadShipment(ctx context.Context, orderID string) (carrier.Label, error) {
	var l carrier.Label
	err := h.db.QueryRowContext(ctx,
		`SELECT carrier, tracking_number, tracking_url, label_pdf FROM shipments WHERE order_id = $1`, orderID,
	).Scan(&l.Carrier, &l.TrackingNumber, &l.TrackingURL, &l.PDFBase64)
	return l, err
}

func (h *Handlers) getShipment(w http.ResponseWriter, r *http.Request) {
	label, err := h.loadShipment(r.Context(), r.PathValue("orderID"))
	if errors.Is(err, sql.ErrNoRows) {
		writeJSON(w, http.StatusNotFound, apiError{Error: "not_found"})
		return
	} else if err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: "db_error"})
		return
	}
	writeJSON(w, http.StatusOK, label)
}

// publishShipped writes an order.shipped event to the outbox so the Python
// worker e-mails the customer their tracking link.
func (h *Handlers) publishShipped(ctx context.Context, orderID string, label carrier.Label) {
	payload, _ := json.Marshal(map[string]string{
		"orderId":        orderID,
		"carrier":        label.Carrier,
		"trackingNumber": label.TrackingNumber,
		"trackingUrl":    label.TrackingURL,
	})
	if _, err := h.db.ExecContext(ctx, `INSERT INTO outbox (topic, payload) VALUES ('order.shipped', $1)`, payload); err != nil {
		h.log.Error("outbox insert failed", "order", orderID, "err", err)
	}
}

type trackingEvent struct {
	TrackingNumber string    `json:"tracking_number"`
	Status         string    `json:"status"`
	OccurredAt     time.Time `json:"occurred_at"`
	Location       string    `json:"location"`
}

// verifyCarrierSignature checks the HMAC-SHA256 signature carriers put in the
// X-Carrier-Signature header, using a constant-time comparison.
func verifyCarrierSignature(body []byte, signature string) bool {
	secret := os.Getenv("CARRIER_WEBHOOK_SECRET")
	if secret == "" || signature == "" {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	expected := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(expected), []byte(strings.ToLower(signature)))
}

// trackingWebhook receives delivery status updates pushed by carriers.
func (h *Handlers) trackingWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "unreadable_body"})
		return
	}
	if !verifyCarrierSignature(body, r.Header.Get("X-Carrier-Signature")) {
		writeJSON(w, http.StatusUnauthorized, apiError{Error: "bad_signature"})
		return
	}
	var ev trackingEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "bad_json"})
		return
	}
	_, err = h.db.ExecContext(r.Context(),
		`INSERT INTO tracking_events (tracking_number, status, occurred_at, location) VALUES ($1, $2, $3, $4)`,
		ev.TrackingNumber, ev.Status, ev.OccurredAt, ev.Location)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: "db_error"})
		return
	}
	if ev.Status == "delivered" {
		_, _ = h.db.ExecContext(r.Context(),
			`INSERT INTO outbox (topic, payload)
			 SELECT 'order.delivered', json_build_object('orderId', order_id) FROM shipments WHERE tracking_number = $1`,
			ev.TrackingNumber)
	}
	w.WriteHeader(http.StatusNoContent)
}
