"""The messages of evaluation items: what a reviewer reads under a failed, skipped or xfailed item's header.

The items (``run/items.py``) decide whether an item passes, skips, xfails or fails; these functions only say it, from
typed facts, so a message can be read and changed beside the other outputs without reading pytest's node machinery.
A file name or a query's text in a message is shown escaped (``log_text``), so it can never start a line of the log
of its own (a workflow command in GitHub Actions).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_chunkeval.output.comparison_text import problems
from pytest_chunkeval.output.escape import log_text

if TYPE_CHECKING:
    from pytest_chunkeval.chunking.contract import Registration
    from pytest_chunkeval.evaluation.build_facts import BuildFacts
    from pytest_chunkeval.judges.comparison import StrategyComparison
    from pytest_chunkeval.scoring.outcomes import QueryOutcome
    from pytest_chunkeval.scoring.quality import ParseErrors, QualityReport

SHOWN_EXAMPLES = 15  # uncovered lines or oversized chunks listed under a broken declaration
WORST_QUERIES = 5  # the queries a failing gate lists, those that moved its metric most
LOST_QUERIES = 10  # the lost queries a failed comparison lists (the reports list every one)


def build_error(reg: Registration, exc: BaseException) -> str:
    """Why ``reg`` could not be built, in one line a reviewer can act on: a config's or grammar's own
    ``file:line: $.path: reason`` as written (they name their file), else the exception with its type and the
    place that registered the strategy."""
    if isinstance(exc, ValueError) and str(exc):
        return "; ".join(line for line in str(exc).splitlines() if line.strip())
    where = reg.provider or reg.origin
    return f"{type(exc).__name__}: {exc} ({where})"


# -- an evaluation that failed, or has nothing to evaluate -------------------------------------------------------


def build_failed(name: str, reason: str) -> str:
    """``name`` made no index of the suite, said in full by the first of its items."""
    return f"{name} failed to build: {reason}"


def build_failed_see(name: str, first: str) -> str:
    """Every later item of a strategy that failed to build: a skip pointing to the item that said why."""
    return f"{name} failed to build: see {first}"


def evaluation_failed_see(label: str, first: str) -> str:
    """Every later item of an evaluation that failed: one line pointing to the item that reported it in full."""
    return f"the evaluation of {label} on this suite failed: see {first}"


def model_failed(error: BaseException) -> str:
    """The embedding model itself failed (every strategy would, and pay): why the session stops, and the item's
    failure."""
    return f"the embedding model failed: {error}"


def strategy_skipped(name: str, reason: str) -> str:
    """A strategy with nothing to evaluate on this suite (it handles none of its files, say)."""
    return f"{name}: {reason}"


# -- a query's miss, or its fix -----------------------------------------------------------------------------------


def describe_outcome(outcome: QueryOutcome, k: int) -> list[str]:
    """The query, its relevant spans, what was retrieved (hits marked) and its metrics, a line each."""
    from pytest_chunkeval.scoring.metrics import chunk_grade

    q = outcome.query
    lines = [f"query {q.id!r}: {log_text(q.text)}", "relevant:"]
    for r in q.relevant:
        span = f" lines {r.lines[0]}-{r.lines[1]}" if r.lines else ""
        lines.append(f"  {log_text(r.path)}{span} (grade {r.grade})")
    lines.append(f"top {k} retrieved:")
    for i, hit in enumerate(outcome.ranking, 1):
        mark = "✓" if chunk_grade(hit.path, hit.start_line, hit.end_line, q.relevant) else " "
        lines.append(f"  {i:2d}. {mark} {log_text(hit.path)}:{hit.start_line}-{hit.end_line}  score {hit.score:.4f}")
    if not outcome.ranking:
        lines.append("  (nothing)")
    m = outcome.metrics
    lines.append(
        "metrics: " + ", ".join(f"{mode} " + " ".join(f"{k_}={v:.3f}" for k_, v in m[mode].items()) for mode in m)
    )
    return lines


def _query_message(head: str, name: str, outcome: QueryOutcome, k: int, base_rank: str | None,
                   tail: list[str]) -> str:
    if base_rank:
        head += f"\n{name} {base_rank}"
    return "\n".join([head, *describe_outcome(outcome, k), *tail])


def miss_message(name: str, outcome: QueryOutcome, k: int, base_rank: str | None) -> str:
    """A query ``name`` missed that the accepted-misses record does not list (``base_rank``: where the base ranked
    it, when a base is known)."""
    criterion = "hits are judged per chunk; the file-mode metrics below credit any chunk of a relevant file"
    head = f"MISS: {name}: no chunk in the top {k} overlaps a relevant line span ({criterion})"
    tail = ["If this miss is expected, record it: run the same command with --chunkeval-accept-misses."]
    return _query_message(head, name, outcome, k, base_rank, tail)


def fixed_message(name: str, outcome: QueryOutcome, k: int, base_rank: str | None, record: Path) -> str:
    """A query ``name`` now finds that ``record`` lists as an accepted miss."""
    head = (f"FIXED: {name}: a chunk in the top {k} now overlaps a relevant line span, but the query is "
            f"recorded as an accepted miss; refresh the record with --chunkeval-accept-misses "
            f"({record})")
    return _query_message(head, name, outcome, k, base_rank, [])


def base_rank(found: tuple[str, int | None] | None, k: int) -> str | None:
    """'on base main: rank 3' / '…: not in the top 10' from :meth:`BaseSide.ranked` (None: not paired)."""
    if found is None:
        return None
    where, rank = found
    return f"{where}: rank {rank}" if rank is not None else f"{where}: not in the top {k}"


def base_where(base: str | None, compare: Path | None) -> str:
    """Where a base rank was measured: on the git ref ``base``, else in the stored report ``compare``."""
    return f"on base {base}" if base else f"in {compare}"


def miss_against_base(found: tuple[str, int | None] | None, k: int, item: str) -> str:
    """Why a query missed with a base is xfailed, not failed: one query is evidence, the comparison ``item``'s hit
    test weighs every lost query against the gained ones (``found``: :meth:`BaseSide.ranked`, None: not paired)."""
    rank = base_rank(found, k)
    if found is None:
        return ("missed; not paired with the base (a query added or changed, or a strategy new on head): "
                "evidence, not judged")
    if found[1] is not None:
        return f"lost against the base ({rank}): evidence for {item}, whose hit test weighs lost against gained queries"
    return f"missed on both sides ({rank})"


def miss_not_recorded(record: Path) -> str:
    """A miss the record does not list, in a run without a base and ``chunkeval_misses = report``."""
    return (f"missed; {record.name} does not list it (lost since the record was made, or a query added since): "
            "reported, not failed (chunkeval_misses = report)")


MISSED_AT_GRID_POINT = "missed at a grid point: measured, not gated (--chunkeval-gate-grid fails it)"


def no_record_yet(record: Path, settings: str) -> str:
    """A miss under ``settings`` that ``record`` holds nothing for yet: listed at the end, not failed."""
    return f"missed; {record} holds no record for {settings} yet"


def accepted_miss(record: Path, family: str | None) -> str:
    """A miss ``record`` lists, for this strategy or (``family``) for the strategy of its grid point."""
    whose = "" if family is None else f" for {family}"
    return f"accepted miss (recorded{whose} in {record.name})"


# -- quality checks: a declaration not made (skip) or broken (failure) --------------------------------------------


def not_lossless(name: str, q: QualityReport) -> str:
    return f"{name} does not claim to be lossless (line coverage {q.coverage:.1%})"


def lossless_broken(name: str, q: QualityReport) -> str:
    return (f"{name} claims to be lossless but {len(q.uncovered)} of {q.lines_checked} non-blank lines are in no "
            "chunk:\n" + "\n".join(f"  {log_text(str(u))}" for u in q.uncovered[:SHOWN_EXAMPLES]))


def no_size_limit(name: str, q: QualityReport) -> str:
    return f"{name} declares no size limit (largest chunk: {q.largest} {q.size_unit})"


def size_limit_broken(name: str, q: QualityReport) -> str:
    return (f"{len(q.over_limit)} of {q.chunks} chunks exceed {name}'s limit of {q.max_chunk_size} {q.size_unit}:\n"
            + "\n".join(f"  {log_text(str(o))}" for o in q.over_limit[:SHOWN_EXAMPLES]))


def _window_summary(q: QualityReport) -> str:
    return (f"{q.over_window} of {q.chunks} chunks ({q.window_share:.1%}) exceed the embedder's"
            f" {q.window_tokens}-token window and are truncated")


def no_window_promise(name: str, q: QualityReport) -> str:
    return f"{name} does not promise to fit the window: {_window_summary(q)}"


def window_broken(name: str, q: QualityReport) -> str:
    return (f"{name} promises every chunk fits, but {_window_summary(q)}:\n"
            + "\n".join(f"  {log_text(str(e))}" for e in q.over_window_examples))


def fallback_exceeded(name: str, facts: BuildFacts, share: float, limit: float) -> str:
    """``name``'s own chunking failed on a ``share`` of its files, more than ``limit`` allows."""
    return (f"{name}'s own chunking failed on {len(facts.fallbacks)} of {facts.files_handled} files "
            f"({share:.0%}), more than chunkeval_max_fallback allows ({limit:.0%}): those files were cut into "
            f"fixed windows instead, so this row does not measure {name} there.\n"
            f"first: {log_text(str(facts.fallbacks[0]))}\n{_timed_out(facts.fallbacks[1:])}"
            "Fix the strategy, or allow a share explicitly: --chunkeval-max-fallback=0.1 "
            "(ini chunkeval_max_fallback)")


