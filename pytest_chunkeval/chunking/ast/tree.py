"""A small, language-independent view of a tree-sitter syntax tree: what the seed asked its parser team for.

Why a view instead of raw ``tree_sitter.Node``: raw nodes speak each grammar's dialect (``function_definition``
here, ``function_item`` there) and count in 0-based rows. :class:`Node` adds the *semantic kind* from the
language table, 1-based lines and a parent link, so a strategy written against it works for every language.
Nodes are thin wrappers created on demand; nothing walks the whole tree unless asked to, which is what keeps
chunking close to parse speed.

Parsing, and the grammar each path gets, is :mod:`.parsing`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_chunkeval.chunking.ast.languages import CONTEXT_KINDS, LanguageSpec


def _text(source: bytes, raw: Any) -> str:
    # never ``raw.text``: a tree parsed through the read callback keeps no source (and kotlin's crashes on it)
    return source[raw.start_byte:raw.end_byte].decode("utf-8", "replace")


def kind_of(spec: LanguageSpec, raw: Any, source: bytes = b"") -> str | None:
    """Semantic kind of a raw node from the language table (no parent lookups: cheap enough for the chunker).

    ``source`` is needed only by ``when`` rules that look at text (Ruby's ``require``).
    """
    if not raw.is_named:  # anonymous tokens share type names with nodes (Ruby's ``class`` keyword)
        return None
    t = raw.type
    wrapped = spec.wrappers.get(t)
    if wrapped is not None:
        k = _wrapped_kind(spec, raw, wrapped, source)
        if k is not None:
            return k
    k = spec.kinds.get(t)
    if k is None:
        return None
    cond = spec.when.get(t)
    return k if cond is None or _when_holds(cond, raw, source) else None


def _wrapped_kind(spec: LanguageSpec, raw: Any, wrapped: str, source: bytes) -> str | None:
    """The kind of the node a wrapper holds: its ``wrapped`` field, or (``*``) its first named child with a kind."""
    if wrapped == "*":
        inner = next((child for child in raw.named_children if spec.kinds.get(child.type)), None)
    else:
        inner = raw.child_by_field_name(wrapped)
    return kind_of(spec, inner, source) if inner is not None else None


def _when_holds(cond: tuple[str, Any], raw: Any, source: bytes) -> bool:
    """A ``when`` rule: ``@first`` names the allowed types of the first named child, a field name its allowed
    texts."""
    fld, allowed = cond
    if fld == "@first":
        first = raw.named_child(0) if raw.named_child_count else None  # no list of all named children
        return first is not None and first.type in allowed
    sub = raw.child_by_field_name(fld)
    return sub is not None and _text(source, sub) in allowed


def name_of(raw: Any, source: bytes) -> str | None:
    """Symbol name of a declaration: its ``name`` field, or the identifier at the bottom of C-style declarators."""
    node = raw
    for _ in range(6):
        sub = node.child_by_field_name("name")
        if sub is not None:
            return _text(source, sub)
        nxt = node.child_by_field_name("declarator") or node.child_by_field_name("definition") \
            or node.child_by_field_name("declaration")
        if nxt is None:
            break
        if nxt.type in ("identifier", "field_identifier", "type_identifier", "qualified_identifier"):
            return _text(source, nxt)
        node = nxt
    if raw.type == "section":  # Markdown: the heading text names the section
        head = raw.named_children[0] if raw.named_child_count else None
        if head is not None and head.type.endswith("heading"):
            return _text(source, head).strip().lstrip("#").strip() or None
    return None


_NAME_GETTERS: dict[int, tuple[Any, Callable[[Any, bytes], str | None]]] = {}  # id(language) -> getter


def name_getter(language: Any) -> Callable[[Any, bytes], str | None]:
    """:func:`name_of` for nodes of one grammar, with the field names resolved to ids once (cached).

    ``child_by_field_name`` looks its name up on every call, and fields the grammar does not have (Python has no
    ``declarator``) are skipped outright; the answers are exactly :func:`name_of`'s. The chunker asks this for
    every function, class and constant it places in a chunk.
    """
    hit = _NAME_GETTERS.get(id(language))
    if hit is not None and hit[0] is language:
        return hit[1]
    fid = language.field_id_for_name
    name_id = fid("name")
    next_ids = tuple(i for i in (fid("declarator"), fid("definition"), fid("declaration")) if i is not None)
    leaf_types = ("identifier", "field_identifier", "type_identifier", "qualified_identifier")

    def get(raw: Any, source: bytes) -> str | None:
        node = raw
        for _ in range(6):
            if name_id is not None:
                sub = node.child_by_field_id(name_id)
                if sub is not None:
                    return _text(source, sub)
            nxt = None
            for i in next_ids:
                nxt = node.child_by_field_id(i)
                if nxt is not None:
                    break
            if nxt is None:
                break
            if nxt.type in leaf_types:
                return _text(source, nxt)
            node = nxt
        if raw.type == "section":
            return name_of(raw, source)  # Markdown headings: the general path
        return None

    _NAME_GETTERS[id(language)] = (language, get)
    return get


class Node:
    """Normalised node: type, semantic ``kind``, byte span, 1-based lines, parent and children."""

    __slots__ = ("raw", "tree", "_parent")

    def __init__(self, raw: Any, tree: SyntaxTree, parent: Node | None = None) -> None:
        self.raw = raw
        self.tree = tree
        self._parent = parent

    type = property(lambda self: self.raw.type, doc="grammar node type, e.g. 'function_definition'")
    start_byte = property(lambda self: self.raw.start_byte)
    end_byte = property(lambda self: self.raw.end_byte)
    is_error = property(lambda self: self.raw.is_error or self.raw.is_missing, doc="ERROR or MISSING node")
    has_error = property(lambda self: self.raw.has_error, doc="this node or a descendant did not parse")
    start_line = property(lambda self: self.raw.start_point[0] + 1, doc="1-based line of the first byte")

    @property
    def end_line(self) -> int:
        """1-based line of the last byte (a node ending right after a newline ends on that newline's line)."""
        row, col = self.raw.end_point
        return row if col == 0 and row > self.raw.start_point[0] else row + 1

    @property
    def kind(self) -> str | None:
        """Semantic kind; a ``function`` nested in a ``class`` reports ``method``."""
        k = kind_of(self.tree.spec, self.raw, self.tree.source)
        if k == "function":
            p = self.parent
            while p is not None:
                pk = kind_of(self.tree.spec, p.raw, self.tree.source)
                if pk == "class":
                    return "method"
                if pk in ("function", "module"):
                    break
                p = p.parent
        return k

    @property
    def name(self) -> str | None:
        return name_of(self.raw, self.tree.source)

    @property
    def parent(self) -> Node | None:
        if self._parent is None and self.raw.parent is not None:
            self._parent = Node(self.raw.parent, self.tree)
        return self._parent

    @property
    def children(self) -> list[Node]:
        return [Node(c, self.tree, self) for c in self.raw.children]

    @property
    def named_children(self) -> list[Node]:
        return [Node(c, self.tree, self) for c in self.raw.named_children]

    @property
    def text(self) -> str:
        return self.tree.source_text(self)

    @property
    def signature(self) -> str:
        """Text from the node's start to where its body begins (``class A(B):``), else its first line."""
        return self.tree.signature(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and self.raw == other.raw

    def __hash__(self) -> int:
        return hash((self.raw.start_byte, self.raw.end_byte, self.raw.type))

    def __repr__(self) -> str:
        return f"Node({self.type!r}, kind={self.kind!r}, lines={self.start_line}-{self.end_line})"


@dataclass
class Context:
    """What ``extract_context`` finds at file level: the seed's imports, type definitions and constants."""

    imports: list[Node] = field(default_factory=list)
    types: list[Node] = field(default_factory=list)
    constants: list[Node] = field(default_factory=list)


Visitor = Callable[[Node, int], Any] | Mapping[str, Callable[[Node], Any]]


class SyntaxTree:
    """A parsed file: the source bytes, the tree-sitter tree and the language table that interprets it."""

    def __init__(self, source: bytes, raw_tree: Any, spec: LanguageSpec) -> None:
        self.source = source
        self.raw_tree = raw_tree
        self.spec = spec

    @property
    def root(self) -> Node:
        return Node(self.raw_tree.root_node, self)

    @property
    def has_error(self) -> bool:
        return bool(self.raw_tree.root_node.has_error)

    def source_text(self, node: Node | Any) -> str:
        raw = getattr(node, "raw", node)
        return self.source[raw.start_byte:raw.end_byte].decode("utf-8", "surrogatepass")

    def signature(self, node: Node) -> str:
        raw = holder = node.raw
        wrapped = self.spec.wrappers.get(raw.type)
        if wrapped is not None:  # ``export class A {`` / ``@dec\ndef f():``: the body is on the wrapped node
            inner = (raw.named_children[-1] if raw.named_child_count else None) if wrapped == "*" \
                else raw.child_by_field_name(wrapped)
            holder = inner or raw
        end = raw.end_byte
        for fld in self.spec.body_fields:
            body = holder.child_by_field_name(fld)
            if body is not None:
                end = body.start_byte
                break
        else:
            nl = self.source.find(b"\n", raw.start_byte, end)
            end = end if nl < 0 else nl
        return self.source[raw.start_byte:end].decode("utf-8", "replace").strip()

    def walk(self, visitor: Visitor | None = None) -> Iterator[tuple[Node, int]]:
        """Pre-order traversal yielding ``(node, depth)``; with a ``visitor`` also calls it on the way.

        ``visitor`` is either ``f(node, depth)`` (return ``False`` to skip a node's children) or a mapping from
        node type *or* semantic kind to ``f(node)`` (the seed's ``walk({FunctionDeclaration(node) {...}})``).
        """
        stack: list[tuple[Node, int]] = [(self.root, 0)]
        while stack:
            node, depth = stack.pop()
            descend = True
            if callable(visitor):
                descend = visitor(node, depth) is not False
            elif visitor is not None:
                fn = visitor.get(node.type) or visitor.get(node.kind or "")
                if fn is not None:
                    descend = fn(node) is not False
            yield node, depth
            if descend:
                stack.extend((c, depth + 1) for c in reversed(node.children))

    def traverse(self, callback: Callable[[Node, int], Any]) -> None:
        """Run ``callback(node, depth)`` over the tree (the seed's ``tree.traverse``)."""
        for _ in self.walk(callback):
            pass

    def find(self, predicate: Callable[[Node], bool]) -> Node | None:
        return next((n for n, _ in self.walk() if predicate(n)), None)

    def semantic_boundaries(self, kinds: Iterable[str] = ("function", "class", "method"), *,
                            nested: bool = True) -> list[Node]:
        """Nodes of the given semantic kinds in document order; ``nested=False`` keeps only outermost ones."""
        wanted = frozenset(kinds)
        found: list[Node] = []

        wrappers = self.spec.wrappers

        def visit(node: Node, depth: int) -> bool:
            k = node.kind
            if k in wanted:
                # the declaration inside a wrapper (``export``, decorators) is the same unit: report it once
                p = node.raw.parent
                if not (found and p is not None and p.type in wrappers and found[-1].raw == p):
                    found.append(node)
                return nested
            return True

        self.traverse(visit)
        return found

    def merge_small(self, nodes: Sequence[Node], min_size: int, *, max_size: int | None = None,
                    size: Callable[[int, int], int] | None = None) -> list[list[Node]]:
        """Group adjacent nodes so no group is under ``min_size`` when a neighbour can take it.

        A group grows while it is below ``min_size`` and the span from its first node to the next one's end
        stays within ``max_size``. Sizes are of the source span (gaps included), measured by ``size(a, b)``
        over byte offsets; the default counts bytes.
        """
        measure = size or (lambda a, b: b - a)
        groups: list[list[Node]] = []
        for node in nodes:
            if groups:
                last = groups[-1]
                cur = measure(last[0].start_byte, last[-1].end_byte)
                merged = measure(last[0].start_byte, node.end_byte)
                if cur < min_size and (max_size is None or merged <= max_size):
                    last.append(node)
                    continue
            groups.append([node])
        if len(groups) > 1:
            tail = groups[-1]
            prev = groups[-2]
            if measure(tail[0].start_byte, tail[-1].end_byte) < min_size and (
                max_size is None or measure(prev[0].start_byte, tail[-1].end_byte) <= max_size
            ):
                prev.extend(groups.pop())
        return groups

    def extract_context(self) -> Context:
        """File-level imports, type definitions and constants (children of the root, through wrappers)."""
        ctx = Context()
        bucket = {"import": ctx.imports, "type": ctx.types, "constant": ctx.constants}
        for child in self.root.named_children:
            k = kind_of(self.spec, child.raw, self.source)
            if k in CONTEXT_KINDS:
                bucket[k].append(child)
        return ctx

    def error_nodes(self) -> list[Node]:
        """Outermost ERROR and MISSING nodes (empty when the file parsed cleanly)."""
        if not self.has_error:
            return []
        out: list[Node] = []
        for node, _ in self.walk(lambda n, d: n.has_error and not n.is_error):
            if node.is_error:
                out.append(node)
        return out

    def error_lines(self) -> list[tuple[int, int]]:
        """The 1-based line ranges of :meth:`error_nodes`, for a report that names where a file did not parse."""
        return [(n.start_line, max(n.start_line, n.end_line)) for n in self.error_nodes()]
