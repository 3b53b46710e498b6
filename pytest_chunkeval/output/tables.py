"""One row model for every table a person reads, rendered to the terminal (rich) and to Markdown alike.

A table is built once from a :class:`Summary` — cells are final strings — so the terminal, the Markdown report
and the GitHub job summary can never disagree about a number.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pytest_chunkeval.core.vocabulary import (
    BUDGET_RECALL,
    CHUNK,
    COLUMN_GROUPS,
    DEFAULT_BUDGETS,
    FILE,
    LABELS,
    LINES,
    NDCG,
    RANK_METRICS,
    RECALL,
    label,
    line_metric_keys,
    metric_key,
    metric_keys,
    split_key,
)
from pytest_chunkeval.judges.comparison import MetricDelta, StrategyComparison
from pytest_chunkeval.judges.judged_run import Summary
from pytest_chunkeval.output import comparison_text
from pytest_chunkeval.output.escape import log_lines, log_text, md_cell, md_text
from pytest_chunkeval.results.typed import StrategyResult, SuiteResult


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    right: set[int] = field(default_factory=set)  # indices of right-aligned (numeric) columns
    fold: set[int] = field(default_factory=set)  # indices of columns that may wrap (free text)


# -- builders ----------------------------------------------------------------------------------------------------


def _ci(s: StrategyResult, mode: str, metric: str) -> str:
    iv = s.intervals.get(mode, {}).get(metric)
    return f"{iv.mean:.3f} [{iv.ci_low:.2f}–{iv.ci_high:.2f}]" if iv else f"{s.means[mode][metric]:.3f}"


def _gates_cell(s: StrategyResult) -> str:
    gates = s.gates  # judged once for the run (judges.against_baseline); read here, never recomputed
    if not gates:
        return "—"
    failed = [g.name.split("-")[0 if g.name != "index-size" else 1] for g in gates if not g.passed]
    return "pass" if not failed else "fail: " + ",".join(failed)


def _line_cells(s: StrategyResult, k: int) -> list[str]:
    """Line-projected NDCG and budget recall (``—`` for a stored report from before they were measured)."""
    lines = s.means.get(LINES, {})
    names = line_metric_keys(k)
    return [f"{lines[n]:.3f}" if n in lines else "—" for n in names]


def _retrieval_words(summary: Summary) -> str:
    modes = summary.modes
    if len(modes) > 1:
        return f"{' and '.join(modes)} retrieval (rows name[mode]; Δ against {summary.baseline} of the same mode)"
    return f"{summary.retrieval} retrieval"


# Column groups of the retrieval table beyond the default ones: vocabulary.COLUMN_GROUPS (--chunkeval-columns); every
# number is in the JSON report whatever is shown.


def retrieval_table(summary: Summary, key: str) -> Table:
    """File-mode NDCG/R/MRR, line-projected NDCG, the delta to the baseline and the misses by default; chunk-mode
    metrics and budget recall when asked (``summary.columns``); gates only when asked for (``--chunkeval-gate``):
    a gate nobody asked for fails nothing, and a ``fail`` in every row only teaches readers to ignore the column."""
    suite, k = summary.suites[key], summary.k
    nd, rc, mr = metric_keys(k)
    chunk, budget = CHUNK in summary.columns, "budget" in summary.columns
    columns = ["strategy", f"{label(NDCG, k)} {FILE} [95% CI]", *(f"{label(m, k)} {FILE}" for m in RANK_METRICS[1:])]
    columns += [f"{label(m, k)} {CHUNK}" for m in RANK_METRICS] if chunk else []
    columns += [f"{label(NDCG, k)} {LINES}", *(label(BUDGET_RECALL, b) for b in DEFAULT_BUDGETS if budget)]
    columns += [f"ΔNDCG vs {summary.baseline} (p)", "misses", *(["gates"] if summary.gated else [])]
    t = Table(f"{suite.heading} — {suite.files} files, {len(suite.queries)} queries, {_retrieval_words(summary)}, "
              f"k={k}", columns, right=set(range(1, len(columns) - (1 if summary.gated else 0))))
    for name, s in suite.strategies.items():
        if s.skipped:
            continue  # listed under the tables, where the reason has room
        if s.failed:  # a row, so a failure is never read as an absence; the reason is listed under the tables
            t.rows.append([name, "failed to build", *["—"] * (len(t.columns) - 2)])
            continue
        vs = s.vs_baseline.get(FILE, {}).get(nd)
        if s.name == summary.baseline:
            delta = "—"
        elif vs and vs["relative"] is not None:
            delta = f"{vs['relative']:+.1%} (p={vs['p_value']:.3f})"
        else:
            delta = ""
        m = s.means
        lines = _line_cells(s, k)
        # A strategy whose own chunking failed on some files is partly measuring the fixed-window fallback.
        shown = f"{name} (fallback {len(s.fallbacks)}/{s.files} files)" if s.fallbacks else name
        row = [shown, _ci(s, FILE, nd), f"{m[FILE][rc]:.3f}", f"{m[FILE][mr]:.3f}"]
        row += [f"{m[CHUNK][nd]:.3f}", f"{m[CHUNK][rc]:.3f}", f"{m[CHUNK][mr]:.3f}"] if chunk else []
        row += [lines[0], *(lines[1:] if budget else [])]
        row += [delta, str(s.misses), *([_gates_cell(s)] if summary.gated else [])]
        t.rows.append(row)
    return t


def retrieval_legend(summary: Summary) -> str:
    k = summary.k
    parts = [
        f"{metric_key('/'.join(LABELS[m] for m in RANK_METRICS), k)} {FILE}: the top {k} chunks judged by their file "
        "(duplicates removed)",
        "lines: NDCG over the relevant lines the chunks cover",
        f"Δ: relative to {summary.baseline}, paired randomization p",
        f"misses: queries with no chunk in the top {k} on a relevant span",
    ]
    if CHUNK in summary.columns:
        parts.append("chunk: each chunk judged on its own (splitting a relevant function costs recall)")
    if "budget" in summary.columns:
        parts.append("BR@n: share of relevant lines within the first n tokens retrieved")
    if summary.gated:
        parts.append("gates: the ADR's adoption gates against the baseline")
    hidden = [g for g in COLUMN_GROUPS if g not in summary.columns]
    more = f" More columns: --chunkeval-columns={','.join(hidden)}." if hidden else ""
    return "Legend — " + "; ".join(parts) + "." + more + " Every number is in the JSON report."


def _notes(s: StrategyResult) -> str:
    parts: list[str] = []
    for key, value in s.strategy_stats.items():
        # Zero counters and repeats of the table's own columns are noise; what is left is worth reading.
        if key in ("files", "chunks") or isinstance(value, bool) or not value:
            continue
        if isinstance(value, (int, float, str)):
            parts.append(f"{key}={value}")
        elif isinstance(value, list):
            parts.append(f"{key}={len(value)}")
    if s.fallbacks:
        parts.append(f"fallback files={len(s.fallbacks)}")
    return ", ".join(parts)


def _one_per_strategy(suite: SuiteResult) -> list[StrategyResult]:
    """One result per strategy: chunks and index are shared by its retrieval modes, so they are shown once."""
    first: dict[str, StrategyResult] = {}
    for s in suite.strategies.values():
        first.setdefault(s.name, s)
    return list(first.values())


def model_of(summary: Summary, key: str | None = None) -> dict[str, Any]:
    """The model a suite section was evaluated with: its own in a run of several models, else the run's."""
    label = summary.suites[key].model if key is not None and key in summary.suites else ""
    return dict((summary.model.get("models") or {}).get(label) or summary.model)


