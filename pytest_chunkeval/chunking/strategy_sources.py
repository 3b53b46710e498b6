"""Where a run's strategies come from, which of them run, and what a user is told about it.

Three sources, merged by name: strategies that packages ship through the ``pytest_chunkeval.strategies`` entry-point
group (this package's built-ins among them), the grammar engines the ini configures (``chunkeval_grammar``,
``chunkeval_grammar_config``), and the project's own strategy files and conftests. A later source may replace an
earlier one's strategy of the same name - a project tuning ``fixed_size`` keeps the name its reports and records
use - and every replacement is said, never silent. Two project files defining one name stay an error
(:func:`pytest_chunkeval.chunking.contract.registry`): picking one would evaluate the wrong code.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from pytest_chunkeval.chunking.contract import Registration
from pytest_chunkeval.core.grid import Grid, Point, check_params, label, merged, needs_arguments, points
from pytest_chunkeval.core.vocabulary import ENTRY_POINT_GROUP

#: This package's built-ins that run only when asked for: a first run shows the strategies that answer "which way of
#: chunking" (file_level, fixed_size, ast, function_level, the project's own and its grammars'); ast_context is a
#: variant of ast, the peers are other people's chunkers to compare against. Each costs a full embedding of its chunks.
ON_REQUEST = ("ast_context", "langchain_recursive", "astchunk", "chonkie_code")
#: The name that selects every strategy known, those run on request included.
ALL = "all"
THIS_PACKAGE = "pytest-chunkeval"


@dataclass
class StrategySet:
    """Every strategy known to a run (after replacements, by name) and the notes that say where each came from."""

    available: dict[str, Registration]
    notes: list[str] = field(default_factory=list)

    def select(self, names: Iterable[str], baseline: str, grid: Grid | None = None) -> dict[str, Registration]:
        """The strategies to run, by row label: ``names`` (all when empty) plus the baseline every delta is
        measured against.

        A strategy with a parameter grid (declared by ``@strategy(params=...)``, or given by ``grid``) runs as its
        points, each under its label (``fixed_size[size=500]``); a name selects a strategy with all its points. The
        baseline is never a grid unless it names one point: named plainly it runs as the strategy called without
        grid values, beside the points (one it cannot be called without is refused). Raises ``ValueError`` naming
        each unknown name and listing the known ones, or naming a grid's unknown strategy or parameter.
        """
        wanted = {n for n in names if n and n != ALL}
        unknown = [n for n in dict.fromkeys(names) if n and n != ALL and n not in self.available]
        if unknown:
            raise ValueError(f"unknown strategy {', '.join(map(repr, unknown))}; {self.known()}")
        everything = ALL in names
        grids = self.grids(grid or {})
        chosen: dict[str, Registration] = {}
        for name, reg in self.available.items():
            every = grids.get(name)
            # Not named: the default set (every strategy, those on request only when gridded or asked for all)
            default = not wanted and (everything or not reg.on_request or name in (grid or {}))
            if every is None or name == baseline:
                if every is not None:
                    _callable_plainly(reg, every)
                if default or name in wanted or name == baseline:
                    chosen[name] = reg
            for point in every or ():
                row = label(name, point)
                if default or name in wanted or row == baseline:
                    chosen[row] = replace(reg, name=row, point=point, family=name)
        return chosen

    def left_for_request(self, names: Iterable[str], grid: Grid | None = None) -> list[str]:
        """The strategies a run with ``names`` leaves out because they run on request: what its header says."""
        if any(names):  # a selection (``all`` included) leaves nothing out unasked
            return []
        return [n for n, reg in self.available.items() if reg.on_request and n not in (grid or {})]

    def grids(self, grid: Grid) -> dict[str, list[Point]]:
        """Each gridded strategy's points: its declared grid with ``grid``'s values over it. ``ValueError`` for a
        strategy ``grid`` names that does not exist, or a parameter its factory does not take."""
        unknown = [n for n in grid if n not in self.available]
        if unknown:
            raise ValueError(f"unknown strategy {', '.join(map(repr, unknown))}; {self.known()}")
        out: dict[str, list[Point]] = {}
        for name, reg in self.available.items():
            given = grid.get(name, {})
            if not (reg.grid or given):
                continue
            check_params(name, reg.factory, given)
            out[name] = points(merged(dict(reg.grid), given, reg.factory))
        return out

    def labels(self, grid: Grid | None = None) -> list[str]:
        """Every name a setting may use for a strategy: the strategies' own, then their grid points' labels."""
        grids = self.grids(grid or {})
        return [*self.available, *(label(name, p) for name, every in grids.items() for p in every)]

    def known(self) -> str:
        return "known strategies: " + (", ".join(self.available) or "none")

    def counts(self) -> str:
        """``"5 built-in, 2 from the ini's grammars, 1 of the project's"``: the header's one-line account."""
        words = {"package": "from packages", "grammar": "from the ini's grammars", "project": "of the project's"}
        by_source: dict[str, int] = {}
        for reg in self.available.values():
            by_source[reg.source] = by_source.get(reg.source, 0) + 1
        return ", ".join(f"{n} {words.get(source, source)}" for source, n in by_source.items())


