"""What one setting is: its names (the ``Options`` field, the flag, the ini key), how a raw value becomes a typed one,
what a good value is, and how ``pytest --help`` and the docs describe it.

Everything a setting needs is on its :class:`Setting`, so the flag, the ini entry, the ``Options`` value, the usage
error and the docs' row are all made from one declaration (``settings/table.py``) and cannot drift apart. This module
knows nothing of pytest: ``flags.py`` turns the declarations into pytest options and reads a value back, and
``options.py`` reads them all into the typed ``Options``.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple


class Invalid(ValueError):
    """A value that cannot work, with the complete message a user sees (it names the setting as they wrote it)."""


class Bad(NamedTuple):
    """Why a value is wrong: what it must be, and the part of it that is not (shown with ``repr``)."""

    what: str
    got: Any


#: A setting's own check of its typed value: None when good. Checks that need two settings are in options.py.
Check = Callable[[Any], Bad | None]


class Kind(NamedTuple):
    """How a raw value (a command-line string, or the ini value as pytest's ini type returns it) becomes typed."""

    label: str  # what the docs' "value" column says
    noun: str  # what a raw value must be when ``read`` cannot read it: "an integer"
    read: Callable[[Any, Path], Any]  # (raw, folder relative paths are resolved in) -> typed; ValueError if it cannot
    ini_type: str | None = None  # pytest's ini type: "chunkeval_k (int)" in pytest --help, and typed TOML values
    switch: bool = False  # a flag that takes no value (store_true)
    many: bool = False  # a list of items (its choices are each item's)


def resolve(base: Path, value: Any) -> Path:
    """A path as written, relative ones under ``base`` (the ini file's folder): where the user meant it."""
    p = Path(str(value).strip()).expanduser()
    return p if p.is_absolute() else base / p


def name_list(raw: Any) -> list[str]:
    """``"ast, fixed_size"`` or one name a line (or a list of either) -> the names, in order, without repeats."""
    text = "\n".join(raw) if isinstance(raw, list) else str(raw)
    return list(dict.fromkeys(n for n in text.replace(",", " ").split() if n))


SWITCH = Kind("switch", "on or off", lambda raw, _: bool(raw), switch=True)
#: A switch that the ini file may set too (``true``/``false``, read by pytest's bool ini type).
FLAG = Kind("switch", "true or false", lambda raw, _: _boolean(raw), ini_type="bool", switch=True)
#: ``--chunkeval-no-progress``: given, the setting is off.
SWITCH_OFF = Kind("switch", "on or off", lambda raw, _: not raw, switch=True)
TEXT = Kind("text", "text", lambda raw, _: str(raw).strip())
#: A word from a fixed set whose spelling does not matter (``Holm`` is ``holm``).
WORD = Kind("text", "text", lambda raw, _: str(raw).strip().lower())
OPTIONAL_TEXT = Kind("text", "text", lambda raw, _: str(raw).strip() or None)
PATH = Kind("path", "a path", lambda raw, base: resolve(base, raw))
OPTIONAL_PATH = Kind("path", "a path", lambda raw, base: resolve(base, raw) if str(raw or "").strip() else None)
PATHS = Kind("paths, one a line", "paths", lambda raw, base: [resolve(base, p) for p in raw], ini_type="linelist")
LINES = Kind("lines", "lines", lambda raw, _: [str(line) for line in raw], ini_type="linelist")
#: Paths given on the command line, resolved against the folder pytest runs in, as a shell user reads them.
ARGUMENT_PATHS = Kind("paths", "paths", lambda raw, _: [Path(p).expanduser().resolve() for p in raw])
NAMES = Kind("names, comma or line separated", "names", lambda raw, _: name_list(raw))
NAME_LINES = Kind("names, one a line", "names", lambda raw, _: name_list(raw), ini_type="linelist")


def shown(value: Any) -> str:
    """``repr(value)``, but an integer of more than 30 digits by its size (``repr`` of one past 4,300 digits raises)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 30:
        digits = int((abs(value).bit_length() - 1) * math.log10(2)) + 1
        return f"an integer of {digits + (abs(value) >= 10 ** digits):,} digits"
    text = repr(value)
    return text if len(text) <= 200 else text[:160] + f"… ({len(text):,} characters)"


def _boolean(raw: Any) -> bool:
    """True/False as pytest's bool ini type or the command line gives them (a string from a test's -o: 'false')."""
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text not in ("true", "false", "1", "0", "yes", "no", "on", "off", ""):
            raise ValueError(raw)
        return text in ("true", "1", "yes", "on")
    return bool(raw)


class Refused(ValueError):
    """A value that was read as a number but is not one the setting takes; ``got`` is what the message shows."""

    def __init__(self, got: Any) -> None:
        super().__init__(got)
        self.got = got


def numeric(raw: Any, low: float, high: float, *, whole: bool = False, above: bool = False) -> Any:
    """The one reading of every number a setting takes: ``raw`` (a command-line string, or the ini value as pytest
    or a TOML file gives it: str, int or float) as a finite number from ``low`` (excluded when ``above``) to
    ``high``; an integer when ``whole``, and then never a float, not even 1.0 (``1.5`` is refused, not read as 1).

    ``ValueError`` when it is no number at all; :class:`Refused` (showing the number read) when it is one out of
    range, or ``inf``, ``nan`` or ``1e400`` (shown as written). Nothing else escapes: an integer too large for a
    float is out of range, not an ``OverflowError``."""
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise ValueError(raw)
    value: Any = raw
    if isinstance(raw, str):
        text = raw.strip()
        value = int(text) if whole else float(text)
    elif whole and isinstance(raw, float):
        raise ValueError(raw)
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an int past what a float holds
        finite = False
    if not finite:
        raise Refused(raw)
    if not (low < value <= high if above else low <= value <= high):
        raise Refused(value)
    return value if whole else float(value)


def _bound(value: float) -> str:
    return f"{value:,}" if float(value).is_integer() else f"{value:g}"


def integer(low: int, high: int) -> Kind:
    """An integer setting: a whole number from ``low`` to ``high`` (the highest that still makes sense)."""
    span = f"from {_bound(low)} to {_bound(high)}"
    return Kind(f"integer {span}", f"an integer {span}",
                lambda raw, _: numeric(raw, low, high, whole=True), ini_type="int")


def number(low: float, high: float, *, above: bool = False, what: str = "a number") -> Kind:
    """A number setting: a finite number from ``low`` (excluded when ``above``) to ``high``."""
    span = f"over {_bound(low)} and up to {_bound(high)}" if above else f"from {_bound(low)} to {_bound(high)}"
    return Kind(f"{what.split(' ', 1)[-1]} {span}", f"{what} {span}",
                lambda raw, _: numeric(raw, low, high, above=above), ini_type="float")


def one_of(choices: tuple[str, ...], extra: str = "") -> Check:
    """The value is one of ``choices``; ``extra`` names spellings the message should mention too (``cuda:N``)."""
    what = f"one of {', '.join(choices)}{extra}"
    return lambda value: None if value in choices else Bad(what, value)


def each_one_of(choices: tuple[str, ...], extra: str = "", *, empty: bool = True) -> Check:
    """Every item of a list is one of ``choices`` (and, unless ``empty``, there is one); the message shows the items
    that are not."""
    what = f"one of {', '.join(choices)}{extra}"

    def check(values: Any) -> Bad | None:
        wrong = [v for v in values if v not in choices]
        return Bad(what, ",".join(wrong)) if wrong or not (values or empty) else None

    return check


class Setting(NamedTuple):
    """One setting, declared once: everything else about it is made from this.

    A NamedTuple, as are ``Kind`` and ``Bad``: every pytest run builds the table (``pytest_addoption``), and defining
    a dataclass would cost it more (benchmarks/test_bench_plugin_import.py)."""

    name: str  # the Options field
    group: str  # a key of table.GROUPS: where the docs list it
    help: str  # pytest --help (flag and ini) and the docs; the default and "repeatable" are added from the fields
    kind: Kind
    #: The value when neither the command line nor the ini file gives one, written as a user would write it (a
    #: relative path stays relative): it goes through ``kind.read`` like any value, so it is checked and resolved.
    default: Any = ""
    flag: str | None = None
    ini: str | None = None
    metavar: str | None = None
    choices: tuple[str, ...] = ()  # the values it takes; checked unless ``check`` is given (which must check them)
    check: Check | None = None
    repeatable: bool = False  # the flag may be given many times (argparse append)
    merged: bool = False  # the ini's list and the command line's together, instead of the command line over the ini
    recorded: bool = True  # kept in the command a verdict gives to record misses (False: only compares or writes)
    shown_default: str | None = None  # the default in words, where the value alone says too little

    @property
    def where(self) -> str:
        """The setting as a user writes it, for messages: ``--chunkeval-k / ini chunkeval_k``."""
        return " / ".join(name for name in (self.flag, self.ini and f"ini {self.ini}") if name)

    @property
    def dest(self) -> str | None:
        """argparse's attribute for the flag."""
        return self.flag.lstrip("-").replace("-", "_") if self.flag else None

    def read(self, raw: Any, base: Path) -> Any:
        """``raw`` typed, or :class:`Invalid` saying what it must be."""
        try:
            return self.kind.read(raw, base)
        except Invalid:
            raise
        except Refused as exc:
            raise Invalid(self.problem(Bad(self.kind.noun, exc.got))) from None
        except (TypeError, ValueError, ArithmeticError):
            raise Invalid(self.problem(Bad(self.kind.noun, raw))) from None

    def problem(self, bad: Bad) -> str:
        """The one wording of a usage error: ``--flag / ini key must be <what>, got <value>``."""
        return f"{self.where} must be {bad.what}, got {shown(bad.got)}"

    def verify(self, value: Any) -> str | None:
        """The usage error for a typed value this setting's own check refuses, else None."""
        check = self.check if self.check is not None else one_of(self.choices) if self.choices else None
        bad = check(value) if check is not None else None
        return self.problem(bad) if bad is not None else None

    def value_text(self) -> str:
        """What it takes, for the docs: ``one of torch, onnx``, ``comma list of hybrid, vector, fts``, ``integer``."""
        if not self.choices:
            return self.kind.label
        return f"{self.kind.label if self.kind.many else 'one'} of {', '.join(self.choices)}"

    def typed_default(self) -> Any:
        """The default as ``Options`` holds it before relative paths are placed under the ini file's folder."""
        return self.kind.read(self.default, Path())

    def default_text(self) -> str:
        """The default in words, for pytest --help and the docs."""
        if self.shown_default is not None:
            return self.shown_default
        if self.kind.switch:
            return "off"
        if self.default in ("", [], None):
            return "none"
        values = self.default if isinstance(self.default, list) else [self.default]
        return ", ".join(str(v) for v in values)
