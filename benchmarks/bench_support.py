"""What the benchmark modules share: the corpora, the registered strategies, round planning, the run's summary.

Kept beside the benchmarks rather than in the package: these are measuring tools, not something a user of the
plugin imports, and the package is free to change under them (the benchmarks adapt, not the other way round).
"""
from __future__ import annotations

import math
import os
import statistics
import sysconfig
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Parts of the standard library that are not library code a user would index (tests, IDLE, vendored packages).
SKIP_PARTS = frozenset({"test", "tests", "idlelib", "site-packages", "__pycache__", "lib2to3"})
#: The large corpus takes every Nth file of the standard library: every 4th is ~2.7 MB of CPython 3.11's ~11 MB,
#: twice suites/pystdlib and enough that a row measures chunking rather than per-call overhead, small enough that
#: the slowest strategy (astchunk, ~1 MB/s on a busy 2-core machine) runs its rounds in seconds.
LARGE_STEP_DEFAULT = 4


def stdlib_root() -> Path:
    return Path(os.environ.get("CHUNKEVAL_BENCH_CORPUS") or sysconfig.get_paths()["stdlib"])


def stdlib_paths(step: int) -> list[Path]:
    """Every ``step``-th ``*.py`` file of the standard library without tests, in sorted (stable) order."""
    root = stdlib_root()
    files = sorted(p for p in root.rglob("*.py") if not SKIP_PARTS & set(p.relative_to(root).parts))
    return files[::step]


@dataclass(frozen=True)
class BenchCorpus:
    """One corpus a chunking row reads: files by relative POSIX path, as the evaluator hands them to strategies."""

    id: str  # the parameter id in test names: short and stable across runs (compare keys on it)
    label: str  # where it comes from, for groups and the summary
    files: dict[str, str] = field(repr=False)

    def handled_by(self, strategy: Any) -> dict[str, str]:
        """The files ``strategy`` takes, asked as the evaluator asks: its ``handles(path)``, else every file."""
        handles = getattr(strategy, "handles", None)
        if not callable(handles):
            return dict(self.files)
        return {p: t for p, t in self.files.items() if handles(p)}


def megabytes(files: dict[str, str]) -> float:
    return sum(len(t.encode("utf-8", "surrogatepass")) for t in files.values()) / 1e6


def suite_paths() -> dict[str, Path]:
    """The bundled golden files by id (their folder name): golden/*/ and suites/*/, so a new suite gets rows too."""
    found: dict[str, Path] = {}
    for pattern in (
        "golden/*/queries.yaml", "golden/*/queries.jsonl", "suites/*/queries.yaml", "suites/*/queries.jsonl"
    ):
        for path in sorted(ROOT.glob(pattern)):
            found.setdefault(path.parent.name, path)
    return found


@cache
def load_suite(suite_id: str) -> Any:  # -> pytest_chunkeval.core.golden.GoldenSuite
    from pytest_chunkeval.core.golden import load_golden

    return load_golden(suite_paths()[suite_id])


def large_step() -> int:
    return int(os.environ.get("CHUNKEVAL_BENCH_LARGE_STEP", str(LARGE_STEP_DEFAULT)))


def corpus_ids() -> list[str]:
    return [*suite_paths(), "stdlib"]


@cache
def load_corpus(corpus_id: str) -> BenchCorpus:
    if corpus_id == "stdlib":
        root, step = stdlib_root(), large_step()
        files = {
            p.relative_to(root).as_posix(): p.read_text("utf-8", errors="surrogateescape") for p in stdlib_paths(step)
        }
        every = "every file" if step == 1 else f"every {step}{_ordinal(step)} file"
        return BenchCorpus("stdlib", f"{root.name}/ standard library, no tests, {every}", files)
    suite = load_suite(corpus_id)
    return BenchCorpus(
        corpus_id, suite_paths()[corpus_id].parent.relative_to(ROOT).as_posix(), dict(suite.corpus.files)
    )


def _ordinal(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


@lru_cache(maxsize=1)
def registrations() -> dict[str, Any]:  # name -> pytest_chunkeval.chunking.contract.Registration
    """Every strategy of this project, as ``pytest --chunkeval`` finds them: the built-ins and the AVAP grammar's."""
    from pytest_chunkeval.chunking.strategy_sources import load

    folder = ROOT / "strategies"
    return load(folder, [folder / "avap.lark"], [folder / "avap_config.json"], root=ROOT).available


def strategy_files(corpus: Any, strategy_name: str) -> tuple[Any, dict[str, str]]:
    """The strategy resolved as an evaluation resolves it (its contract) and the corpus files it handles, in file
    order; a strategy unavailable here skips the benchmark."""
    from pytest_chunkeval.chunking.contract import resolve

    reg = registrations()[strategy_name]
    contract = resolve(reg.build(), name=reg.name, origin=reg.origin)
    if contract.unavailable:
        pytest.skip(f"{strategy_name} is unavailable here: {contract.unavailable}")
    return contract, dict(sorted(corpus.handled_by(contract).items()))


# -- rounds ----------------------------------------------------------------------------------------------------


def time_budget(config: pytest.Config) -> tuple[int, float]:
    """(minimum rounds, seconds per row) from pytest-benchmark's own options, so the usual flags shorten a run.

    ``pedantic`` ignores ``--benchmark-min-rounds`` and ``--benchmark-max-time``; reading them here keeps
    ``--benchmark-min-rounds=1 --benchmark-max-time=0.2`` meaning "a quick run" for every row.
    """
    return int(config.getoption("benchmark_min_rounds")), float(config.getoption("benchmark_max_time"))


def plan_rounds(config: pytest.Config, seconds_per_round: float, floor: int = 3, cap: int = 500) -> int:
    """Enough rounds to fill the row's time budget (a cheap row gets many, which steadies its ``min``), and at
    least ``floor`` - or ``--benchmark-min-rounds`` when that asks for fewer.

    The floor is below pytest-benchmark's default minimum of 5 because the expensive rows (seconds a round) set
    the length of ``make bench``, and the fastest of 3 rounds already sits within a few percent of the fastest of 5
    on this project's rows (the compare threshold in docs/benchmarks.md is measured with it).
    """
    min_rounds, max_time = time_budget(config)
    wanted = math.ceil(max_time / max(seconds_per_round, 1e-6))
    return max(1, min(floor, min_rounds), min(cap, wanted))


def heavy_rounds(config: pytest.Config, default: int) -> int:
    """Rounds for a row that costs seconds to minutes each (embedding, index builds, whole runs): ``default``,
    or fewer when ``--benchmark-min-rounds`` asks for fewer."""
    return max(1, min(default, time_budget(config)[0]))


# -- numbers ---------------------------------------------------------------------------------------------------


def round_times(benchmark: Any) -> list[float]:
    """Seconds of every measured round (empty under ``--benchmark-disable``)."""
    stats = getattr(benchmark, "stats", None)
    inner = getattr(stats, "stats", None)
    return list(getattr(inner, "data", []) or [])


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation between order statistics (numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# -- the run's summary -----------------------------------------------------------------------------------------

#: section -> row -> column -> value; filled by the benchmarks, printed by conftest.py at the end of the run.
SUMMARY = pytest.StashKey[dict[str, dict[str, dict[str, Any]]]]()


def note(config: pytest.Config, section: str, row: str, column: str, value: Any) -> None:
    summary = config.stash.setdefault(SUMMARY, {})
    summary.setdefault(section, {}).setdefault(row, {})[column] = value
