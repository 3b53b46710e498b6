"""What a chunking strategy is, and how one gets registered.

A strategy is any object with a ``name`` and ``chunk(path, text) -> list[Chunk]``. :class:`Strategy` gives the
optional parts sensible defaults (which files it handles, its declared limits, what it feeds on) so a user's
strategy can be a dozen lines. Registration is one decorator, :func:`strategy`, which also turns the factory into
an ordinary pytest fixture, so ``def test_x(fixed_size): ...`` works in any test.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol, runtime_checkable

from .chunk import Chunk


@runtime_checkable
class ChunkingStrategy(Protocol):
    """The minimal contract the harness relies on."""

    name: str

    def chunk(self, path: str, text: str) -> list[Chunk]: ...


class Strategy:
    """Convenient base for strategies; every attribute here is optional for a duck-typed strategy.

    ``extensions`` of ``None`` means "every text file". ``max_chunk_size`` with ``size_unit`` ("chars",
    "nonws_chars" or "tokens") is the limit the quality checks hold the strategy to. ``fits_window`` promises that
    every chunk fits the embedder's token window, so truncation becomes a failure instead of a statistic.
    ``lossless`` promises every non-blank source line appears in some chunk, except the kinds of text named in
    ``drops`` (e.g. ``{"comments"}``). ``size_applies_to`` says whether ``max_chunk_size`` bounds the whole
    embedded ``text`` (header included) or only the source ``body``. ``unavailable``, when set, is the reason the
    strategy cannot run here (an optional peer library missing); its items are skipped with that reason.
    """

    unavailable: str | None = None

    name: str = ""
    version: str = "1"
    description: str = ""
    extensions: tuple[str, ...] | None = None
    max_chunk_size: int | None = None
    size_unit: str = "chars"
    size_applies_to: str = "text"
    fits_window: bool = False
    lossless: bool = True
    drops: frozenset[str] = frozenset()

    def chunk(self, path: str, text: str) -> list[Chunk]:  # pragma: no cover - abstract
        raise NotImplementedError

    def handles(self, path: str) -> bool:
        if self.extensions is None:
            return True
        return path.lower().endswith(tuple(e.lower() for e in self.extensions))

    def source_files(self) -> list[Path]:
        """Files the strategy reads besides its code (a grammar, a config): they feed the index fingerprint."""
        return []

    def stats(self) -> dict[str, Any]:
        """Counters the strategy wants in the report (parse failures, fallbacks, ...), since its last reset."""
        return {}

    def reset_stats(self) -> None:
        return None


def handles(strategy: Any, path: str) -> bool:
    fn = getattr(strategy, "handles", None)
    return True if fn is None else bool(fn(path))


@dataclass(frozen=True)
class Registration:
    """A registered strategy factory and where it came from (for error messages and fingerprints)."""

    name: str
    factory: Callable[[], Any]
    baseline: bool
    origin: str

    def build(self) -> Any:
        obj = self.factory()
        if not callable(getattr(obj, "chunk", None)):
            raise TypeError(f"strategy {self.name!r} ({self.origin}) returned {type(obj).__name__}, which has no chunk()")
        if not getattr(obj, "name", None):
            try:
                obj.name = self.name
            except AttributeError:
                pass
        return obj


_REGISTRY: dict[tuple[str, str], Registration] = {}


def registrations() -> list[Registration]:
    """Every registration this process has seen, in order (several projects may share a process under pytester)."""
    return list(_REGISTRY.values())


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def registry(roots: list[Path] | None = None, conftest_root: Path | None = None) -> dict[str, Registration]:
    """Registered strategies by name; with ``roots``, only those defined in files under one of them, plus those
    registered from a ``conftest.py`` under ``conftest_root``.

    Scoping by file location keeps two pytest sessions in one process (pytester, IDEs) from seeing each other's
    strategies. Two strategies of the same name in scope are an error: silently picking one would evaluate the
    wrong code.
    """
    chosen: dict[str, Registration] = {}
    resolved = [r.resolve() for r in roots] if roots is not None else None
    conftests = conftest_root.resolve() if conftest_root is not None else None
    for reg in _REGISTRY.values():
        if resolved is not None:
            origin = Path(reg.origin.rsplit(":", 1)[0]).resolve()
            in_roots = any(_under(origin, r) for r in resolved)
            from_conftest = conftests is not None and origin.name == "conftest.py" and _under(origin, conftests)
            if not (in_roots or from_conftest):
                continue
        previous = chosen.get(reg.name)
        if previous is not None:
            raise ValueError(f"strategy {reg.name!r} registered twice: {previous.origin} and {reg.origin}")
        chosen[reg.name] = reg
    return chosen


def strategy(
    fn: Callable[[], Any] | None = None, *, name: str | None = None, baseline: bool = False
) -> Any:
    """Register a strategy factory and make it a pytest fixture of the same name.

    Usage::

        @strategy
        def my_chunker():
            return MyChunker()

    The fixture is session-scoped and returns the strategy object, so any test can use ``my_chunker`` directly.
    """

    def wrap(f: Callable[[], Any]) -> Any:
        import pytest

        reg_name = name or f.__name__
        origin = f"{inspect.getsourcefile(f) or '?'}:{f.__code__.co_firstlineno}"
        _REGISTRY[(reg_name, origin)] = Registration(reg_name, f, baseline, origin)
        return pytest.fixture(name=reg_name, scope="session")(f)

    return wrap(fn) if fn is not None else wrap


def unregister(name: str) -> None:
    """Forget a strategy (used by tests that register throwaway strategies)."""
    for key in [k for k in _REGISTRY if k[0] == name]:
        del _REGISTRY[key]


def code_files(obj: Any) -> list[Path]:
    """Source files whose code defines ``obj``'s behaviour: its class hierarchy outside the standard library."""
    files: list[Path] = []
    for cls in type(obj).__mro__:
        if cls is object:
            continue
        try:
            src = inspect.getsourcefile(cls)
        except TypeError:
            continue
        if src:
            p = Path(src)
            if p not in files:
                files.append(p)
    return files
