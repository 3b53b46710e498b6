"""The package's import graph has no cycle, lazy imports inside functions included (tools/import_graph.py builds it
from the source with ``ast``; ``python tools/import_graph.py`` prints it). A cycle made lazy only waits for the day
someone hoists the import; the fix is to move the shared piece down, never to hide the import again.

No import points up either: every module has a layer (``LAYER_OF``, drawn in docs/design.md's "Layers"), and imports
only its own and those below (``python tools/import_graph.py --layers --typing``).

The tool itself is checked on small packages written here, so "no cycle" and "nothing upward" cannot come from a graph
that misses edges or a layer table that places nothing.
"""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "import_graph.py"
DESIGN = ROOT / "docs" / "design.md"


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


def test_no_module_imports_a_layer_above_its_own(graph_tool: ModuleType) -> None:
    """Type-only imports included: a module that needs a higher layer's type for an annotation still depends on it."""
    graph = graph_tool.build_graph(typing=True)
    found = graph_tool.describe_layers(graph)
    assert not found, "upward imports (python tools/import_graph.py --layers --typing):\n" + "\n".join(found)
    layers = {graph_tool.layer_of(module) for module in graph}
    assert layers == set(graph_tool.LAYERS)  # every layer holds a module: the table places the whole package


def test_the_judges_sit_above_the_results_and_the_renderers_above_the_judges(graph_tool: ModuleType) -> None:
    """The arrows that once pointed up stay fixed where they were fixed: the sizes the chunkers measure are chunking's,
    the judges left scoring/, the Summary the verdict reads is the judges'."""
    place = graph_tool.layer_of
    assert place("pytest_chunkeval.chunking.sizing") == place("pytest_chunkeval.contract") == "chunking/retrieval"
    assert place("pytest_chunkeval.judges.comparison") == place("pytest_chunkeval.verdict") == "judges"
    assert place("pytest_chunkeval.judges.summary") == "judges" and place("pytest_chunkeval.judged") == "results"
    assert place("pytest_chunkeval.frontier.cli") == "plugin/CLI" and place("pytest_chunkeval.frontier.chart") == "output"


def _drawn_layers(text: str, layers: tuple[str, ...]) -> dict[str, str]:
    """docs/design.md's drawing: a layer's name at the start of a line, its members on it and the indented lines below."""
    block = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0].split("```", 2)[1]
    drawn: dict[str, str] = {}
    current = None
    for line in block.splitlines():
        head = line.split("  ", 1)[0]
        if head in layers:
            current = head
            drawn[current] = line[len(head):]
        elif current is not None:
            drawn[current] += " " + line
    return drawn


def _written(entry: str) -> str:
    """A LAYER_OF entry as the drawing writes it: ``settings.setting`` -> ``settings/setting.py``, a package ``x/``."""
    if entry == "":
        return "__init__.py"
    path = ROOT / "pytest_chunkeval" / entry.replace(".", "/")
    return entry.replace(".", "/") + ("/" if path.is_dir() else ".py")


def test_the_drawing_in_the_design_page_is_the_table_the_check_uses(graph_tool: ModuleType) -> None:
    drawn = _drawn_layers(DESIGN.read_text(encoding="utf-8"), graph_tool.LAYERS)
    assert list(drawn) == list(reversed(graph_tool.LAYERS))  # drawn top down: the entry points first, core last
    misplaced = []
    for entry, layer in graph_tool.LAYER_OF.items():
        if _written(entry) not in re.findall(r"[\w/.]+", drawn[layer]):
            misplaced.append(f"{_written(entry)} ({layer})")
    assert not misplaced, f"docs/design.md's Layers drawing does not show these in their layer: {misplaced}"


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


def test_an_upward_import_is_found_lazy_or_type_only_and_an_unplaced_module_is_named(
        graph_tool: ModuleType, tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "from pkg import top\n",
        "low.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.mid import M\n",
        "mid/__init__.py": "",
        "mid/a.py": "import pkg.low\n\ndef f():\n    from pkg import top\n    return top\n",
        "mid/up.py": "import pkg.top\n",  # placed with top by its own, longer entry: no arrow
        "top.py": "import pkg.mid.a\n",
        "stray.py": "",
    })
    table = {"": "high", "low": "low", "mid": "mid", "mid.up": "high", "top": "high"}
    layers = ("low", "mid", "high")
    assert graph_tool.layer_of("pkg.mid.up", "pkg", table) == "high"
    assert graph_tool.layer_of("pkg.mid.a", "pkg", table) == "mid"
    plain = graph_tool.build_graph(root, "pkg")
    assert [(e.source, e.target, e.kind) for e in graph_tool.upward(plain, "pkg", table, layers)] == [
        ("pkg.mid.a", "pkg.top", "lazy")]
    typed = graph_tool.build_graph(root, "pkg", typing=True)
    assert graph_tool.describe_layers(typed, "pkg", table, layers) == [
        "pkg.low (low) -> pkg.mid (mid) (typing, line 3)",
        "pkg.mid.a (mid) -> pkg.top (high) (lazy, line 4)",
        "pkg.stray: no layer (place it in LAYER_OF, tools/import_graph.py)",
    ]


def test_the_command_line_lists_the_layers(graph_tool: ModuleType, capsys) -> None:
    assert graph_tool.main(["--layers", "--typing"]) == 0
    out = capsys.readouterr().out
    assert "core -> chunking/retrieval" in out and out.rstrip().endswith("0 upward import(s) or unplaced module(s)")
