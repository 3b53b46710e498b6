"""The golden suites ``chunkeval init`` makes: from documentation comments, and from commit subjects when there
is history, with the existing generators and their default seed (the same repository gives the same suites).

Suites are built in a staging folder outside the repository and moved in only once everything else is known to
succeed, so a failure leaves the repository as it was. A generator that cannot make a suite here is skipped with
its reason (its drop counts when it had candidates): one usable suite is enough to start. A suite of fewer than
``min_queries`` queries (:data:`MIN_QUERIES` by default) is skipped the same way: it cannot judge a change.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_chunkeval.commands.golden.common import NoQueriesError
from pytest_chunkeval.commands.golden.docs import DocsOptions, build_from_docs
from pytest_chunkeval.commands.golden.git import GitError
from pytest_chunkeval.commands.golden.history import HistoryOptions, build_from_history
from pytest_chunkeval.commands.init.repo import RepoInfo
from pytest_chunkeval.core.golden import GoldenError
from pytest_chunkeval.scoring.family import mde

GOLDEN_DIR = "golden"
SUITES = ("docs", "history")

#: What a suite must let a pull-request check see, and what that takes (docs/golden-suites.md, "chunkeval init"):
#: the check's family per changed strategy is three tests (file-mode NDCG@10, Recall@10 and the per-query hits) at
#: alpha 0.05 with Holm, so the first of them must clear 0.05 / 3; a typical spread of the paired per-query NDCG@10
#: differences is about 0.30 (0.25-0.35 measured). The minimum detectable effect at 80 % power is then
#: 3.24 * 0.30 / sqrt(n): 0.22 at 20 queries, 0.18 at 30, 0.15 at 42, 0.08 at 150 (the default --max-queries).
FAMILY_ALPHA = 0.05 / 3
TYPICAL_SD = 0.30
#: The largest fall of NDCG@10 a suite may be blind to and still be worth a check: 0.15 (a fifth of a typical 0.75).
LARGEST_MDE = 0.15
#: The fewest queries a suite ``chunkeval init`` writes has (``--min-queries``): ceil((3.24 * 0.30 / 0.15) ** 2).
MIN_QUERIES = 42


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


def detectable(queries: int) -> float:
    """The smallest fall of NDCG@10 a check over ``queries`` detects, at the typical spread (:data:`TYPICAL_SD`)."""
    found = mde(TYPICAL_SD, queries, FAMILY_ALPHA)
    return 1.0 if found is None else min(1.0, found)


def too_few(queries: int, min_queries: int, meta: dict[str, Any]) -> str:
    """Why a suite of ``queries`` is not written, what it would take, and how to write it anyway."""
    counts = _counts(meta)
    made = f"{queries} {'query' if queries == 1 else 'queries'}"
    return (f"{made}, fewer than the {min_queries} a suite needs to judge a change"
            + (f" ({counts})" if counts else "")
            + f": over {made} a pull-request check sees only falls of NDCG@10 larger than about "
            f"{detectable(queries):.2f}; {MIN_QUERIES} queries bring that to {detectable(MIN_QUERIES):.2f}, 150 to "
            f"{detectable(150):.2f}. Add queries by hand, or write it as it is with --min-queries {max(queries, 1)}")


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


def _enough(suite: SuiteResult, min_queries: int) -> None:
    """A staged suite of fewer than ``min_queries`` queries is skipped with the reason (it stays in staging)."""
    queries = int(suite.meta.get("queries", 0))
    if suite.staged is not None and queries < min_queries:
        suite.staged = None
        suite.skipped = too_few(queries, min_queries, suite.meta)


def build_suites(info: RepoInfo, staging: Path, max_queries: int, no_history: bool, exclude: tuple[str, ...],
                 command: str, min_queries: int = MIN_QUERIES) -> list[SuiteResult]:
    """Both suites, staged under ``staging/<name>``; ``exclude`` (repository-relative) is never read; a suite of
    fewer than ``min_queries`` queries is skipped."""
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
    _enough(docs, min_queries)

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
    _enough(history, min_queries)
    return [docs, history]