def index_table(summary: Summary, key: str) -> Table:
    suite = summary.suites[key]
    base = next((s for s in suite.strategies.values() if s.name == summary.baseline), None)
    base_bytes = base.index.bytes if base is not None and base.evaluated else 0
    window = model_of(summary, key).get("max_tokens", "?")
    # chunk s / embed s / build s: what building each index cost when it was built, shown also when a warm run
    # reused it (this run's own times are in the JSON: index.chunk_seconds, index.build_seconds).
    t = Table(
        f"{suite.heading} — chunks and index (chunk s, embed s, build s: the cost of building each index)",
        ["strategy", "files", "chunks", f">{window} tok", "tiny", "lossless", "index KB", "Δsize", "chunk s",
         "embed s", "build s", "embedded", "cached", "notes"],
        right=set(range(1, 13)), fold={13},
    )
    for s in _one_per_strategy(suite):
        name = s.name
        if not s.evaluated:
            continue
        q, idx = s.quality, s.index
        if q.get("claims_lossless"):
            lossless = "yes" if q.get("uncovered_lines") == 0 else f"no ({q.get('line_coverage', 0):.1%})"
        else:
            lossless = "n/a"
        dsize = f"{idx.bytes / base_bytes - 1:+.0%}" if base_bytes and name != summary.baseline else "—"
        t.rows.append([
            name, str(s.files), str(idx.chunk_count), f"{q.get('over_window_share', 0):.0%}",
            f"{q.get('tiny_share', 0):.0%}", lossless, f"{idx.bytes / 1024:.0f}", dsize,
            *(_seconds(idx.cost.get(part)) for part in ("chunk_seconds", "embed_seconds", "build_seconds")),
            str(idx.embedded), "reused index" if idx.reused else str(idx.cached), _notes(s),
        ])
    return t


