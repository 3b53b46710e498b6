"""Independent recomputation of a JSON report's per-query metrics with trec_eval (pytrec_eval).

The requirement (docs/background/DESIGN.md, "Metric definitions"): every per-query metric in the report, in every
mode, equals an independent trec_eval-semantics computation from the report's own rankings, chunk lists and the golden
file, to 1e-9. Line mode is scored by trec_eval too: each line is a document (``path:line``), the run is the top-k
chunks' lines in rank order (``ndcg``, no cutoff) or the lines inside a token budget (``set_recall``).

Independence is the point, so this module shares no code with the harness (only the names of the metric keys, from
:mod:`pytest_chunkeval.core.vocabulary`, and the checked report reader of :mod:`pytest_chunkeval.results.report_file`,
which compute nothing: a report that is not strict JSON of the report's shape, with its numbers in range, is one message
naming the file, exit 2): it reads the golden file with its own
tiny loader, builds its own qrels (file mode: file -> max grade; chunk mode: every chunk in the report's ``chunks``
list that overlaps a relevant item) and its own runs, and lets trec_eval score them.  The ranking order stored in the
report is authoritative: runs get strictly decreasing synthetic scores by rank, so trec_eval's own tie-break
(score desc, docno desc) cannot reorder them.  trec_eval drops queries without relevant documents or without
retrieved documents; those are scored 0.0 explicitly here, as the harness does.

Usage: ``python -m pytest_chunkeval.verify REPORT.json [...]`` prints each mismatch and
"N metrics checked, M mismatches"; the exit status is 1 when anything mismatches, 2 when a file is not a report.

pytrec_eval is the ``verify`` extra (``pip install 'pytest-chunkeval[verify]'``; the ``test`` extra has it too)
and is imported only when needed: without it the command says so in one line.
"""

from __future__ import annotations

import json
import math
import posixpath
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_chunkeval.core.vocabulary import (
    BUDGET_RECALL,
    CHUNK,
    DEFAULT_K,
    FILE,
    LINES,
    MRR,
    NDCG,
    RANK_MODES,
    RECALL,
    budget_key,
    metric_key,
    metric_keys,
)
from pytest_chunkeval.results.report_file import ReportError, read_report

__all__ = ["VerifyResult", "check_report", "verify_report", "load_golden", "main"]

TOLERANCE = 1e-9
#: trec_eval's measure for each rank metric at cutoff k, and the key its result comes back under.
TREC_MEASURES = {NDCG: ("ndcg_cut.{k}", "ndcg_cut_{k}"), RECALL: ("recall.{k}", "recall_{k}"),
                 MRR: ("recip_rank", "recip_rank")}
#: trec_eval's measure for each line metric: NDCG over the whole projected run (it holds only the lines of the top k,
#: so no cutoff), and set recall over the lines inside a token budget.
LINE_MEASURES = {NDCG: "ndcg", BUDGET_RECALL: "set_recall"}


@dataclass
class VerifyResult:
    """How many report numbers were compared, and a description of each one that differs or could not be checked."""

    checked: int = 0
    mismatches: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------- golden loading


def _norm(path: str) -> str:
    return posixpath.normpath(str(path).replace("\\", "/"))


def _lines(value: Any) -> tuple[int, int] | None:
    if value is None or value == []:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return (int(value[0]), int(value[1]))
    raise ValueError(f"lines must be [start, end], got {value!r}")


def load_golden(path: Path) -> dict[str, list[tuple[str, tuple[int, int] | None, int]]]:
    """Query id -> relevant items ``(path, lines or None, grade)`` from a YAML or JSONL golden file.

    Accepts a YAML/JSON list of queries or a mapping with a ``queries`` list, and JSONL with one query per line
    (optionally after a header line that has neither ``id`` nor ``query``, such as ``{"corpus": "src"}``).
    """
    text = Path(path).read_text(encoding="utf-8")
    if Path(path).suffix.lower() == ".jsonl":
        raw: Any = [json.loads(line) for line in text.splitlines() if line.strip()]
        if raw and isinstance(raw[0], Mapping) and "id" not in raw[0] and "query" not in raw[0]:
            raw = raw[1:]
    else:
        import yaml

        raw = yaml.safe_load(text)
        if isinstance(raw, Mapping):
            raw = raw.get("queries")
    if not isinstance(raw, list):
        raise ValueError(f"{path}: expected a list of queries")
    out: dict[str, list[tuple[str, tuple[int, int] | None, int]]] = {}
    for q in raw:
        items = []
        for item in q.get("relevant") or []:
            if isinstance(item, str):
                item = {"path": item}
            grade = item.get("grade")
            items.append((_norm(item["path"]), _lines(item.get("lines")), 1 if grade is None else int(grade)))
        out[str(q["id"])] = items
    return out


