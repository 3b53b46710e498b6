"""A stored JSON report read back: strict JSON of the report's shape, or one error that names the file and what is
wrong with it.

Reports are read by commands run on files anyone may hand them (``chunkeval frontier A.json B.json``, ``chunkeval
calibrate``, ``--chunkeval-compare``), so a file that is not a report must end in a sentence, not in an
``AttributeError`` or ``OverflowError`` three modules later: the text must be JSON without ``NaN`` or ``Infinity`` (a
report never writes them: ``output.report.write_json``) and without a number no float holds (``1e400``, or an
integer of 400 digits), not nested deeper than the parser goes, and match ``schemas/report.schema.json`` (the fields
readers use, with their types and ranges: a per-query NDCG of 12345 is refused, naming the file and the field).
"""
from __future__ import annotations

import json
import math
import sys
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any


class ReportError(ValueError):
    """A file that cannot be read as a report; the message names the file."""


class _NonFinite:
    """Where the parser met ``NaN``, ``Infinity``, or a number no float holds (``1e400``, an integer of 400 digits):
    kept in place so the error can say where it is."""

    def __init__(self, text: str) -> None:
        self.text = text


def parse(text: str) -> tuple[Any, tuple[str, str] | None]:
    """JSON ``text`` as data, and the first number in it that no report holds, as ``(what, where)`` (None when there
    is none): ``NaN``, ``Infinity``, ``1e400`` (``1e400 (out of range)``) or an integer past a float's range (``an
    integer of 401 digits``), which would be an ``OverflowError`` wherever it is read as a float. The walk that
    finds where is only made when the parser met one. ``json.JSONDecodeError`` or ``RecursionError`` when the text
    is not JSON or nested past the parser."""
    met: list[_NonFinite] = []

    def odd(what: str) -> _NonFinite:
        met.append(_NonFinite(what))
        return met[-1]

    def number(literal: str) -> Any:
        value = float(literal)
        return value if math.isfinite(value) else odd(f"{literal} (out of range)")

    def integer(literal: str) -> Any:
        digits = len(literal.lstrip("-"))
        try:
            value = int(literal)
        except ValueError:  # past the 4,300 digits Python converts
            return odd(f"an integer of {digits:,} digits")
        return value if abs(value) <= sys.float_info.max else odd(f"an integer of {digits:,} digits")

    data = json.loads(text, parse_constant=odd, parse_float=number, parse_int=integer)
    return data, (_non_finite(data) if met else None)


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = resources.files("pytest_chunkeval").joinpath("schemas/report.schema.json").read_text("utf-8")
    return dict(json.loads(text))


def _where(path: list[str | int]) -> str:
    """``$.suites['golden/a.yaml'].strategies.ast`` (jsonschema's ``json_path`` style) for a path of keys."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}"
        else:
            out += f"[{part!r}]"
    return out


def _non_finite(data: Any) -> tuple[str, str] | None:
    """The first number :func:`parse` marked in ``data`` and where it is (walked without recursion: the parser
    allowed the depth, the walk must not be the one to overflow)."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _NonFinite):
            return value.text, _where(path)
        if isinstance(value, dict):
            stack.extend((v, [*path, str(k)]) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((v, [*path, i]) for i, v in reversed(list(enumerate(value))))
    return None


def shape_problem(data: Any) -> str | None:
    """What makes ``data`` not a report (the most relevant schema error, with where it is), or None."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema())
    try:
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    except RecursionError:
        return "nested too deeply to be a report"
    if error is None:
        return None
    message = error.message
    if error.validator == "type":  # jsonschema's message repeats the whole value, which may be megabytes
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        message = f"should be {' or '.join(map(str, wanted))}, not {_json_type(error.instance)}"
    elif len(message) > 200:
        message = message[:200] + "…"
    return f"{error.json_path}: {message}" if error.absolute_path else message


def _json_type(value: Any) -> str:
    """JSON's name for the type of a parsed value."""
    if value is None:
        return "null"
    names = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"),
             (dict, "object"))
    return next((name for kind, name in names if isinstance(value, kind)), type(value).__name__)


def read_report(path: Path) -> dict[str, Any]:
    """The report in ``path``; :class:`ReportError` naming the file and the reason otherwise."""
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise ReportError(f"{path}: not a report: not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise ReportError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    try:
        data, found = parse(text)
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}:{exc.lineno}:{exc.colno}: not a report: not JSON ({exc.msg})") from exc
    except RecursionError as exc:
        raise ReportError(f"{path}: not a report: nested too deeply to read") from exc
    if found is not None:
        raise ReportError(f"{path}: not a report: {found[0]} at {found[1]} (reports are strict JSON: no NaN, "
                          "infinity or number past a float's range; an undefined number is null)")
    problem = shape_problem(data)
    if problem is not None:
        raise ReportError(f"{path}: not a pytest-chunkeval report: {problem}")
    return dict(data)
