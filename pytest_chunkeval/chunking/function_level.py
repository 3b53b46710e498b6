"""Function-level chunking: one chunk per function or method, the rest of the file grouped around them.

This is the structural baseline most code-search systems start from, kept deliberately simple so that the
split-then-merge engine (:mod:`.ast.chunker`) can be measured against it. The rules, for every language the AST
engine knows (:mod:`pytest_chunkeval.chunking.ast.languages`):

* **A function is one chunk.** Every top-level function and every method of a class (or of an ``impl``, a
  trait, a namespace, a module, at any depth of such containers) is a chunk of its own, whatever its size below
  the limit. Functions nested inside functions stay in their function. A JavaScript/TypeScript ``const f = () =>
  ...`` (or a class field holding an arrow function) counts as a function: that is how much of that code is
  written. Declarations without a body (an interface's method signatures, a trait's ``fn f();``, an abstract
  Java method) are not functions here: they are one line each and read best with the declarations around them.
* **What belongs to a declaration travels with it.** Comments and decorators/attributes (``@dec``,
  ``#[test]``, ``@Override``) on the lines directly above a function join its chunk; a blank line between a
  comment and the code below ends that attachment, so a licence header never glues itself to the first
  function. A comment on the same line as code stays with that code.
* **The class header is a chunk of its own.** A class that has methods contributes, besides one chunk per
  method, its own chunk(s) for everything else in it: the signature, its doc comment or docstring, decorators,
  fields, and anything between methods. These never merge with the module-level text outside the class, so a
  query about the class (its purpose, its fields) finds the class and not its surroundings. A class (struct,
  interface, enum) without methods is plain module-level text. The closing brace or ``end`` after the last
  method joins the chunk before it; alone it would retrieve nothing.
* **The remainder is grouped.** Module-level text between functions (imports, constants, statements, types) is
  merged into contiguous chunks greedily up to the size limit; a function always starts and ends a group.
* **Oversized pieces are cut by the AST splitter.** A function or remainder node larger than ``max_chunk_size``
  is split with :class:`.ast.split.Splitter` along its children (its public API only), and the pieces under
  ``min_chunk_size`` are folded back where the splitter allows.
* **Unknown languages fall back as ``ast`` does.** No grammar (or a grammar that timed out): whole lines up to
  the limit, counted as ``fallback_files``.

Chunks cover the file in order: between two chunks there are only whole blank lines (a chunk's lines start at
its first line with text and end at its last one), so every non-blank line is in exactly one chunk (lossless by
construction), and every chunk is at most ``max_chunk_size`` in ``size_unit``. Chunk kinds: ``function`` (a
function or a piece of one), ``class`` (a class's own text), ``remainder`` (module-level text) and ``text`` (no
grammar).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.ast.languages import LanguageSpec
from pytest_chunkeval.chunking.ast.spans import line_spans
from pytest_chunkeval.chunking.ast.split import Splitter, fold_small
from pytest_chunkeval.chunking.ast.tree import ParseTimeout, SyntaxTree, kind_of, name_getter, parse
from pytest_chunkeval.chunking.sizing import SpanSizer, check_unit, span_sizer
from pytest_chunkeval.chunking.strategy_base import PARSE_ERROR_LINES, ErrorLines, Strategy, note_error_lines
from pytest_chunkeval.core.chunk import Chunk

ENGINE_VERSION = "1"
STAT_KEYS = ("files", "chunks", "functions", "class_chunks", "remainder_chunks", "split_functions",
             "split_remainders", "parse_errors", "fallback_files", "parse_timeouts", "fallback_regions",
             "error_regions", "oversized_leaves")

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

# roles of a segment
_UNIT, _CONTAINER, _GLUE = "unit", "container", "glue"


def _bump(stats: dict[str, int] | None, key: str, n: int = 1) -> None:
    if stats is not None:
        stats[key] = stats.get(key, 0) + n


@dataclass
class _Atom:
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


@dataclass
class _Piece:
    """A finished chunk's byte range, its chunk kind, and what the metadata says about it."""

    start: int
    end: int
    kind: str
    key: int
    name: str | None = None
    containers: list[str] = field(default_factory=list)
    part: int = 0
    fallback: bool = False