def index_legend(summary: Summary, key: str | None = None) -> str:
    window = model_of(summary, key).get("max_tokens", "?")
    return (f"Legend — >{window} tok: share of chunks longer than the model's window (truncated when embedded); "
            "tiny: share under 50 non-space characters; lossless: every non-blank line is in some chunk (n/a: not "
            f"claimed); Δsize: index bytes against {summary.baseline}; chunk s, embed s, build s: what building the "
            "index cost; embedded / cached: texts embedded now / served by the cache.")


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _delta_cells(d: MetricDelta | None, unchanged: bool) -> list[str]:
    if d is None:
        return ["—", "—", "—"]
    if unchanged:
        return [f"{d.head:.3f} (same)", "—", "—"]
    mark = " ▼" if d.regressed else ""
    p = f"{d.p_value:.3f}" + (f" (adj {d.p_adjusted:.3f})" if d.p_adjusted is not None else "")
    return [f"{d.base:.3f} → {d.head:.3f}{mark}", f"{d.delta:+.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}]", p]


def _mde_cell(c: StrategyComparison) -> str:
    found = [d.mde for d in c.deltas if d.gating and d.mode == FILE]
    return " / ".join(f"{m:.3f}" if m is not None else "—" for m in found) or "—"


def _hits_cell(c: StrategyComparison) -> str:
    """Queries lost / gained, with the exact McNemar p (adjusted across the family): the per-query test."""
    h = c.hits
    if h is None:
        return "—"
    p = f"{h.p_value:.3f}" + (f" (adj {h.p_adjusted:.3f})" if h.p_adjusted is not None else "")
    return f"{h.lost} / {h.gained}, p {p}" + (" ▼" if h.regressed else "")


def _verdict_cell(c: StrategyComparison) -> str:
    if c.status == "unchanged":
        return "unchanged"
    if c.status == "failed":
        return comparison_text.reason(c)
    if c.status != "changed":
        return f"{c.status}: {comparison_text.reason(c)}"
    lost = f", lost {len(c.lost)}" if c.lost else ""
    gained = f", gained {len(c.gained)}" if c.gained else ""
    return ("FAIL" if c.failed else "ok") + lost + gained


def comparison_table(summary: Summary, key: str, mode: str = FILE) -> Table:
    """``strategy | base → head`` per metric with Δ, its interval and p | index and chunks Δ | verdict."""
    cmp, k = summary.comparisons[key], summary.k
    against = (summary.base or {}).get("ref") or (summary.base or {}).get("report") or "base"
    columns = ["strategy"]
    for metric in RANK_METRICS:
        columns += [f"{label(metric, k)} base → head", "Δ [95% CI]", "p"]
    mde = [f"MDE NDCG / R (tol {summary_tolerance(summary)})"] if mode == FILE else []
    t = Table(
        f"{key} — head vs {against}, {mode} mode (Δ = head − base over paired queries; ▼ fails the check)",
        [*columns, *mde, "queries lost / gained", "index Δ", "chunks", "verdict"],
        right=set(range(1, 13 + len(mde))),
    )
    for name, c in cmp.strategies.items():
        if c.status in ("changed", "unchanged"):
            size = f"{c.size_change:+.1%}" if c.size_change is not None else "—"
            if c.size_regressed:
                size += " ▼"
            cells = [cell for m in RANK_METRICS
                     for cell in _delta_cells(c.delta(mode, metric_key(m, k)), c.status == "unchanged")]
            cells += [_mde_cell(c)] if mde else []
            t.rows.append([name, *cells, _hits_cell(c), size, f"{c.base_chunks} → {c.head_chunks}", _verdict_cell(c)])
        elif c.status != "skipped":  # skipped ones are listed under the table (not_compared_lines)
            t.rows.append([name, *["—"] * (12 + len(mde)), _verdict_cell(c)])
    return t


