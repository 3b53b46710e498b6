"""Peak memory of whole ``pytest --chunkeval`` runs on hostile corpora (issue 34, item 4: bounded memory).

Each scenario writes a throwaway project into a temporary folder and runs one cold evaluation of it in a child
process, with the real embedder (the model must already be in the local cache: nothing is downloaded), then prints
one JSON line per scenario: wall seconds, the child's peak RSS (``os.wait4``'s ``ru_maxrss``, the model included),
the report's size and what the report says about the hostile input (skipped files, fallbacks).

    .venv/bin/python tools/measure_memory.py long-line --mb 50
    .venv/bin/python tools/measure_memory.py many-chunks --chunks 1000000
    .venv/bin/python tools/measure_memory.py many-files --files 50000 --strategy file_level

``--fake-embedder`` swaps the model for one that returns a fixed 384-dimensional vector per text at once (the
tokenizer, the cache, LanceDB and the report stay real): what every stage but the model costs, on corpora whose real
embedding would take hours on a CPU (50,000 files at ~25 texts/s is over half an hour).

Extra arguments after ``--`` go to pytest (``-- -o chunkeval_max_file_bytes=0`` measures a run without the cap).
A measurement, not a test: the numbers are recorded in docs/security.md and docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SMALL = {
    "auth.py": "import hashlib\n\n\ndef hash_password(password: str, salt: str) -> str:\n"
               "    return hashlib.sha256((salt + password).encode()).hexdigest()\n",
    "orders.py": "def order_total(order, discount: float = 0.0) -> float:\n"
                 "    subtotal = sum(item['price'] * item['qty'] for item in order.items)\n"
                 "    return round(subtotal * (1 - discount), 2)\n",
}
GOLDEN = """\
corpus: corpus
queries:
  - id: password-hash
    query: How are user passwords hashed with a salt?
    relevant:
      - path: auth.py
  - id: order-total
    query: How is an order's total computed with a discount?
    relevant:
      - path: orders.py
"""
#: A strategy that returns CHUNKS chunks for each .txt file, one line each, going round the file's lines: a list
#: made whole before the harness sees it (the worst case: a strategy that yields its chunks is not read past
#: the cap).
PER_LINE = '''
from pytest_chunkeval import Chunk, Strategy, strategy

CHUNKS = {chunks}


class PerLine(Strategy):
    name = "per_line"
    version = "1"
    extensions = [".txt"]

    def chunk(self, path, text):
        lines, offsets, offset = text.splitlines(keepends=True), [], 0
        for line in lines:
            offsets.append(offset)
            offset += len(line.encode("utf-8"))
        out = []
        for i in range(CHUNKS):
            n = i % len(lines)
            start = offsets[n]
            out.append(Chunk(text=lines[n], path=path, start_line=n + 1, end_line=n + 1, start_byte=start,
                             end_byte=start + len(lines[n].encode("utf-8")), strategy=self.name))
        return out


@strategy
def per_line():
    return PerLine()
'''


#: ``-p`` plugin of ``--fake-embedder``: the model replaced before any item runs.
FAKE_EMBEDDER = '''
import numpy as np

from pytest_chunkeval.retrieval.embed import Embedder


class Fake:
    max_seq_length = 256

    def encode(self, texts, **_):
        out = np.zeros((len(texts), 384), dtype=np.float32)
        out[:, 0] = 1.0
        return out


def pytest_configure(config):
    Embedder.model = lambda self: Fake()
'''


def write_project(folder: Path, files: dict[str, str], strategies: dict[str, str]) -> Path:
    corpus = folder / "golden" / "s" / "corpus"
    corpus.mkdir(parents=True)
    (corpus.parent / "queries.yaml").write_text(GOLDEN)
    for name, text in {**SMALL, **files}.items():
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text)
    (folder / "strategies").mkdir()
    for name, code in strategies.items():
        (folder / "strategies" / name).write_text(textwrap.dedent(code))
    (folder / "pytest.ini").write_text("[pytest]\nchunkeval_golden = golden/*/queries.yaml\n")
    return folder


def scenario(args: argparse.Namespace, folder: Path) -> tuple[Path, str]:
    """The project of ``args.scenario`` and the strategy it evaluates."""
    if args.scenario == "long-line":
        line = "var a" + "=function(){return 1};" * (args.mb * 1_000_000 // 22)  # one minified line
        return write_project(folder, {"bundle.min.js": line}, {}), args.strategy or "file_level"
    if args.scenario == "many-chunks":  # 100,000 short lines (989 KB, under the size cap), args.chunks chunks
        lines = "".join(f"row {i}\n" for i in range(100_000))
        code = PER_LINE.format(chunks=args.chunks)
        return write_project(folder, {"lines.txt": lines}, {"per_line.py": code}), args.strategy or "per_line"
    files = {f"pkg{i // 1000}/m{i}.py": f"def f{i}(x):\n    return x + {i}  # module {i}\n" for i in range(args.files)}
    return write_project(folder, files, {}), args.strategy or "file_level"


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="chunkeval-memory-") as tmp:
        project, strategy = scenario(args, Path(tmp))
        cache = project / ".chunkeval"
        report = cache / "report.json"
        cmd = [sys.executable, "-m", "pytest", "--chunkeval", "-m", "chunkeval", f"--chunkeval-strategies={strategy}",
               f"--chunkeval-baseline={strategy}", f"--chunkeval-report={report}", "--chunkeval-no-progress",
               "-p", "no:cacheprovider", "-p", "no:randomly", "-q", *args.pytest_args]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE_"))}
        env.setdefault("LANCEDB_LOG", "error")
        env.setdefault("HF_HUB_OFFLINE", "1")
        if args.fake_embedder:
            (project / "fake_embedder.py").write_text(FAKE_EMBEDDER)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(project), env.get("PYTHONPATH", "")]))
            cmd += ["-p", "fake_embedder"]
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = proc.stdout.read() if proc.stdout is not None else ""
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        data = json.loads(report.read_text()) if report.is_file() else {}
        suite = next(iter(data.get("suites", {}).values()), {})
        entry = suite.get("strategies", {}).get(strategy, {})
        return {
            "scenario": args.scenario, "strategy": strategy, "fake embedder": args.fake_embedder,
            "exit": os.waitstatus_to_exitcode(status),
            "wall s": round(wall, 1), "peak RSS MB": round(usage.ru_maxrss / 1024),
            "report bytes": report.stat().st_size if report.is_file() else None,
            "embedded": data.get("embedding", {}).get("embedded"),
            "skipped_files": suite.get("skipped_files"),
            "fallbacks": [f[:160] for f in entry.get("fallbacks", [])[:3]],
            "tail": out[-600:] if os.waitstatus_to_exitcode(status) not in (0, 1) or not entry.get("files") else "",
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=["long-line", "many-chunks", "many-files"])
    parser.add_argument("--mb", type=int, default=50, help="long-line: the line's size in MB")
    parser.add_argument("--chunks", type=int, default=1_000_000, help="many-chunks: chunks of its file")
    parser.add_argument("--files", type=int, default=50_000, help="many-files: small files in the corpus")
    parser.add_argument("--fake-embedder", action="store_true", help="a model that returns fixed vectors at once")
    parser.add_argument("--strategy", default="", help="the strategy evaluated (default: the scenario's)")
    argv = sys.argv[1:] if argv is None else argv
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.pytest_args = argv[cut + 1:]  # after --: more pytest arguments
    print(json.dumps(run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
