"""Strategy parameters as a grid: the values a strategy's factory is called with, one evaluation per combination.

A strategy declares its parameters (``@strategy(params={"size": [500, 1000], "overlap": [0, 100]})``), and the ini
(``chunkeval_grid``) or the command line (``--chunkeval-grid "fixed_size.size=500,1000"``) does the same for any
strategy whose factory takes keyword arguments, the built-ins among them. Every combination is a *point*: its own
strategy as far as the rest of the package is concerned, named by its label ``fixed_size[size=500,overlap=0]``.

Plain data and functions, no package imports: the registration (:mod:`pytest_chunkeval.chunking.contract`) calls a
factory with a point's values, and :mod:`pytest_chunkeval.chunking.strategy_sources` turns a registration into its
points. The label is the row, the report key and the pytest node name; ``-k`` cannot type ``=`` or ``,``, so each
point's node also answers to :func:`keyword` (``fixed_size-size500-overlap0``).
"""
from __future__ import annotations

import inspect
import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

Value = int | float | bool | str
#: A point: parameter -> value, in the order the parameters are declared (the label's order).
Point = tuple[tuple[str, Value], ...]
#: Parameters and their values, in declared order.
Params = dict[str, tuple[Value, ...]]
#: What the ini and the command line give: strategy -> its parameters.
Grid = dict[str, Params]

_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")
_KEYWORD_UNSAFE = re.compile(r"[^\w.+-]+")


def parse_value(text: str) -> Value:
    """``500`` -> 500, ``0.5`` -> 0.5, ``true`` -> True, anything else the text itself (stripped).

    Plain on purpose: the command line has no quoting of its own, so a value is what it looks like."""
    raw = text.strip()
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    if re.fullmatch(r"[+-]?\d+", raw):
        return int(raw)
    if _FLOAT.fullmatch(raw):
        return float(raw)
    return raw


