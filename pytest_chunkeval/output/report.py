"""The evaluation's outputs as one value (:class:`Summary`) and the JSON report anyone can recompute from.

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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_chunkeval.results import SuiteResult
from pytest_chunkeval.scoring.comparison import SuiteComparison, comparison_dict
from pytest_chunkeval.scoring.gates import Thresholds

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


@dataclass
class Summary:
    """Everything a renderer needs: the typed results (each judged against the baseline once:
    ``scoring.against_baseline``), the settings they were made under, the comparisons and the verdict. Renderers
    read it; none of them judges anything."""

    k: int
    retrieval: str
    baseline: str
    model: dict[str, Any]
    embedding: dict[str, int]
    suites: dict[str, SuiteResult]
    thresholds: Thresholds = field(default_factory=Thresholds)
    comparisons: dict[str, SuiteComparison] = field(default_factory=dict)
    base: dict[str, Any] | None = None  # what the comparisons are against: a git ref's evaluation or a stored report
    family_size: int = 0  # the paired tests that can fail the run (gating metrics of changed strategies)
    correction: str = "holm"  # how their p-values were adjusted across the family
    verdict: Any = None  # verdict.Verdict of the finished run (None while it runs)
    tolerance: float = 0.01  # the fall of a mean a comparison allows (ini chunkeval_regression_tolerance)
    columns: tuple[str, ...] = ()  # extra column groups of the retrieval table (tables.COLUMN_GROUPS)
    gated: bool = False  # gates were asked for (--chunkeval-gate): only then a gates column

    @property
    def modes(self) -> tuple[str, ...]:
        """The retrieval modes of this run, in the order asked for."""
        return tuple(m for m in self.retrieval.split(",") if m)


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


def run_identity(k: int, model: dict[str, Any], modes: tuple[str, ...]) -> dict[str, Any]:
    """What another run must share to be compared with this one (comparable.FIELDS)."""
    from pytest_chunkeval.comparable import identity, metric_set
    from pytest_chunkeval.vocabulary import DEFAULT_BUDGETS

    return identity(k, str(model.get("id")), model.get("sha256") or {}, modes, DEFAULT_BUDGETS,
                    metric_set(k, DEFAULT_BUDGETS))


def _verdict_dict(verdict: Any) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {"passed": verdict.passed, "headline": verdict.headline, "notes": list(verdict.notes),
            "reasons": [{"title": r.title, "lines": list(r.lines), "settle": r.settle} for r in verdict.reasons]}


def write_json(report: dict[str, Any], path: Path) -> None:
    """Atomically (a reader never sees half a report; two writers never share a temporary file), and strictly: NaN
    or infinity is a bug, not a value.

    Compact, one line: the report holds every ranking and chunk span (megabytes on a real suite), and an indented
    dump goes through the json module's pure-Python encoder, seconds of every warm run; ``python -m json.tool`` or
    ``jq`` shows it indented."""
    from pytest_chunkeval.output.files import write_text

    write_text(path, json.dumps(report, separators=(",", ":"), allow_nan=False))
