"""``--chunkeval-engine ray``: chunking and embedding as Ray Data pipelines give the local engine's tables and report.

The option tests need no Ray. The end-to-end test (slow, skipped without the ``ray`` extra) evaluates one tiny
project twice, on a local Ray cluster of 2 CPUs and locally, against separate caches, and compares the JSON reports
metric by metric and the tables row by row; then a local run on the Ray run's cache must embed nothing.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import lancedb  # noqa: F401  (imported once, outside the in-process runs: see tests/conftest.py)
import numpy as np
import pytest
from project_files import PROJECT_CORPUS, PROJECT_STRATEGIES, name_suites, write_strategies, write_suite

from pytest_chunkeval.chunking.contract import Registration
from pytest_chunkeval.evaluation.ray_engine import init_kwargs, merge_stats

CORPUS = {
    "auth.py": PROJECT_CORPUS["auth.py"],
    "orders.py": PROJECT_CORPUS["orders.py"],
    "retry.py": '''
        import time


        def retry(fn, attempts: int = 3, delay: float = 0.5):
            for attempt in range(attempts):
                try:
                    return fn()
                except OSError:
                    time.sleep(delay * 2 ** attempt)
            raise RuntimeError("gave up")
    ''',
}

GOLDEN = """
    corpus: corpus
    queries:
      - id: password-hash
        query: How are user passwords hashed with a salt?
        relevant:
          - path: auth.py
            lines: [4, 5]
      - id: order-total
        query: compute the total price of an order after a discount
        relevant:
          - path: orders.py
            lines: [10, 12]
      - id: backoff
        query: retry a call with exponential backoff
        relevant:
          - path: retry.py
            lines: [4, 10]
