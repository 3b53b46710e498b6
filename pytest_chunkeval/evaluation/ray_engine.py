"""Chunking and embedding as Ray Data pipelines (``--chunkeval-engine ray``, the ``ray`` extra).

What runs where: the driver (the pytest process) reads the suite, decides which files a strategy handles, checks
the embedding cache, builds the LanceDB table, searches and scores, exactly as with the local engine. Ray runs the
two expensive, embarrassingly parallel stages:

1. **chunking**: ``from_items(files) -> map_batches(chunk)``, tasks on any CPU of the cluster. A worker rebuilds
   the strategy from its registration (the file that registered it, imported by path, and the factory called),
   because strategy objects need not pickle (tree-sitter parsers, compiled grammars) and their modules are loaded
   by path, so cloudpickle could not import them by name either. Each file comes back with its chunks, fallbacks
   and counters; the driver puts them in file order, whatever order Ray finished them in.
2. **embedding**: the texts the cache lacks, cut into batches by :meth:`Embedder.encode` exactly as the local path
   cuts them (longest first, ``batch_size`` each), go through ``map_batches`` over a pool of actors, each holding one
   copy of the same model (same directory, backend and device; ``num_gpus=1`` per actor on cuda). Same batches and
   same model call give the same vectors (equal within float32 rounding: thread counts differ).

The cache is read between the stages and written by the driver alone as batches come back (one SQLite writer),
so a table that already exists costs only the chunking, a warm cache embeds nothing, and a later local run reuses
both. The two stages are not fused into one streaming pipeline on purpose: the cache lookup needs the chunk texts,
and chunking takes a small fraction of embedding's time, so overlapping them would save little.

Ray is imported only here, and only when the engine is used.
"""
from __future__ import annotations

import importlib.util
import os
import pickle
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from pytest_chunkeval.chunking.contract import Contract, Registration, registrations
from pytest_chunkeval.chunking.strategy_files import exec_source
from pytest_chunkeval.core.chunk import Chunk
from pytest_chunkeval.core.grid import Point

#: Strategies rebuilt in this (worker) process, by spec: a worker runs many chunking tasks, the factory runs once.
_BUILT: dict[StrategySpec, Contract] = {}


@dataclass(frozen=True)
class StrategySpec:
    """What a Ray worker needs to rebuild a registered strategy: its registration and the model it is sized for.

    ``digest`` is the registering file's content as the driver read it: a worker outlives one pytest session when
    the driver process runs several (pytester, an IDE) on one Ray job, and must not chunk with an edited file's
    older code, which would fill a table under the new code's fingerprint.
    """

    name: str
    origin: str  # "path/to/module.py:line", as the registration recorded it
    model: str | None  # --chunkeval-model (None: the bundled default)
    digest: str = ""
    ref: str | None = None  # "module:function" (and its arguments) for a strategy no strategy file defines
    args: tuple[str, ...] = ()
    point: Point = ()  # a grid point's keyword arguments (``name`` is then its strategy's own, as registered)

    @classmethod
    def of(cls, reg: Registration, model: str | None) -> StrategySpec:
        return cls(reg.strategy_name, reg.origin, model, _digest(Path(reg.origin.rsplit(":", 1)[0])), reg.ref,
                   reg.args, reg.point)

    def build(self) -> Contract:
        """The strategy's contract, bound to the embedder's tokens, built once per process."""
        if self not in _BUILT:
            from pytest_chunkeval.retrieval.embed import Embedder

            reg = self._imported() if self.ref else _registration(self.name, self.origin, self.digest)
            _BUILT[self] = replace(reg, point=self.point).build().bind(Embedder(self.model).tokens)
        return _BUILT[self]

    def _imported(self) -> Registration:
        """A package's or a grammar setting's strategy: its factory is importable by name on every node."""
        assert self.ref is not None
        module, _, attr = self.ref.partition(":")
        factory = getattr(importlib.import_module(module), attr)
        args = self.args
        return Registration(self.name, lambda **point: factory(*args, **point), self.origin, ref=self.ref, args=args)


def _digest(path: Path) -> str:
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


#: Strategy files this (worker) process imported itself, with the digest of what it executed.
_IMPORTED: dict[Path, str] = {}


def _registration(name: str, origin: str, digest: str = "") -> Registration:
    """The registration of ``name`` made at ``origin``, importing its module by path when this process lacks it
    (or has an older version of it)."""
    path = Path(origin.rsplit(":", 1)[0])
    found = [r for r in registrations() if r.name == name and r.origin == origin]
    stale = path in _IMPORTED and _IMPORTED[path] != digest
    if not found or stale:
        if not path.is_file():
            raise RuntimeError(f"strategy {name!r} ({origin}): a Ray worker cannot rebuild it, its module "
                               f"{path} is not readable on this node")
        _import_path(path)
        _IMPORTED[path] = _digest(path)
        found = [r for r in registrations() if r.name == name and r.origin == origin]
    if not found:
        raise RuntimeError(f"strategy {name!r}: importing {origin} in a Ray worker registered no such strategy")
    return found[-1]


