"""What every part of one model's run reads, fixed when the run's state is built.

A run of several models (``--chunkeval-model A,B``) gets one state per model, each made with its own context, so
every part reads its own model's options from the start: a part never has its options pointed at another model, and
a part added later cannot be missed when the model changes, because the model never changes under it.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_chunkeval.settings.options import Options


def _stderr(text: str) -> object:
    return sys.stderr.write(text)


@dataclass(frozen=True)
class ModelContext:
    """One model's run: its options (``model`` names this one model; a session's state, before a run of several is
    split, holds the whole ``A,B``), its label, and where progress and notes go."""

    options: Options
    label: str = ""  # the model's label in a run of several ("" with one: item ids and report keys stay unlabelled)
    write: Callable[[str], object] = field(default=_stderr, compare=False)
    tty: bool = False


class ModelPart:
    """A part of one model's run: it reads that model's context, given at construction and read-only after."""

    def __init__(self, context: ModelContext) -> None:
        self._context = context

    @property
    def context(self) -> ModelContext:
        return self._context

    @property
    def options(self) -> Options:
        return self._context.options
