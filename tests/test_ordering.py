"""One order of a suite's results, whoever collects them: a serial run (ordering.collect) and an xdist controller
(distributed.merge) both sort by ordering.strategy_order, so they write the same report. Hand-made runs and worker
payloads here; nothing is evaluated."""
from __future__ import annotations

import random
from pathlib import Path

from pytest_chunkeval.core.corpus import Corpus
from pytest_chunkeval.core.golden import GoldenSuite
from pytest_chunkeval.evaluation.evaluate import StrategyRun
from pytest_chunkeval.results.ordering import collect, strategy_order
from pytest_chunkeval.run.distributed import WorkerResults, merge

MODES = ("vector", "hybrid")
# "ast-x" sorts before "ast[vector]" as a label ("-" < "[") but after "ast" as a name: ordering by label (as merge
# once did) and by name (as collect did) disagreed on it.
NAMES = ("zeta", "ast-x", "file_level", "ast")
EXPECTED = ["file_level[vector]", "ast[vector]", "ast-x[vector]", "zeta[vector]",
            "file_level[hybrid]", "ast[hybrid]", "ast-x[hybrid]", "zeta[hybrid]"]


def _suite(root: Path, name: str) -> GoldenSuite:
    folder = root / "golden" / name
    return GoldenSuite(name=name, path=folder / "queries.yaml", corpus=Corpus(folder / "corpus", {"a.py": "x\n"}),
                       queries=[])


def _runs(root: Path) -> list[StrategyRun]:
    runs = [StrategyRun(suite=_suite(root, suite), name=name, mode=mode, skipped="nothing to do")
            for suite in ("b", "a") for name in NAMES for mode in MODES]
    random.Random(7).shuffle(runs)
    return runs


def test_strategy_order_puts_each_modes_baseline_first_then_names() -> None:
    labels = [(n, m) for n in NAMES for m in (*MODES, "fts")]
    ordered = sorted(labels, key=lambda nm: strategy_order(nm[0], nm[1], "file_level", MODES))
    assert ordered[:4] == [("file_level", "vector"), ("ast", "vector"), ("ast-x", "vector"), ("zeta", "vector")]
    assert ordered[-4:] == [("file_level", "fts"), ("ast", "fts"), ("ast-x", "fts"), ("zeta", "fts")]  # not asked


def test_a_serial_run_and_an_xdist_merge_order_suites_and_strategies_alike(tmp_path: Path) -> None:
    runs = _runs(tmp_path)
    serial = collect(runs, tmp_path, "file_level", MODES)
    assert list(serial) == ["golden/a/queries.yaml", "golden/b/queries.yaml"]
    assert all(list(s.strategies) == EXPECTED for s in serial.values())
    # Two workers, each with part of every suite, their entries in scrambled order.
    parts = [WorkerResults(suites={}), WorkerResults(suites={})]
    for i, run in enumerate(runs):
        part = collect([run], tmp_path, "file_level", MODES)
        for key, suite in part.items():
            entry = suite.to_entry()
            into = parts[i % 2].suites.setdefault(key, {**entry, "strategies": {}})
            into["strategies"].update(entry["strategies"])
    merged, _ = merge([WorkerResults.loads(p.dumps()) for p in parts], "file_level", MODES)
    assert list(merged) == list(serial)
    assert {k: list(s.strategies) for k, s in merged.items()} == {k: list(s.strategies) for k, s in serial.items()}


def test_grid_points_follow_their_strategy_with_values_in_numeric_order(tmp_path: Path) -> None:
    names = ["fixed_size[size=2000]", "fixed_size[size=500]", "zeta", "fixed_size[size=1000]", "file_level"]
    runs = [StrategyRun(suite=_suite(tmp_path, "a"), name=n, mode="vector", skipped="nothing to do") for n in names]
    (suite,) = collect(runs, tmp_path, "file_level", ("vector",)).values()
    assert list(suite.strategies) == ["file_level", "fixed_size[size=500]", "fixed_size[size=1000]",
                                      "fixed_size[size=2000]", "zeta"]  # as text: 1000, 2000, 500
    entry = suite.to_entry()
    scrambled = WorkerResults(suites={"golden/a/queries.yaml": {
        **entry, "strategies": dict(reversed(list(entry["strategies"].items())))}})
    merged, _ = merge([scrambled], "file_level", ("vector",))
    assert list(merged["golden/a/queries.yaml"].strategies) == list(suite.strategies)
