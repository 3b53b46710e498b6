"""GitHub Actions annotations for failed evaluation items (``--chunkeval-annotations``).

A workflow command line (``::error file=…,title=…::message``) printed to the log becomes an annotation on the run and
the pull request, so a reviewer sees which strategy lost which query without opening the log.
"""
from __future__ import annotations

from collections.abc import Sequence

from pytest_chunkeval.output.escape import command_data as _data
from pytest_chunkeval.output.escape import command_property as _property

MAX_ANNOTATIONS = 50  # GitHub shows at most 10 errors per step and 50 per job


def annotation_lines(failed: Sequence[tuple[str, str, str]]) -> list[str]:
    """One ``::error`` line per (node id, golden file, first line of the failure), at most :data:`MAX_ANNOTATIONS`."""
    lines = [
        f"::error file={_property(path)},title={_property(nodeid)}::{_data(message)}"
        for nodeid, path, message in failed[:MAX_ANNOTATIONS]
    ]
    if len(failed) > MAX_ANNOTATIONS:
        lines.append(f"::warning title=chunkeval::{len(failed) - MAX_ANNOTATIONS} more failed items (see the log)")
    return lines
