#!/usr/bin/env python3
"""Real null pull requests: add a comment line to one corpus file, evaluate for real, count red checks.

``chunkeval calibrate`` simulates null changes on stored per-query numbers; this runs the whole pipeline instead
(chunking, embedding, indexing, search, the comparison), so it also catches what a simulation cannot: a change that
should move nothing but does (a comment that shifts a chunk boundary and with it a ranking), judged by the check.

For each suite given, the suite's folder (queries, corpus, accepted misses) is copied into ``--out``; the copies are
evaluated once as the base report, then ``--runs`` times with one comment line appended to one corpus file (a
different file each time, chosen at random from the files a comment can be written in; appended at the end so no
golden line range moves), the file restored after. Each run's report is then compared with the base report by the
check's own decision (``compare_run``: pairing, gating family, Holm, tolerance, size and warning gates) under the
default policy. ``--chunkeval-compare`` itself would refuse these pairs up front, and rightly: the suite's corpus
differs (a comment more), which in a real pull request means the numbers are not comparable. Here that difference is
the injected null change, so the tool decides past the refusal on purpose. A run is red when any strategy's comparison
says ``worse`` (the check's ``vs-base`` items fail exactly then). All suites are evaluated in every run, so the family
is the whole run's, as in CI.

    python tools/null_pr.py golden/avap/queries.yaml golden/polyglot/queries.yaml --runs 5 \
        --strategies fixed_size,ast,function_level --out /tmp/nullpr

Run it from the project whose ini settings and embedding cache should be used (``--root``, default: here). Tables
go to ``OUT/lancedb``. Costs one cold-ish evaluation per run (one file's chunks are new; the rest is cached), so a
handful of runs is what a laptop affords; the count is small and says so.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

COMMENTS = {  # extension -> how a one-line comment is written in it
    **dict.fromkeys(("avap", "c", "cc", "cpp", "h", "hpp", "go", "java", "js", "jsx", "kt", "php", "rs", "swift",
                     "ts", "tsx", "cs", "scala"), "// {}"),
    **dict.fromkeys(("py", "rb", "toml", "yaml", "yml", "sh"), "# {}"),
    "sql": "-- {}",
    "md": "<!-- {} -->",
}
TEXT = "Reviewed; no behaviour change."


def comment_for(path: Path) -> str | None:
    form = COMMENTS.get(path.suffix.lstrip(".").lower())
    return None if form is None else form.format(TEXT)


def copy_suite(golden: Path, out: Path) -> Path:
    """The golden file's folder copied to ``out/<name>``; returns the copy's golden file."""
    dest = out / golden.resolve().parent.name
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(golden.resolve().parent, dest)
    return dest / golden.name


def evaluate(root: Path, goldens: list[Path], report: Path, args: argparse.Namespace) -> tuple[int, float]:
    cmd = [sys.executable, "-m", "pytest", "--chunkeval", "-m", "chunkeval", "-q", "-p", "no:cacheprovider",
           "--chunkeval-no-progress", f"--chunkeval-report={report}", f"--chunkeval-db={args.out / 'lancedb'}"]
    cmd += [f"--chunkeval-golden={g}" for g in goldens]
    if args.strategies:
        cmd.append(f"--chunkeval-strategies={args.strategies}")
    cmd += args.pytest_arg
    started = time.perf_counter()
    with (report.with_suffix(".log")).open("w", encoding="utf-8") as log:
        rc = subprocess.call(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT)
    return rc, time.perf_counter() - started


def decide(base: Path, head: Path) -> dict[str, Any]:
    """``head``'s report compared with ``base``'s as the check compares them, under the default policy (tolerance
    0.01, alpha 0.05, Holm, size and new-warning gates) at the report's k: the per-suite comparisons as the report's
    ``comparison`` sections would hold them."""
    from pytest_chunkeval.core.vocabulary import DEFAULT_K
    from pytest_chunkeval.judges.comparison import Policy, compare_run
    from pytest_chunkeval.output.report import comparison_dict
    from pytest_chunkeval.results.typed import suites_from_report

    head_report = json.loads(head.read_text(encoding="utf-8"))
    bases = suites_from_report(json.loads(base.read_text(encoding="utf-8")))
    heads = suites_from_report(head_report)
    policy = Policy(k=int(head_report.get("k", DEFAULT_K)))
    compared, _ = compare_run({key: bases.get(key) for key in heads}, heads, policy)
    return {"suites": {key: {"comparison": comparison_dict(c)} for key, c in compared.items()}}


def verdicts(data: dict[str, Any]) -> dict[str, Any]:
    """Per suite and strategy: the comparison's verdict and the smallest adjusted p of its gating metrics."""
    out: dict[str, Any] = {}
    for key, suite in (data.get("suites") or {}).items():
        for name, s in ((suite.get("comparison") or {}).get("strategies") or {}).items():
            ps = [m["p_adjusted"] for m in s.get("metrics", []) if m.get("gating") and m.get("p_adjusted") is not None]
            out[f"{key}::{name}"] = {"verdict": s.get("verdict"), "min_p_adjusted": min(ps) if ps else None,
                                     "problems": s.get("problems", [])}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="+", type=Path, help="golden files (queries.yaml) to copy and evaluate")
    parser.add_argument("--runs", type=int, default=5, help="null pull requests (%(default)s)")
    parser.add_argument("--strategies", default="fixed_size,ast,function_level",
                        help="--chunkeval-strategies (the baseline always runs; empty: all) (%(default)s)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/chunkeval-null-pr"))
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="where pytest runs (%(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pytest-arg", action="append", default=[],
                        help="one more pytest argument, e.g. -o chunkeval_cache_dir=... (repeatable)")
    args = parser.parse_args(argv)
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    goldens = [copy_suite(g, args.out) for g in args.suites]
    files = sorted((g, p) for g in goldens for p in (g.parent / "corpus").rglob("*")
                   if p.is_file() and comment_for(p))
    picks = random.Random(args.seed).sample(files, min(args.runs, len(files)))

    base = args.out / "base.json"
    rc, seconds = evaluate(args.root, goldens, base, args)
    print(f"base: exit {rc}, {seconds:.0f} s -> {base}", flush=True)
    if not base.is_file():
        print("no base report; see base.log", file=sys.stderr)
        return 1
    runs: list[dict[str, Any]] = []
    for i, (_, path) in enumerate(picks):
        original = path.read_bytes()
        text = original.decode("utf-8", errors="surrogateescape")
        try:
            path.write_bytes((text + ("" if text.endswith("\n") else "\n") + f"{comment_for(path)}\n")
                             .encode("utf-8", errors="surrogateescape"))
            report = args.out / f"run-{i}.json"
            rc, seconds = evaluate(args.root, goldens, report, args)
        finally:
            path.write_bytes(original)
        found = verdicts(decide(base, report)) if report.is_file() else {}
        worse = sorted(k for k, v in found.items() if v["verdict"] == "worse")
        changed = sorted(k for k, v in found.items() if v["verdict"] in ("ok", "worse"))
        runs.append({"file": str(path.relative_to(args.out)), "exit": rc, "seconds": round(seconds, 1),
                     "red": bool(worse) or not found, "worse": worse, "changed": changed, "comparisons": found})
        print(f"run {i}: {path.relative_to(args.out)}: {'RED' if worse or not found else 'green'} "
              f"({len(changed)} changed, worse: {', '.join(worse) or 'none'}), exit {rc}, {seconds:.0f} s", flush=True)
    red = sum(r["red"] for r in runs)
    print(f"{red} of {len(runs)} null pull requests turned the check red")
    (args.out / "null_pr.json").write_text(json.dumps({"runs": runs, "red": red, "n": len(runs),
                                                       "suites": [str(s) for s in args.suites],
                                                       "strategies": args.strategies}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
