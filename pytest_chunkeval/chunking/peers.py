"""Run other people's code chunkers (LangChain, astchunk, chonkie) in the same harness, when installed.

Why adapters: the design's claim "whole functions beat the pip-installable AST chunkers" is only worth
something if the peers run on the same corpus, embedder and index. Each adapter turns a peer's output into
:class:`Chunk` objects with positions, counts what the peer lost, and never fails a run because a peer is absent.

``unavailable`` (``None`` or a reason) is how a peer says it cannot run here - not installed, or it would need
the network (chonkie's CodeChunker downloads tree-sitter grammars when created). It is computed lazily and
cached, so building the strategy costs nothing; the harness skips the strategy's items with that reason.

Peers return strings without positions: :func:`map_back` finds each piece in the source, searching forward
from the previous piece, and fills lines and byte offsets. Pieces that cannot be found are counted
(``unmapped_chunks``), as are source characters no piece covers (``dropped_chars``, whitespace excluded).
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from typing import Any

from pytest_chunkeval.chunk import Chunk, line_of, line_starts
from pytest_chunkeval.strategy import Strategy


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


class PeerChunker(Strategy):
    """Base for adapters: lazy availability, stats, position mapping. Subclasses implement ``split``."""

    requires: tuple[str, ...] = ()
    install_hint: str = ""
    stat_keys = ("files", "chunks", "unmapped_chunks", "dropped_chars")

    def __init__(self, name: str | None = None, max_chunk_size: int = 1000) -> None:
        if name:
            self.name = name
        self.max_chunk_size = max_chunk_size
        self.version = f"{self.version}:{max_chunk_size}"
        self._unavailable: str | None | bool = False  # False: not probed yet

    @property
    def unavailable(self) -> str | None:
        if self._unavailable is False:
            self._unavailable = self.probe()
        return self._unavailable  # type: ignore[return-value]

    def probe(self) -> str | None:
        """Why the peer cannot run here, or ``None``. Default: every required module is importable."""
        missing = [m for m in self.requires if importlib.util.find_spec(m) is None]
        if missing:
            return f"{', '.join(missing)} not installed ({self.install_hint})"
        return None

    def split(self, path: str, text: str) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def chunk(self, path: str, text: str) -> list[Chunk]:
        reason = self.unavailable
        if reason:
            raise RuntimeError(reason)
        self.count("files")
        if not text:
            return []
        return map_back(text, self.split(path, text), path=path, strategy=self.name, stats=self.counters())


_LANGCHAIN = {".py": "python", ".js": "js", ".jsx": "js", ".mjs": "js", ".ts": "ts", ".tsx": "ts", ".go": "go",
              ".rs": "rust", ".java": "java", ".c": "c", ".h": "c", ".cpp": "cpp", ".cc": "cpp", ".hpp": "cpp",
              ".rb": "ruby", ".php": "php", ".swift": "swift", ".kt": "kotlin", ".md": "markdown",
              ".markdown": "markdown", ".cs": "csharp", ".scala": "scala", ".lua": "lua"}


class LangchainRecursive(PeerChunker):
    """LangChain's ``RecursiveCharacterTextSplitter.from_language`` (plain separators for other files).

    It strips whitespace at chunk edges but keeps every non-blank line, so it is lossless in the Strategy sense.
    """

    name = "langchain_recursive"
    version = "1"
    description = "LangChain RecursiveCharacterTextSplitter.from_language, 1,000 chars, no overlap"
    requires = ("langchain_text_splitters",)
    install_hint = "pip install langchain-text-splitters"

    def __init__(self, name: str | None = None, max_chunk_size: int = 1000, overlap: int = 0) -> None:
        super().__init__(name, max_chunk_size)
        self.overlap = overlap
        self._splitters: dict[str, Any] = {}

    def split(self, path: str, text: str) -> list[str]:
        dot = path.rfind(".")
        lang = _LANGCHAIN.get(path[dot:].lower() if dot >= 0 else "", "")
        splitter = self._splitters.get(lang)
        if splitter is None:
            from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

            kw = dict(chunk_size=self.max_chunk_size, chunk_overlap=self.overlap)
            splitter = (RecursiveCharacterTextSplitter.from_language(Language(lang), **kw) if lang
                        else RecursiveCharacterTextSplitter(**kw))
            self._splitters[lang] = splitter
        return splitter.split_text(text)


class AstChunkPeer(PeerChunker):
    """astchunk (the cAST paper's code): Python, Java, C#, TypeScript; size in non-whitespace characters.

    ``lossless = False``: it rebuilds chunk text from nodes and can lose text (long docstrings were seen vanishing);
    ``dropped_chars`` in stats measures it on every run.
    """

    name = "astchunk"
    version = "1"
    description = "astchunk ASTChunkBuilder, 1,000 non-whitespace chars"
    requires = ("astchunk",)
    install_hint = "pip install astchunk"
    extensions = (".py", ".java", ".cs", ".ts", ".tsx")
    size_unit = "nonws_chars"
    lossless = False
    _LANG = {".py": "python", ".java": "java", ".cs": "csharp", ".ts": "typescript", ".tsx": "typescript"}

    def __init__(self, name: str | None = None, max_chunk_size: int = 1000) -> None:
        super().__init__(name, max_chunk_size)
        self._builders: dict[str, Any] = {}

    def split(self, path: str, text: str) -> list[str]:
        lang = self._LANG.get(path[path.rfind("."):].lower())
        if lang is None:
            raise ValueError(f"{self.name} does not handle {path}")
        builder = self._builders.get(lang)
        if builder is None:
            from astchunk import ASTChunkBuilder

            builder = self._builders[lang] = ASTChunkBuilder(
                max_chunk_size=self.max_chunk_size, language=lang, metadata_template="default")
        return [w["content"] for w in builder.chunkify(text)]


_CHONKIE_PROBE = """
import sys
from chonkie import CodeChunker
c = CodeChunker(language="python", chunk_size=64)
c.chunk("def f():\\n    return 1\\n")
print("ok")
"""


class ChonkieCode(PeerChunker):
    """chonkie's ``CodeChunker``. It needs tree-sitter-language-pack, which downloads grammars on first use, so
    availability is probed in a subprocess with a timeout (it must work offline or report why not, never hang).
    """

    name = "chonkie_code"
    version = "1"
    description = "chonkie CodeChunker, 1,000 characters"
    requires = ("chonkie", "tree_sitter_language_pack")
    install_hint = "pip install chonkie tree-sitter-language-pack; its grammars download at first use"
    extensions = (".py", ".js", ".jsx", ".ts", ".tsx", ".go", ".rs", ".java", ".c", ".h", ".cpp", ".rb", ".php",
                  ".swift", ".kt")
    probe_timeout_s = 30.0

    def probe(self) -> str | None:
        reason = super().probe()
        if reason:
            return reason
        try:
            run = subprocess.run([sys.executable, "-c", _CHONKIE_PROBE], capture_output=True, text=True,
                                 timeout=self.probe_timeout_s)
        except subprocess.TimeoutExpired:
            return f"CodeChunker did not start within {self.probe_timeout_s:.0f} s (grammar download offline?)"
        if run.returncode != 0 or "ok" not in run.stdout:
            last = (run.stderr.strip().splitlines() or ["no output"])[-1]
            return f"CodeChunker cannot run offline here: {last[:200]}"
        return None

    def split(self, path: str, text: str) -> list[str]:  # pragma: no cover - needs the language pack
        from chonkie import CodeChunker

        chunker = self.__dict__.get("_chunker")
        if chunker is None:
            chunker = self._chunker = CodeChunker(language="auto", chunk_size=self.max_chunk_size)
        return [c.text for c in chunker.chunk(text)]
