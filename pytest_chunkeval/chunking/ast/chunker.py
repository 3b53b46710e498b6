"""AST-aware chunking: the seed's ``chunkCodeByAST``, a richer ``ast_chunks`` and the ``ast`` strategies.

Where cuts fall is decided in :mod:`.split` on byte spans; this module turns spans into :class:`Chunk`\\ s:
body text, 1-based lines, byte offsets, node types, symbol names, and (``preserve_context``) a header with the file
path, the file's imports and the signatures of the enclosing class/module/function a piece was cut from
(:mod:`.headers`).

Size contract: ``max_chunk_size`` bounds the *whole embedded text*, header included. The header gets at most
``max_header_size`` (default a quarter of the maximum) and the body the rest, so with ``size_unit="tokens"``
every chunk fits the window of the model in use (counted with its tokenizer, checked exactly on the final text).
The body alone tiles the file: ``"".join(c.source for c in chunks) == code`` always holds.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.ast.headers import Headers, header_budget
from pytest_chunkeval.chunking.ast.languages import CONTAINER_KINDS, UNIT_KINDS, LanguageSpec
from pytest_chunkeval.chunking.ast.parsing import ParseTimeout, parse
from pytest_chunkeval.chunking.ast.spans import Span, line_spans
from pytest_chunkeval.chunking.ast.split import Splitter, fold_small
from pytest_chunkeval.chunking.ast.tree import SyntaxTree, kind_of, name_getter
from pytest_chunkeval.chunking.sizing import TokenModel, check_unit, span_sizer, text_size
from pytest_chunkeval.chunking.strategy_base import WINDOW, ErrorLines, Strategy, note_error_lines
from pytest_chunkeval.core.chunk import Chunk

ENGINE_VERSION = "1"
STAT_KEYS = ("files", "chunks", "parse_errors", "error_regions", "fallback_regions", "fallback_files",
             "parse_timeouts", "oversized_leaves", "header_chars", "header_truncated")
#: Merge policies (see :mod:`.split`): ``greedy`` merges any siblings while they fit (the cAST recipe);
#: ``units`` never puts two functions/classes in one chunk but lets the code around them join; ``isolate`` gives
#: each function/class a chunk of its own and merges only glue with glue (and pieces under the minimum).
MERGE_POLICIES = ("greedy", "units", "isolate")


def _bump(stats: dict[str, int] | None, key: str, n: int = 1) -> None:
    if stats is not None:
        stats[key] = stats.get(key, 0) + n


def _metadata(tree: SyntaxTree | None, span: Span, language: str | None,
              ctx_cache: dict[Any, Any] | None = None) -> dict[str, Any]:
    """Node types, semantic kinds and symbol names of the nodes a chunk holds, and what it was cut from.

    ``node_types`` are the types of the nodes the splitter placed into the chunk (its top-level units: whole
    children of the node it was cut from, never their descendants), read from what the splitter already holds.
    ``ctx_cache`` (one per file) remembers what depends only on ``span.ctx``: the pieces of one split node share
    the same ``ctx`` tuple, so its kinds and names are worked out once, not once per chunk. It also holds the
    grammar's :func:`name_getter` (field ids resolved once).
    """
    if tree is None:
        return {"language": language, "fallback": span.fallback, "parse_error": span.error}
    src = tree.source
    ctx = span.ctx
    if ctx_cache is None:
        ctx_cache = {}
    get_name = ctx_cache.get(None)
    if get_name is None:
        get_name = ctx_cache[None] = name_getter(tree.raw_tree.language)
    hit = ctx_cache.get(id(ctx))
    if hit is None or hit[0] is not ctx:
        spec = tree.spec
        ctx_kinds = [kind_of(spec, n, src) for n in ctx]
        hit = (ctx, "class" in ctx_kinds, [get_name(n, src) or n.type for n in ctx],
               [n.type for n, k in zip(ctx, ctx_kinds, strict=True) if k in CONTAINER_KINDS])
        ctx_cache[id(ctx)] = hit  # holds ``ctx``, so the id cannot be reused while cached
    kinds: list[str] = []
    symbols: list[str] = []
    in_class = hit[1]
    for n, _t, k in span.nodes:  # only the nodes with a kind (chunks of big literals hold none)
        kinds.append("method" if (k == "function" and in_class) else k)
        if k in _NAMED:
            nm = get_name(n, src)
            if nm:
                symbols.append(nm)
    return {"language": language, "fallback": span.fallback, "parse_error": span.error,
            "node_types": span.types[:], "kinds": kinds, "symbols": symbols, "part_of": hit[2][:],
            "containers": hit[3][:]}


_NAMED = UNIT_KINDS | {"type", "constant", "key"}
_CHUNK_FIELDS = ("text", "path", "start_line", "end_line", "start_byte", "end_byte", "strategy", "kind", "header",
                 "body", "metadata")


def _chunk_positional(text: str, path: str, start_line: int, end_line: int, start_byte: int, end_byte: int,
                      strategy: str, kind: str, header: str, body: str | None, metadata: dict[str, Any]) -> Chunk:
    return Chunk(text=text, path=path, start_line=start_line, end_line=end_line, start_byte=start_byte,
                 end_byte=end_byte, strategy=strategy, kind=kind, header=header, body=body, metadata=metadata)


def _chunk_direct(text: str, path: str, start_line: int, end_line: int, start_byte: int, end_byte: int,
                  strategy: str, kind: str, header: str, body: str | None, metadata: dict[str, Any]) -> Chunk:
    """The same object ``Chunk(...)`` builds, without the frozen dataclass's per-field ``object.__setattr__``.

    Used only while :class:`Chunk` is a plain frozen dataclass with exactly these fields and no
    ``__post_init__`` (checked at import): it runs once per chunk in the hot loop, so the saving adds up.
    """
    c = _object_new(Chunk)
    c.__dict__.update(text=text, path=path, start_line=start_line, end_line=end_line, start_byte=start_byte,
                      end_byte=end_byte, strategy=strategy, kind=kind, header=header, body=body, metadata=metadata)
    return c


_object_new = object.__new__
_new_chunk = _chunk_direct if (
    tuple(f.name for f in fields(Chunk)) == _CHUNK_FIELDS and not hasattr(Chunk, "__post_init__")
    and "__slots__" not in vars(Chunk) and "__init__" in vars(Chunk)
) else _chunk_positional


def ast_chunks(code: str, path: str, *, max_chunk_size: int = 1000, min_chunk_size: int = 100,
               chunk_by_node_type: bool = True, preserve_context: bool = True, size_unit: str = "chars",
               max_header_size: int | None = None, languages: Mapping[str, str] | None = None,
               language: str | LanguageSpec | None = None, strategy: str = "ast",
               stats: dict[str, int] | None = None, model: TokenModel | None = None,
               with_metadata: bool = True, merge: str | None = None, errors: ErrorLines | None = None
               ) -> list[Chunk]:
    """Chunk one file along its syntax tree; see the module docstring for the size and header contract.

    ``merge`` is one of :data:`MERGE_POLICIES`; None reads the ``chunk_by_node_type`` switch instead: ``units``
    when it is set, else ``greedy``.

    ``model`` is whose tokens ``size_unit="tokens"`` counts (the strategy passes the model in use; None: the
    bundled all-MiniLM-L6-v2).

    ``with_metadata=False`` leaves ``Chunk.metadata`` empty: node types, symbols and containers are a large share of
    the chunker's own time, and callers that want only the texts (``chunk_code_by_ast``) should not pay for them.

    ``languages`` maps extensions to language names (``{".h": "cpp", ".txt": ""}``) ahead of the built-in
    table; ``language`` forces one. Unknown languages are cut by lines (counted as ``fallback_files``).

    ``errors``, when given, gets ``path``'s ERROR/MISSING regions as line ranges if it did not parse cleanly (see
    :func:`~pytest_chunkeval.chunking.strategy_base.note_error_lines`).
    """
    check_unit(size_unit)
    policy = _policy(merge, chunk_by_node_type)
    budget = header_budget(max_chunk_size, preserve_context, max_header_size)
    body_max = max_chunk_size - budget
    if body_max < (3 if size_unit == "tokens" else 1):
        raise ValueError(f"max_chunk_size {max_chunk_size} leaves no room for a body after a {budget} header")
    _bump(stats, "files")
    if not code:
        return []
    data = code.encode("utf-8", "surrogatepass")
    size = span_sizer(size_unit, data, code, model)
    try:
        tree = parse(data, path, language=language, overrides=languages)
    except ParseTimeout:
        _bump(stats, "parse_timeouts")
        tree = None
    if tree is None:
        _bump(stats, "fallback_files")
        spans = line_spans(data, 0, len(data), size, body_max)
    else:
        if tree.has_error:
            _bump(stats, "parse_errors")
            note_error_lines(errors, path, tree.error_lines())
        splitter = Splitter(tree, size, body_max, by_type=policy != "greedy", isolate=policy == "isolate",
                            stats=stats)
        spans = fold_small(splitter.run(), splitter, min_chunk_size)
    headers = Headers(path, tree, size_unit, budget, stats, model)
    lang = tree.spec.name if tree is not None else None
    if size_unit == "tokens":
        spans = [q for sp in spans for q in _fit(sp, data, headers, size, max_chunk_size, size_unit, model)]
    out: list[Chunk] = []
    kind = "code" if tree is not None else "text"
    build = headers.build if budget > 0 else None
    count, line, pos, header_chars = data.count, 1, 0, 0
    ctx_cache: dict[int, tuple[Any, ...]] = {}
    new_chunk = _new_chunk
    obj_new, cls = _object_new, Chunk
    direct = new_chunk is _chunk_direct
    for sp in spans:  # hot loop: one iteration per chunk
        start, end = sp.start, sp.end
        if start != pos:  # spans tile the file, so this is the previous span's end: nothing to count
            line += count(b"\n", pos, start)
        nl = count(b"\n", start, end)  # each byte is counted once: the next chunk starts ``nl`` lines down
        end_line = line + nl - 1 if end > start and data[end - 1] == 10 else line + nl
        body = data[start:end].decode("utf-8", "surrogatepass")
        header = build(sp, True) if build is not None else ""
        header_chars += len(header)
        metadata = _metadata(tree, sp, lang, ctx_cache) if with_metadata else {}
        if direct:  # what _chunk_direct does, inline (see there)
            c = obj_new(cls)
            c.__dict__.update(text=header + body if header else body, path=path, start_line=line, end_line=end_line,
                              start_byte=start, end_byte=end, strategy=strategy, kind=kind, header=header,
                              body=body if header else None, metadata=metadata)
            out.append(c)
        else:
            out.append(new_chunk(header + body if header else body, path, line, end_line, start, end, strategy,
                                 kind, header, body if header else None, metadata))
        line += nl
        pos = end
    _bump(stats, "header_chars", header_chars)
    _bump(stats, "chunks", len(out))
    return out


def _policy(merge: str | None, chunk_by_node_type: bool) -> str:
    if merge is None:
        return "units" if chunk_by_node_type else "greedy"
    if merge not in MERGE_POLICIES:
        raise ValueError(f"merge must be one of {', '.join(MERGE_POLICIES)}, got {merge!r}")
    return merge


def _fit(sp: Span, data: bytes, headers: Headers, size: Any, max_size: int, unit: str,
         model: TokenModel | None) -> list[Span]:
    """For tokens, re-check the exact count of header + body and re-cut by lines until it fits the window."""
    if unit != "tokens":
        return [sp]
    text = headers.build(sp) + data[sp.start:sp.end].decode("utf-8", "surrogatepass")
    over = text_size(text, unit, model) - max_size
    if over <= 0 or sp.end - sp.start <= 1:
        return [sp]
    smaller = max(1, size(sp.start, sp.end) - over - 1)
    pieces = line_spans(data, sp.start, sp.end, size, smaller, sp.ctx, sp.fallback)
    if len(pieces) == 1:  # cannot shrink by lines at this budget: force a smaller budget
        pieces = line_spans(data, sp.start, sp.end, size, max(1, smaller // 2), sp.ctx, sp.fallback)
    for p in pieces:
        p.nodes, p.types, p.unit, p.error = sp.nodes, sp.types, sp.unit, sp.error
    return [q for p in pieces for q in _fit(p, data, headers, size, max_size, unit, model)]


def chunk_code_by_ast(code: str, path: str, *, max_chunk_size: int = 1000, min_chunk_size: int = 100,
                      chunk_by_node_type: bool = True, preserve_context: bool = True) -> list[str]:
    """The seed's ``chunkCodeByAST``: the embedded text of each chunk (header included when preserving context)."""
    return [c.text for c in ast_chunks(code, path, max_chunk_size=max_chunk_size, min_chunk_size=min_chunk_size,
                                       chunk_by_node_type=chunk_by_node_type, preserve_context=preserve_context,
                                       with_metadata=False)]


