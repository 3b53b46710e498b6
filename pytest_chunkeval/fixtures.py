"""Every strategy is an ordinary pytest fixture of its name, with or without ``--chunkeval``: ``def test_x(ast)``.

A project's strategy files register theirs through ``@strategy`` (their modules become plugins here); the packages'
strategies and the ini's grammar strategies get a fixture each from one small plugin object, unless a project file
of the same name replaces them (a project's fixture of that name is then the one a test gets, as in an evaluation).

Every pytest run registers them, so the names come from the entry points (kept in pytest's cache between runs): a
strategy's module is imported when a test uses its fixture, never to register it (docs/benchmarks.md: the plugin in
a plain pytest run).
"""
from __future__ import annotations

import os
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from pytest_chunkeval.flags import StrategyFiles, strategy_files

if TYPE_CHECKING:
    from pytest_chunkeval.strategy import Registration

#: sources.ENTRY_POINT_GROUP, without importing sources (tests/test_light_import.py checks they agree).
ENTRY_POINT_GROUP = "pytest_chunkeval.strategies"
#: The packages' strategies as a plain run last read them, in pytest's cache folder (``entry_point_strategies``).
CACHE_KEY = "chunkeval/strategy-entry-points"


def register_fixtures(config: pytest.Config, evaluating: bool) -> None:
    """Register the strategy fixtures of this project.

    Without ``--chunkeval``, "strategies/" may well be another project's folder: only modules that use this
    package are imported, and an error in one is a warning, never an INTERNALERROR of someone else's test run.
    """
    files = strategy_files(config)
    modules = []
    if files.folder.is_dir():
        from pytest_chunkeval.discovery import load_strategy_modules

        try:
            modules = load_strategy_modules(files.folder, only_using="pytest_chunkeval" if not evaluating else None)
        except ImportError as exc:
            if evaluating:  # the message names the strategy file, whose name is the project's to choose
                from pytest_chunkeval.output.escape import log_lines

                raise pytest.UsageError(log_lines(str(exc))) from None
            config.issue_config_time_warning(pytest.PytestConfigWarning(f"pytest-chunkeval: {exc}"), stacklevel=2)
    for module in modules:
        if not config.pluginmanager.is_registered(module):
            config.pluginmanager.register(module, f"chunkeval-strategies-{module.__name__}")
    own = {name for module in modules for name in _fixture_names(module)}
    shipped = Shipped(files)
    # A module, not any object: pytest reads the fixtures of a plugin object from its type, of a module from itself.
    holder = ModuleType("chunkeval_shipped_strategies")
    for name, described in shipped.described(config).items():
        if name not in own:
            setattr(holder, name, _fixture(shipped, name, described))
    if not config.pluginmanager.has_plugin("chunkeval-shipped-strategies"):
        config.pluginmanager.register(holder, "chunkeval-shipped-strategies")


class Shipped:
    """The packages' and the ini grammars' strategies: their names and descriptions read cheaply, their
    registrations (which import every strategy's module) built on the first fixture a test uses."""

    def __init__(self, files: StrategyFiles) -> None:
        self.files = files
        self._available: dict[str, Registration] | None = None

    def available(self) -> dict[str, Registration]:
        if self._available is None:
            from pytest_chunkeval.chunking.grammar_strategies import registrations as grammar_registrations
            from pytest_chunkeval.sources import merge, packaged

            self._available = merge(packaged(), grammar_registrations(self.files.grammars,
                                                                      self.files.configs)).available
        return self._available

    def described(self, config: pytest.Config) -> dict[str, str]:
        """name -> where it is defined: the entry point's object for a package's strategy (each of them, where two
        packages ship the name), the registration's origin for the ini's grammars (whose registrations are built
        now, as they always were). Not the providing package's name and version, as ``chunkeval list`` shows them:
        reading those parses every providing package's METADATA, a cost to every plain pytest run."""
        if self.files.grammars or self.files.configs:
            return {name: reg.provider or reg.origin for name, reg in self.available().items()}
        return entry_point_strategies(config)


def entry_point_strategies(config: pytest.Config) -> dict[str, str]:
    """name -> ``module:object`` of every strategy an installed package ships (each, where two ship the name).

    Finding them reads the entry points of every installed package (~5 ms in an environment of 180, paid by every
    pytest run of the project), so the answer is kept in pytest's cache folder under the state it was read in:
    sys.path's folders and their modification times, which change when a package is installed, upgraded or
    removed (or when a file is added to the folder pytest runs in, often the first: it is on sys.path too). Without
    the cache (``-p no:cacheprovider``) every run reads them.
    """
    state = _installed_state()
    cache = getattr(config, "cache", None)
    if cache is not None:
        kept = cache.get(CACHE_KEY, None)
        if isinstance(kept, dict) and kept.get("state") == state and isinstance(kept.get("strategies"), dict):
            return dict(kept["strategies"])
    from importlib.metadata import entry_points

    found: dict[str, list[str]] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, []).append(ep.value)
    strategies = {name: " or ".join(sorted(values)) for name, values in sorted(found.items())}
    if cache is not None:
        with warnings.catch_warnings():  # a cache folder that cannot be written is pytest's to report, not ours
            warnings.simplefilter("ignore")
            cache.set(CACHE_KEY, {"state": state, "strategies": strategies})
    return strategies


def _installed_state() -> list[list[Any]]:
    """Each existing sys.path entry with its modification time: what a package's install or removal changes."""
    state: list[list[Any]] = []
    for entry in sys.path:
        try:
            state.append([entry, os.stat(entry or ".").st_mtime_ns])
        except OSError:
            continue
    return state


def _fixture_names(module: Any) -> set[str]:
    from pytest_chunkeval.strategy import registrations

    path = getattr(module, "__file__", None)
    return {reg.name for reg in registrations() if path and reg.origin.rsplit(":", 1)[0] == path}


def _fixture(shipped: Shipped, name: str, described: str) -> Any:
    def build() -> Any:
        available = shipped.available()
        if name not in available:  # the kept names outlived a package (entry_point_strategies)
            pytest.fail(f"no installed package provides the strategy {name} any more ({described}): pytest's cache "
                        "kept its name; run pytest once with --cache-clear", pytrace=False)
        return available[name].factory()

    build.__name__ = name
    build.__doc__ = f"The strategy {name} ({described})."
    return pytest.fixture(name=name, scope="session")(build)
