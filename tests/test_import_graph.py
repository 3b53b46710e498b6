"""The package's import graph has no cycle, lazy imports inside functions included (tools/import_graph.py builds it
from the source with ``ast``; ``python tools/import_graph.py`` prints it). A cycle made lazy only waits for the day
someone hoists the import; the fix is to move the shared piece down, never to hide the import again.

The tool itself is checked on small packages written here, so "no cycle" cannot come from a graph that misses edges.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "import_graph.py"


@pytest.fixture(scope="module")
def graph_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_package_has_no_import_cycle(graph_tool: ModuleType) -> None:
    graph = graph_tool.build_graph()
    assert len(graph) > 100 and sum(map(len, graph.values())) > 250  # the whole package was read
    cycles = graph_tool.describe_cycles(graph)
    assert not cycles, "import cycles (python tools/import_graph.py --cycles):\n" + "\n".join(cycles)


def test_not_even_through_type_only_imports(graph_tool: ModuleType) -> None:
    """``if TYPE_CHECKING:`` imports never run, but a cycle through one is still two modules that need each other."""
    cycles = graph_tool.describe_cycles(graph_tool.build_graph(typing=True))
    assert not cycles, "type-only import cycles (python tools/import_graph.py --cycles --typing):\n" + "\n".join(cycles)


def test_the_vocabulary_imports_nothing_of_the_package(graph_tool: ModuleType) -> None:
    graph = graph_tool.build_graph(typing=True)
    assert graph["pytest_chunkeval.vocabulary"] == []


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_lazy_cycle_is_found_and_named(graph_tool: ModuleType, tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from pkg.b import g\n\ndef f():\n    return g()\n",
        "b.py": "def g():\n    from pkg import a\n    return a\n",
        "c.py": "import pkg.a\n",
    })
    graph = graph_tool.build_graph(root, "pkg")
    assert [(e.target, e.kind) for e in graph["pkg.b"]] == [("pkg.a", "lazy")]
    assert graph_tool.strongly_connected(graph) == [["pkg.a", "pkg.b"]]
    (line,) = graph_tool.describe_cycles(graph)
    assert line == "pkg.a -> pkg.b (top, pkg.a line 1) -> pkg.a (lazy, pkg.b line 2)"


def test_relative_and_dynamic_imports_count_type_only_ones_do_not(graph_tool: ModuleType, tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "LAZY = {'thing': 'pkg.sub.deep'}\n",
        "sub/__init__.py": "from . import deep\n",
        "sub/deep.py": (
            "from typing import TYPE_CHECKING\n"
            "from ..top import x\n"
            "if TYPE_CHECKING:\n    from pkg.sub import other\n"
            "else:\n    import pkg.sub.other\n"
        ),
        "sub/other.py": "'''pkg.top'''\n",  # a docstring is prose, even when it is a module's name
        "top.py": "x = 1\n",
    })
    graph = graph_tool.build_graph(root, "pkg")
    assert [(e.target, e.kind) for e in graph["pkg"]] == [("pkg.sub.deep", "dynamic")]
    assert [(e.target, e.kind) for e in graph["pkg.sub"]] == [("pkg.sub.deep", "top")]
    assert [(e.target, e.kind) for e in graph["pkg.sub.deep"]] == [("pkg.sub.other", "top"), ("pkg.top", "top")]
    assert graph["pkg.sub.other"] == []
    typed = graph_tool.build_graph(root, "pkg", typing=True)
    assert ("pkg.sub.other", "typing") in [(e.target, e.kind) for e in typed["pkg.sub.deep"]]
    assert graph_tool.describe_cycles(graph) == []


def test_the_command_line_prints_the_graph(graph_tool: ModuleType, capsys) -> None:
    assert graph_tool.main([]) == 0
    out = capsys.readouterr().out
    assert "pytest_chunkeval.evaluate -> " in out and out.rstrip().endswith("0 cycle(s)")
