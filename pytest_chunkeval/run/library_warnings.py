"""Warnings from the libraries an evaluation uses never fail it.

A project's ``filterwarnings = error`` (or ``-W error``, ``PYTHONWARNINGS=error``) is about the project's own code.
An evaluation runs torch, transformers, LanceDB, pyarrow and their dependencies, which warn about their own
deprecations; under the project's filters one such warning would turn an evaluation item into an error the user can
neither fix nor avoid. So the evaluation's items carry these filters as a ``filterwarnings`` mark (pytest applies
marks after the ini's and the command line's, so they win), and the plugin's own hooks run under the same filters:
other warnings are still shown once in pytest's warnings summary, deprecations are silenced.
"""
from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

#: (action, category), lowest priority first: everything shown, never raised; deprecation notices of the
#: dependencies not shown at all (nothing a user evaluating chunking can act on).
FILTERS: tuple[tuple[str, type[Warning]], ...] = (
    ("default", Warning),
    ("ignore", DeprecationWarning),
    ("ignore", PendingDeprecationWarning),
    ("ignore", FutureWarning),
)
#: The same filters as the arguments of a ``pytest.mark.filterwarnings`` mark (applied in order: the last wins).
MARK_ARGS = tuple(f"{action}::{category.__name__}" for action, category in FILTERS)

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def dependency_warnings() -> Iterator[None]:
    """Run a block under :data:`FILTERS`; the filters before it are restored after it."""
    with warnings.catch_warnings():
        for action, category in FILTERS:
            warnings.filterwarnings(action, category=category)  # type: ignore[arg-type]
        yield


def tolerant(hook: Callable[P, R]) -> Callable[P, R]:
    """A plugin hook run under :func:`dependency_warnings` (pytest calls it by its name and arguments: kept)."""
    @functools.wraps(hook)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with dependency_warnings():
            return hook(*args, **kwargs)

    return run
