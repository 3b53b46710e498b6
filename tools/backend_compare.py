"""Embedding backends side by side on this machine, in one process: speed, closeness to torch, NDCG@10.

    PYTHONPATH=$PWD python tools/backend_compare.py [--texts 200] [--rounds 3] [--batch-sizes 1,16,32]
        [--backends torch,onnx,onnx-int8] [--ndcg torch,onnx-int8] [--retrieval hybrid,vector] [--out DIR]

1. Speed: ``--texts`` real code chunks (the ``fixed_size`` strategy's 1,000-character windows of every bundled
   suite's corpus, spread evenly) embedded by each backend at each batch size through the plugin's ``Embedder``
   with no cache (the evaluator's path: longest first, ``batch_size`` per batch). Each (backend, batch size) is
   warmed up once, then the rounds are interleaved (round 1 of every pair, then round 2, ...) so that load from
   other jobs falls on every pair alike; texts/s is the best round and the mean.
2. Closeness: cosine of each backend's vectors to torch's, same texts (min, 1st percentile, mean).
3. Quality: ``pytest --chunkeval`` on every bundled suite once per ``--ndcg`` backend (strategies file_level,
   fixed_size, ast, function_level; every ``--retrieval`` mode; file-mode NDCG@10), reports written to ``--out``,
   and the difference of each backend's NDCG@10 from the first's per (suite, strategy, mode).

The evaluator's batch size is ``DEFAULT_BATCH_SIZE`` (32): include it in ``--batch-sizes``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SUITES = ("golden/avap/queries.yaml", "golden/polyglot/queries.yaml")
STRATEGIES = "file_level,fixed_size,ast,function_level"


def code_texts(n: int) -> list[str]:
    from pytest_chunkeval.chunking.fixed import FixedSizeChunker
    from pytest_chunkeval.core.golden import load_golden

    chunker = FixedSizeChunker()
    chunks = []
    for suite in SUITES:
        files = load_golden(ROOT / suite).corpus.files
        chunks += [c.text for path, text in sorted(files.items()) for c in chunker.chunk(path, text)]
    n = min(n, len(chunks))
    return [chunks[i * len(chunks) // n] for i in range(n)]


def speed(texts: list[str], backends: list[str], sizes: list[int], rounds: int, onnx_dir: Path):
    from pytest_chunkeval.retrieval.embed import Embedder

    embedders = {b: Embedder(cache=None, backend=b, onnx_dir=onnx_dir) for b in backends}
    times: dict[tuple[str, int], list[float]] = {}
    vectors: dict[str, np.ndarray] = {}
    for emb in embedders.values():
        emb.model()  # load (and export / quantize) before anything is timed
        for size in sizes:
            emb.batch_size = size
            emb.encode(texts[: max(size, 4)])  # warm-up: a batch shape's first call sets up kernels
    for r in range(rounds):
        for size in sizes:
            for b, emb in embedders.items():
                emb.batch_size = size
                t0 = time.perf_counter()
                vecs, _ = emb.encode(texts)
                times.setdefault((b, size), []).append(time.perf_counter() - t0)
                if size == 32 or b not in vectors:
                    vectors[b] = vecs
                print(f"round {r + 1} {b:9} batch {size:3}: {len(texts) / times[(b, size)][-1]:6.1f} texts/s",
                      file=sys.stderr, flush=True)
    return times, vectors


def evaluate(backend: str, retrieval: str, out: Path) -> dict:
    report = out / f"report-{backend}.json"
    cmd = [sys.executable, "-m", "pytest", "--chunkeval", "-m", "chunkeval", "-p", "no:randomly", "-q",
           *(f"--chunkeval-golden={s}" for s in SUITES),
           f"--chunkeval-strategies={STRATEGIES}", f"--chunkeval-backend={backend}",
           f"--chunkeval-retrieval={retrieval}", f"--chunkeval-report={report}"]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "LANCEDB_LOG": "error"}, capture_output=True, text=True)
    print(f"{backend}: pytest exit {done.returncode} in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    if not report.is_file():
        raise SystemExit(done.stdout[-3000:] + done.stderr[-3000:])
    return json.loads(report.read_text(encoding="utf-8"))


def ndcg_rows(report: dict, key: str) -> dict[tuple[str, str, str], float]:
    rows = {}
    for suite, entry in report["suites"].items():
        for result in entry["strategies"].values():
            if not result.get("skipped") and not result.get("failed"):
                rows[(suite, result["strategy"], result["retrieval"])] = result["aggregate"]["file"][key]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--texts", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-sizes", default="1,16,32")
    ap.add_argument("--backends", default="torch,onnx,onnx-int8")
    ap.add_argument("--ndcg", default="torch,onnx-int8", help="backends to evaluate (the first is the reference); "
                    "empty to skip")
    ap.add_argument("--retrieval", default="hybrid,vector")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "backend-compare")
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from pytest_chunkeval.core.vocabulary import NDCG, metric_key

    args.out.mkdir(parents=True, exist_ok=True)
    backends = args.backends.split(",")
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    texts = code_texts(args.texts)
    print(f"{len(texts)} fixed_size chunks, mean {sum(map(len, texts)) / len(texts):.0f} characters; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    times, vectors = speed(texts, backends, sizes, args.rounds, args.out / "onnx")
    print("\n| backend | " + " | ".join(f"batch {s} texts/s (best / mean)" for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for b in backends:
        cells = [f"{len(texts) / min(times[(b, s)]):.1f} / {len(texts) * len(times[(b, s)]) / sum(times[(b, s)]):.1f}"
                 for s in sizes]
        print(f"| {b} | " + " | ".join(cells) + " |")
    if "torch" in backends:
        print("\nspeed-up over torch (best rounds): " + "; ".join(
            f"{b} " + ", ".join(f"bs{s} {min(times[('torch', s)]) / min(times[(b, s)]):.2f}x" for s in sizes)
            for b in backends if b != "torch"))
        for b in backends:
            if b != "torch":
                cos = (vectors[b] * vectors["torch"]).sum(axis=1)
                print(f"cosine {b} vs torch: min {cos.min():.5f}, 1st percentile {np.percentile(cos, 1):.5f}, "
                      f"mean {cos.mean():.5f}")
    print(f"load after speed: {os.getloadavg()[0]:.1f}", flush=True)
    ndcg = [b for b in args.ndcg.split(",") if b]
    if not ndcg:
        return
    key = metric_key(NDCG, 10)
    rows = {b: ndcg_rows(evaluate(b, args.retrieval, args.out), key) for b in ndcg}
    ref = ndcg[0]
    print(f"\n| suite | strategy | retrieval | {ref} NDCG@10 | " + " | ".join(f"{b} Δ" for b in ndcg[1:]) + " |")
    print("|---|---|---|---|" + "---|" * (len(ndcg) - 1))
    worst = {b: 0.0 for b in ndcg[1:]}
    for row, value in sorted(rows[ref].items()):
        deltas = [rows[b].get(row, float("nan")) - value for b in ndcg[1:]]
        for b, d in zip(ndcg[1:], deltas, strict=True):
            worst[b] = max(worst[b], abs(d))
        print(f"| {row[0]} | {row[1]} | {row[2]} | {value:.4f} | " + " | ".join(f"{d:+.4f}" for d in deltas) + " |")
    print("\nlargest |Δ NDCG@10|: " + ", ".join(f"{b} {w:.4f}" for b, w in worst.items()))


if __name__ == "__main__":
    main()
