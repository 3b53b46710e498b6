"""Finding strategies and golden suites on disk.

Strategy modules under the configured folder (default ``strategies/``) are imported by path, so the folder needs
no ``__init__.py`` and is not put on ``sys.path``; importing one runs its ``@strategy`` decorators.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_strategy_modules(folder: Path, only_using: str | None = None) -> list[ModuleType]:
    """Import every ``*.py`` in ``folder`` (sorted, ``_``-prefixed files skipped) and return the modules.

    With ``only_using``, a file whose text does not mention that name is left alone: a folder called
    ``strategies`` in a project that merely has this plugin installed is that project's business.
    """
    modules: list[ModuleType] = []
    if not folder.is_dir():
        return modules
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        if only_using is not None and only_using not in path.read_text("utf-8", errors="replace"):
            continue
        modules.append(import_by_path(f"chunkeval_strategies.{path.stem}", path, "strategy module"))
    return modules


def import_by_path(mod_name: str, path: Path, what: str) -> ModuleType:
    """The module at ``path`` under ``mod_name`` (imported once); ImportError names the file and the reason."""
    existing = sys.modules.get(mod_name)
    if existing is not None and getattr(existing, "__file__", None) == str(path):
        return existing
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - only for exotic files
        raise ImportError(f"{path}: cannot be imported as a {what}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        exec_source(module, path)
    except Exception as exc:
        sys.modules.pop(mod_name, None)
        raise ImportError(f"{path}: could not import {what}: {type(exc).__name__}: {exc}") from exc
    return module


def exec_source(module: ModuleType, path: Path) -> None:
    """Run a strategy module from its source, never from a byte-code cache: the index fingerprint hashes the
    source, and a file edited within the same second at the same size looks unchanged to the cache (its mtime and
    size), which would then run the old code under the new fingerprint."""
    exec(compile(path.read_bytes(), str(path), "exec"), module.__dict__)


def discover_suites(root: Path, patterns: list[str]) -> list[Path]:
    """Golden files matching the glob ``patterns`` under ``root``, sorted for a stable order. An absolute pattern
    (``/srv/suites/*/queries.yaml``) is globbed from its anchor: ``Path.glob`` refuses one outright."""
    found: set[Path] = set()
    for pattern in patterns:
        base, relative = root, Path(pattern.strip()).expanduser()
        if relative.is_absolute():
            base, relative = Path(relative.anchor), relative.relative_to(relative.anchor)
        if not relative.parts:  # an empty line, or a bare root: nothing to match
            continue
        found.update(p.resolve() for p in base.glob(relative.as_posix()) if p.is_file())
    return sorted(found)



def import_conftest(path: Path) -> ModuleType:
    """Import a project conftest that defines strategies, under a name of its own: an isolated run has pytest load
    no conftest."""
    rel = "_".join(path.resolve().parent.parts[1:]) or "root"
    return import_by_path(f"chunkeval_conftests.{rel}", path, "conftest")
