"""The settings table (``settings/table.py``) as pytest's flags and ini entries, and the reads of one setting that
the hooks make before (or without) an evaluation.

Every pytest run in a project with the plugin installed imports this module (``pytest_addoption``, and
``pytest_configure`` asks ``evaluating`` and ``strategy_files``), so it stays light: the typed ``Options`` of an
evaluation, which reads and checks every setting, is in ``options.py``, imported only by a run that evaluates
(tests/test_light_import.py, benchmarks/test_bench_plugin_import.py).

A value is read the same way everywhere: the command line over the ini file, relative paths under the ini file's
folder, and a bad value is one ``settings.Invalid`` in one wording (``--flag / ini key must be <what>, got <value>``).
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

from pytest_chunkeval.settings.setting import Bad, Invalid, Setting
from pytest_chunkeval.settings.table import SETTING, SETTINGS

if TYPE_CHECKING:
    from pytest_chunkeval.settings.project import ProjectConfig


def add_options(parser: pytest.Parser) -> None:
    """A flag and an ini entry for each setting that has one. Flag values stay strings (default None: not given)
    and are converted when read, so a mistake on the command line and the same mistake in the ini file get the same
    message; ini entries are typed (``chunkeval_k (int)`` in pytest --help) and default to None, so that a value
    the file does not set falls through to the table's default."""
    group = parser.getgroup("chunkeval", "pytest-chunkeval: evaluate code-chunking strategies for retrieval")
    for s in SETTINGS:
        if s.flag is not None:
            text = _help(s, f"ini {s.ini}" if s.ini else None).replace("%", "%%")  # argparse formats help with %
            if s.kind.switch:
                group.addoption(s.flag, action="store_true", default=False, help=text)
            elif s.repeatable:
                group.addoption(s.flag, action="append", default=[], metavar=s.metavar, help=text)
            else:
                group.addoption(s.flag, default=None, metavar=s.metavar, help=text)
        if s.ini is not None:
            ini_type: Any = s.kind.ini_type  # one of pytest's ini type names, or None for a string
            parser.addini(s.ini, _help(s, f"command line {s.flag}" if s.flag else None), type=ini_type, default=None)


def _help(s: Setting, other_name: str | None) -> str:
    """The table's help with what pytest --help should also say: the default, repeatable, the other spelling."""
    notes = [] if s.kind.switch else [f"default: {s.default_text()}"]
    notes += ["repeatable"] if s.repeatable else []
    notes += [other_name] if other_name else []
    return f"{s.help} ({'; '.join(notes)})" if notes else s.help


def base_dir(config: pytest.Config) -> Path:
    """Where relative settings are resolved: the ini file's folder, else the invocation folder; in an isolated run
    (``--chunkeval-project``), the project configuration's folder.

    Not the rootdir: pytest derives the rootdir from path-like arguments before plugins load, so the value of
    ``--chunkeval-golden /elsewhere/queries.yaml`` can move the rootdir outside the project when no ini is found.
    """
    isolated = project(config)
    if isolated is not None:
        return isolated.root
    return Path(config.inipath).parent if config.inipath else Path(config.invocation_params.dir)


_PROJECT_KEY: pytest.StashKey[ProjectConfig | None] = pytest.StashKey()


def project(config: pytest.Config) -> ProjectConfig | None:
    """The project an isolated run evaluates (``--chunkeval-project``, as ``chunkeval run`` passes it), or None.

    Read from the command line alone: every other setting's folder and ini value depend on it."""
    if _PROJECT_KEY in config.stash:
        return config.stash[_PROJECT_KEY]
    setting = SETTING["project"]
    raw = config.getoption(setting.dest) if setting.dest else None
    found = None
    if raw:
        from pytest_chunkeval.settings.project import ConfigError, ProjectConfig

        path = Path(str(raw)).expanduser()
        path = path if path.is_absolute() else Path(config.invocation_params.dir) / path
        if not path.exists():
            raise pytest.UsageError(f"{setting.flag}: {path} does not exist")
        try:
            found = ProjectConfig.locate(path)
        except ConfigError as exc:
            raise pytest.UsageError(f"{setting.flag}: {exc}") from None
    config.stash[_PROJECT_KEY] = found
    return found


def _given(config: pytest.Config, s: Setting) -> Any:
    """The command line's value, or None when the flag was not given (a switch off, a repeatable flag never used)."""
    if s.dest is None:
        return None
    value = config.getoption(s.dest)
    return None if value is None or value is False or value == [] else value


def _ini(config: pytest.Config, s: Setting) -> Any:
    """The ini file's value, typed by pytest, or None when the file does not set it."""
    if s.ini is None:
        return None
    isolated = project(config)
    try:
        value = config.getini(s.ini)  # in an isolated run: an -o override, else nothing (the neutral file sets none)
        if value is None and isolated is not None:
            value = isolated.value(s.ini, s.kind.ini_type)
        return value
    except (ValueError, TypeError, pytest.UsageError) as exc:  # pytest's message names the value, not the setting
        raise Invalid(s.problem(Bad(s.kind.noun, _value_in(str(exc))))) from None


def _value_in(message: str) -> Any:
    """The value a pytest ini conversion error ends with (``...: 'abc'``), as it was written."""
    text = message.rsplit(": ", 1)[-1]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _raw(config: pytest.Config, s: Setting) -> Any:
    """The value as written: the command line's, else the ini file's, else the table's default; for a merged
    setting the ini file's list and the command line's together."""
    given = _given(config, s)
    if s.merged:
        return [*(_ini(config, s) or []), *(given or [])]
    if given is not None:
        return given
    from_ini = _ini(config, s)
    return s.default if from_ini is None else from_ini


def read(config: pytest.Config, s: Setting) -> Any:
    """One setting's typed value (not yet checked against the others: ``Options.validate`` does that)."""
    return s.read(_raw(config, s), base_dir(config))


# -- the settings the hooks need before (or without) an evaluation ---------------------------------------------------

def evaluating(config: pytest.Config) -> bool:
    """``--chunkeval`` was given: without it the plugin collects nothing and reads no other setting."""
    return bool(read(config, SETTING["evaluate"]))


def cleaning(config: pytest.Config) -> bool:
    """``--chunkeval-clean`` was given (it needs ``--chunkeval``: the caller says so)."""
    return bool(read(config, SETTING["clean"]))


def output_only_flags() -> dict[str, bool]:
    """The flags that only compare or write outputs, each with whether it takes a value: a command that records
    misses for this run's selection leaves them out."""
    return {s.flag: not s.kind.switch for s in SETTINGS if s.flag is not None and not s.recorded}


class StrategyFiles(NamedTuple):
    """Where a project's strategies are defined: its folder of strategy files and the ini's grammar files.

    Read also without ``--chunkeval`` (they register the strategy fixtures), so only these three settings are read:
    the rest are not checked there. A NamedTuple, not a dataclass: defining a dataclass would cost every plain run.
    """

    folder: Path
    grammars: list[Path]
    configs: list[Path]


def strategy_files(config: pytest.Config) -> StrategyFiles:
    try:
        return StrategyFiles(folder=read(config, SETTING["strategies_dir"]),
                             grammars=read(config, SETTING["grammars"]),
                             configs=read(config, SETTING["grammar_configs"]))
    except Invalid as exc:
        raise pytest.UsageError(str(exc)) from None
