"""The import graph of the ``pytest_chunkeval`` package, and its cycles, from the source alone (``ast``).

    python tools/import_graph.py            # every module's imports of the package, then the cycles (exit 1 if any)
    python tools/import_graph.py --cycles   # the cycles only
    python tools/import_graph.py --typing   # with the type-only imports too (`if TYPE_CHECKING:`)
    python tools/import_graph.py --layers --typing   # every import of a higher layer by a lower one (exit 1 if any)

An edge is any ``import`` / ``from ... import`` of a package module at any depth: a lazy import inside a function is
a cycle waiting for the day someone hoists it, so it counts like one at the top. A string literal that is exactly the
dotted name of one of the package's modules (not a package: ``resources.files("pytest_chunkeval.commands.init")`` reads
data) counts too, as ``dynamic``: that is how ``importlib.import_module`` and a PEP 562 table of lazy exports name what
they load. Only the body of an ``if TYPE_CHECKING:`` block is left out: it never runs. Nothing is imported, so the tool
works on a tree that does not import.

No cycle is not enough for a reader: the package is layered (:data:`LAYERS`, lowest first, drawn in
docs/design.md), and a module imports its own layer and those below it, never one above. :data:`LAYER_OF` places
every module; a module it does not place is reported too, so a new module is placed by the one who adds it.

``tests/test_import_graph.py`` asserts the graph has no cycle, no upward import and no unplaced module.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "pytest_chunkeval"
#: The layer of the modules at the package's top level (no folder): ``__init__``, ``plugin``, ``cli``, ...
TOP = "top level"


#: The layers, lowest first, each a folder of the package named for it. Data flows up: chunks are cut and indexed,
#: searches scored, the scores gathered into results, the results judged, the judged results rendered; the settings,
#: the pytest run and the commands drive it all, and the package's own top-level modules (the entry points and the
#: public API) sit on top. A layer knows nothing of those above it.
LAYERS = ("core", "chunking", "retrieval", "scoring", "evaluation", "results", "judges", "frontier", "output",
          "settings", "run", "commands", TOP)

#: The package's own top level holds the entry points and the public API only; more than this many modules there
#: means one of them belongs in a layer's folder.
MAX_TOP_LEVEL = 10

@dataclass(frozen=True)
class Edge:
    """One import of ``target`` by ``source`` (``kind``: top, lazy, dynamic) at ``line`` of the source's file."""

    source: str
    target: str
    kind: str
    line: int


