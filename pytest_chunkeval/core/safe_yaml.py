"""YAML read from files a pull request can change (golden files, accepted-miss records): safe types, no aliases.

A safe loader still expands aliases: nine levels of ten aliases (``&a [x, x]``, ``&b [*a, *a, ...]``, ...) is a few
hundred bytes that become 10⁹ values, a run that grinds for half a minute into a MemoryError cascade. Neither file
kind has a use for anchors (they are hand-written lists, or written by this package without them), so an alias is
refused before anything is built, as a YAML error whose mark is the alias: the caller's usual ``file:line`` message.
"""
from __future__ import annotations

from typing import Any

import yaml

#: libyaml's safe loader when PyYAML has it (several times faster on a suite of hundreds of queries; the same
#: values and marks), else the pure-Python one.
LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def refuse_aliases(text: str) -> None:
    """Raise a :class:`yaml.MarkedYAMLError` at the first alias of ``text`` (a YAML error too, at its own mark, when
    ``text`` is not YAML). Parsing events only builds no value, so a bomb costs what its text costs."""
    for event in yaml.parse(text, Loader=LOADER):
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, f"an alias (*{event.anchor}) is not allowed here: write the value out instead "
                "(aliases can expand a small file into billions of values)", event.start_mark)  # type: ignore[arg-type]


def load(text: str) -> Any:
    """``text`` as safe YAML with no aliases (see :func:`refuse_aliases`)."""
    refuse_aliases(text)
    return yaml.load(text, Loader=LOADER)  # noqa: S506 - a safe loader (above)


class Dumper(yaml.SafeDumper):
    """A safe dumper that never writes an anchor: a value used twice is written twice, so what this package writes
    it can read back."""

    def ignore_aliases(self, data: Any) -> bool:
        return True