def summary_tolerance(summary: Summary) -> str:
    return f"{summary.tolerance:g}"


def comparison_legend(summary: Summary) -> str:
    k = summary.k
    return (f"Legend — p: paired randomization test; adj: adjusted across the {summary.family_size} tests that can "
            f"fail the run (file-mode {label(NDCG, k)} and {label(RECALL, k)} and the hit test of each changed "
            f"strategy; {summary.correction}); the other metrics inform and never fail. queries lost / gained: hit "
            f"(a relevant chunk in the top {k}) on one side only, with the exact McNemar p; one lost query never "
            "fails on its own. MDE: the smallest fall of the mean this suite detects with 80% power at the family's "
            "per-test alpha; tol: the fall the check allows (for the hit test, the net share of queries lost). "
            "verdict: FAIL when a gating metric, or the net share of queries lost, fell past tol with adj below "
            "alpha, or the index grew past its limit, or the chunker has new warnings; a gain never fails.")


def resolving_lines(summary: Summary, key: str) -> list[str]:
    """For a suite whose queries cannot see a fall of the tolerance: how large a fall they can see, and about how
    many queries it would take - so "ok" is never read as "no regression" when it means "too small to tell"."""
    cmp = summary.comparisons.get(key)
    if cmp is None:
        return []
    out = []
    for metric in (NDCG, RECALL):
        found = [(d.mde, d.queries_for_tolerance, c.paired) for c in cmp.strategies.values() for d in c.deltas
                 if d.gating and split_key(d.metric)[0] == metric and d.mde is not None]
        blind = [f for f in found if f[0] > summary.tolerance]
        if not blind:
            continue
        low, high = min(f[0] for f in blind), max(f[0] for f in blind)
        needed = sorted(f[1] for f in blind if f[1])
        n = max(f[2] for f in blind)
        more = f"; about {needed[len(needed) // 2]:,} paired queries would" if needed else ""
        span = f"{low:.3f}" if f"{low:.3f}" == f"{high:.3f}" else f"{low:.3f}–{high:.3f}"
        out.append(f"{log_text(key)}: {n} paired queries cannot detect a fall of {summary_tolerance(summary)} in "
                   f"{label(metric, summary.k)} (file mode) for {len(blind)} of "
                   f"{len(found)} strategies: the smallest fall they detect is {span}{more}")
    return out


def not_compared_lines(summary: Summary, key: str) -> list[str]:
    """Strategies skipped on either side, grouped by reason, so the table keeps to what was compared."""
    by_reason: dict[str, list[str]] = {}
    for name, c in summary.comparisons[key].strategies.items():
        if c.status == "skipped":
            by_reason.setdefault(comparison_text.reason(c), []).append(name)
    return [log_text(f"{', '.join(names)} (skipped on {reason})") for reason, names in by_reason.items()]


def warning_lines(suite: SuiteResult, limit: int = 5) -> list[str]:
    """What went wrong but did not stop the run: skipped corpus files, skipped strategies, fallbacks, warnings."""
    lines = [f"skipped corpus file {p}: {why}" for p, why in sorted(suite.skipped_files.items())]
    shown = _one_per_strategy(suite)  # a skip, fallback or warning is the strategy's, whatever the mode
    lines += [f"{s.name}: failed to build: {s.failed}" for s in shown if s.failed]
    lines += [f"{s.name}: skipped: {s.skipped}" for s in shown if s.skipped]
    for s in shown:
        name = s.name
        notes = [*(f"fallback: {f}" for f in s.fallbacks), *s.warnings]
        lines += [f"{name}: {n}" for n in notes[:limit]]
        if len(notes) > limit:
            lines.append(f"{name}: … and {len(notes) - limit} more (see the JSON report)")
    return [log_text(line) for line in lines]  # a file name may hold a newline: never a log line of its own


