"""``chunkeval calibrate REPORT.json ...``: false alarms and detection of the pull-request check, measured.

Reads JSON reports (``--chunkeval-report``) and simulates whole pull-request checks with the real decision code
(:mod:`.nulls`, :mod:`.inject`); prints a table and writes ``--json``. Several reports are one run over several suites
(one family). Every simulated run is seeded by its own coordinates, so the figures are the same for a seed however
the work is split (``--jobs``).

Why BLAS is held to one thread: every paired test multiplies a 10,000 x n sign matrix by n differences, too small to
gain from threads; on a busy machine OpenBLAS's threads only contend (several times slower), and ``--jobs`` runs
processes instead.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from pytest_chunkeval.commands.calibrate import figures as summary
from pytest_chunkeval.commands.calibrate.inject import KINDS, Detection, detect, targets
from pytest_chunkeval.commands.calibrate.nulls import NullPlan, NullRates, plan, same_tree, sign_flips
from pytest_chunkeval.core.vocabulary import DEFAULT_K
from pytest_chunkeval.judges.comparison import Policy
from pytest_chunkeval.results.report_file import read_report
from pytest_chunkeval.results.typed import SuiteResult, suites_from_report
from pytest_chunkeval.scoring.family import CORRECTIONS

CHUNK = 50  # runs per task handed to a worker


def _words(text: str) -> list[str]:
    return [w for w in text.replace(",", " ").split() if w]


def add_parser(top: Any) -> None:
    """``chunkeval calibrate`` under the top-level command's subparsers."""
    sub = top.add_parser(
        "calibrate", help="measure how often the pull-request check is wrong (false alarms, detection)",
        description="Simulate whole pull-request checks on the per-query numbers of JSON reports, with the real "
                    "decision code: null changes (random sign flips of real paired differences; the same tree) and "
                    "injected regressions of 1, 2 and 4 times the minimum detectable effect. Prints the share of "
                    "runs that turned the check red and the share of regressions caught.")
    sub.set_defaults(handler=run)
    sub.add_argument("reports", nargs="+", type=Path, help="JSON reports (--chunkeval-report); together one run")
    sub.add_argument("--runs", type=int, default=1000, help="null runs (%(default)s)")
    sub.add_argument("--power-runs", type=int, default=100,
                     help="runs per strategy, size and kind of injected regression (%(default)s)")
    sub.add_argument("--factors", default="1,2,4", help="injected falls, in MDEs (%(default)s)")
    sub.add_argument("--corrections", default=",".join(CORRECTIONS),
                     help="judged for the null runs; the first sizes the injected falls (%(default)s)")
    sub.add_argument("--power-corrections", default="holm,none",
                     help="judged for the injected regressions; the first's MDE is the unit (%(default)s)")
    sub.add_argument("--kinds", default=",".join(KINDS), help="injected changes: clean, churn (%(default)s)")
    p = Policy()
    sub.add_argument("--tolerance", type=float, default=p.tolerance, help="absolute fall allowed (%(default)s)")
    sub.add_argument("--alpha", type=float, default=p.alpha, help="significance of the whole run (%(default)s)")
    sub.add_argument("--seed", type=int, default=0, help="(%(default)s)")
    sub.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 8),
                     help="worker processes; the figures do not depend on it (%(default)s: the CPUs, at most 8)")
    sub.add_argument("--json", type=Path, help="write every figure here")
    sub.add_argument("--per-strategy", action="store_true", help="print detection per strategy too")


def load(paths: Sequence[Path]) -> tuple[dict[str, SuiteResult], int]:
    """Every suite of every report (a key two reports share is prefixed with its report's name) and the cutoff k."""
    suites: dict[str, SuiteResult] = {}
    ks: set[int] = set()
    for path in paths:
        report = read_report(path)  # strict JSON of the report's shape and ranges, or one error naming the file
        ks.add(int(report.get("k", DEFAULT_K)))
        for key, suite in suites_from_report(report).items():
            if key in suites:
                key = f"{path.name}:{key}"
                suite.key = key
                for s in suite.strategies.values():
                    s.suite = key
            suites[key] = suite
    if len(ks) > 1:
        raise ValueError(f"the reports were evaluated at different cutoffs k: {sorted(ks)}")
    return suites, ks.pop() if ks else DEFAULT_K


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
    except ImportError:  # only slower
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


# -- work, split into tasks a worker process can run alone ------------------------------------------------------

_STATE: dict[str, Any] = {}


def _init(state: dict[str, Any]) -> None:
    _STATE.clear()
    _STATE.update(state)


