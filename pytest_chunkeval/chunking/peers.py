"""Run other people's code chunkers (LangChain, astchunk, chonkie) in the same harness, when installed.

Why adapters: the design's claim "whole functions beat the pip-installable AST chunkers" is only worth
something if the peers run on the same corpus, embedder and index. Each adapter turns a peer's output into
:class:`Chunk` objects with positions, counts what the peer lost, and never fails a run because a peer is absent.

Every peer handles every file, as ``ast`` does: a file in a language the peer has no chunker for is cut by
``ast``'s own fallback (whole lines up to the peer's limit, in the peer's size unit) and counted, ``native_files``
against ``fallback_files``, which the report's chunk table shows. Otherwise a peer that knows 4 languages would be
scored on a fraction of the corpus - the other files absent from its index, their queries unanswerable - and its
score would measure its language list, not its chunking.

``unavailable`` (``None`` or a reason) is how a peer says it cannot run here - not installed, or a piece it needs
offline is missing (chonkie: see :mod:`.grammar_shims`). It is computed lazily and cached, so building the
strategy costs nothing; the harness skips the strategy's items with that reason.

Peers return strings without positions: :func:`map_back` finds each piece in the source, searching forward
from the previous piece, and fills lines and byte offsets. Pieces that cannot be found are counted
(``unmapped_chunks``), as are source characters no piece covers (``dropped_chars``, whitespace excluded).
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.ast.chunker import ast_chunks
from pytest_chunkeval.chunking.strategy_base import Strategy
from pytest_chunkeval.core.chunk import Chunk, line_of, line_starts


def map_back(text: str, pieces: list[str], *, path: str, strategy: str, stats: dict[str, int]) -> list[Chunk]:
    """Chunks for ``pieces`` of ``text`` with positions found by a forward search (overlap allowed)."""
    starts = line_starts(text)
    covered = [False] * len(text) if text else []
    out: list[Chunk] = []
    prev_start = prev_end = 0
    for piece in pieces:
        if not piece:
            continue
        pos = text.find(piece, prev_end)
        if pos < 0:
            pos = text.find(piece, prev_start)
        probe = piece
        if pos < 0:  # the peer changed the text (stripped, re-joined): anchor on its first non-blank line
            probe = next((ln.strip() for ln in piece.splitlines() if ln.strip()), "")
            pos = text.find(probe, prev_start) if probe else -1
            if pos >= 0:
                probe = piece if text.startswith(piece[: len(probe)], pos) else probe
        if pos < 0:
            stats["unmapped_chunks"] = stats.get("unmapped_chunks", 0) + 1
            pos, end = prev_end, prev_end
        else:
            end = min(len(text), pos + len(piece))
            for i in range(pos, end):
                covered[i] = True
        start_byte = len(text[:pos].encode("utf-8", "surrogatepass"))
        end_byte = start_byte + len(text[pos:end].encode("utf-8", "surrogatepass"))
        out.append(Chunk(text=piece, path=path, start_line=line_of(starts, pos),
                         end_line=line_of(starts, max(pos, end - 1)), start_byte=start_byte, end_byte=end_byte,
                         strategy=strategy, metadata={"mapped": end > pos}))
        prev_start, prev_end = pos, max(prev_end, end)
    dropped = sum(1 for i, c in enumerate(text) if not covered[i] and not c.isspace())
    stats["dropped_chars"] = stats.get("dropped_chars", 0) + dropped
    stats["chunks"] = stats.get("chunks", 0) + len(out)
    return out


def line_fallback(text: str, path: str, *, strategy: str, max_chunk_size: int, size_unit: str,
                  model: Any = None) -> list[Chunk]:
    """``ast``'s chunks for a file it has no grammar for: whole lines up to ``max_chunk_size`` ``size_unit``.

    It is that very code path (``ast_chunks`` with every extension mapped to no language), not a copy of it, so a
    peer's fallback files are cut exactly as ``ast``'s and ``function_level``'s are.
    """
    return ast_chunks(text, path, max_chunk_size=max_chunk_size, size_unit=size_unit, preserve_context=False,
                      languages={"": ""}, strategy=strategy, model=model)


def _library_versions(modules: tuple[str, ...]) -> str:
    """``name=version`` of each installed peer library: an upgrade changes the chunks, so it changes the index."""
    out = []
    for module in modules:
        try:
            out.append(f"{module}={importlib.metadata.version(module)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return ",".join(out)


class PeerChunker(Strategy):
    """Base for adapters: lazy availability, stats, position mapping, ``ast``'s fallback for files the peer cannot
    chunk. Subclasses implement ``language`` (None: not this peer's) and ``split``."""

    requires: tuple[str, ...] = ()
    install_hint: str = ""
    stat_keys = ("files", "native_files", "fallback_files", "chunks", "unmapped_chunks", "dropped_chars")
    extensions = None  # every file: the ones the peer cannot chunk get the fallback (see the module docstring)
    max_chunk_size: int  # always a number (set in __init__), never WINDOW or None

    def __init__(self, name: str | None = None, max_chunk_size: int = 1000) -> None:
        if name:
            self.name = name
        self.max_chunk_size = max_chunk_size
        self.version = f"{self.version}:{max_chunk_size}:{_library_versions(self.requires)}"
        self._unavailable: str | None | bool = False  # False: not probed yet

    @property
    def unavailable(self) -> str | None:
        if self._unavailable is False:
            self._unavailable = self.probe()
        return self._unavailable  # type: ignore[return-value]

    @unavailable.setter
    def unavailable(self, reason: str | None) -> None:  # Strategy declares a settable attribute
        self._unavailable = reason

    def probe(self) -> str | None:
        """Why the peer cannot run here, or ``None``. Default: every required module is importable."""
        missing = [m for m in self.requires if importlib.util.find_spec(m) is None]
        if missing:
            return f"{', '.join(missing)} not installed ({self.install_hint})"
        return None

    def language(self, path: str) -> str | None:  # pragma: no cover - abstract
        """The peer's name for the language of ``path``, or None when it has no chunker for it."""
        raise NotImplementedError

    def split(self, path: str, text: str, language: str) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def chunk(self, path: str, text: str) -> list[Chunk]:
        reason = self.unavailable
        if reason:
            raise RuntimeError(reason)
        self.count("files")
        language = self.language(path)
        if language is None:
            self.count("fallback_files")
            chunks = line_fallback(text, path, strategy=self.name, max_chunk_size=int(self.max_chunk_size or 1000),
                                   size_unit=self.size_unit, model=self.model if self.size_unit == "tokens" else None)
            self.count("chunks", len(chunks))
            return chunks
        self.count("native_files")
        if not text:
            return []
        return map_back(text, self.split(path, text, language), path=path, strategy=self.name,
                        stats=self.counters())


_LANGCHAIN = {".py": "python", ".js": "js", ".jsx": "js", ".mjs": "js", ".ts": "ts", ".tsx": "ts", ".go": "go",
              ".rs": "rust", ".java": "java", ".c": "c", ".h": "c", ".cpp": "cpp", ".cc": "cpp", ".hpp": "cpp",
              ".rb": "ruby", ".php": "php", ".swift": "swift", ".kt": "kotlin", ".md": "markdown",
              ".markdown": "markdown", ".cs": "csharp", ".scala": "scala", ".lua": "lua"}


class LangchainRecursive(PeerChunker):
    """LangChain's ``RecursiveCharacterTextSplitter.from_language`` (its plain separators for other files).

    It strips whitespace at chunk edges but keeps every non-blank line, so it is lossless in the Strategy sense.
    Its own plain splitter for files of no known language is the peer's behaviour, so those count as native.
    """

    name = "langchain_recursive"
    version = "2"
    description = "LangChain RecursiveCharacterTextSplitter.from_language, 1,000 chars, no overlap"
    requires = ("langchain_text_splitters",)
    install_hint = "pip install langchain-text-splitters"

    def __init__(self, name: str | None = None, max_chunk_size: int = 1000, overlap: int = 0) -> None:
        super().__init__(name, max_chunk_size)
        self.overlap = overlap
        self._splitters: dict[str, Any] = {}

    def language(self, path: str) -> str:
        dot = path.rfind(".")
        return _LANGCHAIN.get(path[dot:].lower() if dot >= 0 else "", "")

    def split(self, path: str, text: str, language: str) -> list[str]:
        splitter = self._splitters.get(language)
        if splitter is None:
            from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

            kw: dict[str, Any] = dict(chunk_size=self.max_chunk_size, chunk_overlap=self.overlap)
            splitter = (RecursiveCharacterTextSplitter.from_language(Language(language), **kw) if language
                        else RecursiveCharacterTextSplitter(**kw))
            self._splitters[language] = splitter
        return splitter.split_text(text)


class AstChunkPeer(PeerChunker):
    """astchunk (the cAST paper's code): Python, Java, C#, TypeScript natively; size in non-whitespace characters.

    Other files get ``ast``'s line fallback at the same 1,000 non-whitespace characters (``fallback_files``).
    ``lossless = False``: it rebuilds chunk text from nodes and can lose text (long docstrings, for one);
    ``dropped_chars`` in stats measures it on every run.
    """

    name = "astchunk"
    version = "2"
    description = "astchunk ASTChunkBuilder, 1,000 non-whitespace chars (other languages: ast's line fallback)"
    requires = ("astchunk",)
    install_hint = "pip install astchunk"
    size_unit = "nonws_chars"
    lossless = False
    _LANG = {".py": "python", ".java": "java", ".cs": "csharp", ".ts": "typescript", ".tsx": "typescript"}

    def __init__(self, name: str | None = None, max_chunk_size: int = 1000) -> None:
        super().__init__(name, max_chunk_size)
        self._builders: dict[str, Any] = {}

    def language(self, path: str) -> str | None:
        dot = path.rfind(".")
        return self._LANG.get(path[dot:].lower()) if dot >= 0 else None

    def split(self, path: str, text: str, language: str) -> list[str]:
        builder = self._builders.get(language)
        if builder is None:
            from astchunk import ASTChunkBuilder

            builder = self._builders[language] = ASTChunkBuilder(
                max_chunk_size=self.max_chunk_size, language=language, metadata_template="default")
        return [w["content"] for w in builder.chunkify(text)]


class ChonkieCode(PeerChunker):
    """chonkie's ``CodeChunker``, one per language (named from the file's path, never guessed from its content).

    CodeChunker parses through tree-sitter-language-pack, which downloads its grammars; here the pack is handed
    the installed grammar wheels instead (:mod:`.grammar_shims`), so it runs offline with the grammars ``ast``
    uses. Files of a language without a wheel get ``ast``'s line fallback (``fallback_files``). Availability is
    probed by chunking a small Python file; what is missing is the skip reason.
    """

    name = "chonkie_code"
    version = "2"
    description = "chonkie CodeChunker, 1,000 characters, grammars from the installed wheels (others: line fallback)"
    requires = ("chonkie", "tree_sitter_language_pack")
    install_hint = "pip install 'chonkie[code]'"

    def __init__(self, name: str | None = None, max_chunk_size: int = 1000) -> None:
        super().__init__(name, max_chunk_size)
        self._chunkers: dict[str, Any] = {}

    def probe(self) -> str | None:
        reason = super().probe()
        if reason:
            return reason
        from pytest_chunkeval.chunking.grammar_shims import missing_piece

        reason = missing_piece()
        if reason:
            return reason
        try:
            pieces = self.split("probe.py", "def f():\n    return 1\n", "python")
        except Exception as exc:  # noqa: BLE001 - whatever stops it is the reason to report
            return f"CodeChunker cannot run offline here: {type(exc).__name__}: {str(exc)[:200]}"
        return None if pieces else "CodeChunker returned no chunks for a two-line Python file"

    def language(self, path: str) -> str | None:
        import tree_sitter_language_pack as pack

        from pytest_chunkeval.chunking.grammar_shims import wheel_grammars

        found = pack.detect_language_from_path(path)
        return found if found in wheel_grammars() else None

    def split(self, path: str, text: str, language: str) -> list[str]:
        chunker = self._chunkers.get(language)
        if chunker is None:
            from chonkie import CodeChunker

            from pytest_chunkeval.chunking.grammar_shims import SHIMS, no_bulk_download

            SHIMS.ensure(language)
            with no_bulk_download():
                chunker = self._chunkers[language] = CodeChunker(language=language, chunk_size=self.max_chunk_size)
        return [c.text for c in chunker.chunk(text)]

    def source_files(self) -> list[Path]:
        """Which grammars it gets (and how) is decided there, so that module feeds the index fingerprint."""
        from pytest_chunkeval.chunking import grammar_shims

        return [Path(grammar_shims.__file__)]
