"""The golden suites ``chunkeval init`` makes: from documentation comments, and from commit subjects when there
is history, with the existing generators and their default seed (the same repository gives the same suites).

Suites are built in a staging folder outside the repository and moved in only once everything else is known to
succeed, so a failure leaves the repository as it was. A generator that cannot make a suite here is skipped with
its reason (its drop counts when it had candidates): one usable suite is enough to start.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_chunkeval.generators.common import NoQueriesError
from pytest_chunkeval.generators.docs import DocsOptions, build_from_docs
from pytest_chunkeval.generators.git import GitError
from pytest_chunkeval.generators.history import HistoryOptions, build_from_history
from pytest_chunkeval.golden import GoldenError
from pytest_chunkeval.init.repo import RepoInfo

GOLDEN_DIR = "golden"
SUITES = ("docs", "history")


@dataclass
class SuiteResult:
    name: str  # "docs" | "history"
    staged: Path | None = None  # the built suite (None: skipped)
    meta: dict[str, Any] = field(default_factory=dict)
    skipped: str = ""  # why there is no suite
    seconds: float = 0.0

    @property
    def folder(self) -> str:
        return f"{GOLDEN_DIR}/{self.name}"

    def summary(self) -> str:
        if self.staged is None:
            return f"{self.folder}: skipped: {self.skipped}"
        commit = f" (commit {self.meta['commit'][:12]})" if self.meta.get("commit") else ""
        return (f"{self.folder}: {self.meta['queries']} queries over {self.meta['corpus_files']} corpus files"
                f"{commit}, {self.seconds:.1f} s")

    def dropped(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.meta.get("dropped", {}).items()) or "none"


def _counts(meta: dict[str, Any]) -> str:
    parts = [f"dropped: {', '.join(f'{k}={v}' for k, v in meta['dropped'].items())}"] if meta.get("dropped") else []
    if meta.get("skipped_files"):
        parts.append("files skipped: " + ", ".join(f"{k}={v}" for k, v in meta["skipped_files"].items()))
    return "; ".join(parts)


def _no_docs(meta: dict[str, Any]) -> str:
    files = meta.get("files", {}).get("corpus", 0)
    if not files:
        return ("no source file in a language whose documentation comments it reads (Python, Go, JavaScript, "
                "TypeScript, Rust, Java, Kotlin, C#, Swift, PHP, C, C++)")
    if not meta.get("documented_declarations"):
        return f"no documentation comment in {files} source files"
    return f"no documentation comment made a query ({_counts(meta)})"


def history_skip(info: RepoInfo, no_history: bool) -> str | None:
    if no_history:
        return "--no-history"
    if info.top is None:
        return "not a git repository"
    if not info.is_top:
        return f"a folder inside the git repository {info.top}; history is read from the repository's top folder"
    if info.head is None:
        return "the repository has no commits yet"
    return None


def build_suites(info: RepoInfo, staging: Path, max_queries: int, no_history: bool, exclude: tuple[str, ...],
                 command: str) -> list[SuiteResult]:
    """Both suites, staged under ``staging/<name>``; ``exclude`` (repository-relative) is never read."""
    docs = SuiteResult("docs")
    started = time.perf_counter()
    try:
        docs.meta = build_from_docs(info.root, staging / "docs",
                                    DocsOptions(max_queries=max_queries, exclude=exclude), command)
        docs.staged = staging / "docs"
    except NoQueriesError as exc:
        docs.skipped = _no_docs(exc.meta)
    except (GoldenError, ValueError, OSError) as exc:
        docs.skipped = str(exc)
    docs.seconds = time.perf_counter() - started

    history = SuiteResult("history")
    reason = history_skip(info, no_history)
    if reason is not None:
        history.skipped = reason
        return [docs, history]
    started = time.perf_counter()
    try:
        history.meta = build_from_history(info.root, staging / "history",
                                          HistoryOptions(max_queries=max_queries, exclude=exclude), command)
        history.staged = staging / "history"
    except NoQueriesError as exc:
        history.skipped = (f"no commit made a query ({exc.meta.get('commits_examined', 0)} commits examined"
                           + (f"; {_counts(exc.meta)}" if _counts(exc.meta) else "") + ")")
    except (GoldenError, GitError, ValueError, OSError) as exc:
        history.skipped = str(exc)
    history.seconds = time.perf_counter() - started
    return [docs, history]
