"""What a chunking strategy declares: the :class:`Strategy` base a user's strategy can subclass, and the values it
declares with (:data:`WINDOW`, the parse-error record).

A strategy is any object with a ``name`` and ``chunk(path, text) -> list[Chunk]`` (:class:`ChunkingStrategy`).
:class:`Strategy` gives the optional parts sensible defaults (which files it handles, its declared limits, what it
feeds on) and the counters a report reads, so a user's strategy can be a dozen lines. What the harness then relies
on is resolved from these declarations once, into a :class:`~pytest_chunkeval.chunking.contract.Contract`
(:func:`~pytest_chunkeval.chunking.contract.resolve`); the limit rules both sides share (:func:`resolve_limit`,
:func:`window_fits`) live here, so the base and the contract cannot disagree on them.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pytest_chunkeval.chunking.sizing import default_tokens, text_size
from pytest_chunkeval.core.chunk import Chunk

if TYPE_CHECKING:
    from pytest_chunkeval.chunking.sizing import TokenModel


@runtime_checkable
class ChunkingStrategy(Protocol):
    """The minimal contract the harness relies on."""

    name: str

    def chunk(self, path: str, text: str) -> list[Chunk]: ...


#: ``max_chunk_size = WINDOW`` (with ``size_unit = "tokens"``): as large as the window of the model in use.
WINDOW = "window"

#: The ``stats()`` key of the files a grammar could not parse: path -> its error regions, ``[[first, last], ...]``
#: (1-based lines, merged, in file order). A counter says how many; this says where, so the report, the Markdown
#: and ``quality[parse-errors]`` can name them.
PARSE_ERROR_LINES = "parse_error_lines"
#: Regions kept per file: a file of garbage can hold thousands of ERROR nodes, and the first few say enough.
MAX_ERROR_REGIONS = 20

ErrorLines = dict[str, list[list[int]]]


def note_error_lines(into: ErrorLines | None, path: str, regions: Iterable[tuple[int, int]]) -> None:
    """Record ``path``'s error regions in ``into`` (merged with what it already holds, overlapping or adjacent
    ranges joined, at most :data:`MAX_ERROR_REGIONS`); a file with no region is still recorded, at line 1, so a
    parse failure is never lost for want of a position."""
    if into is None:
        return
    spans = sorted((min(a, b), max(a, b)) for a, b in [*(tuple(r) for r in into.get(path, ())), *regions])
    merged: list[list[int]] = []
    for a, b in spans or [(1, 1)]:
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    into[path] = merged[:MAX_ERROR_REGIONS]


class Strategy:
    """Convenient base for strategies; every attribute here is optional for a duck-typed strategy.

    Declarations (read once, by :func:`~pytest_chunkeval.chunking.contract.resolve`, when the strategy is built):
    ``extensions`` of ``None`` means "every text file". ``max_chunk_size`` with ``size_unit`` ("chars",
    "nonws_chars" or "tokens", see :mod:`.sizing`) is the limit the quality checks hold the strategy to; in tokens
    it may be :data:`WINDOW`. ``size_applies_to`` says whether it bounds the whole embedded ``text`` (header
    included) or only the source ``body``. A limit in tokens of the whole text that is within the model's window
    promises that nothing is truncated (``fits_window``), so truncation becomes a failure instead of a statistic;
    ``fits_window = True`` makes that promise for any other unit. ``lossless`` promises every non-blank source line
    appears in some chunk, except the lines :meth:`dropped_lines` declares left out on purpose. ``unavailable``,
    when set, is the reason the strategy cannot run here (an optional peer library missing); its items are skipped
    with it.

    Counters live here too: :meth:`count` and :meth:`warn` while chunking, :meth:`stats` for the report (the keys
    of ``stat_keys`` always, zero when never counted), :meth:`reset_stats` before each evaluation. The harness
    hands the strategy the model in use with :meth:`use_model`; :attr:`model` and :meth:`measure` size in its
    tokens (the bundled all-MiniLM-L6-v2's outside an evaluation).
    """

    unavailable: str | None = None

    name: str = ""
    version: str = "1"
    description: str = ""
    extensions: tuple[str, ...] | None = None
    max_chunk_size: int | str | None = None
    size_unit: str = "chars"
    size_applies_to: str = "text"
    lossless: bool = True
    stat_keys: tuple[str, ...] = ()
    _fits_window: bool = False
    _counts: dict[str, int]  # set on first use (see _counters, reset_stats); declared here for its type only
    _warnings: list[str]
    _error_lines: ErrorLines

    def chunk(self, path: str, text: str) -> list[Chunk]:  # pragma: no cover - abstract
        raise NotImplementedError

    def handles(self, path: str) -> bool:
        if self.extensions is None:
            return True
        return path.lower().endswith(tuple(e.lower() for e in self.extensions))

    def source_files(self) -> list[Path]:
        """Files the strategy reads besides its code (a grammar, a config): they feed the index fingerprint."""
        return []

    def dropped_lines(self, path: str, text: str) -> Iterable[int]:
        """1-based lines of ``text`` this strategy leaves out on purpose (comments it strips, say): the lossless
        check does not count them. A declaration, so a strategy that drops text can still be held to the rest."""
        return ()

    # -- the model in use ---------------------------------------------------------------------------------------
    def use_model(self, model: TokenModel) -> None:
        """Size in this model's tokens and window from now on (the harness calls it with the embedder's)."""
        self._model = model

    @property
    def model(self) -> TokenModel:
        found = self.__dict__.get("_model")
        return default_tokens() if found is None else found

    @property
    def limit(self) -> int | None:
        """``max_chunk_size`` as a number: :data:`WINDOW` resolved against the model in use."""
        return resolve_limit(self.max_chunk_size, self.size_unit, self.model)

    @property
    def fits_window(self) -> bool:
        """Whether every chunk is promised to fit the model's window: declared, or implied by the limit."""
        return self._fits_window or window_fits(self.size_unit, self.size_applies_to, self.limit, self.model)

    @fits_window.setter
    def fits_window(self, promise: bool) -> None:
        self._fits_window = bool(promise)

    def measure(self, text: str) -> int:
        """Size of ``text`` in this strategy's unit, with the model in use."""
        return text_size(text, self.size_unit, self.model)

    # -- counters -----------------------------------------------------------------------------------------------
    def _counters(self) -> dict[str, int]:
        found = self.__dict__.get("_counts")
        if found is None:
            found = self._counts = {}
        return found

    def counters(self) -> dict[str, int]:
        """The live counter dict, for engines that count into a dict they are given (``ast_chunks(stats=...)``)."""
        return self._counters()

    def count(self, key: str, n: int = 1) -> None:
        counts = self._counters()
        counts[key] = counts.get(key, 0) + n

    def error_lines(self) -> ErrorLines:
        """The live record of parse errors (:data:`PARSE_ERROR_LINES`), for engines that note into a dict they are
        given (``ast_chunks(errors=...)``)."""
        found = self.__dict__.get("_error_lines")
        if found is None:
            found = self._error_lines = {}
        return found

    def parse_failed(self, path: str, regions: Iterable[tuple[int, int]]) -> None:
        """``path`` did not parse cleanly; ``regions`` are the line ranges the grammar could not read."""
        note_error_lines(self.error_lines(), path, regions)

    def warn(self, message: str) -> None:
        """A finding worth reading in the report (``path:line: reason``), kept in ``stats()["warnings"]``."""
        self.__dict__.setdefault("_warnings", []).append(message)

    def stats(self) -> dict[str, Any]:
        """Counters the strategy wants in the report (parse failures, fallbacks, ...), since its last reset."""
        counts = self._counters()
        warnings = list(self.__dict__.get("_warnings", ()))
        out: dict[str, Any] = {k: warnings if k == "warnings" else counts.get(k, 0) for k in self.stat_keys}
        out.update((k, v) for k, v in counts.items() if k not in out)
        if warnings:
            out["warnings"] = warnings
        errors = self.__dict__.get("_error_lines")
        if errors:
            out[PARSE_ERROR_LINES] = {p: [list(r) for r in rs] for p, rs in errors.items()}
        return out

    def reset_stats(self) -> None:
        self._counts = {}
        self._warnings = []
        self._error_lines = {}


def resolve_limit(declared: Any, unit: str, model: TokenModel | None) -> int | None:
    """A declared ``max_chunk_size`` as a number (None: no limit)."""
    if declared is None:
        return None
    if declared == WINDOW:
        if unit != "tokens":
            raise ValueError(f"max_chunk_size={WINDOW!r} needs size_unit='tokens', not {unit!r}")
        return (model or default_tokens()).window
    if isinstance(declared, bool) or not isinstance(declared, int) or declared < 1:
        raise ValueError(f"max_chunk_size must be a positive integer, {WINDOW!r} or None, got {declared!r}")
    return declared


def window_fits(unit: str, applies_to: str, limit: int | None, model: TokenModel | None) -> bool:
    """A limit on the whole embedded text, in the model's own tokens, within its window: nothing is truncated."""
    if unit != "tokens" or applies_to != "text" or limit is None:
        return False
    return limit <= (model or default_tokens()).window
