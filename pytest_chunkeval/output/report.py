"""The JSON report anyone can recompute from, written from the judged run (``judges.judged_run.Summary``).

The JSON keeps every ranking and every chunk's span so each number can be recomputed independently
(``python -m pytest_chunkeval.verify REPORT``). Paths inside a suite are relative to its corpus. The report is strict
JSON: an undefined ratio is ``null``, never ``Infinity``.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pytest_chunkeval.judges.comparison import QueryChange, SuiteComparison
from pytest_chunkeval.judges.judged_run import Summary, Verdict
from pytest_chunkeval.output.comparison_text import problems, reason
from pytest_chunkeval.output.headline import one_line

# 3: every strategy entry names its strategy and retrieval mode ("strategy", "retrieval"); the top-level "retrieval"
# may be a comma list, and then entries are keyed by row label (``ast[vector]``). Version 2 reports still read.
REPORT_VERSION = 3


def _git_commit(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def machine_info() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.machine(),
        "cpus": os.cpu_count(),
    }


def build_report(summary: Summary, root: Path, complete: bool = True) -> dict[str, Any]:
    suites: dict[str, Any] = {}
    for key, suite in summary.suites.items():
        entry = suite.to_entry()  # each judged result brings its vs_baseline and gates
        if key in summary.comparisons:
            entry["comparison"] = comparison_dict(summary.comparisons[key])
        suites[key] = entry
    return {
        "version": REPORT_VERSION,
        "complete": complete,  # False: an interrupted run, written beside the report (never over it)
        "k": summary.k,
        "retrieval": summary.retrieval,
        "retrieval_modes": list(summary.modes),
        "baseline": summary.baseline,
        "gate_thresholds": asdict(summary.thresholds),
        "model": summary.model,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "root": str(root.resolve()),
        "commit": _git_commit(root),
        "machine": machine_info(),
        "embedding": summary.embedding,
        "comparable": run_identity(summary.k, summary.model, summary.modes),
        "base": summary.base,
        "verdict": _verdict_dict(summary.verdict),
        "family": {"size": summary.family_size, "correction": summary.correction} if summary.comparisons else None,
        "suites": suites,
    }


def _change_dict(c: QueryChange) -> dict[str, Any]:
    return {
        "id": c.id,
        "query": c.text,
        "relevant": [{"path": r.path, "lines": list(r.lines) if r.lines else None} for r in c.relevant],
        "base_rank": c.base_rank,
        "head_rank": c.head_rank,
        "base_chunks": [[s.path, s.start_line, s.end_line, s.kind] for s in c.base_chunks],
        "head_chunks": [[s.path, s.start_line, s.end_line, s.kind] for s in c.head_chunks],
        "head_top": [[r.path, r.start_line, r.end_line] for r in c.head_top],
    }


def comparison_dict(cmp: SuiteComparison) -> dict[str, Any]:
    """A suite's comparison as the report's ``comparison`` section: every number, and the problems in words."""
    return {
        "has_base": cmp.has_base,
        "queries": {"added": cmp.added, "removed": cmp.removed, "changed": cmp.changed},
        "strategies": {
            name: {
                "status": s.status,
                "verdict": s.verdict,
                "reason": reason(s),
                "paired_queries": s.paired,
                "metrics": [
                    {"mode": d.mode, "metric": d.metric, "base": d.base, "head": d.head, "delta": d.delta,
                     "ci_low": d.ci_low, "ci_high": d.ci_high, "p_value": d.p_value, "regressed": d.regressed,
                     "gating": d.gating, "fell": d.fell, "p_adjusted": d.p_adjusted, "sd": d.sd, "mde": d.mde,
                     "queries_for_tolerance": d.queries_for_tolerance}
                    for d in s.deltas
                ],
                "hits": None if s.hits is None else {
                    "lost": s.hits.lost, "gained": s.hits.gained, "paired": s.hits.paired, "net": s.hits.net,
                    "p_value": s.hits.p_value, "p_adjusted": s.hits.p_adjusted, "fell": s.hits.fell,
                    "regressed": s.hits.regressed},
                "index": {"base": s.base_size, "head": s.head_size, "relative": s.size_change,
                          "regressed": s.size_regressed, "base_chunks": s.base_chunks, "head_chunks": s.head_chunks},
                "problems": problems(s),
                "lost": [_change_dict(c) for c in s.lost],
                "gained": [_change_dict(c) for c in s.gained],
                "files_rechunked": s.files_rechunked,
                "new_warnings": s.new_warnings,
            }
            for name, s in cmp.strategies.items()
        },
    }


def run_identity(k: int, model: dict[str, Any], modes: tuple[str, ...]) -> dict[str, Any]:
    """What another run must share to be compared with this one (comparable.FIELDS)."""
    from pytest_chunkeval.core.vocabulary import DEFAULT_BUDGETS
    from pytest_chunkeval.results.comparable import identity, metric_set

    return identity(k, str(model.get("id")), model.get("sha256") or {}, modes, DEFAULT_BUDGETS,
                    metric_set(k, DEFAULT_BUDGETS), str(model.get("revision") or ""))


def _verdict_dict(verdict: Verdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {"passed": verdict.passed, "headline": one_line(verdict), "notes": list(verdict.notes),
            "reasons": [{"title": r.title, "lines": list(r.lines), "settle": r.settle} for r in verdict.reasons]}


def write_json(report: dict[str, Any], path: Path) -> None:
    """Atomically (a reader never sees half a report; two writers never share a temporary file), and strictly: NaN
    or infinity is a bug, not a value.

    Compact, one line: the report holds every ranking and chunk span (megabytes on a real suite), and an indented
    dump goes through the json module's slow pure-Python encoder on every warm run; ``python -m json.tool`` or
    ``jq`` shows it indented."""
    from pytest_chunkeval.output.files import write_text

    write_text(path, json.dumps(report, separators=(",", ":"), allow_nan=False))
