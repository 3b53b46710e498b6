"""``chunkeval init [PATH]``: one command that sets a repository up so that ``pytest --chunkeval`` works there.

It reports the repository's languages, builds golden suites from the repository itself, adds the plugin's
settings to the pytest configuration pytest reads, and writes an example strategy and a GitHub workflow. Every
output that is already there is a conflict, listed at once, and nothing is written without ``--force``; nothing is
written either when no suite can be made. :mod:`pytest_chunkeval.cli` mounts it.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_chunkeval.commands.golden.docs import DocsOptions
from pytest_chunkeval.commands.init.detect import Detection, detect
from pytest_chunkeval.commands.init.files import ACTION, WORKFLOW_FILE, action_ref, strategy_module, workflow
from pytest_chunkeval.commands.init.ini import GRAMMAR_KEYS, KEYS, InitError, Target, find_target, updated_text
from pytest_chunkeval.commands.init.ini_text import render
from pytest_chunkeval.commands.init.plan import Plan, conflicts, make_plan, write_all
from pytest_chunkeval.commands.init.repo import inspect_repo
from pytest_chunkeval.commands.init.suites import (
    MIN_QUERIES,
    SUITES,
    SuiteResult,
    build_suites,
    detectable,
    history_skip,
)

MAX_QUERIES = 150
BASELINE = "file_level"
EVALUATE = "chunkeval run"
ACCEPT = "chunkeval run --chunkeval-accept-misses"
BY_HAND = """\
Write one by hand instead: golden/mine/queries.yaml, with the files it searches under golden/mine/corpus/
(format: docs/golden-suites.md in pytest-chunkeval, "Format"):

    corpus: corpus
    queries:
      - id: retry-delay                    # stable and unique
        query: How is the delay before a retry computed?
        relevant:
          - path: net/retry.py             # relative to corpus/
            lines: [10, 24]                # optional: 1-based, inclusive

then evaluate it with: chunkeval run --chunkeval-golden=golden/mine/queries.yaml"""


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_parser(top: Any) -> None:
    """``chunkeval init`` under the top-level command's subparsers."""
    init = top.add_parser(
        "init", help="set a repository up for pytest --chunkeval",
        description="Detect the repository's languages, build golden suites from its documentation comments and "
                    "history, add the settings to its pytest configuration, and write an example strategy and a "
                    "GitHub workflow.")
    init.add_argument("path", nargs="?", type=Path, default=Path("."), help="the repository (default: .)")
    init.add_argument("--force", action="store_true", help="replace outputs that are already there")
    init.add_argument("--max-queries", type=_positive, default=MAX_QUERIES,
                      help="queries per suite at most (%(default)s)")
    init.add_argument("--min-queries", type=_positive, default=MIN_QUERIES,
                      help="queries a suite needs to be written (%(default)s: fewer cannot judge a change; see "
                           "docs/golden-suites.md)")
    init.add_argument("--no-history", action="store_true", help="no suite from commit subjects")
    init.add_argument("--action", default=ACTION, metavar="REF",
                      help="the action the workflow uses: owner/repo@ref, or a ref of the default (%(default)s)")
    init.set_defaults(handler=run)


def _languages(found: Detection, target: Target) -> list[str]:
    out = [f"Languages ({found.files} files; {found.listing}):"]
    if not found.languages:
        out.append("  none that a built-in parser reads")
    else:
        out.append(f"  {'language':<12} {'files':>5}  {'doc comments':<13} AST chunking")
        for lang in found.languages:
            docs = "yes" if lang.docs else "-"
            out.append(f"  {lang.name:<12} {lang.files:>5}  {docs:<13} {'yes' if lang.ast else '-'}")
    if found.unknown:
        listed = ", ".join(f"{ext} ({n})" for ext, n in found.unknown.items())
        syntax = "toml" if isinstance(target.section, tuple) else "ini"
        example = {GRAMMAR_KEYS["grammar"]: "path/to/lang.lark", GRAMMAR_KEYS["grammar_config"]: "path/to/config.json"}
        out += [f"Files no built-in parser reads (chunked as plain text): {listed}",
                f"  If one is your own language (a DSL), give pytest-chunkeval its grammar in {target.label}:",
                *("    " + line.rstrip("\n") for k, v in example.items() for line in render(syntax, k, v, "\n"))]
    return out


