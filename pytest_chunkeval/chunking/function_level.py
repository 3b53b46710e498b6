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

Where the functions are is :mod:`.function_finder`; packing them and the rest into chunks, :mod:`.function_packer`;
this module makes the chunks and the strategy.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.ast.languages import LanguageSpec
from pytest_chunkeval.chunking.ast.parsing import ParseTimeout, parse
from pytest_chunkeval.chunking.ast.spans import line_spans
from pytest_chunkeval.chunking.ast.tree import SyntaxTree
from pytest_chunkeval.chunking.function_finder import FunctionFinder
from pytest_chunkeval.chunking.function_packer import Packer, Piece, bump
from pytest_chunkeval.chunking.sizing import SpanSizer, check_unit, span_sizer
from pytest_chunkeval.chunking.strategy_base import PARSE_ERROR_LINES, ErrorLines, Strategy, note_error_lines
from pytest_chunkeval.core.chunk import Chunk

ENGINE_VERSION = "1"
STAT_KEYS = ("files", "chunks", "functions", "class_chunks", "remainder_chunks", "split_functions",
             "split_remainders", "parse_errors", "fallback_files", "parse_timeouts", "fallback_regions",
             "error_regions", "oversized_leaves")


def _trim(data: bytes, p: Piece) -> None:
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
    bump(stats, "files")
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
            bump(stats, _KIND_STATS[p.kind])
        line += nl
        pos = p.end
    bump(stats, "chunks", len(out))
    return out


#: The counter each chunk kind adds to (functions are counted when found, ``text`` is the fallback's).
_KIND_STATS = {"class": "class_chunks", "remainder": "remainder_chunks"}


def _file_pieces(data: bytes, path: str, size: SpanSizer, max_size: int, min_size: int,
                 language: str | LanguageSpec | None, stats: dict[str, int] | None,
                 errors: ErrorLines | None = None) -> tuple[list[Piece], str | None]:
    """The file's pieces in order and its language; without a grammar (or past the parse time limit), whole lines
    up to the limit and no language."""
    try:
        tree = parse(data, path, language=language)
    except ParseTimeout:
        bump(stats, "parse_timeouts")
        tree = None
    if tree is None:
        bump(stats, "fallback_files")
        return [Piece(sp.start, sp.end, "text", 0, fallback=True)
                for sp in line_spans(data, 0, len(data), size, max_size)], None
    if tree.has_error:
        bump(stats, "parse_errors")
        note_error_lines(errors, path, tree.error_lines())
    return _tree_pieces(tree, size, max_size, min_size, stats), tree.spec.name


def _tree_pieces(tree: SyntaxTree, size: SpanSizer, max_size: int, min_size: int,
                 stats: dict[str, int] | None) -> list[Piece]:
    """A parsed file's pieces: its functions found, then packed; a root that did not parse at all, whole lines."""
    data = tree.source
    if tree.raw_tree.root_node.is_error:
        bump(stats, "fallback_regions")
        return [Piece(sp.start, sp.end, "remainder", 0, fallback=True)
                for sp in line_spans(data, 0, len(data), size, max_size)]
    finder = FunctionFinder(tree)
    atoms = finder.file_atoms()
    return Packer(tree, size, max_size, min_size, stats, finder.key_names).pieces(atoms)


def _metadata(p: Piece, lang: str | None) -> dict[str, Any]:
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
        """The finder and the packer, the language table, the tree view, the splitter and the sizing rules decide
        the chunks too."""
        from pytest_chunkeval.chunking import function_finder, function_packer, sizing
        from pytest_chunkeval.chunking.ast import kind_table, languages, parsing, spans, tree
        from pytest_chunkeval.chunking.ast import split as ast_split

        return [Path(m.__file__) for m in (function_finder, function_packer, languages, parsing, tree, kind_table,
                                           spans, ast_split, sizing) if m.__file__]
