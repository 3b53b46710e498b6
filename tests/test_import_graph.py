"""The package's import graph has no cycle, lazy imports inside functions included (tools/import_graph.py builds it
from the source with ``ast``; ``python tools/import_graph.py`` prints it). A cycle made lazy only waits for the day
someone hoists the import; the fix is to move the shared piece down, never to hide the import again.

No import points up either: a module's layer is the folder it sits in (``LAYERS``, drawn in docs/design.md's
"Layers"), and it imports only its own and those below (``python tools/import_graph.py --layers --typing``); each
layer's folder says in its docstring which layers it imports, and imports no other.

The tool itself is checked on small packages written here, so "no cycle" and "nothing upward" cannot come from a graph
that misses edges or layers that place nothing.
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
    assert graph["pytest_chunkeval.core.vocabulary"] == []


def test_no_module_imports_a_layer_above_its_own(graph_tool: ModuleType) -> None:
    """Type-only imports included: a module that needs a higher layer's type for an annotation still depends on it."""
    graph = graph_tool.build_graph(typing=True)
    found = graph_tool.describe_layers(graph)
    assert not found, "upward imports (python tools/import_graph.py --layers --typing):\n" + "\n".join(found)
    layers = {graph_tool.layer_of(module) for module in graph}
    assert layers == set(graph_tool.LAYERS)  # every layer is a folder that holds a module


def test_the_layers_are_the_folders_and_the_top_level_holds_the_entry_points(graph_tool: ModuleType) -> None:
    package = ROOT / "pytest_chunkeval"
    folders = {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    assert folders == set(graph_tool.LAYERS) - {graph_tool.TOP}
    top = sorted(graph_tool.top_level(graph_tool.build_graph()))
    assert len(top) <= graph_tool.MAX_TOP_LEVEL, top
    assert "pytest_chunkeval.plugin" in top and "pytest_chunkeval.cli" in top


def test_no_folder_imports_another_that_imports_it_back(graph_tool: ModuleType) -> None:
    """The circles that once were (chunking and retrieval through the model's tokenizer, output and the frontier's
    renderers) stay broken: the folders' graph has no cycle."""
    imports = graph_tool.folder_imports(graph_tool.build_graph(typing=True))
    circles = [(a, b) for a, targets in imports.items() for b in targets if a in imports[b]]
    assert not circles
    assert "retrieval" not in imports["chunking"] and "output" not in imports["frontier"]


def test_each_folder_says_what_it_holds_and_what_it_imports(graph_tool: ModuleType) -> None:
    """The ``Imports:`` line is the folder's own promise, checked against its imports by describe_layers above; here,
    that it promises nothing of a layer above it."""
    for layer in graph_tool.LAYERS[:-1]:
        said = graph_tool.declared_imports(layer)
        assert said is not None, layer
        assert said <= set(graph_tool.LAYERS[:graph_tool.LAYERS.index(layer)]), (layer, said)


def test_the_drawing_in_the_design_page_is_the_folders_graph(graph_tool: ModuleType) -> None:
    """docs/design.md draws each layer's folder with the layers it imports: the drawing is the graph the source has."""
    text = DESIGN.read_text(encoding="utf-8")
    block = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0].split("```", 2)[1]
    drawn: dict[str, set[str]] = {}
    for line in block.splitlines():
        found = re.match(r"^(\S.*?)/?\s+imports: (.*)$", line)
        if found:
            named = found.group(2).strip()
            drawn[found.group(1).strip()] = set() if named == "-" else {w.strip() for w in named.split(",")}
    imports = graph_tool.folder_imports(graph_tool.build_graph(typing=True))
    assert drawn == imports


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
    assert "pytest_chunkeval.evaluation.evaluate -> " in out and out.rstrip().endswith("0 cycle(s)")


def test_an_upward_import_is_found_lazy_or_type_only_and_a_stray_folder_is_named(
        graph_tool: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _package(tmp_path, {
        "__init__.py": "from pkg import top\n",
        "low/__init__.py": "'''The low layer.\n\nImports: nothing of the package.\n'''\n",
        "low/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.mid import M\n",
        "mid/__init__.py": "'''The middle.\n\nImports: low.\n'''\n",
        "mid/a.py": "import pkg.low.a\n\ndef f():\n    from pkg import top\n    return top\n",
        "top.py": "import pkg.mid.a\n",
        "stray/__init__.py": "",
        "templates/t.py": "import pkg.top\n",  # package data, not a module: no __init__.py beside it
    })
    monkeypatch.setitem(graph_tool.ROOT_OF, "pkg", root)
    layers = ("low", "mid", graph_tool.TOP)
    assert graph_tool.layer_of("pkg.mid.a", "pkg", layers) == "mid"
    assert graph_tool.layer_of("pkg.top", "pkg", layers) == graph_tool.TOP
    assert graph_tool.layer_of("pkg.stray", "pkg", layers) is None
    plain = graph_tool.build_graph(root, "pkg")
    assert "pkg.templates.t" not in plain
    assert [(e.source, e.target, e.kind) for e in graph_tool.upward(plain, "pkg", layers)] == [
        ("pkg.mid.a", "pkg.top", "lazy")]
    typed = graph_tool.build_graph(root, "pkg", typing=True)
    assert graph_tool.describe_layers(typed, "pkg", layers) == [
        "pkg.low.a (low) -> pkg.mid (mid) (typing, line 3)",
        "pkg.mid.a (mid) -> pkg.top (top level) (lazy, line 4)",
        "pkg.stray: in a folder that is no layer (LAYERS, tools/import_graph.py)",
        "low/ imports mid, which its 'Imports:' line does not name",
        "mid/ imports top level, which its 'Imports:' line does not name",
    ]


def test_the_command_line_lists_the_layers(graph_tool: ModuleType, capsys) -> None:
    assert graph_tool.main(["--layers", "--typing"]) == 0
    out = capsys.readouterr().out
    assert "core -> chunking -> retrieval" in out and out.rstrip().endswith("0 upward import(s) or unplaced module(s)")
