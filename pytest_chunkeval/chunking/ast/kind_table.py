"""The per-language symbol table the splitter reads instead of ``Node.type``: one entry per grammar symbol id.

The splitter asks every child of every node it opens what it is (a comment? a unit?). Reading ``kind_id`` and
indexing this table gives the answer :func:`~pytest_chunkeval.chunking.ast.tree.kind_of` gives, without building a
type string per node; entries whose kind depends on the node itself say so (:data:`NEEDS_KIND_OF`).
"""
from __future__ import annotations

from typing import Any

from pytest_chunkeval.chunking.ast.tree import SyntaxTree

_TABLES: dict[int, tuple[Any, Any, frozenset[str], dict[int, tuple[str, bool, Any]]]] = {}
NEEDS_KIND_OF = object()  # marker in the per-symbol table: the kind depends on the node, ask :func:`kind_of`
ERROR_ENTRY = ("ERROR", False, NEEDS_KIND_OF)  # for a symbol id not in the table (ERROR): ask :func:`kind_of`


def symbol_table(tree: SyntaxTree) -> tuple[frozenset[str], dict[int, tuple[str, bool, Any]]]:
    """Per-language tables, cached per (spec, grammar): ``kind_of_types`` and ``symbols``.

    ``kind_of_types``: node types whose kind needs :func:`kind_of`; for every other type a table look-up gives
    the same answer. Wrappers and ``when`` rules look at children or text; a table type that the grammar also
    uses for an anonymous token (Ruby's ``class`` keyword) must be checked for ``is_named``.

    ``symbols``: grammar symbol id (``Node.kind_id``) -> ``(type, is_comment, kind)``, where ``type`` is the
    string ``Node.type`` returns for that id (both are ``ts_language_symbol_name`` of the node's symbol), and
    ``kind`` is the table kind, :data:`NEEDS_KIND_OF`, or for a type whose only rule is ``when "@first"``
    (Python's ``expression_statement``) ``(kind, ids)``: the kind when the node is named and its first named
    child's symbol id is in ``ids`` - what :func:`kind_of` checks, on ids. Reading ``kind_id`` and indexing this
    table costs less than ``Node.type``, which builds a new string for every node (and then hashes it for each
    look-up).
    """
    spec = tree.spec
    lang = tree.raw_tree.language
    hit = _TABLES.get(id(spec))
    if hit is None or hit[0] is not spec or hit[1] is not lang:
        shared = frozenset(t for t in spec.kinds if lang.id_for_node_kind(t, False) is not None)
        kot = frozenset(spec.wrappers) | frozenset(spec.when) | shared
        symbols: dict[int, tuple[str, bool, Any]] = {}
        ids: dict[str, list[int]] = {}
        for i in range(lang.node_kind_count):
            name = lang.node_kind_for_id(i)
            if name is not None:
                ids.setdefault(name, []).append(i)
        for name, same in ids.items():
            kind: Any = NEEDS_KIND_OF if name in kot else spec.kinds.get(name)
            cond = spec.when.get(name)
            if kind is NEEDS_KIND_OF and name not in spec.wrappers and name not in shared and cond is not None \
                    and cond[0] == "@first" and spec.kinds.get(name) is not None:
                # only a ``when "@first"`` rule: (kind, ids of the allowed first named child), checked inline
                kind = (spec.kinds[name], frozenset(i for t in cond[1] for i in ids.get(t, ())))
            for i in same:
                symbols[i] = (name, name in spec.comments, kind)
        hit = _TABLES[id(spec)] = (spec, lang, kot, symbols)
    return hit[2], hit[3]


def kind_of_types(tree: SyntaxTree) -> frozenset[str]:
    """Node types whose kind needs :func:`kind_of` (see :func:`symbol_table`)."""
    return symbol_table(tree)[0]
