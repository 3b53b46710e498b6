"""How chunk snapshots are written: a chunk list as readable text (:func:`render_chunks`) and one amber file per
strategy (:class:`ChunkSnapshotExtension`). tests/test_chunk_snapshots.py (golden/avap) and
tests/test_ast_snapshots.py (golden/polyglot) snapshot through both, so their files read alike.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from syrupy.extensions.amber import AmberSnapshotExtension
from syrupy.location import PyTestLocation

# metadata keys worth reviewing (the rest, e.g. the full AST summary, is already visible in the text)
SHOWN_METADATA = ("block", "name", "part", "tags", "categories", "recovered", "parse_error")
# the ids the snapshot tests give their items: test_chunks[<strategy>:<corpus file>]
ITEM_NAME = re.compile(r"test_chunks\[(?P<strategy>[^:\]]+):.+\]")


class ChunkSnapshotExtension(AmberSnapshotExtension):
    """One amber file per strategy, ``<strategy>.ambr``, in a folder named after the item's test module so syrupy
    still knows which test module owns the files.

    The strategy is read from the test item itself (``test_chunks[<strategy>:<file>]``), not fixed per extension
    class, because syrupy relates files to items through :meth:`matches_test_location` when it decides which
    snapshots are unused: an item skipped because its strategy is unavailable (a peer not installed) must still
    claim its strategy's file, or syrupy reports that file's snapshots as unused and fails the run. The same
    matching lets syrupy find stale entries of a strategy's file when the run was given a path.
    """

    @staticmethod
    def strategy_of(test_location: PyTestLocation) -> str | None:
        """The strategy in the item's id, or None for an item of another test (which then owns no file here).

        Parsed from the id, which syrupy has for every item it relates to a file, rather than from
        ``item.callspec``, which an item syrupy rebuilds (from pytest-xdist workers) lacks."""
        match = ITEM_NAME.fullmatch(test_location.nodename or "")
        return match["strategy"] if match else None

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(Path(test_location.filepath).parent / "__snapshots__" / Path(test_location.filepath).stem)

    @classmethod
    def get_file_basename(cls, *, test_location: PyTestLocation, index: Any) -> str:
        name = cls.strategy_of(test_location)
        if name is None:
            raise ValueError(f"{test_location.nodeid}: not a test_chunks item, so it has no strategy file")
        return name

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        loc = Path(snapshot_location)
        return loc.parent == Path(cls.dirname(test_location=test_location)) and loc.stem == cls.strategy_of(test_location)


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line else prefix.rstrip() for line in text.split("\n"))


def render_chunks(chunks: list[Any], shown: tuple[str, ...] = SHOWN_METADATA) -> str:
    """One readable block per chunk: position, size, kind, reviewed metadata (``shown``), header, then the
    text/body."""
    out = [f"{len(chunks)} chunks"]
    for i, c in enumerate(chunks, 1):
        out.append(f"--- chunk {i}: lines {c.start_line}-{c.end_line}, bytes {c.start_byte}-{c.end_byte}, "
                   f"{len(c.text)} chars, kind={c.kind}")
        meta = getattr(c, "metadata", {}) or {}
        for key in shown:
            if key in meta and meta[key] not in (None, [], ""):
                value = meta[key]
                out.append(f"  {key}: {', '.join(map(str, value)) if isinstance(value, (list, tuple)) else value}")
        header = getattr(c, "header", "") or ""
        if header and c.text != header:  # a header in front of a source slice (a signature chunk is all header)
            out.append("  header:")
            out.append(_indent(header.rstrip("\n")))
            out.append("  body:")
            out.append(_indent(c.text[len(header):]))
        else:
            out.append("  text:")
            out.append(_indent(c.text))
    return "\n".join(out) + "\n"
