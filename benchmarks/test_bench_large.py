"""A large suite, cold, beside the embedder alone on the same texts: is everything but embedding small, and memory
bounded? Opt-in (tens of minutes of CPU on 2 cores): set ``CHUNKEVAL_BENCH_LARGE_SUITE`` to a ``queries.yaml``,
e.g. one generated from the CPython standard library without tests::

    chunkeval golden from-docs /path/to/stdlib-without-tests /tmp/stdlib-suite --max-queries 100
    CHUNKEVAL_BENCH_LARGE_SUITE=/tmp/stdlib-suite/queries.yaml make bench ARGS="-k large"

One round, two child processes, one after the other under the same load:

- ``cold``: a whole ``pytest --chunkeval -m chunkeval`` run of that suite with one strategy
  (``CHUNKEVAL_BENCH_LARGE_STRATEGY``, default ``ast``, a built-in), in a fresh cache folder: load the model,
  chunk, embed, build the LanceDB table, search every query, score, write the report;
- ``embedder only``: the same strategy's chunk texts and the suite's queries through ``Embedder.encode`` with no cache
  (the model loaded in the timed part too, as the cold run must), nothing else.

``extra_info``: both wall times, the ratio of the cold run's wall time to the embedder's own (model load and
encode, the physical floor: the ratio says what everything else costs), texts embedded, and each child's peak RSS
(``os.wait4``'s ``ru_maxrss``, model included).
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

import pytest
from bench_support import ROOT, note
from test_bench_eval import child_env

SUITE = os.environ.get("CHUNKEVAL_BENCH_LARGE_SUITE", "")
STRATEGY = os.environ.get("CHUNKEVAL_BENCH_LARGE_STRATEGY", "ast")

EMBED_ONLY = """
import json, sys, time
from pathlib import Path
from pytest_chunkeval.core.golden import load_golden
from pytest_chunkeval.chunking.strategy_sources import packaged
from pytest_chunkeval.retrieval.embed import Embedder

golden, name = Path(sys.argv[1]), sys.argv[2]
suite = load_golden(golden)
embedder = Embedder(cache=None)
strategy = {r.name: r for r in packaged()}[name].build().bind(embedder.tokens)  # as the evaluator binds it
texts = [c.text for p, t in sorted(suite.corpus.files.items()) if strategy.handles(p) for c in strategy.chunk(p, t)]
texts += [q.text for q in suite.queries]
started = time.perf_counter()
embedder.model()
embedder.encode(texts)
print(json.dumps({"seconds": time.perf_counter() - started, "texts": len(texts)}))
"""


def _child(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, stdout) of one child process."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    out = proc.stdout.read() if proc.stdout is not None else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        pytest.fail(f"{cmd[:4]} exited with {proc.returncode}:\n{out[-3000:]}")
    return wall, usage.ru_maxrss / 1024, out


@pytest.mark.skipif(not SUITE, reason="set CHUNKEVAL_BENCH_LARGE_SUITE to a queries.yaml to run the large suite")
def test_large_suite_cold_vs_embedder_only(benchmark: Any, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    suite = Path(SUITE).resolve()
    benchmark.group = f"large suite: {suite.parent.name}, {STRATEGY}"
    folder = tmp_path / "cache"
    cold_cmd = [
        sys.executable, "-m", "pytest", "--chunkeval", "-m", "chunkeval", f"--chunkeval-golden={suite}",
        # That strategy alone: as its own baseline, no other strategy is evaluated beside it.
        f"--chunkeval-strategies={STRATEGY}", f"--chunkeval-baseline={STRATEGY}", "-o", f"chunkeval_cache_dir={folder}",
        f"--chunkeval-db={folder / 'lancedb'}", f"--chunkeval-report={folder / 'report.json'}",
        "--chunkeval-no-progress", "-p", "no:cacheprovider", "-q",
    ]
    measured: dict[str, Any] = {}

    def both() -> None:
        shutil.rmtree(folder, ignore_errors=True)
        cold, cold_rss, _ = _child(cold_cmd)
        only, only_rss, out = _child([sys.executable, "-c", EMBED_ONLY, str(suite), STRATEGY])
        embedded = json.loads((folder / "report.json").read_text())["embedding"]["embedded"]
        info = json.loads(out.strip().splitlines()[-1])
        measured.update({"cold s": round(cold, 1), "embedder only s": round(only, 1),
                         "embedder only, encode s": round(info["seconds"], 1),
                         "ratio": round(cold / info["seconds"], 3),
                         "texts embedded (cold run)": embedded, "texts (embedder only)": info["texts"],
                         "peak RSS cold MB": round(cold_rss), "peak RSS embedder only MB": round(only_rss)})

    benchmark.pedantic(both, rounds=1, warmup_rounds=0)
    benchmark.extra_info.update(measured)
    for column, value in measured.items():
        note(request.config, "large suite", f"{suite.parent.name}, {STRATEGY}", column, value)
