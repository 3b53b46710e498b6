"""The little of git that ``from-history`` needs, as plain subprocess calls with parsed results.

Kept apart from the selection logic so that the rules in :mod:`.history` read without git's output formats in
the way, and so every call is visibly read-only (``log``, ``ls-tree``, ``cat-file``, ``blame``).
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

_HEADER = re.compile(r"^([0-9a-f]{40}) (\d+) (\d+)(?: (\d+))?$")


class GitError(RuntimeError):
    pass


def git(repo: Path, *args: str, input_bytes: bytes | None = None) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], input=input_bytes, capture_output=True, check=False)
    if proc.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout


def resolve(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", "--verify", f"{rev}^{{commit}}").decode().strip()


@dataclass
class Commit:
    sha: str
    parents: list[str]
    subject: str
    changes: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> (added, deleted); -1 = binary
    changes_ignoring_space: dict[str, tuple[int, int]] = field(default_factory=dict)


def _parse_log(raw: bytes) -> list[tuple[str, list[str], str, dict[str, tuple[int, int]]]]:
    out = []
    for record in raw.decode("utf-8", "replace").split("\x1e")[1:]:
        head, _, stats = record.partition("\n")
        shas, _, subject = head.partition("\x1f")
        sha, *parents = shas.split()
        changes: dict[str, tuple[int, int]] = {}
        for line in stats.split("\n"):
            parts = line.split("\t")
            if len(parts) == 3:
                added, deleted, path = parts
                changes[path] = (int(added) if added.isdigit() else -1, int(deleted) if deleted.isdigit() else -1)
        out.append((sha, parents, subject, changes))
    return out


def commits(repo: Path, rev: str, limit: int) -> list[Commit]:
    """The newest ``limit`` commits reachable from ``rev``, each with its per-file line counts, both as written
    and with white space and blank lines ignored (equal counts of zero there = a formatting-only change)."""
    args = ["log", f"-n{limit}", "--format=%x1e%H %P%x1f%s", "--numstat", "--no-renames", rev]
    plain = _parse_log(git(repo, *args))
    spaced = {sha: ch for sha, _p, _s, ch in _parse_log(git(repo, *args[:-1], "-w", "--ignore-blank-lines", rev))}
    return [Commit(sha, parents, subject, changes, spaced.get(sha, {})) for sha, parents, subject, changes in plain]


def files_at(repo: Path, rev: str) -> list[str]:
    raw = git(repo, "ls-tree", "-r", "-z", "--name-only", rev)
    return sorted(p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p)


def blobs_at(repo: Path, rev: str, paths: list[str]) -> dict[str, bytes]:
    """File contents at ``rev`` in one ``git cat-file --batch`` round trip."""
    if not paths:
        return {}
    request = "".join(f"{rev}:{p}\n" for p in paths).encode("utf-8", "surrogateescape")
    raw = git(repo, "cat-file", "--batch", input_bytes=request)
    out: dict[str, bytes] = {}
    pos = 0
    for path in paths:
        nl = raw.index(b"\n", pos)
        header = raw[pos:nl].split()
        if len(header) < 3 or header[1] != b"blob":
            pos = nl + 1
            continue
        size = int(header[2])
        out[path] = raw[nl + 1: nl + 1 + size]
        pos = nl + 1 + size + 1
    return out


def blame(repo: Path, rev: str, path: str, ignore_revs_file: Path | None) -> dict[int, str]:
    """Line number at ``rev`` -> commit that wrote it, ignoring white space (-w), lines moved within the file
    (-M) or from other files of the same commit (-C), and the commits in ``ignore_revs_file``."""
    args = ["blame", "--porcelain", "-w", "-M", "-C"]
    if ignore_revs_file is not None:
        args += ["--ignore-revs-file", str(ignore_revs_file)]
    raw = git(repo, *args, rev, "--", path).decode("utf-8", "replace")
    owner: dict[int, str] = {}
    for line in raw.split("\n"):
        if line.startswith("\t"):
            continue
        match = _HEADER.match(line)
        if match:
            owner[int(match.group(3))] = match.group(1)
    return owner
