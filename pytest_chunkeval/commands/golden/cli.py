"""``chunkeval golden from-docs|from-history|keywords``: the command line over the generators.

Argument parsing and printing only; every rule lives in :mod:`.docs`, :mod:`.history` and :mod:`.keyword_suite`,
so the same suite can be
built from Python (``build_from_docs``) with the same result. :mod:`pytest_chunkeval.cli` mounts it.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_chunkeval.commands.golden.docs import DocsOptions, build_from_docs
from pytest_chunkeval.commands.golden.git import GitError
from pytest_chunkeval.commands.golden.history import HistoryOptions, build_from_history
from pytest_chunkeval.commands.golden.keyword_suite import KEYWORDS_FILE, default_out, derive_keyword_suite
from pytest_chunkeval.commands.golden.keywords import KeywordOptions
from pytest_chunkeval.core.golden import GoldenError


def add_parser(top: Any) -> None:
    """``chunkeval golden ...`` under the top-level command's subparsers."""
    area = top.add_parser("golden", help="build golden suites from a repository")
    area.set_defaults(handler=run)
    golden = area.add_subparsers(dest="command", required=True)

    docs = golden.add_parser("from-docs", help="queries = first sentences of documentation comments")
    docs.add_argument("src", type=Path, help="source tree to mine (any folder; a git checkout records its commit)")
    d = DocsOptions()
    docs.add_argument("--max-per-file", type=int, default=d.max_per_file, help="queries per file at most (%(default)s)")
    docs.add_argument("--min-span-lines", type=int, default=d.min_span_lines,
                      help="declarations shorter than this are dropped (%(default)s)")
    docs.add_argument("--max-span-lines", type=int, default=d.max_span_lines,
                      help="declarations longer than this are dropped (%(default)s)")

    hist = golden.add_parser("from-history", help="queries = subjects of focused commits, relevance = git blame")
    hist.add_argument("src", type=Path, metavar="repo", help="git repository")
    h = HistoryOptions()
    hist.add_argument("--rev", default=h.rev, help="revision whose files are the corpus (%(default)s)")
    hist.add_argument("--max-commits", type=int, default=h.max_commits, help="newest commits examined (%(default)s)")
    hist.add_argument("--max-files", type=int, default=h.max_files, help="code files a commit may touch (%(default)s)")
    hist.add_argument("--min-lines", type=int, default=h.min_lines,
                      help="substantive lines that must survive at REV (%(default)s)")
    hist.add_argument("--max-lines", type=int, default=h.max_lines, help="surviving lines at most (%(default)s)")

    for sub, opts in ((docs, d), (hist, h)):
        sub.add_argument("out", type=Path, help="output folder: queries.yaml, corpus/, meta.json")
        sub.add_argument("--seed", type=int, default=opts.seed, help="sampling seed (%(default)s)")
        sub.add_argument("--max-queries", type=int, default=opts.max_queries, help="(%(default)s)")
        sub.add_argument("--min-words", type=int, default=opts.min_words, help="words a query needs (%(default)s)")
        sub.add_argument("--max-file-bytes", type=int, default=opts.max_file_bytes, help="(%(default)s)")
        sub.add_argument("--keyword-queries", action="store_true",
                         help=f"also write {KEYWORDS_FILE}: the same queries as keyword lists (see 'keywords')")

    kw = golden.add_parser("keywords", help="derive a suite of keyword queries (terms and identifiers) from a suite")
    kw.add_argument("suite", type=Path, help="any golden suite (YAML or JSONL), bundled or generated")
    kw.add_argument("-o", "--out", type=Path, default=None,
                    help=f"output YAML (default: {KEYWORDS_FILE} beside SUITE); its corpus: points at SUITE's corpus")
    kw.add_argument("--identifiers", type=int, default=KeywordOptions().max_identifiers,
                    help="names taken from the relevant code, rarest first (%(default)s); 0 keeps the sentence's terms "
                         "only: names from the answer make a query easier than what a user who does not know them "
                         "types")


def _check_out(out: Path) -> str | None:
    """Refuse to overwrite a folder that is not an earlier generated suite (its corpus/ would be replaced)."""
    if out.exists() and not out.is_dir():
        return f"{out} exists and is not a folder"
    if out.is_dir() and any(out.iterdir()) and not (out / "meta.json").is_file():
        return f"{out} is not empty and holds no generated suite (no meta.json); choose another folder"
    return None


def _summary(meta: dict[str, Any], out: Path) -> str:
    lines = [f"{out / 'queries.yaml'}: {meta['queries']} queries over {meta['corpus_files']} corpus files"
             + (f" (commit {meta['commit'][:12]})" if meta.get("commit") else "")]
    if meta.get("skipped_files"):
        lines.append("skipped files: " + ", ".join(f"{k}={v}" for k, v in meta["skipped_files"].items()))
    lines.append("dropped: " + (", ".join(f"{k}={v}" for k, v in meta["dropped"].items()) or "none"))
    if meta.get("missing_grammars"):
        lines.append("grammar wheels not installed: " + ", ".join(meta["missing_grammars"]))
    lines.append(f"run: pytest --chunkeval --chunkeval-golden={out / 'queries.yaml'}")
    return "\n".join(lines)


def run_keywords(args: argparse.Namespace, command: str) -> int:
    out = args.out if args.out is not None else default_out(args.suite)
    try:
        suite = derive_keyword_suite(args.suite, out, command, KeywordOptions(max_identifiers=args.identifiers))
    except (GoldenError, ValueError) as exc:
        print(f"chunkeval: {exc}", file=sys.stderr)
        return 1
    print(f"{out}: {len(suite.queries)} keyword queries over {suite.corpus_dir} ({len(suite.corpus.files)} files)")
    print(f"run: pytest --chunkeval --chunkeval-golden={args.suite} --chunkeval-golden={out}")
    return 0


def run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    command = "chunkeval " + " ".join(shlex.quote(a) for a in argv)
    if args.command == "keywords":
        return run_keywords(args, command)
    problem = _check_out(args.out) or (None if args.src.is_dir() else f"{args.src} is not a folder")
    if problem:
        print(f"chunkeval: {problem}", file=sys.stderr)
        return 2
    common = {"seed": args.seed, "max_queries": args.max_queries, "min_words": args.min_words,
              "max_file_bytes": args.max_file_bytes}
    try:
        if args.command == "from-docs":
            opts = DocsOptions(max_per_file=args.max_per_file, min_span_lines=args.min_span_lines,
                               max_span_lines=args.max_span_lines, **common)
            meta = build_from_docs(args.src, args.out, opts, command)
        else:
            hopts = HistoryOptions(rev=args.rev, max_commits=args.max_commits, max_files=args.max_files,
                                   min_lines=args.min_lines, max_lines=args.max_lines, **common)
            meta = build_from_history(args.src, args.out, hopts, command)
    except (GoldenError, GitError, ValueError) as exc:
        print(f"chunkeval: {exc}", file=sys.stderr)
        return 1
    print(_summary(meta, args.out))
    if args.keyword_queries:
        source = args.out / "queries.yaml"
        keywords = derive_keyword_suite(source, default_out(source), command)
        print(f"{default_out(source)}: {len(keywords.queries)} keyword queries; "
              f"run: pytest --chunkeval --chunkeval-golden={source} --chunkeval-golden={default_out(source)}")
    return 0
