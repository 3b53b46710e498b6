"""The "Layout" map of docs/design.md names every module and package of pytest_chunkeval, so a newcomer's map matches
the tree: a module added, moved or renamed without updating the map fails here, and so does a name that is gone."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pytest_chunkeval"
DESIGN = ROOT / "docs" / "design.md"


def layout_block() -> str:
    text = DESIGN.read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```", 2)[1]


def test_every_module_and_package_is_on_the_map() -> None:
    block = layout_block()
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*(?:\.py|/)", block))
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py") or "__pycache__" in path.parts:
            continue
        if path.name not in words:
            missing.append(path.relative_to(ROOT).as_posix())
    for folder in sorted(p for p in PACKAGE.rglob("*") if p.is_dir() and p.name != "__pycache__"):
        if f"{folder.name}/" not in words:
            missing.append(folder.relative_to(ROOT).as_posix() + "/")
    assert not missing, f"docs/design.md Layout does not name: {missing}"


def test_the_map_names_nothing_that_is_gone() -> None:
    named = set(re.findall(r"\b([a-z_][a-z0-9_]*)\.py\b", layout_block()))
    present = {p.stem for p in ROOT.rglob("*.py") if ".venv" not in p.parts}
    assert named <= present, f"docs/design.md Layout names modules that do not exist: {sorted(named - present)}"
