"""Which pytest configuration file gets the plugin's settings, and the edit, checked before anything is written.

pytest reads one configuration file: the first of pytest.toml, .pytest.toml, pytest.ini, .pytest.ini,
pyproject.toml, tox.ini and setup.cfg that holds pytest configuration (the pytest.* files always count). Settings
written anywhere else are ignored, and a new pytest.ini beside a configured pyproject.toml would shadow the
project's configuration. So they go into that file; with none, into a new ``[tool.pytest.ini_options]`` table of
an existing pyproject.toml, else into a new pytest.ini.
"""
from __future__ import annotations

import copy
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import iniconfig

from pytest_chunkeval.init.ini_text import Value, edit, render

#: The settings ``chunkeval init`` writes, by role. Their names are being settled: spelled here and nowhere else.
KEYS = {"golden": "chunkeval_golden", "strategies_dir": "chunkeval_strategies_dir", "baseline": "chunkeval_baseline"}
#: The settings that hand the plugin a grammar of the project's own language (named, never written).
GRAMMAR_KEYS = {"grammar": "chunkeval_grammar", "grammar_config": "chunkeval_grammar_config"}
COMMENTS = {
    KEYS["golden"]: "pytest-chunkeval: the golden suites `pytest --chunkeval` evaluates (paths or glob patterns)",
    KEYS["strategies_dir"]: "pytest-chunkeval: folder of this project's own chunking strategies, one module each",
    KEYS["baseline"]: "pytest-chunkeval: the strategy every other one is compared with",
}
PREFIX = "chunkeval_"


class InitError(Exception):
    """A problem with the user's files that stops ``chunkeval init`` before it writes anything."""


@dataclass(frozen=True)
class Target:
    """The configuration file and section that get the settings."""

    path: Path
    section: tuple[str, ...] | str  # a TOML table's dotted name, or an INI section's name
    exists: bool  # False: the file is created
    settings: Mapping[str, Any]  # what the section holds now (empty when it is new)
    reason: str
    root: Path  # the folder being set up: the file may be in a folder above it (pytest looks upwards)

    @property
    def header(self) -> str:
        return "[" + (".".join(self.section) if isinstance(self.section, tuple) else self.section) + "]"

    @property
    def shown(self) -> str:
        """The file's path relative to the folder being set up."""
        return Path(os.path.relpath(self.path, self.root)).as_posix()

    @property
    def label(self) -> str:
        return f"{self.shown} {self.header}"

    def relative(self, rel: str) -> str:
        """``rel`` (relative to the folder being set up) as the file's settings need it: relative to its folder,
        which is pytest's rootdir."""
        return Path(os.path.relpath(self.root / rel, self.path.parent)).as_posix()

    def chunkeval_keys(self) -> list[str]:
        return sorted(k for k in self.settings if k.startswith(PREFIX))


def _toml(path: Path, text: str | None = None) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text("utf-8") if text is None else text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InitError(f"{path}: not valid TOML ({exc})") from None


def _ini(path: Path, text: str | None = None) -> dict[str, dict[str, str]]:
    """Sections as pytest reads them (iniconfig, inline comments kept, as pytest's own loader does)."""
    try:
        parsed = iniconfig.IniConfig(path, data=path.read_text("utf-8") if text is None else text)
    except (iniconfig.ParseError, UnicodeDecodeError) as exc:
        raise InitError(f"{path}: pytest cannot read it ({exc})") from None
    return {name: dict(values) for name, values in parsed.sections.items()}


def _pytest_toml(path: Path) -> tuple[tuple[str, ...], Mapping[str, Any]]:
    return ("pytest",), _toml(path).get("pytest", {})


def _pytest_ini(path: Path) -> tuple[str, Mapping[str, Any]]:
    return "pytest", _ini(path).get("pytest", {})


def _pyproject(path: Path) -> tuple[tuple[str, ...], Mapping[str, Any]] | None:
    table = _toml(path).get("tool", {}).get("pytest")
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
        sections = _ini(path)
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


def find_target(root: Path) -> Target:
    """The file pytest reads when run in ``root`` (looking upwards, as pytest does), or where a first
    configuration belongs."""
    for base in (root, *root.parents):
        for name, load in CANDIDATES:
            path = base / name
            if path.is_file():
                found = load(path)
                if found is not None:
                    return Target(path, found[0], True, found[1], "added to the configuration pytest reads", root)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        return Target(pyproject, ("tool", "pytest", "ini_options"), True, {},
                      "a new table: no pytest configuration yet", root)
    return Target(root / "pytest.ini", "pytest", False, {}, "a new file: no pytest configuration, no pyproject.toml",
                  root)


def updated_text(target: Target, values: Mapping[str, Value]) -> str:
    """The configuration file's new text: ``values`` set, everything else as it was (checked with the parser
    pytest uses; a mismatch raises :class:`InitError` with the lines to add by hand)."""
    old = target.path.read_bytes().decode("utf-8") if target.exists else ""  # its line endings kept
    new = edit(old, target.section, target.header, values, COMMENTS)
    problem = _difference(target, old, new, values)
    if problem:
        syntax = "toml" if isinstance(target.section, tuple) else "ini"
        by_hand = "".join("    " + line for k, v in values.items() for line in render(syntax, k, v, "\n"))
        raise InitError(f"{target.path}: could not add the settings to {target.header} safely ({problem}); add "
                        f"these lines to it by hand:\n{by_hand}".rstrip())
    return new


def _difference(target: Target, old: str, new: str, values: Mapping[str, Value]) -> str | None:
    """What the edit changed besides ``values`` in the target section (None: nothing)."""
    expected: dict[str, Any]
    try:
        if isinstance(target.section, tuple):
            expected, got = copy.deepcopy(_toml(target.path, old)), _toml(target.path, new)
            node = expected
            for part in target.section:
                node = node.setdefault(part, {})
            node.update({k: v if isinstance(v, str) else list(v) for k, v in values.items()})
        else:
            expected, got = (_ini(target.path, old) if old else {}), _ini(target.path, new)
            node = expected.setdefault(target.section, {})
            node.update({k: v if isinstance(v, str) else "\n".join(v) for k, v in values.items()})
    except InitError as exc:
        return f"the result would not parse: {exc}"
    return None if got == expected else "the result would read differently from the original plus the settings"