"""


def _project(pytester: pytest.Pytester) -> pytest.Pytester:
    name_suites(pytester)
    write_strategies(pytester.path, PROJECT_STRATEGIES)  # the plugin tests' two
    write_suite(pytester.path / "golden" / "shop", CORPUS, GOLDEN)
    return pytester


# -- options: no Ray needed ---------------------------------------------------------------------------------------
def test_a_wrong_engine_is_one_usage_error_naming_the_option(pytester: pytest.Pytester) -> None:
    for args in (["--chunkeval-engine=spark"], ["-o", "chunkeval_engine=spark"]):
        result = pytester.runpytest("--chunkeval", "-p", "no:cacheprovider", *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["ERROR: --chunkeval-engine / ini chunkeval_engine must be one of local, ray, "
                                     "got 'spark'"])
        assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_engine_ray_without_ray_says_what_to_install(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what importlib sees when the package is not installed
    result = pytester.runpytest("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-engine=ray")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --chunkeval-engine ray needs Ray Data: pip install 'pytest-chunkeval[ray]'"])


def test_engine_and_address_merge_from_ini_and_command_line(pytester: pytest.Pytester) -> None:
    from pytest_chunkeval.settings.options import read_options

    pytester.makeini("[pytest]\nchunkeval_ray_address = ray://head:10001\n")
    options = read_options(pytester.parseconfig("--chunkeval", "-p", "no:cacheprovider"))
    assert (options.engine, options.ray_address) == ("local", "ray://head:10001")  # an address alone changes nothing
    if "ray" in sys.modules or _has_ray():
        config = pytester.parseconfig("--chunkeval", "--chunkeval-engine=ray", "--chunkeval-ray-address=auto",
                                         "-p", "no:cacheprovider")
        assert (read_options(config).engine, read_options(config).ray_address) == ("ray", "auto")


def _has_ray() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


def test_init_arguments_are_quiet_and_give_local_workers_this_sys_path(tmp_path: Path) -> None:
    """A local worker's PYTHONPATH is this process's sys.path, whatever that is: `python -m pytest` puts the
    rootdir on it and the `pytest` script does not, so the test compares with sys.path, not with a folder. A fresh
    interpreter given that environment (as a worker is) imports the same pytest_chunkeval as this process."""
    import pytest_chunkeval

    local = init_kwargs(None)
    assert local["include_dashboard"] is False and local["log_to_driver"] is False and "address" not in local
    env = local["runtime_env"]["env_vars"]
    folders = [p for p in dict.fromkeys(sys.path) if p and Path(p).is_dir()]  # '' and zip files add nothing
    assert env["PYTHONPATH"].split(os.pathsep) == folders
    worker = subprocess.run([sys.executable, "-c", "import pytest_chunkeval; print(pytest_chunkeval.__file__)"],
                            cwd=tmp_path, env={**os.environ, **env}, capture_output=True, text=True, check=True)
    assert Path(worker.stdout.strip()) == Path(pytest_chunkeval.__file__)
    remote = init_kwargs("ray://head:10001")
    assert remote["address"] == "ray://head:10001" and "runtime_env" not in remote  # a remote cluster has its own


def test_per_file_counters_add_up_and_derived_values_are_recomputed() -> None:
    from pytest_chunkeval import Strategy
    from pytest_chunkeval.chunking.contract import resolve

    class Counting(Strategy):
        name = "counting"
        stat_keys = ("files", "parsed", "warnings")

        def chunk(self, path: str, text: str) -> list[Any]:
            return []

        def stats(self) -> dict[str, Any]:
            out = super().stats()
            out["parsed_pct"] = round(100.0 * out["parsed"] / out["files"], 1) if out["files"] else None
            return out

    parts = [{"files": 1, "parsed": 1, "warnings": ["a.py:1: x"], "parsed_pct": 100.0},
             {"files": 1, "parsed": 0, "warnings": [], "parsed_pct": 0.0},
             {"files": 1, "parsed": 1, "warnings": ["c.py:2: y"], "parsed_pct": 100.0, "nested": {"n": 2}}]
    merged = merge_stats(parts, resolve(Counting()))
    assert merged == {"files": 3, "parsed": 2, "warnings": ["a.py:1: x", "c.py:2: y"], "parsed_pct": 66.7,
                      "nested": {"n": 2}}
    assert merge_stats(parts)["parsed_pct"] == 100.0  # no strategy to ask: the last file's value


def test_a_worker_rebuilds_a_strategy_from_its_file_and_notices_an_edit(tmp_path: Path) -> None:
    """What a Ray worker does, in this process: import the registering file by path, call the factory, bind it."""
    from pytest_chunkeval.chunking.contract import registrations, unregister
    from pytest_chunkeval.evaluation.ray_engine import StrategySpec

    path = tmp_path / "ray_probe.py"
    body = "from pytest_chunkeval import FixedSizeChunker, strategy\n\n@strategy\ndef ray_probe():\n" \
           "    return FixedSizeChunker(max_chunk_size={}, overlap=10)\n"
    path.write_text(body.format(100))
    try:
        one = StrategySpec.of(Registration("ray_probe", lambda: None, f"{path}:3"), None).build()
        assert one.max_chunk_size == 100 and any(r.origin == f"{path}:3" for r in registrations())
        path.write_text(body.format(200))
        two = StrategySpec.of(Registration("ray_probe", lambda: None, f"{path}:3"), None).build()
        assert two.max_chunk_size == 200
        with pytest.raises(RuntimeError, match="registered no such strategy"):
            StrategySpec.of(Registration("other", lambda: None, f"{path}:3"), None).build()
    finally:
        unregister("ray_probe")


# -- end to end on a local Ray cluster ------------------------------------------------------------------------------
def _run(p: pytest.Pytester, cache: str, *args: str) -> tuple[dict[str, Any], float]:
    start = time.perf_counter()
    result = p.runpytest("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress",
                         f"--chunkeval-report={cache}.json", f"--chunkeval-db={cache}/lancedb",
                         "-o", f"chunkeval_cache_dir={cache}", "--chunkeval-retrieval=vector,hybrid", *args)
    seconds = time.perf_counter() - start
    # per strategy and mode: 3 queries, and per strategy 5 quality items (skipped: no window promise, no parsing)
    result.assert_outcomes(passed=17, skipped=5)  # the chunk checks once, under the first mode
    assert "Warning" not in result.stdout.str(), result.stdout.str()
    return json.loads((p.path / f"{cache}.json").read_text()), seconds


def _comparable(entry: dict[str, Any]) -> dict[str, Any]:
    """A report entry without what differs between any two runs: timings."""
    out = json.loads(json.dumps(entry))
    for key in ("chunk_seconds", "build_seconds"):
        out["index"].pop(key, None)
    out["index"]["cost"] = sorted(out["index"].get("cost", {}))  # which costs were measured, not their seconds
    return out


def _tables(folder: Path) -> dict[str, Any]:
    db = lancedb.connect(str(folder))
    names = db.list_tables().tables if hasattr(db, "list_tables") else db.table_names()
    return {name: db.open_table(name).to_arrow().sort_by("chunk_id") for name in names}


@pytest.mark.slow
def test_ray_engine_gives_the_local_tables_and_report_and_fills_the_cache(pytester: pytest.Pytester) -> None:
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    import sentence_transformers  # noqa: F401  (imported outside the in-process runs)

    p = _project(pytester)
    # The test owns the cluster (2 CPUs); the plugin finds Ray initialised and uses it without shutting it down.
    ray.init(**{**init_kwargs(None), "num_cpus": 2})
    try:
        via_ray, ray_s = _run(p, "ray-cache", "--chunkeval-engine=ray")
    finally:
        ray.shutdown()
    local, local_s = _run(p, "local-cache")
    print(f"\nwall time: engine ray {ray_s:.1f}s, local {local_s:.1f}s")

    suite_r, suite_l = via_ray["suites"]["golden/shop/queries.yaml"], local["suites"]["golden/shop/queries.yaml"]
    labels = {f"{s}[{m}]" for s in ("file_level", "fixed_size") for m in ("vector", "hybrid")}
    assert set(suite_r["strategies"]) == set(suite_l["strategies"]) == labels
    for label, r in suite_r["strategies"].items():
        lo = suite_l["strategies"][label]
        assert r["index"]["embedded"] == lo["index"]["embedded"] == lo["index"]["chunk_count"]
        assert set(r["queries"]) == set(lo["queries"]) == {"password-hash", "order-total", "backoff"}
        for qid, q in r["queries"].items():  # rankings with their scores: vector scores are cosine distances
            assert q == lo["queries"][qid], (label, qid)
        assert _comparable(r) == _comparable(lo)  # same table and fingerprint, chunks, stats, aggregates, gates

    tables_r, tables_l = _tables(p.path / "ray-cache" / "lancedb"), _tables(p.path / "local-cache" / "lancedb")
    assert set(tables_r) == set(tables_l) and len(tables_r) == 2
    for name, tr in tables_r.items():
        tl = tables_l[name]
        for column in ("chunk_id", "path", "start_line", "end_line", "text", "words"):
            assert tr.column(column).to_pylist() == tl.column(column).to_pylist(), (name, column)
        vr = np.array(tr.column("vector").to_pylist(), dtype=np.float32)
        vl = np.array(tl.column("vector").to_pylist(), dtype=np.float32)
        assert np.abs(vr - vl).max() <= 1e-6, name

    # A local run after the Ray run reuses its tables as they are, and with the tables gone its cache serves every
    # text: nothing is embedded either way, and the report is the same.
    warm, _ = _run(p, "ray-cache")
    shutil.rmtree(p.path / "ray-cache" / "lancedb")
    rebuilt, _ = _run(p, "ray-cache")
    for report, reused in ((warm, True), (rebuilt, False)):
        for name, entry in report["suites"]["golden/shop/queries.yaml"]["strategies"].items():
            assert entry["index"]["reused"] is reused, name
            assert entry["index"]["embedded"] == 0, name
            assert _comparable(entry)["queries"] == _comparable(suite_r["strategies"][name])["queries"], name
    assert rebuilt["embedding"]["embedded"] == 0
