"""An evaluation independent of the project's test setup: the pytest command line ``chunkeval run`` builds.

A project's pytest configuration is written for its tests. Its ``addopts`` may name plugins this environment lacks
(``--cov``, ``-n auto``) or add ``--doctest-modules``; ``filterwarnings = error`` turns a dependency's deprecation
into a failure; its conftests import the project and its test dependencies, which nobody evaluating chunking has any
reason to install; its installed plugins (pytest-django, pytest-timeout, ...) act on every item. None of that is about
chunking, so an isolated run gives pytest:

- ``-c`` a neutral configuration file shipped with this package (nothing of the project's file applies) and
  ``--rootdir`` the project's folder;
- ``--chunkeval-project`` the project's configuration file, from which the plugin reads the ``chunkeval_*``
  settings alone (relative paths resolved in its folder, as in a run the project's file configures);
- ``--noconftest``: no conftest runs, except those that define strategies (they import ``pytest_chunkeval``), which
  the plugin imports itself (:func:`strategy_conftests`);
- plugin autoloading off (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``), this plugin by ``-p``, pytest-xdist only when the
  command line asks for it; ``PYTEST_ADDOPTS`` and ``PYTEST_PLUGINS`` dropped from the environment.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pytest_chunkeval.settings.project import ProjectConfig

NEUTRAL_INI = Path(__file__).parents[1] / "isolated.ini"
PROJECT_FLAG = "--chunkeval-project"
PLUGIN = __name__.partition(".")[0] + ".plugin"  # the package's pytest entry point, by -p: not an import of it here
#: Environment variables of the project's test setup that an isolated run drops.
DROPPED_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")
#: Options of plugins that an isolated run loads when the command line uses them (autoloading is off).
ON_REQUEST = {"-n": "xdist.plugin", "--numprocesses": "xdist.plugin", "--dist": "xdist.plugin",
              "--maxprocesses": "xdist.plugin"}
#: What marks a conftest as one that defines strategies: it uses this package.
USES_PACKAGE = "pytest_chunkeval"


def pytest_args(project: ProjectConfig, args: Sequence[str], *, rootdir: Path | None = None) -> list[str]:
    """pytest's arguments for an isolated evaluation of ``project`` with the user's ``args`` after them."""
    plugins = dict.fromkeys(ON_REQUEST[name] for name in _option_names(args) if name in ON_REQUEST)
    return [
        "-c", str(NEUTRAL_INI), "--rootdir", str(rootdir or project.root), "--noconftest", "-p", PLUGIN,
        *(a for plugin in plugins for a in ("-p", plugin)),
        "--chunkeval", f"{PROJECT_FLAG}={project.path or project.root}", *args,
    ]


def _option_names(args: Iterable[str]) -> Iterable[str]:
    for arg in args:
        if arg == "--":
            return
        if arg.startswith("--"):
            yield arg.split("=", 1)[0]
        elif arg.startswith("-n"):
            yield "-n"  # -n2, -n auto


def environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for an isolated run: no plugin autoloading, none of the project's pytest variables."""
    out = {k: v for k, v in env.items() if k not in DROPPED_ENV}
    out["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return out


def header_line(project: Path, rootdir: Path) -> str:
    """The run header's word on why pytest names this package's ``isolated.ini`` as its configfile (``project``: the
    project's configuration file, or its folder when it has none)."""
    try:
        shown = project.resolve().relative_to(rootdir.resolve()).as_posix()
    except ValueError:
        shown = str(project)
    read = (f"the project has no pytest configuration file in {shown}, so no chunkeval_* setting is read"
            if project.is_dir() else f"only the chunkeval_* settings of {shown} are read")
    return (f"chunkeval run: configfile {NEUTRAL_INI.name} on purpose: {read}; the project's own pytest settings, "
            "its conftests (but those that define strategies) and its plugins stay out "
            "(pytest --chunkeval -m chunkeval keeps them)")


def user_args(args: Sequence[str]) -> list[str]:
    """The user's own part of an isolated run's arguments (what follows ``--chunkeval-project``)."""
    for i, arg in enumerate(args):
        if arg.startswith(PROJECT_FLAG + "="):
            return list(args[i + 1:])
        if arg == PROJECT_FLAG:
            return list(args[i + 2:])
    return list(args)


def strategy_conftests(root: Path, folders: Iterable[Path]) -> list[Path]:
    """The conftests an isolated run imports: ``conftest.py`` in ``root`` and in each of ``folders`` and the folders
    between them and ``root`` (where pytest would have found them for those paths), that use this package.

    Other conftests are the project's test setup: they are never imported.
    """
    root = root.resolve()
    seen: dict[Path, None] = {root: None}
    for folder in folders:
        folder = folder.resolve()
        if folder != root and root not in folder.parents:
            continue
        chain = [folder, *folder.parents]
        for step in reversed(chain[:chain.index(root)]):
            seen[step] = None
    found = []
    for folder in seen:
        path = folder / "conftest.py"
        if path.is_file() and USES_PACKAGE in path.read_text("utf-8", errors="replace"):
            found.append(path)
    return found