def module_names(root: Path = ROOT, package: str = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` of the package (a package is its ``__init__.py``)."""
    out: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        if not (path.parent / "__init__.py").exists():
            continue  # package data (init's templates), never imported as the package's module
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(node: ast.AST, typing: bool, where: str = "top") -> Iterator[tuple[ast.AST, str]]:
    """Every node under ``node`` with where it sits: ``top`` (runs on import), ``lazy`` (in a function body) or
    ``typing`` (an ``if TYPE_CHECKING:`` body, walked only when ``typing``: it never runs)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            parts = [(child.body, "typing")] if typing else []
            for body, kind in [*parts, (child.orelse, where)]:
                for sub in body:
                    yield sub, kind
                    yield from _walk(sub, typing, kind)
            continue
        inner = "lazy" if where == "top" and isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else where
        yield child, where
        yield from _walk(child, typing, inner)


def _from_base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from`` statement names (relative levels resolved against ``module``)."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if is_package else 0)
    return ".".join(parts[:keep] + ([node.module] if node.module else []))


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring constants (module, class, function): prose, never an import."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _targets(node: ast.AST, module: str, is_package: bool, known: dict[str, Path]) -> Iterator[tuple[str, bool]]:
    """The package modules one node imports, each with whether it is dynamic (by name) rather than a statement."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, False
    elif isinstance(node, ast.ImportFrom):
        base = _from_base(module, is_package, node)
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            yield (sub if sub in known else base), False
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
        yield node.value, True


def edges_of(module: str, path: Path, known: dict[str, Path], typing: bool = False) -> list[Edge]:
    """The imports of the package's modules by one module (``typing``: with its ``if TYPE_CHECKING:`` ones)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    prose = _docstrings(tree)
    out: dict[tuple[str, str], Edge] = {}
    for node, where in _walk(tree, typing):
        if id(node) in prose:
            continue
        for target, dynamic in _targets(node, module, is_package, known):
            if target not in known or target == module or (dynamic and known[target].name == "__init__.py"):
                continue
            kind = "dynamic" if dynamic else where
            line = getattr(node, "lineno", 0)
            seen = out.get((target, kind))
            if seen is None or line < seen.line:
                out[(target, kind)] = Edge(module, target, kind, line)
    return sorted(out.values(), key=lambda e: (e.target, e.kind))


def build_graph(root: Path = ROOT, package: str = PACKAGE, typing: bool = False) -> dict[str, list[Edge]]:
    """Module -> its edges to other modules of the package, for every module (``typing``: type-only ones too)."""
    known = module_names(root, package)
    return {name: edges_of(name, path, known, typing) for name, path in known.items()}


def strongly_connected(graph: dict[str, list[Edge]]) -> list[list[str]]:
    """Tarjan's components of more than one module, each sorted, smallest first module first (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted({e.target for e in graph[start]})))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted({e.target for e in graph[child]}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def a_cycle(graph: dict[str, list[Edge]], component: list[str]) -> list[Edge]:
    """One concrete cycle inside a strongly connected component: the edges from its first module back to it."""
    members = set(component)
    start = component[0]
    paths: dict[str, list[Edge]] = {start: []}
    queue = [start]
    while queue:  # breadth first: the shortest way round
        node = queue.pop(0)
        for edge in graph[node]:
            if edge.target == start:
                return paths[node] + [edge]
            if edge.target in members and edge.target not in paths:
                paths[edge.target] = paths[node] + [edge]
                queue.append(edge.target)
    return []


def describe_cycles(graph: dict[str, list[Edge]]) -> list[str]:
    """One line per cycle: ``a -> b (lazy, line 12) -> a (top, line 3)``, plus the component when it is larger."""
    lines = []
    for component in strongly_connected(graph):
        cycle = a_cycle(graph, component)
        text = cycle[0].source + "".join(f" -> {e.target} ({e.kind}, {e.source} line {e.line})" for e in cycle)
        if len(component) > len(cycle):
            text += f"   [component of {len(component)}: {', '.join(component)}]"
        lines.append(text)
    return lines


def layer_of(module: str, package: str = PACKAGE, layers: tuple[str, ...] = LAYERS) -> str | None:
    """The layer of ``module`` (a dotted name of the package): the folder it sits in, right under the package, or
    :data:`TOP` for a module of the package's top level; None for a folder that is no layer."""
    parts = module.removeprefix(package).removeprefix(".").split(".")
    if module == package or len(parts) == 1 and not _is_folder(module, package):
        return TOP
    return parts[0] if parts[0] in layers else None


def _is_folder(module: str, package: str) -> bool:
    return (ROOT_OF[package] / module.replace(".", "/") / "__init__.py").exists()


#: Where each package's folder lies (the tests point a small package's name at a folder of their own).
ROOT_OF: dict[str, Path] = {PACKAGE: ROOT}


def unplaced(graph: dict[str, list[Edge]], package: str = PACKAGE, layers: tuple[str, ...] = LAYERS) -> list[str]:
    """The modules of a folder that is no layer."""
    return [m for m in graph if layer_of(m, package, layers) is None]


def top_level(graph: dict[str, list[Edge]], package: str = PACKAGE) -> list[str]:
    """The modules of the package's own top level (its ``__init__`` included)."""
    return [m for m in graph if layer_of(m, package) == TOP]


def upward(graph: dict[str, list[Edge]], package: str = PACKAGE, layers: tuple[str, ...] = LAYERS) -> list[Edge]:
    """Every import of a module of a higher layer than the importer's (lazy, dynamic and type-only ones alike)."""
    rank = {name: i for i, name in enumerate(layers)}

    def height(module: str) -> int:
        layer = layer_of(module, package, layers)
        return -1 if layer is None else rank[layer]

    return [e for edges in graph.values() for e in edges if height(e.target) > height(e.source) >= 0]


def folder_imports(graph: dict[str, list[Edge]], package: str = PACKAGE,
                   layers: tuple[str, ...] = LAYERS) -> dict[str, set[str]]:
    """Layer -> the other layers its modules import: the drawing of docs/design.md, made from the source."""
    out: dict[str, set[str]] = {layer: set() for layer in layers}
    for edges in graph.values():
        for e in edges:
            source, target = layer_of(e.source, package, layers), layer_of(e.target, package, layers)
            if source is not None and target is not None and source != target:
                out[source].add(target)
    return out


def declared_imports(layer: str, package: str = PACKAGE) -> set[str] | None:
    """The layers a layer's folder says it may import: the ``Imports:`` line of its ``__init__`` docstring (None when
    it says nothing)."""
    init = ROOT_OF[package] / package.replace(".", "/") / layer / "__init__.py"
    if layer == TOP or not init.exists():
        return None
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    found = re.search(r"^Imports: ([^.(]*)", doc, re.M)
    if found is None:
        return None
    said = found.group(1).strip()
    return set() if said == "nothing of the package" else {w.strip() for w in said.split(",")}


def describe_layers(graph: dict[str, list[Edge]], package: str = PACKAGE,
                    layers: tuple[str, ...] = LAYERS) -> list[str]:
    """One line per upward import, ``a (scoring) -> b (results) (top, line 3)``; one per module of a folder that is
    no layer; one per layer whose folder does not say what it imports, or imports what it does not say; one when the
    top level holds more than :data:`MAX_TOP_LEVEL` modules."""
    def named(module: str) -> str:
        return f"{module} ({layer_of(module, package, layers)})"

    lines = [f"{named(e.source)} -> {named(e.target)} ({e.kind}, line {e.line})"
             for e in upward(graph, package, layers)]
    lines += [f"{m}: in a folder that is no layer (LAYERS, tools/import_graph.py)"
              for m in unplaced(graph, package, layers)]
    actual = folder_imports(graph, package, layers)
    for layer in layers[:-1]:
        said = declared_imports(layer, package)
        if said is None:
            lines.append(f"{layer}/__init__.py: its docstring has no 'Imports: ...' line naming the layers it imports")
        elif actual[layer] - said:
            lines.append(f"{layer}/ imports {', '.join(sorted(actual[layer] - said))}, which its 'Imports:' line "
                         f"does not name")
    top = top_level(graph, package)
    if len(top) > MAX_TOP_LEVEL:
        lines.append(f"{len(top)} modules at the package's top level (at most {MAX_TOP_LEVEL}): {', '.join(top)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", action="store_true", help="print the cycles only")
    parser.add_argument("--typing", action="store_true",
                        help="count the imports of `if TYPE_CHECKING:` blocks too (type-only dependencies)")
    parser.add_argument("--layers", action="store_true",
                        help="print the imports of a higher layer by a lower one, and modules with no layer")
    parser.add_argument("--folders", action="store_true",
                        help="print each layer's folder with the layers it imports (docs/design.md's drawing)")
    args = parser.parse_args(argv)
    graph = build_graph(typing=args.typing)
    if args.layers:
        found = describe_layers(graph)
        print(f"{len(graph)} modules in {len(LAYERS)} layers ({' -> '.join(LAYERS)}), "
              f"{len(found)} upward import(s) or unplaced module(s)")
        for line in found:
            print(f"  {line}")
        return 1 if found else 0
    if args.folders:
        for layer, imported in folder_imports(graph).items():
            print(f"{layer}: {', '.join(name for name in LAYERS if name in imported) or '(nothing of the package)'}")
        return 0
    if not args.cycles:
        for module, edges in graph.items():
            marks = ", ".join(e.target + ("" if e.kind == "top" else f" ({e.kind})") for e in edges)
            print(f"{module} -> {marks or '(nothing of the package)'}")
        print()
    cycles = describe_cycles(graph)
    n_edges = sum(len(e) for e in graph.values())
    print(f"{len(graph)} modules, {n_edges} edges, {len(cycles)} cycle(s)")
    for line in cycles:
        print(f"  cycle: {line}")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