def query_changes_lines(summary: Summary, key: str, limit: int | None = None) -> list[str]:
    """Added/removed/changed golden queries (never paired), as one line each."""
    cmp = summary.comparisons[key]
    out = []
    for how, ids in (("added", cmp.added), ("removed", cmp.removed), ("changed (text or relevance)", cmp.changed)):
        if ids:
            shown = ids if limit is None else ids[:limit]
            more = f" … and {len(ids) - len(shown)} more" if len(shown) < len(ids) else ""
            out.append(f"queries {how} since base, left out of the paired tests: "
                       f"{', '.join(map(log_text, map(str, shown)))}{more}")
    return out


# -- renderers ---------------------------------------------------------------------------------------------------


def render_text(tables: list[Table | str], width: int = 160) -> str:
    """Plain-text tables (no colour codes: this lands in CI logs too); strings in the list are printed as lines."""
    from io import StringIO

    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    buf = StringIO()
    # Tables take their natural width (never truncated: a cut number is worse than a long line in a CI log).
    console = Console(file=buf, width=max(width, 400), color_system=None, force_terminal=False, soft_wrap=False)
    for item in tables:
        if isinstance(item, str):
            console.print(log_text(item), highlight=False, markup=False)
            continue
        # Text, never markup: a row label such as ``ast[vector]`` or a path with brackets must print as written.
        rt = RichTable(title=Text(log_text(item.title)), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for i, col in enumerate(item.columns):
            rt.add_column(Text(log_text(col)), justify="right" if i in item.right else "left",
                          no_wrap=i not in item.fold, overflow="fold" if i in item.fold else "ellipsis")
        for row in item.rows:
            rt.add_row(*(Text(log_text(cell)) for cell in row))
        console.print(rt)
    # Every name was escaped where it was put; this holds the block to that whatever a future line forgets (and
    # a title rich wraps at a space never starts a line with a name's "::").
    return log_lines(buf.getvalue())


def render_markdown(table: Table, heading: str = "") -> list[str]:
    lines = [f"{heading}{md_text(table.title)}", ""] if heading else [f"**{md_cell(table.title)}**", ""]
    lines.append("| " + " | ".join(md_cell(c) for c in table.columns) + " |")
    lines.append("|" + "|".join("---:" if i in table.right else "---" for i in range(len(table.columns))) + "|")
    lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in table.rows]
    return [*lines, ""]


def unparsed_text(suite: SuiteResult) -> list[str]:
    """The files each strategy's grammar could not parse, a few per strategy (output/unparsed.py)."""
    from pytest_chunkeval.output.unparsed import unparsed

    return [log_text(line) for u in unparsed(suite) for line in (u.headline + ":", *(f"  {f}" for f in u.files))]


def summary_text(summary: Summary, width: int = 160) -> str:
    """The terminal summary: the verdict, then per suite the retrieval and index tables, warnings, and the
    comparison if any."""
    items: list[Any] = []
    if summary.verdict is not None:
        from pytest_chunkeval.output.headline import text_lines

        items += [*text_lines(summary.verdict, summary), ""]
    for key, suite in summary.suites.items():
        items += [retrieval_table(summary, key), retrieval_legend(summary), "", index_table(summary, key),
                  index_legend(summary, key), *warning_lines(suite)]
        items += unparsed_text(suite)
        if key in summary.comparisons:
            items += [comparison_table(summary, key), comparison_legend(summary), *resolving_lines(summary, key)]
            items += query_changes_lines(summary, key, limit=20)
            items += [f"not compared: {line}" for line in not_compared_lines(summary, key)]
            for c in summary.comparisons[key].strategies.values():
                items += [f"{log_text(c.strategy)}: lost on head: {log_text(str(q.id))} (rank {q.base_rank} → none)"
                          for q in c.lost[:10]]
                if len(c.lost) > 10:
                    items.append(f"{log_text(c.strategy)}: … and {len(c.lost) - 10} more lost (see the Markdown or "
                                 "JSON report)")
        items.append("")
    for info in (summary.model.get("models") or {"": {**summary.model, "embedding": summary.embedding}}).values():
        emb = info["embedding"]
        items.append(f"embedded {emb['embedded']} texts, {emb['cached']} from cache (model {info.get('id')})")
    if summary.base and summary.base.get("ref"):
        b = summary.base
        items.append(f"base {b['ref']} ({str(b['commit'])[:10]}):"
                     f" evaluated in a temporary worktree in {b['seconds']}s, "
                     f"embedded {b['embedded']} texts, {b['cached']} from cache")
    return render_text(items, width)