# ------------------------------------------------------------------------------------------------- qrels and runs


def _chunk_grade(path: str, start: int, end: int, items: Sequence[tuple[str, tuple[int, int] | None, int]]) -> int:
    grade = 0
    for ipath, lines, igrade in items:
        if ipath == path and (lines is None or (start <= lines[1] and lines[0] <= end)):
            grade = max(grade, igrade)
    return grade


def _trec_eval(qrels: dict, run: dict, k: int) -> dict[str, dict[str, float]]:
    """Query id -> {"ndcg@k", "recall@k", "mrr@k"} from trec_eval, for queries that have qrels and a run."""
    import pytrec_eval

    qrels = {q: d for q, d in qrels.items() if d}
    run = {q: d for q, d in run.items() if d}
    if not qrels or not run:
        return {}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {asked.format(k=k) for asked, _ in TREC_MEASURES.values()})
    return {
        q: {metric_key(metric, k): m[answer.format(k=k)] for metric, (_, answer) in TREC_MEASURES.items()}
        for q, m in evaluator.evaluate(run).items()
    }


def _synthetic(docnos: Sequence[str]) -> dict[str, float]:
    # Strictly decreasing scores: trec_eval sorts by score first, so the report's order survives.
    n = len(docnos)
    return {d: float(n - i) for i, d in enumerate(docnos)}


def _file_qrels(items: Sequence[tuple[str, tuple[int, int] | None, int]]) -> dict[str, int]:
    """File mode's qrels of one query: each relevant file with the highest grade of its items."""
    qrels: dict[str, int] = {}
    for ipath, _, grade in items:
        if grade > 0:
            qrels[ipath] = max(qrels.get(ipath, 0), grade)
    return qrels


def _ranking_problems(top: Sequence[Mapping[str, Any]], ids: list[str], chunks: Mapping[str, tuple[str, int, int]],
                      where: str, k: int) -> list[str]:
    """What is wrong with a query's stored top k: a chunk twice, or a chunk that is not the one the report's chunk
    list names (the chunk-mode qrels come from that list)."""
    out = [f"{where}: a chunk id appears twice in the top {k}"] if len(set(ids)) != len(ids) else []
    for r, cid in zip(top, ids, strict=True):
        ref = (_norm(r["path"]), int(r["start_line"]), int(r["end_line"]))
        if cid not in chunks:
            out.append(f"{where}: ranked chunk {cid!r} is not in the chunks list")
        elif chunks[cid] != ref:
            out.append(f"{where}: ranked chunk {cid!r} is {ref} but the chunks list says {chunks[cid]}")
    return out


def _expected(
    strategy: Mapping[str, Any], golden: Mapping[str, list], k: int, where: str, result: VerifyResult
) -> dict[str, dict[str, dict[str, float]]]:
    """Mode -> query id -> metric -> trec_eval value, for every query of one strategy in the report."""
    chunks: dict[str, tuple[str, int, int]] = {}
    for c in strategy.get("chunks") or []:
        chunks[str(c["id"])] = (_norm(c["path"]), int(c["start_line"]), int(c["end_line"]))

    qrels: dict[str, dict[str, dict[str, int]]] = {FILE: {}, CHUNK: {}}
    runs: dict[str, dict[str, dict[str, float]]] = {FILE: {}, CHUNK: {}}
    for qid, entry in (strategy.get("queries") or {}).items():
        qid = str(qid)
        if qid not in golden:
            result.mismatches.append(f"{where} query {qid!r}: not in the golden file")
            continue
        items = golden[qid]
        qrels[FILE][qid] = _file_qrels(items)
        qrels[CHUNK][qid] = {
            cid: g for cid, (p, s, e) in chunks.items() if (g := _chunk_grade(p, s, e, items)) > 0
        }
        top = list(entry.get("ranking") or [])[:k]
        ids = [str(r["chunk_id"]) for r in top]
        result.mismatches += _ranking_problems(top, ids, chunks, f"{where} query {qid!r}", k)
        runs[FILE][qid] = _synthetic(list(dict.fromkeys(_norm(r["path"]) for r in top)))
        runs[CHUNK][qid] = _synthetic(list(dict.fromkeys(ids)))

    zeros = dict.fromkeys(metric_keys(k), 0.0)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for mode in RANK_MODES:
        scored = _trec_eval(qrels[mode], runs[mode], k)
        # Queries trec_eval drops (nothing relevant, nothing retrieved) score 0.0.
        out[mode] = {qid: scored.get(qid, dict(zeros)) for qid in runs[mode]}
    return out