def _chunk_one(args: tuple[str, dict[str, Any]]) -> tuple[str, list[Chunk], dict[str, int], ErrorLines]:
    path, opts = args
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        text = fh.read()
    stats: dict[str, int] = {}
    errors: ErrorLines = {}
    return path, ast_chunks(text, path, stats=stats, errors=errors, **opts), stats, errors


def ast_chunk_files(paths: Iterable[str | Path], *, workers: int | None = None, min_files_for_pool: int = 32,
                    stats: dict[str, int] | None = None, errors: ErrorLines | None = None, **opts: Any
                    ) -> dict[str, list[Chunk]]:
    """Chunk many files, in a process pool when there are enough of them to repay the workers' start-up.

    Results come back in input order (a dict keyed by path). ``workers=1`` forces the current process.
    ``stats`` and ``errors`` gather every file's counters and parse-error regions, as :func:`ast_chunks`'s do.
    """
    items = [(str(p), opts) for p in paths]
    if workers == 1 or len(items) < min_files_for_pool:
        results = map(_chunk_one, items)
        return _collect(results, stats, errors)
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        chunksize = max(1, len(items) // ((workers or 4) * 8))
        return _collect(pool.map(_chunk_one, items, chunksize=chunksize), stats, errors)


def _collect(results: Iterable[tuple[str, list[Chunk], dict[str, int], ErrorLines]], stats: dict[str, int] | None,
             errors: ErrorLines | None) -> dict[str, list[Chunk]]:
    out: dict[str, list[Chunk]] = {}
    for path, chunks, st, err in results:
        out[path] = chunks
        for k, v in st.items():
            _bump(stats, k, v)
        if errors is not None:
            errors.update(err)
    return out


class AstChunker(Strategy):
    """Strategy over :func:`ast_chunks`. Handles every file: unknown languages are cut by lines and counted.

    Handling every file (``extensions = None``) keeps file-mode comparisons fair: a strategy that indexed only
    the files it parses could never retrieve the others. ``stats()`` reports ``files``, ``chunks``,
    ``parse_errors`` (files with ERROR/MISSING nodes, each with its line ranges in ``parse_error_lines``),
    ``error_regions`` (nodes with errors kept whole),
    ``fallback_regions`` (ERROR regions cut by lines), ``fallback_files`` (no grammar, or ``parse_timeouts``:
    the grammar looped and was cancelled), ``oversized_leaves``
    (childless nodes cut by lines), ``header_chars`` and ``header_truncated``.

    With ``size_unit="tokens"`` chunks are counted with the model in use (``use_model``), and
    ``max_chunk_size=WINDOW`` sizes them to its window.
    """

    stat_keys = STAT_KEYS

    def __init__(self, name: str = "ast", *, max_chunk_size: int | str = 1000, min_chunk_size: int = 100,
                 chunk_by_node_type: bool = True, preserve_context: bool = False, size_unit: str = "chars",
                 max_header_size: int | None = None, languages: Mapping[str, str] | None = None,
                 description: str = "", merge: str | None = None) -> None:
        check_unit(size_unit)
        _policy(merge, chunk_by_node_type)  # validate now, not per file
        if max_chunk_size == WINDOW:
            if size_unit != "tokens":
                raise ValueError(f"max_chunk_size={WINDOW!r} needs size_unit='tokens', not {size_unit!r}")
        else:
            header_budget(int(max_chunk_size), preserve_context, max_header_size)  # validate now, not per file
        self.name = name
        self.opts: dict[str, Any] = dict(
            min_chunk_size=min_chunk_size, chunk_by_node_type=chunk_by_node_type,
            preserve_context=preserve_context, size_unit=size_unit, max_header_size=max_header_size,
            languages=dict(languages) if languages else None)
        if merge is not None:  # only when set, so the fingerprint of a strategy that does not use it stays put
            self.opts["merge"] = merge
        self.max_chunk_size = max_chunk_size
        self.size_unit = size_unit
        self.version = f"{ENGINE_VERSION}:" + ",".join(
            f"{k}={v}" for k, v in sorted({**self.opts, "max_chunk_size": max_chunk_size}.items()))
        self.description = description or (
            f"tree-sitter split-then-merge, max {max_chunk_size} {size_unit}, min {min_chunk_size}"
            + (", headers" if preserve_context else ""))

    def chunk(self, path: str, text: str) -> list[Chunk]:
        limit = self.limit
        assert limit is not None
        model = self.model if self.size_unit == "tokens" else None
        return ast_chunks(text, path, strategy=self.name, stats=self.counters(), max_chunk_size=limit, model=model,
                          errors=self.error_lines(), **self.opts)

    def source_files(self) -> list[Path]:
        """The engine and the language table decide the chunks, so they feed the index fingerprint."""
        from pytest_chunkeval.chunking import sizing
        from pytest_chunkeval.chunking.ast import headers, kind_table, languages, parsing, spans, tree
        from pytest_chunkeval.chunking.ast import split as ast_split

        return [Path(m.__file__) for m in (languages, parsing, tree, kind_table, spans, ast_split, headers, sizing)
                if m.__file__]