def _suites(results: list[SuiteResult], max_queries: int) -> list[str]:
    out = [f"Golden suites (seed {DocsOptions().seed}, at most {max_queries} queries each):"]
    for suite in results:
        out.append("  " + suite.summary())
        if suite.staged is not None:
            out.append(f"    dropped: {suite.dropped()}")
            n = int(suite.meta.get("queries", 0))
            if n < MIN_QUERIES:  # written because --min-queries allowed it
                out.append(f"    note: {n} queries are few: a pull-request check over them detects only large falls "
                           f"(above about {detectable(n):.2f} of NDCG@10; the report says how large); add queries "
                           "by hand")
    return out


def _next_steps(plan: Plan, written: dict[str, str]) -> list[str]:
    here = Path.cwd().resolve()
    cd = [] if here == plan.root else [f"  cd {shlex.quote(os.path.relpath(plan.root, here))}"]
    width = max(len(w) for w in written)
    out = ["Wrote:", *(f"  {w:<{width}}  {why}" for w, why in written.items())]
    if plan.info.top is not None and not plan.info.is_top:
        out.append(f"  note: GitHub reads workflows only from {plan.info.top / '.github' / 'workflows'}; move "
                   f"{WORKFLOW_FILE} there and run the action in this folder")
    if plan.strategies_note:
        out.append(f"  note: {plan.strategies_note}")
    return out + [
        "Next:", *cd,
        f"  {EVALUATE:<{len(ACCEPT)}}  # the built-in strategies and blank_lines on the new suites: the table",
        f"  {ACCEPT}  # record today's misses as the baseline to hold (accepted_misses.yaml)",
        "  (chunkeval run is pytest --chunkeval on the suites alone: your addopts, warning filters, conftests and "
        "plugins are left out)",
        f"Then commit golden/, {plan.strategies_dir}/, {plan.target.shown} and {WORKFLOW_FILE}.",
    ]


def run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    if not args.path.is_dir():
        print(f"chunkeval init: {args.path} is not a folder", file=sys.stderr)
        return 2
    try:
        return _init(args, "chunkeval " + " ".join(shlex.quote(a) for a in argv))
    except InitError as exc:
        print(f"chunkeval init: {exc}\nNothing was written.", file=sys.stderr)
        return 1


def _init(args: argparse.Namespace, command: str) -> int:
    if args.max_queries < args.min_queries:
        print(f"chunkeval init: --max-queries {args.max_queries} is below --min-queries {args.min_queries}: every "
              "suite would be skipped. Nothing was written.", file=sys.stderr)
        return 2
    info = inspect_repo(args.path)
    plan = make_plan(info, find_target(info.root))
    attempted = [s for s in SUITES if s != "history" or history_skip(info, args.no_history) is None]
    problems = conflicts(plan, attempted)
    if problems and not args.force:
        print("chunkeval init: these are there already; nothing was written (--force replaces them):",
              *(f"  {p}" for p in problems), sep="\n", file=sys.stderr)
        return 2
    print(f"chunkeval init: {info.root}")
    if problems:
        print("--force: replacing", "; ".join(problems))
    print(*_languages(detect(info, plan.outputs), plan.target), sep="\n")
    with tempfile.TemporaryDirectory(prefix="chunkeval-init-") as staging:
        results = build_suites(info, Path(staging), args.max_queries, args.no_history, plan.outputs, command,
                               args.min_queries)
        print(*_suites(results, args.max_queries), sep="\n")
        made = [r for r in results if r.staged is not None]
        if not made:
            print(f"chunkeval init: no golden suite could be made from {info.root}:",
                  *(f"  {r.folder}: {r.skipped}" for r in results), "Nothing was written.", BY_HAND,
                  sep="\n", file=sys.stderr)
            return 1
        suites = [f"{r.folder}/queries.yaml" for r in made]
        action = action_ref(args.action)
        target = plan.target
        values = {KEYS["golden"]: [target.relative(s) for s in suites],
                  KEYS["strategies_dir"]: target.relative(plan.strategies_dir), KEYS["baseline"]: BASELINE}
        texts = {
            plan.strategy_file: strategy_module(),
            WORKFLOW_FILE: workflow(action, suites, info.default_branch),
            target.shown: updated_text(target, values),
        }
        write_all(plan, made, texts)
    written = {f"{r.folder}/": "queries.yaml, corpus/ (a copy of the files searched), meta.json" for r in made}
    written[plan.strategy_file] = "an example strategy, blank_lines (cuts at blank lines)"
    written[WORKFLOW_FILE] = f"on pull requests: {action}, head against base"
    written[plan.target.label] = f"{', '.join(values)} ({plan.target.reason})"
    print(*_next_steps(plan, written), sep="\n")
    return 0
