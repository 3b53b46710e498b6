"""The commit a ``--chunkeval-base`` ref names, resolved with the settings: a ref that names nothing is a usage
error before anything runs, not a failure after the head side has been evaluated."""
from __future__ import annotations

import subprocess
from pathlib import Path


class BaseRefError(Exception):
    """The base side could not be evaluated; the message says why and what to do."""


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        raise BaseRefError(f"--chunkeval-base: cannot run git: {exc}") from None


def resolve_commit(root: Path, ref: str) -> str:
    """The commit ``ref`` names, or a :class:`BaseRefError` that says why not (checked before anything runs)."""
    top = git(root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise BaseRefError(f"--chunkeval-base {ref}: {root} is not inside a git repository")
    out = git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if out.returncode != 0 or not out.stdout.strip():
        hint = " (in CI, check out full history, e.g. actions/checkout with fetch-depth: 0)" if "/" in ref else ""
        raise BaseRefError(f"--chunkeval-base {ref}: no such commit or ref in {top.stdout.strip()}{hint}")
    return out.stdout.strip()


