"""Writing the run's output files: never half a file, never one writer's temporary file under another's, and a file
that cannot be written is one line naming it, not a traceback that takes the verdict and the other files with it.

Each file is written to a temporary name of its own beside it (this process's id and a random part) and renamed over
the target, which is atomic on one file system: a reader sees the old file or the new one, and two runs writing the
same report (with a fixed ``.tmp`` name they would truncate each other's half-written file) each rename a whole one.
"""
from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """``write(temporary)`` then rename it to ``path`` (its folder created); the temporary file is removed when
    anything fails. Created with ``open(..., "x")``, so it gets the usual permissions (umask), unlike mkstemp's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "x"):
            pass
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            tmp.unlink()
        raise


def write_text(path: Path, text: str) -> None:
    write_atomic(path, lambda tmp: tmp.write_text(text, "utf-8"))


def failure(path: Path | str, exc: BaseException) -> str:
    """The one line a file that could not be written gets: its path, and the reason without a traceback (with the
    path the system names when that is another: the folder that could not be made, say)."""
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    other = getattr(exc, "filename", None)
    if other is not None and Path(other).name.startswith(f".{Path(path).name}."):  # our own temporary file
        other = None
    at = f" ({other})" if other is not None and str(other) != str(path) else ""
    return f"{written_prefix(path)}{reason}{at} [{type(exc).__name__}]"


def written_prefix(path: Path | str) -> str:
    """How a failure line about ``path`` starts (the summary looks for it: no "report: PATH" for a lost report)."""
    return f"chunkeval: could not write {path}: "


@dataclass
class Written:
    """What writing the outputs left: one line per file that could not be written, and the frontier's text."""

    errors: list[str] = field(default_factory=list)
    frontier_text: str = ""

    def attempt(self, path: Path | str, action: Callable[[], Any]) -> Any:
        """``action()``, or None and a line naming ``path`` when it fails (any exception: a renderer's bug must not
        cost the other files or the verdict either)."""
        try:
            return action()
        except Exception as exc:
            self.errors.append(failure(path, exc))
            return None


def partial_path(report: Path) -> Path:
    """Where an unfinished run writes what it has: beside the report, never over it."""
    return report.with_name(report.stem + ".partial" + report.suffix)


def report_lines(path: Path | None, report: dict[str, Any] | None, errors: list[str]) -> list[str]:
    """What the summary ends with about the files: each that could not be written, then where the report is (not
    for a report that could not be written)."""
    if path is None or report is None:
        return list(errors)
    if any(line.startswith(written_prefix(p)) for p in (path, partial_path(path)) for line in errors):
        return list(errors)
    if report.get("complete"):
        return [*errors, f"report: {path}"]
    return [*errors, f"the run did not finish: {path} was left as it was; what ran is in {partial_path(path).name}"]
