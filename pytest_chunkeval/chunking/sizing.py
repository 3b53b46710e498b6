"""How big is a chunk? Characters, non-whitespace characters, or the embedding model's tokens - and what fits.

Every size in the package is measured here, so a strategy's limit, the quality checks and the report agree on
one rule per unit:

* ``chars``: Unicode code points.
* ``nonws_chars``: code points other than ASCII whitespace (:data:`WHITESPACE`, Python's ``string.whitespace``).
  It is astchunk's measure, so the peer is held to its own limit; Unicode spaces (no-break, em space) count as
  text, as they do for the tokenizer. Insensitive to indentation style.
* ``tokens``: the tokens of the model in use (a :class:`TokenModel`), special tokens included, i.e. what its
  window counts. Which model is in use is decided by the embedder (``Embedder.tokens``), never here: the window
  and the tokenizer come from the model directory's config, read without loading torch.

The AST chunker asks "how big is ``source[a:b]``?" thousands of times per file, so each unit offers a *span
sizer*: a function of two byte offsets that answers in O(1) or O(log n) after one O(n) pass over the file.
:func:`text_size` measures a finished string exactly; the chunker uses it to check headers and, for tokens, every
final chunk (token counts of a span are exact only up to tokenisation at the span's edges, so the final check is
what makes a window promise hold).
"""
from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from pytest_chunkeval.core.model_files import default_model_dir

SIZE_UNITS = ("chars", "nonws_chars", "tokens")
SpanSizer = Callable[[int, int], int]
#: The one whitespace rule of ``nonws_chars`` (ASCII whitespace, as astchunk counts).
WHITESPACE = " \t\n\r\x0b\x0c"
_WS_BYTES = WHITESPACE.encode("ascii")
_DROP_WS = str.maketrans("", "", WHITESPACE)
#: Above this, a tokenizer's ``model_max_length`` is the "no limit" placeholder transformers writes, not a window.
_NO_LIMIT = 100_000


def check_unit(unit: str) -> str:
    if unit not in SIZE_UNITS:
        raise ValueError(f"size unit must be one of {SIZE_UNITS}, got {unit!r}")
    return unit


def nonws_len(text: str) -> int:
    """Code points of ``text`` that are not :data:`WHITESPACE`."""
    return len(text.translate(_DROP_WS))


class TokenModel(Protocol):
    """What "fits" means: a window in the model's own tokens and a way to count them."""

    @property
    def window(self) -> int: ...

    def count(self, text: str) -> int: ...

    def count_many(self, texts: Sequence[str]) -> list[int]: ...

    def token_starts(self, text: str) -> tuple[list[int], int]: ...


#: Texts tokenized at once when only their token counts are wanted.
COUNT_BATCH = 512


@dataclass(frozen=True)
class ModelTokens:
    """The window and tokenizer of one model directory; built by :func:`model_tokens`, held by the embedder.

    ``tokenizer_dir`` is where the tokenizer files are (a sentence-transformers model may keep its Transformer
    module in a subfolder). The tokenizer is loaded on first use and shared by every object for that folder.
    """

    window: int
    tokenizer_dir: Path
    name: str = ""
    _specials: list[int] = field(default_factory=list, repr=False, compare=False)

    @property
    def tokenizer(self) -> Any:  # tokenizers.Tokenizer
        return load_tokenizer(self.tokenizer_dir)

    def count(self, text: str) -> int:
        return len(self.tokenizer.encode(text).ids)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Token counts of ``texts``, tokenized in slices of :data:`COUNT_BATCH`: an encoding keeps every token's
        string and offsets, so a whole corpus at once (tens of thousands of chunks) holds gigabytes only to count."""
        out: list[int] = []
        for start in range(0, len(texts), COUNT_BATCH):
            out.extend(len(e.ids) for e in self.tokenizer.encode_batch(list(texts[start : start + COUNT_BATCH])))
        return out

    @property
    def specials(self) -> int:
        """Tokens the model adds to every text ([CLS] and [SEP] for BERT)."""
        if not self._specials:
            self._specials.append(len(self.tokenizer.encode("").ids))
        return self._specials[0]

    def read(self, counts: Iterable[int]) -> int:
        """Tokens the model reads to embed texts of ``counts`` tokens each (counted without the specials, as
        ``BuildFacts.tokens`` holds them): each with its specials, cut at the window as the embedder truncates. The
        embedding cost of an index whatever the cache holds: the frontier's ``embed tokens`` axis."""
        return sum(min(n + self.specials, self.window) for n in counts)

    def token_starts(self, text: str) -> tuple[list[int], int]:
        """Character offsets where each token of ``text`` starts (special tokens left out), and their number."""
        enc = self.tokenizer.encode(text, add_special_tokens=False)
        return [s for s, _ in enc.offsets], self.specials


@lru_cache(maxsize=8)
def load_tokenizer(folder: Path) -> Any:  # tokenizers.Tokenizer
    """The fast tokenizer of ``folder``, without torch: ``tokenizer.json`` directly, else the one transformers
    converts from the slow tokenizer's files (vocab.txt, ...). Counting never truncates or pads."""
    if (folder / "tokenizer.json").is_file():
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    else:
        try:
            from transformers import AutoTokenizer

            tok = AutoTokenizer.from_pretrained(str(folder), use_fast=True, local_files_only=True).backend_tokenizer
        except Exception as exc:  # transformers raises OSError, ValueError, ... for a folder without a tokenizer
            raise ValueError(f"{folder}: no tokenizer.json and no tokenizer transformers can build ({exc})") from exc
    tok.no_truncation()
    tok.no_padding()
    return tok


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _transformer_dir(model_dir: Path) -> Path:
    """The folder of the sentence-transformers Transformer module (``modules.json``), else the model folder."""
    modules = model_dir / "modules.json"
    try:
        entries = json.loads(modules.read_text(encoding="utf-8")) if modules.is_file() else []
    except (OSError, ValueError):
        entries = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and str(entry.get("type", "")).endswith("models.Transformer"):
            return model_dir / str(entry.get("path") or "")
    return model_dir