def _callable_plainly(reg: Registration, every: list[Point]) -> None:
    """A gridded strategy named as the baseline runs without grid values: say so when its factory needs some."""
    missing = needs_arguments(reg.factory)
    if missing:
        raise ValueError(f"the baseline {reg.name!r} exists only as grid points (its factory needs "
                         f"{', '.join(missing)}): name one, e.g. {label(reg.name, every[0])!r}")


def describe(reg: Registration, root: Path | None = None) -> str:
    """How a note names a registration: the project file and line, the ini setting, or the providing package."""
    if reg.source == "package":
        return f"the built-in {reg.name} ({reg.provider})" if reg.provider else f"the built-in {reg.name}"
    if reg.source == "grammar":
        return f"{reg.name} ({reg.provider})"
    return f"{reg.name} ({_relative(reg.origin, root)})"


def _relative(origin: str, root: Path | None) -> str:
    path, _, line = origin.rpartition(":")
    if not path or root is None:
        return origin
    try:
        shown = Path(path).resolve().relative_to(root.resolve())
    except ValueError:
        return origin
    return f"{shown}:{line}"


def merge(*sources: Iterable[Registration], root: Path | None = None) -> StrategySet:
    """One name, one strategy: a later source replaces an earlier one's, with a note; within one source the first
    registration of a name is kept and the other named (two packages shipping the same name)."""
    chosen: dict[str, Registration] = {}
    notes: list[str] = []
    for source in sources:
        seen: set[str] = set()
        for reg in source:
            previous = chosen.get(reg.name)
            if reg.name in seen:
                assert previous is not None
                notes.append(f"{describe(reg, root)} is ignored: {describe(previous, root)} has the same name")
                continue
            seen.add(reg.name)
            if previous is not None:
                notes.append(f"{describe(reg, root)} replaces {describe(previous, root)}")
            chosen[reg.name] = reg
    return StrategySet(dict(sorted(chosen.items())), notes)


def packaged() -> list[Registration]:
    """Strategies shipped through the entry-point group, sorted by name (then providing package).

    One that cannot be loaded (its package is broken) is still registered, with a factory that raises why: the
    strategy then fails its own items and every other strategy is evaluated.
    """
    from importlib.metadata import entry_points

    found = []
    # Every dist.name / dist.version parses the package's METADATA file again: read once per package.
    packages: dict[int, tuple[str, str]] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        if dist is not None and id(dist) not in packages:
            meta = dist.metadata
            packages[id(dist)] = (meta["Name"], meta["Version"])
        name, version = packages[id(dist)] if dist is not None else ("", "")
        provider = f"{name} {version}" if dist is not None else ""
        try:
            factory = ep.load()
            origin = _origin(factory) or ep.value
        except Exception as exc:  # a third-party package's bug must not stop the run
            factory = _raising(f"entry point {ep.name} = {ep.value}" + (f" ({provider})" if provider else "")
                               + f" could not be loaded: {type(exc).__name__}: {exc}")
            origin = ep.value
        ours = dist is not None and name.replace("_", "-").lower() == THIS_PACKAGE
        found.append(Registration(ep.name, factory, origin, source="package", ref=ep.value, provider=provider,
                                  on_request=ours and ep.name in ON_REQUEST))
    return sorted(found, key=lambda r: (r.name, r.provider))


def runs_isolated(reg: Registration) -> bool:
    """Whether ``reg``'s chunking runs in a worker process the run can stop (chunking/worker.py): every strategy
    but this package's own built-ins and the grammar engines the ini configures (this package's code, whose time
    limit works in this process), which stay here at no cost. A project's files and conftests, and other packages'
    entry points, are code this package cannot vouch for: a hang, ``sys.exit``, ``os._exit``, a crash or runaway
    memory there ends as that strategy's failure, not the run's."""
    if reg.source == "grammar":
        return False
    if reg.source == "package":
        package = reg.provider.rsplit(" ", 1)[0]
        return package.replace("_", "-").lower() != THIS_PACKAGE
    return True


def _origin(factory: Any) -> str | None:
    try:
        path = inspect.getsourcefile(factory)
        line = factory.__code__.co_firstlineno
    except (TypeError, AttributeError):
        return None
    return f"{path}:{line}" if path else None


def _raising(message: str) -> Callable[[], NoReturn]:
    def factory() -> NoReturn:
        raise RuntimeError(message)

    return factory


def load(
    folder: Path, grammars: Iterable[Path] = (), configs: Iterable[Path] = (), *, root: Path | None = None,
    conftest_root: Path | None = None, shipped: list[Registration] | None = None,
) -> StrategySet:
    """Every strategy of a project, without pytest: the packages' (``shipped``, else read from the entry points),
    the grammar settings', and those defined in ``folder`` (imported here) or in conftests under ``conftest_root``
    (imported by pytest)."""
    from pytest_chunkeval.chunking.contract import registry
    from pytest_chunkeval.chunking.grammar_strategies import registrations as grammar_registrations
    from pytest_chunkeval.chunking.strategy_files import load_strategy_modules

    load_strategy_modules(folder)
    project = registry([folder], conftest_root=conftest_root)
    return merge(packaged() if shipped is None else shipped, grammar_registrations(list(grammars), list(configs)),
                 project.values(), root=root)
