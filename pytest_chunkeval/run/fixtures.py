"""Every strategy is an ordinary pytest fixture of its name, with or without ``--chunkeval``: ``def test_x(ast)``.

A project's strategy files register theirs through ``@strategy`` (their modules become plugins here); the packages'
strategies and the ini's grammar strategies get a fixture each from one small plugin object, unless a project file
of the same name replaces them (a project's fixture of that name is then the one a test gets, as in an evaluation).

Every pytest run registers them, so the packages' strategies are named from their entry points alone: a strategy's
module is imported when a test uses its fixture, never to register it.
"""
from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from pytest_chunkeval.core.vocabulary import ENTRY_POINT_GROUP
from pytest_chunkeval.settings.flags import StrategyFiles, strategy_files

if TYPE_CHECKING:
    from pytest_chunkeval.chunking.contract import Registration


def register_fixtures(config: pytest.Config, evaluating: bool) -> None:
    """Register the strategy fixtures of this project.

    Without ``--chunkeval``, "strategies/" may well be another project's folder: only modules that use this
    package are imported, and an error in one is a warning, never an INTERNALERROR of someone else's test run.
    """
    files = strategy_files(config)
    modules = []
    if files.folder.is_dir():
        from pytest_chunkeval.chunking.strategy_files import load_strategy_modules

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
            from pytest_chunkeval.chunking.strategy_sources import merge, packaged

            self._available = merge(packaged(), grammar_registrations(self.files.grammars,
                                                                      self.files.configs)).available
        return self._available

    def described(self, config: pytest.Config) -> dict[str, str]:
        """name -> where it is defined: the entry point's object for a package's strategy (each of them, where two
        packages ship the name), the registration's origin for the ini's grammars (whose registrations, and so every
        strategy's, are built here). Not the providing package's name and version, as ``chunkeval list`` shows them:
        reading those parses every providing package's METADATA, a cost to every plain pytest run."""
        if self.files.grammars or self.files.configs:
            return {name: reg.provider or reg.origin for name, reg in self.available().items()}
        return entry_point_strategies()


def entry_point_strategies() -> dict[str, str]:
    """name -> ``module:object`` of every strategy an installed package ships (each, where two ship the name), read
    from the entry points as they are now: a name kept anywhere between runs could outlive its package."""
    from importlib.metadata import entry_points

    found: dict[str, list[str]] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, []).append(ep.value)
    return {name: " or ".join(sorted(values)) for name, values in sorted(found.items())}


def _fixture_names(module: Any) -> set[str]:
    from pytest_chunkeval.chunking.contract import registrations

    path = getattr(module, "__file__", None)
    return {reg.name for reg in registrations() if path and reg.origin.rsplit(":", 1)[0] == path}


def _fixture(shipped: Shipped, name: str, described: str) -> Any:
    def build() -> Any:
        return shipped.available()[name].factory()

    build.__name__ = name
    build.__doc__ = f"The strategy {name} ({described})."
    return pytest.fixture(name=name, scope="session")(build)