def read_window(model_dir: Path) -> int | None:
    """The model's window in tokens, as sentence-transformers will set it, from the config files alone.

    ``max_seq_length`` of ``sentence_bert_config.json`` when given; else, as sentence-transformers does, the
    smaller of the tokenizer's ``model_max_length`` and the model's ``max_position_embeddings``. None when the
    files say nothing (the embedder then asks the loaded model).
    """
    folder = _transformer_dir(model_dir)
    for where in (folder, model_dir):
        value = _json(where / "sentence_bert_config.json").get("max_seq_length")
        if isinstance(value, int) and value > 0:
            return value
    found = [
        v for v in (_json(folder / "tokenizer_config.json").get("model_max_length"),
                    _json(folder / "config.json").get("max_position_embeddings"))
        if isinstance(v, (int, float)) and 0 < v < _NO_LIMIT
    ]
    return int(min(found)) if found else None


@lru_cache(maxsize=8)
def model_tokens(model_dir: Path, window: int | None = None) -> ModelTokens:
    """Window and tokenizer of the model in ``model_dir`` (``window`` overrides the config's)."""
    size = window if window is not None else read_window(model_dir)
    if size is None:
        raise ValueError(f"{model_dir}: no max_seq_length, model_max_length or max_position_embeddings in its config")
    return ModelTokens(size, _transformer_dir(model_dir), name=model_dir.name)


def default_tokens() -> ModelTokens:
    """The bundled all-MiniLM-L6-v2's window (256) and tokenizer: what "tokens" means outside an evaluation
    (a strategy used directly, ``ast_chunks(...)`` called by hand)."""
    return model_tokens(default_model_dir())


def count_tokens(text: str, model_dir: Path | None = None) -> int:
    """Tokens the model in ``model_dir`` (the bundled one by default) sees for ``text``, including [CLS]/[SEP],
    before truncation. Here, not in ``core.model_files``: that module only finds and checks the model's files,
    and counting is a size, measured in this one place."""
    return (model_tokens(model_dir) if model_dir is not None else default_tokens()).count(text)


def text_size(text: str, unit: str = "chars", model: TokenModel | None = None) -> int:
    """Exact size of ``text`` in ``unit`` (tokens of ``model``, the bundled model when None)."""
    if unit == "chars":
        return len(text)
    if unit == "nonws_chars":
        return nonws_len(text)
    if unit == "tokens":
        return (model or default_tokens()).count(text) if text else 0
    raise ValueError(check_unit(unit))


def span_sizer(unit: str, data: bytes, text: str | None = None, model: TokenModel | None = None) -> SpanSizer:
    """A function ``size(a, b)`` giving the size of ``data[a:b]`` (byte offsets at character boundaries)."""
    check_unit(unit)
    if unit == "chars" and data.isascii():
        return _byte_span
    import numpy as np

    arr = np.frombuffer(data, dtype=np.uint8)
    if unit == "chars":
        return _prefix_sizer(np, (arr & 0xC0) != 0x80)
    if unit == "nonws_chars":  # lead bytes of code points that are not WHITESPACE: the same rule as nonws_len
        counted = ((arr & 0xC0) != 0x80) & ~np.isin(arr, np.frombuffer(_WS_BYTES, dtype=np.uint8))
        return _prefix_sizer(np, counted)
    return _token_sizer(np, data, text, model or default_tokens())


def _byte_span(a: int, b: int) -> int:
    return b - a


def _prefix_sizer(np, counted) -> SpanSizer:
    prefix = np.zeros(len(counted) + 1, dtype=np.int64)
    np.cumsum(counted, out=prefix[1:])
    pre = prefix.tolist() if len(prefix) < 4_000_000 else prefix

    def size(a: int, b: int) -> int:
        return int(pre[b] - pre[a])

    return size


def _token_sizer(np, data: bytes, text: str | None, model: TokenModel) -> SpanSizer:
    """Tokens of a span = tokens of the whole file starting inside it, plus the model's special tokens.

    One encode of the file, then a bisect per question. WordPiece splits at whitespace and punctuation, where
    syntax-node boundaries almost always fall, so this equals the exact count in practice; the chunker still
    re-checks finished chunks exactly.
    """
    if text is None:
        text = data.decode("utf-8", "surrogatepass")
    char_starts, specials = model.token_starts(text)
    if not data.isascii():
        widths = np.fromiter((len(c.encode("utf-8", "surrogatepass")) for c in text), dtype=np.int64, count=len(text))
        byte_at = np.zeros(len(text) + 1, dtype=np.int64)
        np.cumsum(widths, out=byte_at[1:])
        starts = byte_at[np.asarray(char_starts, dtype=np.int64)].tolist() if char_starts else []
    else:
        starts = char_starts

    def size(a: int, b: int) -> int:
        return bisect_left(starts, b) - bisect_left(starts, a) + specials

    return size