def parses_nothing(name: str) -> str:
    return f"{name} reports no parsing (no parse_errors counter): there is no grammar whose errors to count"


def parse_errors_exceeded(name: str, pe: ParseErrors, limit: float) -> str:
    """``name``'s grammar could not parse a ``pe.share`` of its files, more than ``limit`` allows: which, where."""
    from pytest_chunkeval.scoring.quality import regions_text

    shown = list(pe.regions.items())[:SHOWN_EXAMPLES]
    lines = "".join(f"  {log_text(path)}: {regions_text(regions)}\n" for path, regions in shown)
    more = len(pe.regions) - len(shown)
    unnamed = pe.count - len(pe.regions)
    first = f"; first: {log_text(shown[0][0])}: {regions_text(shown[0][1])}" if shown else ""
    return (f"{name}'s grammar could not parse {pe.count} of {pe.files} files ({pe.share:.0%}), more than "
            f"chunkeval_max_parse_errors allows ({limit:.0%}){first}\n"
            f"Chunks cut through an error region measure the grammar, not {name}. The regions it could not read:\n"
            f"{lines}"
            + (f"  … and {more} more files (every one is in the JSON report's strategy_stats.parse_error_lines)\n"
               if more > 0 else "")
            + (f"  ({unnamed} more counted but not named by the strategy)\n" if unnamed > 0 else "")
            + "Fix the grammar (or the files, or which files the strategy handles), or allow a share explicitly: "
            "--chunkeval-max-parse-errors=0.1 (ini chunkeval_max_parse_errors)")