# ------------------------------------------------------------------------------------------------------ comparison


def _close(actual: Any, expected: float) -> bool:
    return (
        isinstance(actual, (int, float))
        and not isinstance(actual, bool)
        and math.isfinite(actual)
        and abs(actual - expected) <= TOLERANCE
    )


def _aggregate_value(value: Any) -> Any:
    # An aggregate is a plain mean or a summary with a "mean" (and its interval).
    return value.get("mean") if isinstance(value, Mapping) else value


def _budget_lines(top: Sequence[Mapping[str, Any]], budget: int) -> list[str] | None:
    """Docnos of the lines inside the first ``budget`` tokens of ``top``; None when a token count is missing."""
    left, inside = budget, []
    for r in top:
        if "tokens" not in r:
            return None
        if left <= 0:
            break
        n, start, end = int(r["tokens"]), int(r["start_line"]), int(r["end_line"])
        span = end - start + 1
        fits = span if n <= left else (span * left) // n
        inside += [f"{_norm(r['path'])}:{line}" for line in range(start, start + fits)]
        left -= n
    return list(dict.fromkeys(inside))


def _expected_lines(strategy: Mapping[str, Any], golden: Mapping[str, list], file_lines: Mapping[str, int], k: int,
                    budgets: Sequence[int]) -> dict[str, dict[str, float]]:
    """Query id -> line-mode metrics by trec_eval: ``ndcg`` over the projected lines (no cutoff: the run holds only
    the lines of the top k) and ``set_recall`` over the lines inside each token budget."""
    import pytrec_eval

    out: dict[str, dict[str, float]] = {}
    for qid, entry in (strategy.get("queries") or {}).items():
        qid = str(qid)
        qrels: dict[str, int] = {}
        for ipath, lines, grade in golden.get(qid, []):
            if grade <= 0:
                continue
            lo, hi = lines if lines is not None else (1, int(file_lines.get(ipath, 0)))
            for line in range(lo, hi + 1):
                docno = f"{ipath}:{line}"
                qrels[docno] = max(qrels.get(docno, 0), grade)
        top = list(entry.get("ranking") or [])[:k]
        projected = list(dict.fromkeys(
            f"{_norm(r['path'])}:{line}" for r in top for line in range(int(r["start_line"]), int(r["end_line"]) + 1)
        ))
        values = {metric_key(NDCG, k): 0.0}
        if qrels and projected:
            measure = LINE_MEASURES[NDCG]
            ev = pytrec_eval.RelevanceEvaluator({qid: qrels}, {measure})
            values[metric_key(NDCG, k)] = ev.evaluate({qid: _synthetic(projected)})[qid][measure]
        for b in budgets:
            inside = _budget_lines(top, b)
            if inside is None:
                continue  # no token counts in this report: budget recall cannot be recomputed
            values[budget_key(b)] = 0.0
            if qrels and inside:
                binary = {d: 1 for d in qrels}
                measure = LINE_MEASURES[BUDGET_RECALL]
                ev = pytrec_eval.RelevanceEvaluator({qid: binary}, {measure})
                values[budget_key(b)] = ev.evaluate({qid: _synthetic(inside)})[qid][measure]
        out[qid] = values
    return out


def _check_lines(strategy: Mapping[str, Any], golden: Mapping[str, list], file_lines: Mapping[str, int], k: int,
                 where: str, result: VerifyResult) -> None:
    queries = strategy.get("queries") or {}
    reported_any = any(((q or {}).get("metrics") or {}).get(LINES) for q in queries.values())
    if not reported_any:
        return  # a report from before the line-level measures
    names = [m for q in queries.values() for m in (((q or {}).get("metrics") or {}).get(LINES) or {})]
    budgets = sorted({int(cutoff) for metric, at, cutoff in (m.partition("@") for m in names)
                      if metric == BUDGET_RECALL and at})
    expected = _expected_lines(strategy, golden, file_lines, k, budgets)
    for qid, values in expected.items():
        reported = ((queries.get(qid) or {}).get("metrics") or {}).get(LINES) or {}
        for metric, value in values.items():
            result.checked += 1
            if not _close(reported.get(metric), value):
                result.mismatches.append(
                    f"{where} query {qid!r} lines {metric}: report {reported.get(metric)!r}, trec_eval {value!r}")
    aggregate = (strategy.get("aggregate") or {}).get(LINES) or {}
    for metric in aggregate:
        per_query = [v[metric] for v in expected.values() if metric in v]
        if not per_query:
            continue
        result.checked += 1
        mean = math.fsum(per_query) / len(per_query)
        if not _close(_aggregate_value(aggregate[metric]), mean):
            result.mismatches.append(f"{where} aggregate lines {metric}: report {aggregate[metric]!r}, mean {mean!r}")