def _task(task: tuple[Any, ...]) -> tuple[str, Any, float]:
    """One task's result and the seconds it took (what each kind of run costs, whatever the number of workers)."""
    started = time.perf_counter()
    with one_blas_thread():
        s = _STATE
        if task[0] == "null":
            result: Any = sign_flips(s["plan"], s["policy"], s["corrections"], range(task[1], task[2]), s["seed"])
        else:
            _, i, factor, start, stop = task
            result = detect(s["targets"][i], s["policy"], s["power_corrections"], factor, range(start, stop),
                            s["seed"])
    return task[0], result, time.perf_counter() - started


def _chunks(total: int) -> list[tuple[int, int]]:
    return [(a, min(total, a + CHUNK)) for a in range(0, total, CHUNK)]


def simulate(state: dict[str, Any], runs: int, power_runs: int, factors: Sequence[float],
             jobs: int) -> tuple[list[NullRates], list[Detection], dict[str, float]]:
    """Every null and detection run, merged in a fixed order whatever the number of workers; with the seconds
    each kind of run took in all (summed over the workers)."""
    tasks: list[tuple[Any, ...]] = [("null", a, b) for a, b in _chunks(runs)] if state["plan"].pairs else []
    tasks += [("power", i, f, a, b) for i in range(len(state["targets"])) for f in factors
              for a, b in _chunks(power_runs)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs, initializer=_init, initargs=(state,)) as pool:
            results = list(pool.map(_task, tasks))
    else:
        _init(state)
        results = [_task(t) for t in tasks]
    nulls: dict[str, NullRates] = {}
    power: dict[tuple[int, float], Detection] = {}
    seconds = {"null": 0.0, "power": 0.0}
    for task, (kind, value, took) in zip(tasks, results, strict=True):
        seconds[kind] += took
        if kind == "null":
            for rates in value:
                nulls.setdefault(rates.scope, NullRates(rates.kind, rates.scope, rates.changed, rates.family,
                                                        red={c: 0 for c in rates.red})).add(rates)
        else:
            key = (task[1], task[2])
            if key in power:
                power[key].add(value)
            else:
                power[key] = value
    return list(nulls.values()), list(power.values()), seconds


def run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    corrections, power_corrections = _words(args.corrections), _words(args.power_corrections)
    kinds = _words(args.kinds)
    bad = [c for c in corrections + power_corrections if c not in CORRECTIONS] + [k for k in kinds if k not in KINDS]
    if bad or not corrections or not power_corrections or args.runs < 0 or args.power_runs < 0 or args.jobs < 1:
        print(f"chunkeval calibrate: bad arguments {bad or ''} (corrections: {', '.join(CORRECTIONS)}; kinds: "
              f"{', '.join(KINDS)}; runs >= 0, jobs >= 1)", file=sys.stderr)
        return 2
    try:
        factors = [float(f) for f in _words(args.factors)]
        suites, k = load(args.reports)
    except (OSError, ValueError) as exc:
        print(f"chunkeval calibrate: {exc}", file=sys.stderr)
        return 2
    policy = Policy(k=k, tolerance=args.tolerance, alpha=args.alpha)
    started = time.perf_counter()
    with one_blas_thread():
        null_plan: NullPlan = plan(suites, k)
        same = same_tree(suites, policy, corrections)
        found = [t for kind in kinds for suite in suites.values() for t in targets(suite, k, kind)]
    state = {"plan": null_plan, "policy": policy, "corrections": corrections, "targets": found,
             "power_corrections": power_corrections, "seed": args.seed}
    nulls, power, work = simulate(state, args.runs, args.power_runs, factors, args.jobs)
    seconds = time.perf_counter() - started
    settings = {"reports": [str(p) for p in args.reports], "k": k, "tolerance": args.tolerance, "alpha": args.alpha,
                "seed": args.seed, "runs": args.runs, "power_runs": args.power_runs, "factors": factors,
                "corrections": corrections, "power_corrections": power_corrections, "kinds": kinds,
                "mismatches": sum(t.mismatches for t in found)}
    print(summary.render(settings, nulls + same, power, args.per_strategy))
    print(f"{seconds:.0f} s with {args.jobs} process{'es' if args.jobs > 1 else ''} (null runs {work['null']:.0f} s, "
          f"injected {work['power']:.0f} s of work)")
    if args.json:
        document = summary.as_json(settings, nulls + same, power)
        document["seconds"] = {"wall": round(seconds, 1), "jobs": args.jobs,
                               **{f"{k}_work": round(v, 1) for k, v in work.items()}}
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 0
