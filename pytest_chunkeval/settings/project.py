"""The project's own pytest configuration file, read the way pytest reads it but without pytest.

``chunkeval init`` needs it to know where the settings go; ``chunkeval run`` needs it to hand the evaluation the
project's ``chunkeval_*`` settings while leaving everything else in that file (``addopts``, ``filterwarnings``,
``xfail_strict``, ``required_plugins``...) out: those configure the project's tests, not an evaluation.
"""
from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import iniconfig

PREFIX = "chunkeval_"


class ConfigError(ValueError):
    """A configuration file pytest would read but cannot parse: the message names the file."""


def read_toml(path: Path, text: str | None = None) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text("utf-8") if text is None else text)
    except (ValueError, UnicodeDecodeError) as exc:  # TOMLDecodeError; a ValueError for an int past 4,300 digits
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None


def read_ini(path: Path, text: str | None = None) -> dict[str, dict[str, str]]:
    """Sections as pytest reads them (iniconfig, inline comments kept, as pytest's own loader does)."""
    try:
        parsed = iniconfig.IniConfig(path, data=path.read_text("utf-8") if text is None else text)
    except (iniconfig.ParseError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: pytest cannot read it ({exc})") from None
    return {name: dict(values) for name, values in parsed.sections.items()}


def _pytest_toml(path: Path) -> tuple[tuple[str, ...], Mapping[str, Any]]:
    return ("pytest",), read_toml(path).get("pytest", {})


def _pytest_ini(path: Path) -> tuple[str, Mapping[str, Any]]:
    return "pytest", read_ini(path).get("pytest", {})


def _pyproject(path: Path) -> tuple[tuple[str, ...], Mapping[str, Any]] | None:
    table = read_toml(path).get("tool", {}).get("pytest")
    if not isinstance(table, dict):
        return None
    native = {k: v for k, v in table.items() if k != "ini_options"}
    if native:  # pytest 9's [tool.pytest] with native TOML values
        return ("tool", "pytest"), native
    if isinstance(table.get("ini_options"), dict):
        return ("tool", "pytest", "ini_options"), table["ini_options"]
    return None


def _section_of(name: str) -> Callable[[Path], tuple[str, Mapping[str, Any]] | None]:
    def load(path: Path) -> tuple[str, Mapping[str, Any]] | None:
        sections = read_ini(path)
        return (name, sections[name]) if name in sections else None

    return load


#: pytest's own order; each loader returns (section, its settings), or None when the file holds no pytest settings.
CANDIDATES: tuple[tuple[str, Callable[[Path], tuple[Any, Mapping[str, Any]] | None]], ...] = (
    ("pytest.toml", _pytest_toml),
    (".pytest.toml", _pytest_toml),
    ("pytest.ini", _pytest_ini),
    (".pytest.ini", _pytest_ini),
    ("pyproject.toml", _pyproject),
    ("tox.ini", _section_of("pytest")),
    ("setup.cfg", _section_of("tool:pytest")),
)


@dataclass(frozen=True)
class Found:
    """The file pytest reads, its section's name and what the section holds."""

    path: Path
    section: tuple[str, ...] | str  # a TOML table's dotted name, or an INI section's name
    settings: Mapping[str, Any]


def find_config(start: Path) -> Found | None:
    """The configuration file pytest reads when run in ``start`` (looking upwards, as pytest does), or None."""
    for base in (start, *start.parents):
        for name, load in CANDIDATES:
            path = base / name
            if path.is_file():
                found = load(path)
                if found is not None:
                    return Found(path, found[0], found[1])
    return None


@dataclass(frozen=True)
class ProjectConfig:
    """What an isolated evaluation takes from the project: its folder and its ``chunkeval_*`` settings alone."""

    root: Path  # where relative settings resolve: the configuration file's folder, else the folder searched from
    path: Path | None = None  # the configuration file, None when the project has none
    settings: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def locate(cls, start: Path) -> ProjectConfig:
        """The project ``start`` is in. ``start`` may also be the configuration file itself."""
        start = start.resolve()
        if start.is_file():
            for name, load in CANDIDATES:
                if start.name == name:
                    found = load(start)
                    settings = found[1] if found is not None else {}
                    return cls(start.parent, start, _own(settings))
            return cls(start.parent, start, _own(_any_file(start)))
        found_config = find_config(start)
        if found_config is None:
            return cls(start)
        return cls(found_config.path.parent, found_config.path, _own(found_config.settings))

    def value(self, key: str, ini_type: str | None) -> Any:
        """The setting as pytest's ``getini`` would type it (None when the file does not set it)."""
        return typed(self.settings.get(key), ini_type)


def _own(settings: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in settings.items() if k.startswith(PREFIX)}


def _any_file(path: Path) -> Mapping[str, Any]:
    """A configuration file of another name (``-c my.ini`` style): TOML or INI by its suffix."""
    if path.suffix == ".toml":
        data = read_toml(path)
        table = data.get("tool", {}).get("pytest", data.get("pytest", {}))
        return table.get("ini_options", table) if isinstance(table, dict) else {}
    sections = read_ini(path)
    return sections.get("pytest", sections.get("tool:pytest", {}))


def typed(value: Any, ini_type: str | None) -> Any:
    """``value`` as written (an INI string, or a TOML value) converted as pytest converts ini values by type; a TOML
    number is left as it is, for the setting's kind to read and check.

    Errors end with ``: <value as written>``, the shape of pytest's own, which flags.py quotes back to the user.
    """
    if value is None:
        return None
    if ini_type == "linelist":
        if isinstance(value, list):
            return [str(v) for v in value]
        return [line.strip() for line in str(value).split("\n") if line.strip()]
    if ini_type in ("int", "float"):
        if isinstance(value, (bool, list)):
            raise ValueError(f"expected {ini_type}: {value!r}")
        if not isinstance(value, str):
            # A TOML number as written: the setting's own kind reads it (settings.setting.numeric), so that 1.5 is
            # refused where an integer belongs rather than cut to 1, and inf is a usage error, not an OverflowError.
            return value
        try:
            return int(value) if ini_type == "int" else float(value)
        except ValueError:
            raise ValueError(f"invalid literal for {ini_type}: {value!r}") from None
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)