def _import_path(path: Path) -> None:
    """Execute a strategy module by path, under the name discovery gives it (``chunkeval_strategies.<stem>``)."""
    name = f"chunkeval_strategies.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - only for exotic files
        raise RuntimeError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec_source(module, path)  # an edited file is re-run from its source, whatever its byte-code cache says


def chunk_rows(batch: dict[str, Any], spec: StrategySpec, max_chunks: int | None = None) -> dict[str, Any]:
    """A Ray Data batch of files -> one row per file: its position and its pickled (chunks, fallbacks, stats).

    Counters are reset before each file and read after it, so each file's counters travel with it and the driver
    can add them up in file order (:func:`merge_stats`). Pickled rather than columns: a chunk may carry any metadata.
    ``max_chunks`` is the driver's chunk cap (None: the default).
    """
    from pytest_chunkeval.chunking.boundary import chunk_file
    from pytest_chunkeval.core.vocabulary import MAX_CHUNKS_PER_FILE

    cap = MAX_CHUNKS_PER_FILE if max_chunks is None else max_chunks

    contract = spec.build()
    out_index, payloads = [], []
    for index, path, text in zip(batch["index"], batch["path"], batch["text"], strict=True):
        contract.reset_stats()
        fallbacks: list[str] = []
        chunks = chunk_file(contract, spec.name, str(path), str(text), fallbacks, max_chunks=cap)
        out_index.append(int(index))
        payloads.append(pickle.dumps((chunks, fallbacks, contract.stats())))
    return {"index": np.array(out_index, dtype=np.int64), "payload": np.array(payloads, dtype=object)}


class EmbedActor:
    """A Ray actor holding one model; embeds one prepared batch per call, with the driver's exact batch."""

    def __init__(self, model: str | None, device: str, backend: str, batch_size: int, onnx_dir: str) -> None:
        from pytest_chunkeval.retrieval.embed import Embedder

        self.embedder = Embedder(model, cache=None, device=device, batch_size=batch_size, backend=backend,
                                 onnx_dir=Path(onnx_dir))

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        groups: list[int] = []
        positions: list[int] = []
        vectors: list[np.ndarray] = []
        for group, texts in zip(batch["group"], batch["texts"], strict=True):
            vecs = self.embedder.encode_batch([str(t) for t in texts])
            groups.extend([int(group)] * len(vecs))
            positions.extend(range(len(vecs)))
            vectors.append(vecs)
        return {"group": np.array(groups, dtype=np.int64), "pos": np.array(positions, dtype=np.int64),
                "vector": np.concatenate(vectors).astype(np.float32)}


def merge_stats(parts: list[dict[str, Any]], contract: Contract | None = None) -> dict[str, Any]:
    """Per-file counters added up as one pass over the files would have counted them.

    Integers add, lists (warnings) concatenate in file order, dicts merge key by key. A derived value (a ratio
    such as ``parsed_pct``) cannot be added: the driver's own strategy object is given the summed counters and
    asked for its stats, which recomputes it; what it cannot recompute keeps the last file's value.
    """
    merged: dict[str, Any] = {}
    for part in parts:
        _add_into(merged, part)
    counters = getattr(contract.strategy, "counters", None) if contract is not None else None
    if callable(counters):
        contract.reset_stats()  # type: ignore[union-attr]
        live = counters()
        if isinstance(live, dict):
            live.update({k: v for k, v in merged.items() if isinstance(v, int) and not isinstance(v, bool)})
            derived = contract.stats()  # type: ignore[union-attr]
            merged.update({k: v for k, v in derived.items() if k in merged and not _additive(merged[k])})
        contract.reset_stats()  # type: ignore[union-attr]
    return merged


def _additive(value: Any) -> bool:
    return isinstance(value, (list, dict)) or (isinstance(value, int) and not isinstance(value, bool))


def _add_into(into: dict[str, Any], part: dict[str, Any]) -> None:
    for key, value in part.items():
        before = into.get(key)
        if key not in into:
            into[key] = list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value
        elif isinstance(before, list) and isinstance(value, list):
            before.extend(value)
        elif isinstance(before, dict) and isinstance(value, dict):
            _add_into(before, value)
        elif _additive(before) and _additive(value):
            into[key] = before + value
        else:
            into[key] = value


@dataclass
class FileChunks:
    """One file's result from a chunking task."""

    path: str
    chunks: list[Chunk]
    fallbacks: list[str]
    stats: dict[str, Any]


def init_kwargs(address: str | None) -> dict[str, Any]:
    """Arguments for ``ray.init``: quiet (no dashboard, workers' logs stay in Ray's log folder), and for a local
    cluster the driver's ``sys.path`` handed to the workers, so they import this very ``pytest_chunkeval`` (a
    worktree, a ``PYTHONPATH`` checkout), not whatever else the interpreter would find first."""
    import logging

    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": True,
                              "logging_level": logging.ERROR, "ignore_reinit_error": True}
    if address:
        kwargs["address"] = address
    else:
        paths = [p for p in sys.path if p and Path(p).is_dir()]
        env = {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)), "TOKENIZERS_PARALLELISM": "false",
               "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        kwargs["runtime_env"] = {"env_vars": env}
    return kwargs


