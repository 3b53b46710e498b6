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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_chunkeval.commands.init.ini_text import Value, edit, render
from pytest_chunkeval.settings.project import PREFIX, ConfigError, find_config, read_ini, read_toml

#: The settings ``chunkeval init`` writes, by role. Their names are being settled: spelled here and nowhere else.
KEYS = {"golden": "chunkeval_golden", "strategies_dir": "chunkeval_strategies_dir", "baseline": "chunkeval_baseline"}
#: The settings that hand the plugin a grammar of the project's own language (named, never written).
GRAMMAR_KEYS = {"grammar": "chunkeval_grammar", "grammar_config": "chunkeval_grammar_config"}
COMMENTS = {
    KEYS["golden"]: "pytest-chunkeval: the golden suites `chunkeval run` evaluates (paths or glob patterns)",
    KEYS["strategies_dir"]: "pytest-chunkeval: folder of this project's own chunking strategies, one module each",
    KEYS["baseline"]: "pytest-chunkeval: the strategy every other one is compared with",
}


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
        return read_toml(path, text)
    except ConfigError as exc:
        raise InitError(str(exc)) from None


def _ini(path: Path, text: str | None = None) -> dict[str, dict[str, str]]:
    try:
        return read_ini(path, text)
    except ConfigError as exc:
        raise InitError(str(exc)) from None


def find_target(root: Path) -> Target:
    """The file pytest reads when run in ``root`` (looking upwards, as pytest does), or where a first
    configuration belongs."""
    try:
        found = find_config(root)
    except ConfigError as exc:
        raise InitError(str(exc)) from None
    if found is not None:
        return Target(found.path, found.section, True, found.settings, "added to the configuration pytest reads", root)
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
