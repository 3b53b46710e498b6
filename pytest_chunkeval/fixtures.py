"""Every strategy is an ordinary pytest fixture of its name, with or without ``--chunkeval``: ``def test_x(ast)``.

A project's strategy files register theirs through ``@strategy`` (their modules become plugins here); the packages'
strategies and the ini's grammar strategies get a fixture each from one small plugin object, unless a project file
of the same name replaces them (a project's fixture of that name is then the one a test gets, as in an evaluation).
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from pytest_chunkeval.options import strategy_files
from pytest_chunkeval.strategy import Registration


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
    from pytest_chunkeval.chunking.grammar_strategies import registrations as grammar_registrations
    from pytest_chunkeval.sources import merge, packaged

    shipped = merge(packaged(), grammar_registrations(files.grammars, files.configs)).available
    # A module, not any object: pytest reads the fixtures of a plugin object from its type, of a module from itself.
    holder = ModuleType("chunkeval_shipped_strategies")
    for name, reg in shipped.items():
        if name not in own:
            setattr(holder, name, _fixture(reg))
    if not config.pluginmanager.has_plugin("chunkeval-shipped-strategies"):
        config.pluginmanager.register(holder, "chunkeval-shipped-strategies")


def _fixture_names(module: Any) -> set[str]:
    from pytest_chunkeval.strategy import registrations

    path = getattr(module, "__file__", None)
    return {reg.name for reg in registrations() if path and reg.origin.rsplit(":", 1)[0] == path}


def _fixture(reg: Registration) -> Any:
    def build() -> Any:
        return reg.factory()

    build.__name__ = reg.name
    build.__doc__ = f"The strategy {reg.name} ({reg.provider or reg.origin})."
    return pytest.fixture(name=reg.name, scope="session")(build)