def _timed_out(fallbacks: list[str]) -> str:
    """The fallbacks past the first that ran out of time, one line each: a hang is worth naming even when another
    file failed first."""
    from pytest_chunkeval.chunking.boundary import LIMIT_SETTING

    return "".join(f"timed out: {f}\n" for f in fallbacks if f.endswith(f"({LIMIT_SETTING})"))


# -- a gate against the baseline, a comparison against the base ---------------------------------------------------


def baseline_not_registered(baseline: str) -> str:
    return f"baseline strategy {baseline!r} is not registered; gates compare against it"


def baseline_skipped(baseline: str, reason: str) -> str:
    return f"baseline {baseline} was skipped on this suite: {reason}"


def baseline_failed(baseline: str, reason: str) -> str:
    return f"baseline {baseline} failed to build on this suite: {reason}"


def gate_against(baseline: str, mode: str, labelled: bool) -> str:
    """What a gate compares with: the baseline, searched with ``mode`` when the candidate's label names more than
    its strategy (several retrieval modes or models)."""
    return f"{baseline}[{mode}]" if labelled else baseline


def gate_failure(name: str, gate: str, against: str, detail: str, *, metric: str | None, mode: str,
                 candidate: Mapping[str, QueryOutcome], baseline: Mapping[str, QueryOutcome]) -> str:
    """Candidate ``name`` failing ``gate`` against ``against``: the gate's ``detail`` and, for a gate on a ``metric``,
    the queries that fell most on it (candidate vs baseline, ``mode`` retrieval)."""
    lines = [f"{name} fails gate {gate} against {against}: {detail}"]
    if metric is not None:
        def value(outcomes: Mapping[str, QueryOutcome], q: str) -> float:
            return outcomes[q].metrics[mode][metric]

        worst = sorted(candidate, key=lambda q: value(candidate, q) - value(baseline, q))[:WORST_QUERIES]
        lines.append(f"worst queries ({metric}, {mode} mode, candidate vs baseline):")
        lines += [f"  {q}: {value(candidate, q):.3f} vs {value(baseline, q):.3f} — {candidate[q].query.text}"
                  for q in worst]
    return "\n".join(map(log_text, lines))  # the baseline (a setting), a query id or text: each line one line


