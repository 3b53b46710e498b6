"""What ``chunkeval init`` needs to know about the repository it sets up, asked of git once.

A folder that is not a git repository, a repository without commits, and a folder inside a larger repository
(a monorepo's project) are all normal starting points; each limits what init can do (history needs commits and
the repository's top folder; GitHub reads workflows only from the top), and init says so instead of failing.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_chunkeval.commands.golden.git import GitError, git


@dataclass(frozen=True)
class RepoInfo:
    root: Path  # the folder being set up, resolved
    top: Path | None  # top folder of the git work tree holding it (None: not in a git repository)
    head: str | None  # HEAD's commit (None: no commit yet, or no git)
    default_branch: str  # the branch a push trigger names

    @property
    def is_top(self) -> bool:
        return self.top is not None and self.top == self.root


def _ask(root: Path, *args: str) -> str | None:
    try:
        return git(root, *args).decode("utf-8", "replace").strip() or None
    except (GitError, OSError):
        return None


def _default_branch(root: Path) -> str:
    """origin's default branch, else a local main or master, else the current branch, else main."""
    remote = _ask(root, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if remote and "/" in remote:
        return remote.split("/", 1)[1]
    for name in ("main", "master"):
        if _ask(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}"):
            return name
    return _ask(root, "symbolic-ref", "--quiet", "--short", "HEAD") or "main"


def inspect_repo(root: Path) -> RepoInfo:
    root = root.resolve()
    top = _ask(root, "rev-parse", "--show-toplevel")
    if top is None:
        return RepoInfo(root, None, None, "main")
    head = _ask(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    return RepoInfo(root, Path(top).resolve(), head, _default_branch(root))


def git_files(info: RepoInfo) -> list[str] | None:
    """The project's files under ``root`` as git sees them (tracked, plus untracked ones not ignored), relative
    posix paths; None outside a git repository."""
    if info.top is None:
        return None
    try:
        raw = git(info.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    except (GitError, OSError):
        return None
    names = sorted({p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p})
    return [p for p in names if (info.root / p).is_file()]  # deleted but still tracked files are gone
