"""What the harness relies on about a strategy, and how one gets registered.

Building a registered strategy resolves its :class:`Contract` once (:func:`resolve`): what it handles, its version,
size unit and limit, whether it is lossless or which lines it declares dropped, its counters, the files that feed
its fingerprint. The rest of the package reads the contract, never the strategy object's attributes; what a strategy
declares, and the :class:`~pytest_chunkeval.chunking.strategy_base.Strategy` base that gives those declarations
their defaults, is :mod:`.strategy_base`.

Registration is one decorator, :func:`strategy`, which also turns the factory into an ordinary pytest fixture, so
``def test_x(fixed_size): ...`` works in any test; :func:`registry` gives a session the strategies in its scope.
"""
from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.chunking.sizing import check_unit
from pytest_chunkeval.chunking.strategy_base import resolve_limit, window_fits
from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.core.grid import Point, Value, grid_fixture

if TYPE_CHECKING:
    from pytest_chunkeval.chunking.sizing import TokenModel

#: What ``size_applies_to`` may say: the whole embedded text, or the source body alone.
SIZE_APPLIES_TO = ("text", "body")


@dataclass(frozen=True)
class Contract:
    """What the harness relies on about one strategy, resolved once by :func:`resolve` when it is built.

    Every other module reads these fields instead of probing the strategy object, so a duck-typed strategy and a
    :class:`~pytest_chunkeval.chunking.strategy_base.Strategy` subclass are held to the same defaults, and a
    declaration that makes no sense (an unknown size unit, ``WINDOW`` in characters) fails when the strategy is built,
    not halfway through an evaluation. ``model`` is the model the contract was resolved against (None: the strategy's
    default); :meth:`bind` gives the contract for another one, e.g. the embedder's. ``strategy`` is the object itself,
    for anything else.
    """

    strategy: Any
    name: str
    version: str
    description: str
    unavailable: str | None
    extensions: tuple[str, ...] | None
    max_chunk_size: int | None
    size_unit: str
    size_applies_to: str
    fits_window: bool
    lossless: bool
    source_files: tuple[Path, ...]
    code_files: tuple[Path, ...]
    model: TokenModel | None = None
    _chunk: Callable[[str, str], list[Chunk]] = field(default=None, repr=False)  # type: ignore[assignment]
    _handles: Callable[[str], bool] | None = field(default=None, repr=False)
    _dropped: Callable[[str, str], Iterable[int]] | None = field(default=None, repr=False)
    _stats: Callable[[], Any] | None = field(default=None, repr=False)
    _reset: Callable[[], Any] | None = field(default=None, repr=False)

    def chunk(self, path: str, text: str) -> list[Chunk]:
        return self._chunk(path, text)

    def handles(self, path: str) -> bool:
        if self._handles is not None:
            return bool(self._handles(path))
        return self.extensions is None or path.lower().endswith(tuple(e.lower() for e in self.extensions))

    def dropped_lines(self, path: str, text: str) -> set[int]:
        return set(self._dropped(path, text)) if self._dropped is not None else set()

    def stats(self) -> dict[str, Any]:
        return dict(self._stats() or {}) if self._stats is not None else {}

    def reset_stats(self) -> None:
        if self._reset is not None:
            self._reset()

    def bind(self, model: TokenModel) -> Contract:
        """The contract for ``model``: the strategy sizes in its tokens and the window limit and promise follow it."""
        return resolve(self.strategy, name=self.name, model=model)


def _method(obj: Any, name: str) -> Callable[..., Any] | None:
    fn = getattr(obj, name, None)
    return fn if callable(fn) else None