def base_failed_see(first: str) -> str:
    """Every later comparison item of a base that could not be evaluated or compared with."""
    return f"the base could not be evaluated: see {first}"


def no_comparison(name: str, status: str, reason: str) -> str:
    """A strategy with no comparison with the base: new on head, removed, or skipped on one side."""
    return f"{name}: no comparison ({status}: {reason})"


def compared_with(base: str | None, compare: Path | None) -> str:
    """What a comparison is against: the git ref ``base``, else the stored report ``compare``."""
    return f"base {base}" if base else str(compare)


def comparison_failure(cmp: StrategyComparison, *, against: str, k: int, tolerance: float, alpha: float | None,
                       correction: str, family_size: int, size_increase: float) -> str:
    """``cmp.strategy`` worse than on ``against`` (the base ref or stored report): the rule it broke (a fall past
    ``tolerance`` with a paired p below ``alpha`` after ``correction`` across ``family_size`` tests, or index growth
    past ``size_increase``), each problem, the lost queries, moved boundaries and new warnings."""
    significance = (f"a paired p below {alpha} after {correction} adjustment across the run's {family_size} gating "
                    "tests" if alpha is not None else "no significance required")
    lines = [f"{cmp.strategy} got worse than on {against} ({cmp.paired} paired queries; a fall of file-mode "
             f"NDCG or R, or a net share of queries lost (lost minus gained), counts past {tolerance} with "
             f"{significance}; index growth of {size_increase:.0%} fails):"]
    lines += [f"  {p}" for p in problems(cmp)]
    if cmp.lost:
        lines.append(f"lost queries (a relevant chunk in the top {k} on base, none on head):")
        for q in cmp.lost[:LOST_QUERIES]:
            spans = ", ".join(f"{r.path}:{r.lines[0]}-{r.lines[1]}" if r.lines else r.path for r in q.relevant)
            lines.append(f"  {q.id}: rank {q.base_rank} -> none — {q.text}")
            lines.append(f"    relevant {spans}; chunks there on base: "
                         + (", ".join(c.label for c in q.base_chunks) or "none")
                         + "; on head: "
                         + (", ".join(c.label for c in q.head_chunks) or "none"))
        if len(cmp.lost) > LOST_QUERIES:
            lines.append(f"  … and {len(cmp.lost) - LOST_QUERIES} more (every one is in the Markdown and JSON reports)")
    if cmp.files_rechunked:
        lines.append(f"chunk boundaries moved in {len(cmp.files_rechunked)} files ({cmp.base_chunks} -> "
                     f"{cmp.head_chunks} chunks)")
    lines += [f"new warning: {w}" for w in cmp.new_warnings[:5]]
    return "\n".join(map(log_text, lines))