def check_report(report_path: Path) -> VerifyResult:
    """Recompute every per-query metric of the report (and each aggregate mean) and compare within 1e-9."""
    report_path = Path(report_path)
    # The checked reader, as frontier, calibrate and --chunkeval-compare read reports: strict JSON of the report's
    # shape, numbers in their fields' range, or one ReportError naming the file (never a traceback mid-check).
    report = read_report(report_path)
    k = int(report.get("k", DEFAULT_K))
    names = metric_keys(k)
    # Metrics do not depend on how a ranking was searched, so every (strategy, retrieval mode) entry is recomputed
    # alike; what is checked about the mode is that each entry's is one the report says it evaluated.
    modes = [m for m in str(report.get("retrieval") or "").split(",") if m]
    result = VerifyResult()
    for suite_key, suite in (report.get("suites") or {}).items():
        golden_path = Path(suite.get("golden") or suite_key)
        if not golden_path.is_absolute():
            # Suite paths are relative to the project root the report names, else to the report's folder.
            golden_path = Path(report.get("root") or report_path.parent) / golden_path
        try:
            golden = load_golden(golden_path)
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            result.mismatches.append(f"suite {suite_key!r}: cannot read golden file {golden_path}: {exc}")
            continue
        for name, strategy in (suite.get("strategies") or {}).items():
            where = f"{suite_key} / {name}"
            mode = strategy.get("retrieval")
            if mode and modes and mode not in modes:
                result.mismatches.append(f"{where}: retrieval mode {mode!r} is not one of the report's {modes}")
            _check_lines(strategy, golden, suite.get("file_lines") or {}, k, where, result)
            _check_ranks(strategy, _expected(strategy, golden, k, where, result), names, where, result)
    return result


def _check_ranks(strategy: Mapping[str, Any], expected: Mapping[str, Mapping[str, Mapping[str, float]]],
                 names: Sequence[str], where: str, result: VerifyResult) -> None:
    """Compare one strategy's file- and chunk-mode metrics, per query and their means, with trec_eval's."""
    queries = strategy.get("queries") or {}
    for mode in RANK_MODES:
        for qid, values in expected[mode].items():
            reported = ((queries.get(qid) or {}).get("metrics") or {}).get(mode) or {}
            for metric in names:
                result.checked += 1
                actual = reported.get(metric)
                if not _close(actual, values[metric]):
                    result.mismatches.append(
                        f"{where} query {qid!r} {mode} {metric}: report {actual!r}, "
                        f"trec_eval {values[metric]!r}"
                    )
        aggregate = ((strategy.get("aggregate") or {}).get(mode)) or {}
        for metric in names:
            if metric not in aggregate or not expected[mode]:
                continue
            result.checked += 1
            per_query = [v[metric] for v in expected[mode].values()]
            mean = math.fsum(per_query) / len(per_query)
            actual = _aggregate_value(aggregate[metric])
            if not _close(actual, mean):
                result.mismatches.append(
                    f"{where} aggregate {mode} {metric}: report {actual!r}, mean of trec_eval {mean!r}"
                )


def verify_report(report_path: Path) -> list[str]:
    """Mismatch descriptions for the report at ``report_path``; an empty list means every number checked out."""
    return check_report(report_path).mismatches


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m pytest_chunkeval.verify REPORT.json [REPORT.json ...]", file=sys.stderr)
        return 2
    import importlib.util

    if importlib.util.find_spec("pytrec_eval") is None:  # the oracle is an extra, not a dependency of the plugin
        print("python -m pytest_chunkeval.verify needs trec_eval's Python binding: pip install "
              "'pytest-chunkeval[verify]' (or pytrec-eval-terrier)", file=sys.stderr)
        return 2
    checked = 0
    mismatches: list[str] = []
    for arg in args:
        try:
            res = check_report(Path(arg))
        except ReportError as exc:
            print(f"python -m pytest_chunkeval.verify: {exc}", file=sys.stderr)
            return 2
        checked += res.checked
        mismatches.extend(f"{arg}: {m}" for m in res.mismatches)
    for m in mismatches:
        print(m)
    print(f"{checked} metrics checked, {len(mismatches)} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
