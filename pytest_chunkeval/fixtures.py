"""Every strategy is an ordinary pytest fixture of its name, with or without ``--chunkeval``: ``def test_x(ast)``.

A project's strategy files register theirs through ``@strategy`` (their modules become plugins here); the packages'
strategies and the ini's grammar strategies get a fixture each from one small plugin object, unless a project file
of the same name replaces them (a project's fixture of that name is then the one a test gets, as in an evaluation).

Every pytest run registers them, so the names come from the entry points' metadata: a strategy's module is imported
when a test uses its fixture, never to register it (docs/benchmarks.md: a plain run's cost of the plugin).
"""
from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from pytest_chunkeval.options import StrategyFiles, strategy_files

if TYPE_CHECKING:
    from pytest_chunkeval.strategy import Registration

#: sources.ENTRY_POINT_GROUP, without importing sources (tests/test_light_import.py checks they agree).
ENTRY_POINT_GROUP = "pytest_chunkeval.strategies"


def register_fixtures(config: pytest.Config, evaluating: bool) -> None:
    """Register the strategy fixtures of this project.

    Without ``--chunkeval``, "strategies/" may well be another project's folder: only modules that use this
    package are imported, and an error in one is a warning, never an INTERNALERROR of someone else's test run.
    """
    from pytest_chunkeval.discovery import load_strategy_modules

    files = strategy_files(config)
    modules = []
    if files.folder.is_dir():
        try:
            modules = load_strategy_modules(files.folder, only_using="pytest_chunkeval" if not evaluating else None)
        except ImportError as exc:
            if evaluating:
                raise pytest.UsageError(str(exc)) from None
            config.issue_config_time_warning(pytest.PytestConfigWarning(f"pytest-chunkeval: {exc}"), stacklevel=2)
    for module in modules:
        if not config.pluginmanager.is_registered(module):
            config.pluginmanager.register(module, f"chunkeval-strategies-{module.__name__}")
    own = {name for module in modules for name in _fixture_names(module)}
    shipped = Shipped(files)
    # A module, not any object: pytest reads the fixtures of a plugin object from its type, of a module from itself.
    holder = ModuleType("chunkeval_shipped_strategies")
    for name, described in shipped.described().items():
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

    def described(self) -> dict[str, str]:
        """name -> where it comes from, as sources.packaged describes it: the providing package's name and version
        (the first by name, as packaged sorts them). Grammar strategies, or an entry point of no package, need
        their registrations: built now, as they always were."""
        if self.files.grammars or self.files.configs:
            return {name: reg.provider or reg.origin for name, reg in self.available().items()}
        from importlib.metadata import entry_points

        providers: dict[str, str] = {}
        packages: dict[int, str] = {}  # every dist.metadata parses its METADATA file again: once per package
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            dist = getattr(ep, "dist", None)
            if dist is None:
                return {name: reg.provider or reg.origin for name, reg in self.available().items()}
            if id(dist) not in packages:
                packages[id(dist)] = f"{dist.metadata['Name']} {dist.metadata['Version']}"
            provider = packages[id(dist)]
            providers[ep.name] = min(provider, providers.get(ep.name, provider))
        return dict(sorted(providers.items()))


def _fixture_names(module: Any) -> set[str]:
    from pytest_chunkeval.strategy import registrations

    path = getattr(module, "__file__", None)
    return {reg.name for reg in registrations() if path and reg.origin.rsplit(":", 1)[0] == path}


def _fixture(shipped: Shipped, name: str, described: str) -> Any:
    def build() -> Any:
        return shipped.available()[name].factory()

    build.__name__ = name
    build.__doc__ = f"The strategy {name} ({described})."
    return pytest.fixture(name=name, scope="session")(build)
