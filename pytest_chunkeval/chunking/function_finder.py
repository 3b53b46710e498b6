"""Where a file's functions are, for the ``function_level`` strategy: the file tiled into atoms, each a whole function
or a piece of the text around them (:mod:`.function_level` states the rules).

Every grammar names its declarations in its own dialect (``function_definition``, ``function_item``, an arrow
function held by a ``const``), wraps some of them (``export``, Python's decorators) and nests methods in bodies of
different names; the language table (:mod:`.ast.languages`) gives each node its semantic kind, and this module
decides from it which nodes are functions with a body, which containers hold some, and which comments and
decorators travel with the declaration below them. Sizes play no part here: :mod:`.function_packer` packs the atoms
into chunks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_chunkeval.chunking.ast.tree import SyntaxTree, kind_of, name_getter

_FUNCTION_KINDS = frozenset({"function", "method"})
_CONTAINER_KINDS = frozenset({"class", "module"})
#: Nodes that annotate the declaration below them when they sit on their own lines (like a comment does).
_PREFIX_TYPES = frozenset({"decorator", "attribute_item", "annotation", "marker_annotation"})
#: Function-kind nodes that never have a body: signatures only.
_SIGNATURE_TYPES = frozenset({"method_signature", "abstract_method_signature", "function_signature_item",
                              "protocol_function_declaration", "function_signature"})
#: Declarations that hold a function when their value is one of :data:`_FUNCTION_VALUES` (JS/TS).
_VARIABLE_TYPES = frozenset({"lexical_declaration", "variable_declaration"})
_FIELD_TYPES = frozenset({"public_field_definition", "field_definition"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
#: Inside a container, children of these types are its body: descended into to find the members.
_BODY_SUFFIXES = ("body", "block", "declaration_list", "body_statement", "body_declarations")
_MAX_BODY_DEPTH = 3

# roles of a segment (an atom's ``role``)
UNIT, CONTAINER, GLUE = "unit", "container", "glue"


@dataclass
class Atom:
    """A byte range of the file with one role: a whole function, or a piece of remainder text.

    ``key`` is the container the atom belongs to (0: module level), so remainder of one class never merges with
    text outside it. ``named`` is False for an atom of punctuation only (a closing brace).
    """

    start: int
    end: int
    role: str
    node: Any
    key: int
    named: bool = True
    name: str | None = None


class FunctionFinder:
    """One file's functions: every node's role, and the atoms tiling the file with the containers they sit in.

    ``key_names`` maps each container key an atom carries to the names of the containers around it, outermost
    first (key 0: module level), for the chunks' ``part_of`` metadata.
    """

    def __init__(self, tree: SyntaxTree) -> None:
        self.tree, self.spec, self.data = tree, tree.spec, tree.source
        self.comments = tree.spec.comments
        self.get_name = name_getter(tree.raw_tree.language)
        self._roles: dict[int, str] = {}
        self._keys = 0
        self.key_names: dict[int, list[str]] = {0: []}
        self._current_core: Any = None  # the declaration of the container being opened (inside its wrapper)

    def file_atoms(self) -> list[Atom]:
        """Atoms tiling the whole file, from its root (which parsed: an ERROR root is cut by lines instead)."""
        out: list[Atom] = []
        self.atoms(self.tree.raw_tree.root_node, 0, len(self.data), 0, False, out)
        return out

    # -- what a node is ----------------------------------------------------------------------------------
    def _unwrap(self, raw: Any) -> Any:
        """The declaration inside wrappers (``export``, Python's decorators): where its body and value are."""
        for _ in range(4):
            fld = self.spec.wrappers.get(raw.type)
            if fld is None:
                return raw
            inner = None
            if fld == "*":
                for child in raw.named_children:
                    if self.spec.kinds.get(child.type):
                        inner = child
                        break
            else:
                inner = raw.child_by_field_name(fld)
            if inner is None:
                return raw
            raw = inner
        return raw

    def _is_function_value(self, core: Any) -> bool:
        """``const f = () => ...`` and ``handler = function () {...}`` in a class: functions by what they hold."""
        if core.type in _FIELD_TYPES:
            value = core.child_by_field_name("value")
            return value is not None and value.type in _FUNCTION_VALUES
        if core.type in _VARIABLE_TYPES:
            for child in core.named_children:
                value = child.child_by_field_name("value") if child.type == "variable_declarator" else None
                if value is not None and value.type in _FUNCTION_VALUES:
                    return True
        return False

    def role(self, raw: Any) -> str:
        """``unit`` (a function with a body), ``container`` (a class/module holding functions) or ``glue``."""
        hit = self._roles.get(raw.id)
        if hit is not None:
            return hit
        role = GLUE
        if raw.is_named and not raw.is_error:
            kind = kind_of(self.spec, raw, self.data)
            core = self._unwrap(raw)
            if kind in _FUNCTION_KINDS:
                role = GLUE if self._signature_only(core) else UNIT
            elif kind in _CONTAINER_KINDS:
                role = CONTAINER if self._has_members(raw, 0) else GLUE
            elif self._is_function_value(core):
                role = UNIT
        self._roles[raw.id] = role
        return role

    @staticmethod
    def _signature_only(core: Any) -> bool:
        if core.type in _SIGNATURE_TYPES:
            return True
        if core.child_by_field_name("body") is not None or not core.child_count:
            return False
        last = core.children[-1]
        return not last.is_named and last.type == ";"  # ``abstract void f();``, ``fn f(&self);``

    def _is_body(self, raw: Any) -> bool:
        return raw.is_named and raw.type.endswith(_BODY_SUFFIXES)

    def _has_members(self, raw: Any, depth: int) -> bool:
        """Whether a container holds a function, directly or in its body (class -> class_body -> method)."""
        for child in raw.named_children:
            role = self.role(child)
            if role != GLUE:
                return True
            if depth < _MAX_BODY_DEPTH and self._is_body(child) and self._has_members(child, depth + 1):
                return True
        return False

    def _name(self, raw: Any) -> str | None:
        core = self._unwrap(raw)
        name = self.get_name(core, self.data)
        if name is None and core.child_by_field_name("type") is not None:  # Rust's ``impl T``
            sub = core.child_by_field_name("type")
            name = self.data[sub.start_byte:sub.end_byte].decode("utf-8", "replace")
        if name is None and core.type in _VARIABLE_TYPES:
            for child in core.named_children:
                if child.type == "variable_declarator":
                    name = self.get_name(child, self.data)
                    break
        return name

    # -- segments: a node with the comments and decorators that belong to it ------------------------------
    @staticmethod
    def _last_row(raw: Any) -> int:
        row, col = raw.end_point
        return row - 1 if col == 0 and row > raw.start_point[0] else row

    def _adjacent(self, prev: Any, nxt: Any) -> bool:
        """No blank line between ``prev`` and ``nxt``: a comment right above a declaration documents it."""
        return nxt.start_point[0] - self._last_row(prev) <= 1

    def segments(self, children: list[Any], s: int, e: int) -> list[tuple[int, int, list[Any], Any]]:
        """``(a, b, members, main)`` tiling ``[s, e)``: each code node with its own-line prefix and trailing comment.

        Gaps are cut after their first newline (the rest of a line stays with the code on it, indentation goes
        with the next node), as the AST splitter cuts them, so both strategies agree where a node's text starts.
        """
        data = self.data
        segs: list[tuple[int, int, list[Any], Any]] = []
        a = s
        group: list[Any] | None = None
        main: Any = None
        pending = False  # the open group holds only prefix nodes (comments, decorators) waiting for their code
        for c in children:
            prefix = c.type in self.comments or c.type in _PREFIX_TYPES
            if group is not None:
                last = group[-1]
                same_line = data.find(b"\n", last.end_byte, c.start_byte) < 0 and \
                    data[last.end_byte - 1:last.end_byte] != b"\n"
                if prefix and not pending and same_line and c.type in self.comments:
                    group.append(c)  # a trailing comment on the code's line
                    continue
                if pending and self._adjacent(last, c):
                    group.append(c)
                    if not prefix:
                        main, pending = c, False
                    continue
                nl = data.find(b"\n", last.end_byte, c.start_byte)
                b = c.start_byte if nl < 0 else nl + 1
                segs.append((a, b, group, main))
                a = b
            group = [c]
            main, pending = (None, True) if prefix else (c, False)
        if group is not None:
            segs.append((a, e, group, main))
        return segs

    # -- atoms ------------------------------------------------------------------------------------------
    def atoms(self, raw: Any, s: int, e: int, key: int, in_container: bool, out: list[Atom],
              depth: int = 0) -> None:
        """Atoms tiling ``[s, e)`` from ``raw``'s children; containers are opened to find their methods."""
        children = raw.children
        if not children:
            out.append(Atom(s, e, GLUE, raw, key, named=raw.is_named))
            return
        for a, b, members, main in self.segments(children, s, e):
            named = any(m.is_named for m in members)
            role = self.role(main) if main is not None else GLUE
            if role == UNIT:
                out.append(Atom(a, b, UNIT, main, key, name=self._name(main)))
            elif role == CONTAINER:
                core = self._unwrap(main)
                if in_container and main.id == getattr(self._current_core, "id", None):
                    inner = key  # the declaration a wrapper (``export``, decorators) holds: the same class
                else:
                    self._keys += 1
                    inner = self._keys
                    self.key_names[inner] = [*self.key_names[key], self._name(main) or core.type]
                saved, self._current_core = self._current_core, core
                self.atoms(main, a, b, inner, True, out, 0)
                self._current_core = saved
            elif in_container and main is not None and depth < _MAX_BODY_DEPTH and self._is_body(main) \
                    and self._has_members(main, 0):
                self.atoms(main, a, b, key, True, out, depth + 1)
            else:
                out.append(Atom(a, b, GLUE, main, key, named=named))
