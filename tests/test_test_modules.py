"""No test module imports another: what two test modules share is a fixture in tests/conftest.py or a name in a plain
helper module (tests/project_files.py and its neighbours). Importing a fixture from a test module makes pytest see it
as defined twice, hides where it comes from, and ties one module's collection to another's imports."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imported_modules(path: Path) -> set[str]:
    """The top-level names of the modules ``path`` imports, anywhere in the file (in functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_test_module_imports_another() -> None:
    test_modules = sorted(p for p in TESTS.rglob("test_*.py") if "data" not in p.relative_to(TESTS).parts)
    assert len(test_modules) > 50  # the glob found the suite
    names = {p.stem for p in test_modules}
    found = [f"{p.relative_to(TESTS)} imports {sorted(imported_modules(p) & names)}" for p in test_modules
             if imported_modules(p) & names]
    assert found == []


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "test_a.py"
    module.write_text("def test_x():\n    from test_b import helper\n    import test_c.sub\n")
    assert imported_modules(module) == {"test_b", "test_c"}
