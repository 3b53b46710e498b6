"""Where each of ``chunkeval init``'s outputs goes, what is in the way, and writing them once all are ready.

Conflicts are found before any work is done and reported all at once, so a user fixes them in one go; with
``--force`` each is replaced. Writing happens last, once the suites are built and the configuration edit is
checked: a failure before that point leaves the repository untouched.
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pytest_chunkeval.commands.init.files import STRATEGY_FILE, WORKFLOW_FILE
from pytest_chunkeval.commands.init.ini import KEYS, Target
from pytest_chunkeval.commands.init.repo import RepoInfo
from pytest_chunkeval.commands.init.suites import GOLDEN_DIR, SuiteResult

STRATEGIES_DIR = "strategies"
#: Used instead when ``strategies/`` is already a folder of the project's own Python code.
FALLBACK_STRATEGIES_DIR = "chunkeval_strategies"


@dataclass(frozen=True)
class Plan:
    info: RepoInfo
    target: Target
    strategies_dir: str
    strategies_note: str  # why strategies_dir is not the default ("" when it is)

    @property
    def root(self) -> Path:
        return self.info.root

    @property
    def strategy_file(self) -> str:
        return f"{self.strategies_dir}/{STRATEGY_FILE}"

    @property
    def outputs(self) -> tuple[str, ...]:
        """Init's own outputs: never read as the project's code (a second run would mine its own suites)."""
        return GOLDEN_DIR, self.strategy_file


def _strategies_dir(root: Path, target: Target) -> tuple[str, str]:
    """The folder the ini names already, else ``strategies/`` unless it holds modules that do not use this
    plugin (a package of the project's that ``pytest --chunkeval`` would otherwise import as strategies)."""
    configured = target.settings.get(KEYS["strategies_dir"])
    if isinstance(configured, str) and configured.strip():
        named = Path(os.path.relpath(target.path.parent / configured.strip(), root)).as_posix()
        if named != ".." and not named.startswith("../"):
            return named, ""
    folder = root / STRATEGIES_DIR
    foreign = sorted(p.name for p in folder.glob("*.py")
                     if "pytest_chunkeval" not in p.read_text("utf-8", errors="replace")) if folder.is_dir() else []
    if foreign:
        return FALLBACK_STRATEGIES_DIR, (f"{STRATEGIES_DIR}/ holds the project's own modules ({', '.join(foreign[:3])}"
                                         f"{', ...' if len(foreign) > 3 else ''}), so strategies go to "
                                         f"{FALLBACK_STRATEGIES_DIR}/")
    return STRATEGIES_DIR, ""


def make_plan(info: RepoInfo, target: Target) -> Plan:
    folder, note = _strategies_dir(info.root, target)
    return Plan(info, target, folder, note)


def conflicts(plan: Plan, suites: list[str]) -> list[str]:
    """Everything init would overwrite, one line each (``suites``: the suite names it will try)."""
    found = []
    for name in suites:
        path = plan.root / GOLDEN_DIR / name
        if path.is_dir() and any(path.iterdir()):
            held = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
            shown = ", ".join(held[:5]) + (", ..." if len(held) > 5 else "")
            # --force deletes the folder whole: a recorded baseline of misses goes with it, said by name.
            record = "; its accepted_misses.yaml (the misses recorded as accepted) is deleted with it" \
                if (path / "accepted_misses.yaml").exists() else ""
            found.append(f"{GOLDEN_DIR}/{name}/ is not empty ({shown}){record}")
        elif path.exists() and not path.is_dir():
            found.append(f"{GOLDEN_DIR}/{name} exists and is not a folder")
    for rel in (plan.strategy_file, WORKFLOW_FILE):
        if (plan.root / rel).exists():
            found.append(f"{rel} exists")
    keys = plan.target.chunkeval_keys()
    if keys:
        found.append(f"{plan.target.label} already sets {', '.join(keys)}")
    return found


def _replace(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def write_all(plan: Plan, made: list[SuiteResult], texts: Mapping[str, str]) -> None:
    """Move the staged suites in and write ``texts`` (relative path -> content, exact)."""
    for suite in made:
        assert suite.staged is not None
        dest = plan.root / suite.folder
        _replace(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(suite.staged, dest)
    for rel, text in texts.items():
        path = plan.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            _replace(path)
        path.write_bytes(text.encode("utf-8"))  # an existing file keeps its mode (and a link its target)