def format_value(value: Value) -> str:
    """How a label writes a value: as it would be typed (``true``, ``0.5``, ``isolate``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_line(line: str) -> tuple[str, str, tuple[Value, ...]]:
    """``fixed_size.size=500,1000`` -> ``("fixed_size", "size", (500, 1000))``; ``ValueError`` saying the syntax."""
    head, _, tail = line.partition("=")
    name, _, param = head.strip().rpartition(".")
    values = tuple(parse_value(v) for v in tail.split(",") if v.strip())
    if not (name and param.isidentifier() and values):
        raise ValueError(f"{line.strip()!r} is not STRATEGY.PARAMETER=VALUE[,VALUE...] (e.g. fixed_size.size=500,1000)")
    return name, param, tuple(dict.fromkeys(values))


def parse_grid(lines: Iterable[str]) -> Grid:
    """Lines (the ini's, then the command line's) into a grid; a later line for the same parameter replaces an
    earlier one, so the command line overrides the ini."""
    grid: Grid = {}
    for line in lines:
        if not str(line).strip():
            continue
        name, param, values = parse_line(str(line))
        grid.setdefault(name, {})[param] = values
    return grid


def grid_text(grid: Grid) -> list[str]:
    """The grid as lines :func:`parse_grid` reads back (for messages and a base run's command line)."""
    return [f"{name}.{param}=" + ",".join(format_value(v) for v in values)
            for name, params in grid.items() for param, values in params.items()]


def points(params: Mapping[str, Sequence[Value]]) -> list[Point]:
    """Every combination, the first parameter varying slowest: a stable order for items, rows and reports."""
    names = list(params)
    return [tuple(zip(names, combo, strict=True)) for combo in itertools.product(*(params[n] for n in names))]


def label(name: str, point: Point) -> str:
    """``fixed_size[size=1000,overlap=100]``: the point's row, report key and node name (the bare name without one)."""
    if not point:
        return name
    return f"{name}[" + ",".join(f"{k}={format_value(v)}" for k, v in point) + "]"


_LABEL = re.compile(r"^(?P<family>[^\[\]]+)\[(?P<values>[^\[\]]*=[^\[\]]*)\]$")


def parse_label(text: str) -> tuple[str, Point] | None:
    """:func:`label` read back: ``fixed_size[size=1000,overlap=100]`` -> ``("fixed_size", (("size", 1000), ...))``;
    None for a plain name (a report from before points recorded their family and values)."""
    m = _LABEL.match(text)
    if not m:
        return None
    pairs = (part.split("=", 1) for part in m["values"].split(","))
    return m["family"], tuple((k, parse_value(v)) for k, v in pairs)


#: How :func:`sort_key` orders one value: numbers by magnitude first, then the rest (booleans, text) as written.
ValueKey = tuple[int, float, str]


def _value_key(value: Value) -> ValueKey:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 1, 0.0, format_value(value)
    return 0, float(value), ""


def sort_key(text: str) -> tuple[str, tuple[tuple[str, ValueKey], ...]]:
    """The order of strategy names and point labels in every table: by strategy, its plain name before its points,
    then each parameter's values as numbers where they are numbers (``size=500`` before ``size=1000``; sorted as
    text, labels read 1000, 2000, 500)."""
    parsed = parse_label(text)
    if parsed is None:
        return text, ()
    family, point = parsed
    return family, tuple((k, _value_key(v)) for k, v in point)


def keyword(name: str, point: Point) -> str:
    """``fixed_size-size1000-overlap100``: what ``-k`` can type for a point (its expressions have no ``=`` or ``,``)."""
    parts = [name, *(f"{k}{format_value(v)}" for k, v in point)]
    return _KEYWORD_UNSAFE.sub("_", "-".join(parts))


def accepted(factory: Callable[..., Any]) -> tuple[list[str], bool]:
    """The keyword parameters ``factory`` takes, and whether it takes any (``**kwargs``): what a grid may set."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin or a C callable: nothing to check against
        return [], True
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    names = [p.name for p in signature.parameters.values() if p.kind in kinds]
    return names, any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())


def needs_arguments(factory: Callable[..., Any]) -> list[str]:
    """The parameters ``factory`` cannot be called without: a strategy that has them exists only as grid points."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return []
    return [p.name for p in signature.parameters.values()
            if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def defaults(factory: Callable[..., Any]) -> dict[str, Value]:
    """The values ``factory`` takes when called without them (keyword parameters with a plain default): the point a
    grid's "today's default" is (the frontier tests the best point against it)."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return {}
    return {p.name: p.default for p in signature.parameters.values()
            if p.default is not inspect.Parameter.empty and isinstance(p.default, int | float | bool | str)}


def check_params(name: str, factory: Callable[..., Any], params: Iterable[str]) -> None:
    """``ValueError`` naming the parameters ``name``'s factory accepts, for any in ``params`` it does not."""
    names, open_ended = accepted(factory)
    unknown = [p for p in params if p not in names and not open_ended]
    if unknown:
        takes = ", ".join(names) if names else "no parameters"
        raise ValueError(f"strategy {name!r} has no parameter {', '.join(map(repr, unknown))}; it accepts: {takes}")


def merged(declared: Mapping[str, Sequence[Value]], given: Mapping[str, Sequence[Value]],
           factory: Callable[..., Any]) -> Params:
    """A strategy's grid: its declared parameters in their order (the ini's and command line's values replace the
    declared ones), then the parameters only the ini or command line names, in the factory's signature order."""
    out: Params = {k: tuple(given.get(k, v)) for k, v in declared.items()}
    order = {n: i for i, n in enumerate(accepted(factory)[0])}
    for k in sorted((k for k in given if k not in out), key=lambda k: order.get(k, len(order))):
        out[k] = tuple(given[k])
    return out


def grid_fixture(factory: Callable[..., Any], name: str, grid: Iterable[tuple[str, Sequence[Value]]]) -> Any:
    """The pytest fixture of a strategy declared with ``params``: parametrized over its points (ids like
    ``size500-overlap0``), each the factory called with that point's values, so a plain test sees every point."""
    import pytest

    every = points(dict(grid))

    def build(request: Any) -> Any:
        return factory(**dict(request.param))

    build.__doc__ = factory.__doc__
    ids = [keyword(name, p).removeprefix(name + "-") for p in every]
    return pytest.fixture(name=name, scope="session", params=every, ids=ids)(build)