@contextmanager
def _quiet() -> Iterator[None]:
    """Ray Data's own deprecation warnings (its context sets deprecated fields to their defaults) are not the
    user's to act on: kept out of pytest's warnings summary."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"ray(\.|$)")
        yield


def _batches(ds: Any) -> Iterator[dict[str, Any]]:
    """A dataset's output batches as Ray produces them (any order), each fetched with Ray's warnings muted."""
    it: Iterator[dict[str, Any]] = iter(ds.iter_batches(batch_size=None, batch_format="numpy"))
    while True:
        with _quiet():
            batch = next(it, None)
        if batch is None:
            return
        yield batch


@dataclass
class RayEngine:
    """Chunks and embeds through Ray; the :class:`~pytest_chunkeval.evaluation.evaluate.Evaluator` delegates to it."""

    address: str | None = None
    _started: bool = field(default=False, repr=False)  # this engine called ray.init, so it shuts Ray down

    def _ray(self) -> Any:
        with _quiet():
            return self._start()

    def _start(self) -> Any:
        import ray

        if not ray.is_initialized():  # a cluster this process already joined (a test, a notebook) is used as is
            ray.init(**init_kwargs(self.address))
            self._started = True
        import ray.data

        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        ctx.enable_auto_log_stats = False
        ctx.verbose_stats_logs = False
        import logging

        for name in ("ray", "ray.data"):
            logging.getLogger(name).setLevel(logging.ERROR)
        return ray

    def _resources(self, kind: str) -> int:
        return int(self._ray().cluster_resources().get(kind, 0))

    def chunk(self, reg: Registration, files: list[tuple[str, str]], model: str | None,
              max_chunks: int | None = None) -> list[FileChunks]:
        """Chunk ``files`` (in the order the local path visits them) on the cluster, each file's chunks capped at
        ``max_chunks`` as the local path caps them; results in that order."""
        if not files:
            return []
        ray = self._ray()
        spec = StrategySpec.of(reg, model)
        tasks = max(1, min(len(files), self._resources("CPU")))
        items = [{"index": i, "path": p, "text": t} for i, (p, t) in enumerate(files)]
        with _quiet():
            ds = ray.data.from_items(items, override_num_blocks=tasks)
        ds = ds.map_batches(chunk_rows, fn_kwargs={"spec": spec, "max_chunks": max_chunks}, batch_format="numpy",
                            batch_size=max(1, -(-len(files) // tasks)))
        results: dict[int, FileChunks] = {}
        for batch in _batches(ds):
            for index, payload in zip(batch["index"], batch["payload"], strict=True):
                chunks, fallbacks, stats = pickle.loads(payload)
                results[int(index)] = FileChunks(files[int(index)][0], chunks, fallbacks, stats)
        missing = [files[i][0] for i in range(len(files)) if i not in results]
        if missing:
            raise RuntimeError(f"Ray returned no chunks for {len(missing)} files, e.g. {missing[0]}")
        return [results[i] for i in range(len(files))]

    def runner(self, model: str | None, device: str, backend: str, batch_size: int, onnx_dir: Path):
        """A :data:`~pytest_chunkeval.retrieval.embed.BatchRunner` embedding on a pool of Ray actors."""

        def run(batches: list[list[str]]) -> Iterator[tuple[int, np.ndarray]]:
            ray = self._ray()
            gpu = device.split(":", 1)[0] == "cuda"
            slots = self._resources("GPU") if gpu else self._resources("CPU")
            if gpu and slots < 1:
                raise RuntimeError("--chunkeval-device cuda with --chunkeval-engine ray: the cluster has no GPU")
            actors = max(1, min(len(batches), slots))
            with _quiet():
                ds = ray.data.from_items([{"group": i, "texts": b} for i, b in enumerate(batches)],
                                         override_num_blocks=min(len(batches), actors * 4))
            ds = ds.map_batches(
                EmbedActor, fn_constructor_args=(model, device, backend, batch_size, str(onnx_dir)),
                batch_size=1, batch_format="numpy", concurrency=actors,
                **({"num_gpus": 1} if gpu else {"num_cpus": 1}),
            )
            sizes = [len(b) for b in batches]
            pending: dict[int, dict[int, np.ndarray]] = {}
            for out in _batches(ds):
                for group, pos, vector in zip(out["group"], out["pos"], out["vector"], strict=True):
                    rows = pending.setdefault(int(group), {})
                    rows[int(pos)] = np.asarray(vector, dtype=np.float32)
                    if len(rows) == sizes[int(group)]:
                        del pending[int(group)]
                        yield int(group), np.stack([rows[j] for j in range(len(rows))])

        return run

    def close(self) -> None:
        """Shut Ray down if this engine started it (a cluster someone else joined stays up)."""
        if self._started:
            import ray

            ray.shutdown()
            self._started = False
