"""The chunker's fast paths give exactly what the general paths give.

``Splitter.children`` groups children into segments without building lists (symbol ids, not type strings) and
places those that fit with ``Splitter._fit`` directly; everything else goes to ``Splitter._place``. The reference
below builds every segment with ``_segments`` and sends it through ``_place`` (one segment at a time, as the
chunker did before the fast path); both end in the one placement routine ``_fit``, so this guards the
segmentation and the hand-off, and any placement code inlined again for speed. Header trimming for additive
units skips re-joining the header per dropped line; the reference is the plain loop. Chunks are built without the
dataclass ``__init__``; they must equal ``Chunk(...)``.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from pytest_chunkeval.chunking.ast import chunker as ast_chunker
from pytest_chunkeval.chunking.ast import headers as ast_headers
from pytest_chunkeval.chunking.ast.kind_table import ERROR_ENTRY
from pytest_chunkeval.chunking.ast.parsing import parse, resolve_language
from pytest_chunkeval.chunking.ast.spans import Span, line_spans
from pytest_chunkeval.chunking.ast.split import Splitter, fold_small
from pytest_chunkeval.chunking.ast.tree import kind_of
from pytest_chunkeval.chunking.sizing import span_sizer
from pytest_chunkeval.core.chunk import Chunk


class OneSegmentAtATime(Splitter):
    """Reference splitter: no inline fast path, every segment through the general ``_place``."""

    def children(self, raw, s: int, e: int, ctx: tuple) -> list[Span]:  # type: ignore[no-untyped-def]
        kids = raw.children
        if not kids:
            return line_spans(self.data, s, e, self.size, self.max, ctx, fallback=False)
        segs = self._segments(kids, s, e)
        segs.reverse()
        out: list[Span] = []
        cur = self._place(segs, None, out, ctx, self.has_error and raw.has_error)
        if cur is not None:
            out.append(cur)
        return out


def _files() -> list[Path]:
    files = sorted(p for p in (Path(__file__).parent.parent / "golden").glob("*/corpus/**/*")
                   if p.is_file() and resolve_language(str(p)) is not None)  # files with a grammar
    py = sorted(Path(random.__file__).parent.glob("*.py"))
    return files + random.Random(7).sample(py, min(10, len(py)))


def _view(spans: list[Span]) -> list[tuple]:
    return [(sp.start, sp.end, sp.unit, [(n.start_byte, n.end_byte, t, k) for n, t, k in sp.nodes], sp.types,
             [(n.start_byte, n.type) for n in sp.ctx], sp.fallback, sp.error, sp.opens, sp.partial) for sp in spans]


def _split(cls: type[Splitter], tree, size, max_size: int, by_type: bool,  # type: ignore[no-untyped-def]
           min_size: int) -> tuple[list, dict]:
    stats: dict[str, int] = {}
    sp = cls(tree, size, max_size, by_type=by_type, stats=stats)
    return _view(fold_small(sp.run(), sp, min_size)), stats


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_fast_path_matches_one_segment_at_a_time(path: Path) -> None:
    code = path.read_text(encoding="utf-8", errors="surrogateescape")
    data = code.encode("utf-8", "surrogatepass")
    tree = parse(data, str(path))
    assert tree is not None
    for unit in ("chars", "nonws_chars"):
        size = span_sizer(unit, data, code)
        for max_size, by_type, min_size in ((1000, True, 100), (200, True, 0), (60, False, 20)):
            fast = _split(Splitter, tree, size, max_size, by_type, min_size)
            reference = _split(OneSegmentAtATime, tree, size, max_size, by_type, min_size)
            assert fast == reference, (unit, max_size, by_type)


@pytest.mark.parametrize("path", _files()[::3], ids=lambda p: p.name)
@pytest.mark.parametrize("unit,budget", [("chars", 250), ("chars", 40), ("chars", 3), ("nonws_chars", 30)])
def test_header_trimming_matches_plain_loop(path: Path, unit: str, budget: int) -> None:
    code = path.read_text(encoding="utf-8", errors="surrogateescape")
    data = code.encode("utf-8", "surrogatepass")
    tree = parse(data, str(path))
    assert tree is not None
    sp = Splitter(tree, span_sizer(unit, data, code), 300)
    spans = sp.run()
    fast = ast_headers.Headers(str(path), tree, unit, budget, {}, None)
    plain = ast_headers.Headers(str(path), tree, unit, budget, {}, None)
    plain._line_cost = None  # the reference: re-join and re-measure after every dropped line
    assert fast._line_cost is not None
    for span in spans:
        assert fast.build(span, True) == plain.build(span, True)
    assert fast.stats == plain.stats


def test_direct_chunk_equals_dataclass_chunk() -> None:
    args = ("h\nbody", "a.py", 3, 4, 10, 14, "ast", "code", "h\n", "body", {"language": "python"})
    direct, built = ast_chunker._new_chunk(*args), ast_chunker._chunk_positional(*args)
    assert type(direct) is Chunk and direct == built and hash(direct) == hash(built)
    assert vars(direct) == vars(built) and list(vars(direct)) == list(vars(built)) and repr(direct) == repr(built)


@pytest.mark.parametrize("path", _files()[::2], ids=lambda p: p.name)
def test_fold_small_byte_arithmetic_matches_sizer_calls(path: Path) -> None:
    """``fold_small`` on ASCII text in chars measures by byte differences; a sizer it must call gives the same."""
    code = path.read_text(encoding="utf-8", errors="surrogateescape")
    data = code.encode("utf-8", "surrogatepass")
    tree = parse(data, str(path))
    assert tree is not None
    size = span_sizer("chars", data, code)
    for max_size, by_type, min_size in ((1000, True, 100), (200, True, 50), (60, False, 20)):
        fast_splitter = Splitter(tree, size, max_size, by_type=by_type)
        fast = _view(fold_small(fast_splitter.run(), fast_splitter, min_size))
        called = Splitter(tree, lambda a, b: size(a, b), max_size, by_type=by_type)
        reference = _view(fold_small(called.run(), called, min_size))
        assert fast == reference, (max_size, by_type, min_size)


def _check_kinds(tree, data: bytes, spans: list[Span]) -> int:  # type: ignore[no-untyped-def]
    """Every node a span records has the kind :func:`kind_of` gives it; returns how many were checked."""
    n = 0
    for sp in spans:
        for node, t, k in sp.nodes:
            assert (t, k) == (node.type, kind_of(tree.spec, node, data)), (sp, t)
            n += 1
    return n


@pytest.mark.parametrize("path", _files()[::2], ids=lambda p: p.name)
def test_table_kinds_are_kind_of(path: Path) -> None:
    """The symbol table plus ``Splitter._kind`` (``when "@first"`` rules checked on ids) is ``kind_of`` for
    every node of the tree, and every node the splitter records carries that kind whichever path placed it."""
    code = path.read_text(encoding="utf-8", errors="surrogateescape")
    data = code.encode("utf-8", "surrogatepass")
    tree = parse(data, str(path))
    assert tree is not None
    sp = Splitter(tree, span_sizer("chars", data, code), 1000)
    stack = [tree.raw_tree.root_node]
    while stack:
        node = stack.pop()
        entry = sp.symbols.get(node.kind_id, ERROR_ENTRY)
        assert sp._kind(node, entry[2]) == kind_of(tree.spec, node, data), node.type
        stack.extend(node.children)
    for max_size in (1000, 200, 60):
        _check_kinds(tree, data, Splitter(tree, span_sizer("chars", data, code), max_size).run())


_FIRST_RULES = {
    # ``when "@first"`` rules: constants are assignments, other statements of the same type are not
    "a.py": "X = 1\nprint(X)\n# own-line comment\nY = [\n" + "    1,\n" * 30 + "]\nprint(Y)\nZ = 2\n",
    "b.py": "def f(:\n    X = 1\n    print(X)\nY = 2\nprint(Y)\n",  # parse errors: through ``_place``
    "c.rb": "FOO = 1\nfoo = 2\nBAR = [\n" + "  1,\n" * 30 + "]\nbar = 3\n",
}


@pytest.mark.parametrize("name", sorted(_FIRST_RULES))
def test_first_rule_kinds_on_every_path(name: str) -> None:
    """A node under a ``when "@first"`` rule gets the same kind as the first, middle or last segment, inside
    ``_place`` (too big, regrouped with its comment, or in a subtree with errors): the copies of the placement
    code once resolved these rules differently (ids inline, ``kind_of`` for the last segment and ``_place``)."""
    code = _FIRST_RULES[name]
    data = code.encode()
    tree = parse(data, name)
    if tree is None:
        pytest.skip(f"no grammar for {name}")
    checked = 0
    for max_size in (1000, 40, 12):
        for by_type in (True, False):
            spans = Splitter(tree, span_sizer("chars", data, code), max_size, by_type=by_type).run()
            assert b"".join(data[s.start:s.end] for s in spans) == data
            checked += _check_kinds(tree, data, spans)
            assert _view(spans) == _view(OneSegmentAtATime(tree, span_sizer("chars", data, code), max_size,
                                                           by_type=by_type).run())
    assert checked