class _FileChunker:
    """One file's run: find the functions, group the rest, split what is too big."""

    def __init__(self, tree: SyntaxTree, size: SpanSizer, max_size: int, min_size: int,
                 stats: dict[str, int] | None) -> None:
        self.tree, self.spec, self.data = tree, tree.spec, tree.source
        self.size, self.max, self.min, self.stats = size, max_size, min_size, stats
        self.comments = tree.spec.comments
        self.get_name = name_getter(tree.raw_tree.language)
        self._roles: dict[int, str] = {}
        self._keys = 0
        self.key_names: dict[int, list[str]] = {0: []}
        self._splitter: Splitter | None = None
        self._current_core: Any = None  # the declaration of the container being opened (inside its wrapper)

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
        role = _GLUE
        if raw.is_named and not raw.is_error:
            kind = kind_of(self.spec, raw, self.data)
            core = self._unwrap(raw)
            if kind in _FUNCTION_KINDS:
                role = _GLUE if self._signature_only(core) else _UNIT
            elif kind in _CONTAINER_KINDS:
                role = _CONTAINER if self._has_members(raw, 0) else _GLUE
            elif self._is_function_value(core):
                role = _UNIT
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
            if role != _GLUE:
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
    def atoms(self, raw: Any, s: int, e: int, key: int, in_container: bool, out: list[_Atom],
              depth: int = 0) -> None:
        """Atoms tiling ``[s, e)`` from ``raw``'s children; containers are opened to find their methods."""
        children = raw.children
        if not children:
            out.append(_Atom(s, e, _GLUE, raw, key, named=raw.is_named))
            return
        for a, b, members, main in self.segments(children, s, e):
            named = any(m.is_named for m in members)
            role = self.role(main) if main is not None else _GLUE
            if role == _UNIT:
                out.append(_Atom(a, b, _UNIT, main, key, name=self._name(main)))
            elif role == _CONTAINER:
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
                out.append(_Atom(a, b, _GLUE, main, key, named=named))

    # -- pieces -----------------------------------------------------------------------------------------
    def splitter(self) -> Splitter:
        if self._splitter is None:
            self._splitter = Splitter(self.tree, self.size, self.max, by_type=True, stats=self.stats)
        return self._splitter

    def split(self, atom: _Atom) -> list[tuple[int, int]]:
        """Byte ranges of an atom too big for one chunk, cut by the AST splitter along the node's children."""
        node = atom.node
        if node is None or node.is_error or not node.child_count:
            if node is not None and node.is_error:
                _bump(self.stats, "fallback_regions")
            return [(sp.start, sp.end) for sp in line_spans(self.data, atom.start, atom.end, self.size, self.max,
                                                              fallback=node is not None and node.is_error)]
        splitter = self.splitter()
        try:
            spans = splitter.children(node, atom.start, atom.end, ())
        except RecursionError:  # pathologically deep nesting: lines, as the splitter itself does
            _bump(self.stats, "fallback_regions")
            spans = line_spans(self.data, atom.start, atom.end, self.size, self.max)
        return self._snap([(sp.start, sp.end) for sp in fold_small(spans, splitter, self.min)])

    def _snap(self, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Move a cut that falls inside a line (``export `` | ``function f() {``) to a line boundary where the
        pieces still fit, so no line is in two chunks: back to the line's start, else past its end."""
        data, size, max_size = self.data, self.size, self.max
        out = [list(r) for r in ranges]
        for i in range(1, len(out)):
            x = out[i][0]
            if data[x - 1:x] == b"\n":
                continue
            start = data.rfind(b"\n", 0, x) + 1
            nl = data.find(b"\n", x)
            end = len(data) if nl < 0 else nl + 1
            if start > out[i - 1][0] and size(start, out[i][1]) <= max_size:
                out[i - 1][1] = out[i][0] = start
            elif end < out[i][1] and size(out[i - 1][0], end) <= max_size:
                out[i - 1][1] = out[i][0] = end
        return [(a, b) for a, b in out]

    def pieces(self, atoms: list[_Atom]) -> list[_Piece]:
        out: list[_Piece] = []
        size, max_size = self.size, self.max
        i = 0
        while i < len(atoms):
            atom = atoms[i]
            if atom.role == _UNIT:
                _bump(self.stats, "functions")
                names = self.key_names[atom.key]
                if size(atom.start, atom.end) <= max_size:
                    out.append(_Piece(atom.start, atom.end, "function", atom.key, atom.name, names))
                else:
                    _bump(self.stats, "split_functions")
                    for k, (a, b) in enumerate(self.split(atom), 1):
                        out.append(_Piece(a, b, "function", atom.key, atom.name, names, part=k))
                i += 1
                continue
            j = i
            while j < len(atoms) and atoms[j].role == _GLUE and atoms[j].key == atom.key:
                j += 1
            run = atoms[i:j]
            i = j
            if not any(x.named for x in run) and out and out[-1].end == run[0].start \
                    and size(out[-1].start, run[-1].end) <= max_size:
                out[-1].end = run[-1].end  # only punctuation (a closing brace): joins the chunk before it
                continue
            self.group(run, out)
        return out

    def group(self, run: list[_Atom], out: list[_Piece]) -> None:
        """Merge a run of remainder atoms into chunks greedily; an atom too big alone is split."""
        key = run[0].key
        kind = "remainder" if key == 0 else "class"
        names = self.key_names[key]
        size, max_size = self.size, self.max
        cur: _Piece | None = None
        for atom in run:
            if cur is not None and size(cur.start, atom.end) <= max_size:
                cur.end = atom.end
                continue
            if cur is not None:
                out.append(cur)
                cur = None
            if size(atom.start, atom.end) <= max_size:
                cur = _Piece(atom.start, atom.end, kind, key, containers=names)
                continue
            _bump(self.stats, "split_remainders")
            ranges = self.split(atom)
            for a, b in ranges[:-1]:
                out.append(_Piece(a, b, kind, key, containers=names))
            cur = _Piece(ranges[-1][0], ranges[-1][1], kind, key, containers=names)
        if cur is not None:
            out.append(cur)

    def run(self) -> list[_Piece]:
        root = self.tree.raw_tree.root_node
        n = len(self.data)
        if root.is_error:
            _bump(self.stats, "fallback_regions")
            return [_Piece(sp.start, sp.end, "remainder", 0, fallback=True)
                    for sp in line_spans(self.data, 0, n, self.size, self.max)]
        atoms: list[_Atom] = []
        self.atoms(root, 0, n, 0, False, atoms)
        return self.pieces(atoms)


def _trim(data: bytes, p: _Piece) -> None:
    """Leave whole blank lines at both ends of a piece out of its chunk, so its lines are the declaration's own.

    The pieces tile the file; a chunk then starts at the first line with text (indentation included) and ends
    with the newline of its last such line. Only white space falls between chunks, which the lossless check
    counts as kept."""
    a, b = p.start, p.end
    while a < b:
        nl = data.find(b"\n", a, b)
        if nl < 0 or data[a:nl].strip():
            break
        a = nl + 1
    while b > a:
        nl = data.rfind(b"\n", a, b - 1)  # the newline before the last line of [a, b)
        if data[nl + 1:b].strip():
            break
        b = nl + 1 if nl >= 0 else a
    p.start, p.end = a, b


def function_level_chunks(code: str, path: str, *, max_chunk_size: int = 1000, min_chunk_size: int = 100,
                          size_unit: str = "chars", language: str | LanguageSpec | None = None,
                          strategy: str = "function_level", stats: dict[str, int] | None = None,
                          errors: ErrorLines | None = None) -> list[Chunk]:
    """Chunk one file one function at a time; see the module docstring for the rules.

    ``errors`` gets the file's ERROR/MISSING line ranges when it did not parse cleanly (as ``ast_chunks``'s).

    ``min_chunk_size`` only folds the pieces of a split node (as ``ast`` does); functions and class headers are
    never merged with their neighbours, however small: that is what makes this the function-level baseline.
    """
    check_unit(size_unit)
    if max_chunk_size < 1:
        raise ValueError(f"max_chunk_size must be positive, got {max_chunk_size}")
    _bump(stats, "files")
    if not code:
        return []
    data = code.encode("utf-8", "surrogatepass")
    size = span_sizer(size_unit, data, code)
    pieces, lang = _file_pieces(data, path, size, max_chunk_size, min_chunk_size, language, stats, errors)
    out: list[Chunk] = []
    line, pos = 1, 0
    for p in pieces:
        _trim(data, p)
        if p.end <= p.start:
            continue  # blank lines only
        line += data.count(b"\n", pos, p.start)
        nl = data.count(b"\n", p.start, p.end)
        end_line = line + nl - 1 if p.end > p.start and data[p.end - 1] == 10 else line + nl
        body = data[p.start:p.end].decode("utf-8", "surrogatepass")
        out.append(Chunk(text=body, path=path, start_line=line, end_line=end_line, start_byte=p.start,
                         end_byte=p.end, strategy=strategy, kind=p.kind, metadata=_metadata(p, lang)))
        if p.kind in _KIND_STATS:
            _bump(stats, _KIND_STATS[p.kind])
        line += nl
        pos = p.end
    _bump(stats, "chunks", len(out))
    return out


#: The counter each chunk kind adds to (functions are counted when found, ``text`` is the fallback's).
_KIND_STATS = {"class": "class_chunks", "remainder": "remainder_chunks"}


def _file_pieces(data: bytes, path: str, size: SpanSizer, max_size: int, min_size: int,
                 language: str | LanguageSpec | None, stats: dict[str, int] | None,
                 errors: ErrorLines | None = None) -> tuple[list[_Piece], str | None]:
    """The file's pieces in order and its language; without a grammar (or past the parse time limit), whole lines
    up to the limit and no language."""
    try:
        tree = parse(data, path, language=language)
    except ParseTimeout:
        _bump(stats, "parse_timeouts")
        tree = None
    if tree is None:
        _bump(stats, "fallback_files")
        return [_Piece(sp.start, sp.end, "text", 0, fallback=True)
                for sp in line_spans(data, 0, len(data), size, max_size)], None
    if tree.has_error:
        _bump(stats, "parse_errors")
        note_error_lines(errors, path, tree.error_lines())
    return _FileChunker(tree, size, max_size, min_size, stats).run(), tree.spec.name


def _metadata(p: _Piece, lang: str | None) -> dict[str, Any]:
    """A chunk's metadata: its language and whether it fell back, and its function's name and part where known."""
    metadata: dict[str, Any] = {"language": lang, "fallback": p.fallback}
    if p.name:
        metadata["name"] = p.name
    if p.part:
        metadata["part"] = p.part
    if p.containers:
        metadata["part_of"] = list(p.containers)
    return metadata


class FunctionLevelChunker(Strategy):
    """Strategy over :func:`function_level_chunks`; handles every file, as ``ast`` does (fair file-mode ranks).

    ``stats()`` reports ``files``, ``chunks``, ``functions`` (functions and methods found), ``class_chunks`` and
    ``remainder_chunks`` (chunks of a class's own text and of module-level text), ``split_functions`` and
    ``split_remainders`` (nodes over the limit cut by the AST splitter), ``parse_errors`` (with their line ranges in
    ``parse_error_lines``), ``fallback_files``
    (no grammar, or ``parse_timeouts``), ``fallback_regions`` (ERROR regions cut by lines), and what the AST
    splitter counts while cutting oversized nodes (``error_regions``, ``oversized_leaves``).
    """

    unavailable: str | None = None
    stat_keys = STAT_KEYS

    def __init__(self, name: str = "function_level", *, max_chunk_size: int = 1000, min_chunk_size: int = 100,
                 size_unit: str = "chars", description: str = "") -> None:
        if size_unit == "tokens":  # a window promise needs the model in use; this baseline is sized like ``ast``
            raise ValueError("function_level sizes in chars or nonws_chars")
        self.name = name
        self.max_chunk_size = max_chunk_size
        self._max: int = max_chunk_size  # the base declares ``max_chunk_size`` wider (None, "window")
        self.min_chunk_size = min_chunk_size
        self.size_unit = check_unit(size_unit)
        self.version = f"{ENGINE_VERSION}:max={max_chunk_size},min={min_chunk_size},unit={size_unit}"
        self.description = description or (
            f"one chunk per function/method, class headers and module remainder grouped, max {max_chunk_size} "
            f"{size_unit}")
        self._fl_stats: dict[str, int] = {}
        self._fl_errors: ErrorLines = {}

    def chunk(self, path: str, text: str) -> list[Chunk]:
        return function_level_chunks(text, path, max_chunk_size=self._max,
                                     min_chunk_size=self.min_chunk_size, size_unit=self.size_unit,
                                     strategy=self.name, stats=self._fl_stats, errors=self._fl_errors)

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: self._fl_stats.get(k, 0) for k in STAT_KEYS}
        if self._fl_errors:
            out[PARSE_ERROR_LINES] = {p: [list(r) for r in rs] for p, rs in self._fl_errors.items()}
        return out

    def reset_stats(self) -> None:
        self._fl_stats = {}
        self._fl_errors = {}

    def source_files(self) -> list[Path]:
        """The language table, the tree view, the splitter and the sizing rules decide the chunks too."""
        from pytest_chunkeval.chunking import sizing
        from pytest_chunkeval.chunking.ast import kind_table, languages, spans, tree
        from pytest_chunkeval.chunking.ast import split as ast_split

        return [Path(m.__file__) for m in (languages, tree, kind_table, spans, ast_split, sizing) if m.__file__]