def resolve(obj: Any, *, name: str | None = None, model: TokenModel | None = None, origin: str = "") -> Contract:
    """Read ``obj``'s declarations once into a :class:`Contract`: the one place the harness inspects a strategy.

    A strategy without a name takes ``name`` (the registered factory's). With ``model``, the strategy is handed
    that model (``use_model``) and the window-dependent parts (``WINDOW`` limits, the fits-the-window promise)
    are resolved against it.
    """
    where = f"strategy {name or type(obj).__name__!r}" + (f" ({origin})" if origin else "")
    chunk = _method(obj, "chunk")
    if chunk is None:
        raise TypeError(f"{where} returned {type(obj).__name__}, which has no chunk()")
    if not getattr(obj, "name", None) and name:
        with contextlib.suppress(AttributeError):
            obj.name = name
    label = str(getattr(obj, "name", "") or name or type(obj).__name__)
    use_model = _method(obj, "use_model")
    if model is not None and use_model is not None:
        use_model(model)
    try:
        unit = check_unit(str(getattr(obj, "size_unit", "chars") or "chars"))
        applies = str(getattr(obj, "size_applies_to", "text") or "text")
        if applies not in SIZE_APPLIES_TO:
            raise ValueError(f"size_applies_to must be one of {SIZE_APPLIES_TO}, got {applies!r}")
        limit = resolve_limit(getattr(obj, "max_chunk_size", None), unit, model)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    extensions = getattr(obj, "extensions", None)
    sources = _method(obj, "source_files")
    unavailable = getattr(obj, "unavailable", None)
    return Contract(
        strategy=obj,
        name=label,
        version=str(getattr(obj, "version", "") or ""),
        description=str(getattr(obj, "description", "") or ""),
        unavailable=str(unavailable) if unavailable else None,
        extensions=tuple(extensions) if extensions is not None else None,
        max_chunk_size=limit,
        size_unit=unit,
        size_applies_to=applies,
        fits_window=bool(getattr(obj, "fits_window", False)) or window_fits(unit, applies, limit, model),
        lossless=bool(getattr(obj, "lossless", True)),
        source_files=tuple(Path(p) for p in (sources() if sources is not None else ())),
        code_files=tuple(code_files(obj)),
        model=model,
        _chunk=chunk,
        _handles=_method(obj, "handles"),
        _dropped=_method(obj, "dropped_lines"),
        _stats=_method(obj, "stats"),
        _reset=_method(obj, "reset_stats"),
    )


#: Where a registration came from: a package's entry point (the built-ins among them), the ini's grammar
#: settings, or the project's own strategy files and conftests. A project's strategy may replace the other two.
SOURCES = ("package", "grammar", "project")


@dataclass(frozen=True)
class Registration:
    """A registered strategy factory and where it came from (for error messages, notes and fingerprints).

    ``ref`` and ``args`` name the factory as ``module:function`` plus string arguments when it is not defined in a
    strategy file (entry points, grammar settings): what a worker process (the Ray engine) imports to rebuild it.
    ``provider`` names what supplied it, for the notes a run prints ("pytest-chunkeval 0.1.0", "ini ...").
    ``grid`` is the parameter grid ``@strategy(params=...)`` declared; ``point`` the keyword arguments of one grid
    point (:mod:`pytest_chunkeval.core.grid`), whose registration is named by its label and keeps the strategy's name
    as ``family``.
    """

    name: str
    factory: Callable[..., Any]
    origin: str
    source: str = "project"
    ref: str | None = None
    args: tuple[str, ...] = ()
    provider: str = ""
    grid: tuple[tuple[str, tuple[Value, ...]], ...] = ()
    point: Point = ()
    family: str = ""
    # Run only when asked for (named, gridded, or --chunkeval-strategies=all): a built-in that does not answer the
    # first question, "which way of chunking", on its own (a variant of another built-in, other people's chunkers).
    on_request: bool = False

    @property
    def strategy_name(self) -> str:
        """The registered strategy's own name: a grid point's family, else the name."""
        return self.family or self.name

    def build(self) -> Contract:
        """Call the factory (with a grid point's values) and resolve the strategy's contract."""
        return resolve(self.factory(**dict(self.point)), name=self.name, origin=self.origin)


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


def strategy(fn: Callable[..., Any] | None = None, *, name: str | None = None,
             params: dict[str, Iterable[Value]] | None = None) -> Any:
    """Register a strategy factory and make it a pytest fixture of the same name.

    Usage::

        @strategy
        def my_chunker():
            return MyChunker()

        @strategy(params={"size": [500, 1000], "overlap": [0, 100]})
        def windows(size, overlap):
            return FixedSizeChunker(size, overlap)

    The fixture is session-scoped and returns the strategy object, so any test can use ``my_chunker`` directly;
    with ``params`` an evaluation runs every combination (a grid point, ``windows[size=500,overlap=0]``), and the
    fixture is parametrized over them likewise. Which strategy is the baseline is a setting
    (``--chunkeval-baseline``, ini ``chunkeval_baseline``), not a property of the strategy.
    """
    grid = tuple((k, tuple(v)) for k, v in (params or {}).items())

    def wrap(f: Callable[..., Any]) -> Any:
        import pytest

        reg_name = name or f.__name__
        origin = f"{inspect.getsourcefile(f) or '?'}:{f.__code__.co_firstlineno}"
        _REGISTRY[(reg_name, origin)] = Registration(reg_name, f, origin, grid=grid)
        return pytest.fixture(name=reg_name, scope="session")(f) if not grid else grid_fixture(f, reg_name, grid)

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
