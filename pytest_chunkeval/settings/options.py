"""A run's ``Options``: every setting of the table read (``flags.py``) and checked, alone and together.

Every setting is declared once, in the table; ``flags.py`` turns each declaration into a flag and an ini entry and
reads a value back. Here the values become one typed object, checked before anything is collected: a bad value stops
the run with one ``pytest.UsageError`` in one wording, ``--flag / ini key must be <what>, got <value>`` (a wrong
setting is a usage mistake, never a failure of every item or an INTERNALERROR). No other module reads an option: the
hooks ask the few functions of ``flags.py`` (``evaluating``, ``cleaning``, ``strategy_files``) and everything else
reads ``Options``. Only a run that evaluates imports this module.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_chunkeval.settings.flags import base_dir, read
from pytest_chunkeval.settings.table import SETTING, SETTINGS

if TYPE_CHECKING:  # imported where used: reading the options needs none of them
    from pytest_chunkeval.core.grid import Grid
    from pytest_chunkeval.judges.comparison import Policy
    from pytest_chunkeval.judges.gates import Thresholds
    from pytest_chunkeval.retrieval.storage import StorageOptions

#: The JSON report's file name in the cache folder, where it goes unless --chunkeval-report names a path.
REPORT_NAME = "chunkeval-report.json"
#: Fields of Options that are no setting: the folder relative settings were resolved in.
CONTEXT_FIELDS = ("rootdir",)


def _default(name: str) -> Any:
    """The field's default, from the table: a dataclass default written here would be a second one to keep equal."""
    return field(default_factory=SETTING[name].typed_default)


@dataclass
class Options:
    """Everything configurable, already merged from command line and ini (the command line wins).

    One field per setting of the table, of the same name (a test holds them equal), plus ``rootdir``. Declared by
    hand so that every field is typed for mypy; the defaults come from the table.
    """

    rootdir: Path  # where relative settings were resolved: the ini file's folder (see base_dir)
    evaluate: bool = _default("evaluate")
    project: Path | None = _default("project")  # an isolated run's project configuration (chunkeval run)
    golden_patterns: list[str] = _default("golden_patterns")
    golden_paths: list[Path] = _default("golden_paths")
    strategy_names: list[str] = _default("strategy_names")  # the strategies to run (empty: every one known)
    strategies_dir: Path = _default("strategies_dir")
    misses: str = _default("misses")  # without a base: "report" misses against the record, or "fail" each one
    gate_grid: bool = _default("gate_grid")  # a grid point's misses fail (a sweep measures by default)
    grammars: list[Path] = _default("grammars")  # Lark grammars -> ebnf_metadata, ebnf_full
    grammar_configs: list[Path] = _default("grammar_configs")  # JSON configs -> grammar_definition, grammar_blocks
    baseline: str = _default("baseline")
    grid: Grid = _default("grid")  # strategy -> parameter -> values (grid points beside declared ones)
    allow_outside_corpus: bool = _default("allow_outside_corpus")  # a corpus outside project and golden folder
    chunk_timeout: float = _default("chunk_timeout")  # seconds per file before it falls back (0: no limit)
    strategy_memory: int = _default("strategy_memory")  # MiB an isolated strategy's worker may grow by (0: no cap)
    max_file_bytes: int = _default("max_file_bytes")  # corpus files larger are skipped, with the reason (0: no limit)
    max_chunks_per_file: int = _default("max_chunks_per_file")  # more chunks of one file: windows instead (0: no cap)
    max_fallback: float = _default("max_fallback")  # share of a suite's files chunked by fixed windows instead
    max_parse_errors: float = _default("max_parse_errors")  # share of a suite's files a grammar may fail to parse
    model: str | None = _default("model")  # None: the bundled model
    allow_download: bool = _default("allow_download")  # a hub name not in the local cache may be downloaded once
    device: str = _default("device")  # chosen, never guessed: it is part of the embedding cache key
    backend: str = _default("backend")
    batch_size: int = _default("batch_size")
    engine: str = _default("engine")  # chunk + embed here, or as a Ray Data pipeline (evaluation/ray_engine.py)
    ray_address: str | None = _default("ray_address")  # None: ray.init() starts or attaches a local cluster
    embedder_url: str | None = _default("embedder_url")  # None: OPENAI_BASE_URL, else OpenAI's
    embedder_key_env: str = _default("embedder_key_env")  # the variable holding the key (never the key itself)
    embedder_dimensions: int = _default("embedder_dimensions")
    embedder_concurrency: int = _default("embedder_concurrency")
    embedder_timeout: float = _default("embedder_timeout")
    embedder_retries: int = _default("embedder_retries")
    embedder_tokenizer: Path | None = _default("embedder_tokenizer")
    embedder_window: int = _default("embedder_window")
    embed_price: float = _default("embed_price")
    embed_budget: float = _default("embed_budget")
    k: int = _default("k")
    retrieval: str = _default("retrieval")  # one mode, or a comma list evaluated side by side (see retrieval_modes)
    db_uri: str = _default("db_uri")
    storage_options: StorageOptions = _default("storage_options")  # for db_uri; never printed in full
    cache_dir: Path = _default("cache_dir")
    clean: bool = _default("clean")  # drop stale tables and old table versions before evaluating
    gate_candidates: list[str] = _default("gate_candidates")  # strategy names, or "all"
    gate_ndcg_gain: float = _default("gate_ndcg_gain")
    gate_recall_drop: float = _default("gate_recall_drop")
    gate_size_increase: float = _default("gate_size_increase")
    gate_mode: str = _default("gate_mode")
    gate_size_measure: str = _default("gate_size_measure")
    base: str | None = _default("base")  # a git ref whose suites are evaluated with its own code (vs-base items)
    compare: Path | None = _default("compare")  # a previous JSON report for the regression items
    regression_tolerance: float = _default("regression_tolerance")
    regression_alpha: float | None = _default("regression_alpha")  # None: significance not required
    regression_size_increase: float = _default("regression_size_increase")
    regression_correction: str = _default("regression_correction")  # p adjustment across the gating tests
    regression_new_warnings: str = _default("regression_new_warnings")  # new chunker warnings: fail, or report only
    report: Path | None = _default("report")
    markdown: Path | None = _default("markdown")
    chart: Path | None = _default("chart")
    frontier: bool = _default("frontier")  # the quality/cost frontier after the summary (pytest_chunkeval.frontier)
    columns: tuple[str, ...] = _default("columns")  # extra column groups of the retrieval table
    step_summary: bool = _default("step_summary")
    annotations: bool = _default("annotations")
    accept_misses: bool = _default("accept_misses")
    progress: bool = _default("progress")

    @property
    def retrieval_modes(self) -> tuple[str, ...]:
        """The search modes to evaluate, in the order given, without repeats: ``vector,hybrid`` evaluates every
        strategy under both, sharing chunks, embeddings and tables (only the search differs)."""
        return tuple(dict.fromkeys(m.strip() for m in self.retrieval.split(",") if m.strip()))

    @property
    def models(self) -> tuple[str | None, ...]:
        """The embedding models to evaluate with, in the order given (``A,B``; None: the bundled model)."""
        if not self.model:
            return (None,)
        return tuple(dict.fromkeys(m.strip() or None for m in self.model.split(",")))

    @property
    def multi_mode(self) -> bool:
        """More than one mode: item ids and report rows carry the mode (``ast[vector]``); one mode keeps them bare."""
        return len(self.retrieval_modes) > 1

    def gated(self, name: str, strategy: str = "") -> bool:
        """Whether ``name`` (a row label) gets gate items: named, or its strategy named (``strategy``, for a grid
        point: every point of a named strategy is a candidate), or ``all``; never the baseline."""
        named = name in self.gate_candidates or (strategy and strategy in self.gate_candidates)
        return name != self.baseline and bool(named or "all" in self.gate_candidates)

    @property
    def thresholds(self) -> Thresholds:
        """The acceptance gates' settings, as the gates read them."""
        from pytest_chunkeval.judges.gates import Thresholds

        return Thresholds(ndcg_gain=self.gate_ndcg_gain, recall_drop=self.gate_recall_drop,
                          size_increase=self.gate_size_increase, mode=self.gate_mode,
                          size_measure=self.gate_size_measure)

    @property
    def policy(self) -> Policy:
        from pytest_chunkeval.judges.comparison import Policy

        return Policy(k=self.k, tolerance=self.regression_tolerance, alpha=self.regression_alpha,
                      size_increase=self.regression_size_increase, size_measure=self.gate_size_measure,
                      correction=self.regression_correction,
                      fail_on_new_warnings=self.regression_new_warnings == "fail")

    def validate(self) -> None:
        """Raise ``ValueError`` naming the option for the first value that cannot work: each setting's own check
        (from the table), then the checks that need two settings or this machine."""
        for setting in SETTINGS:
            if problem := setting.verify(getattr(self, setting.name)):
                raise ValueError(problem)
        for name, folder in (("cache_dir", self.cache_dir), ("db_uri", local_folder(self.db_uri))):
            why = unusable_folder(folder) if folder is not None else None
            if why:
                raise ValueError(f"{SETTING[name].where} must be a folder this run can write in: {why}")
        if self.compare is not None and self.base:
            raise ValueError("--chunkeval-compare and --chunkeval-base both name what to compare with: choose one")
        if self.base:
            from pytest_chunkeval.settings.git_ref import BaseRefError, resolve_commit

            try:
                resolve_commit(self.rootdir, self.base)
            except BaseRefError as exc:
                raise ValueError(str(exc)) from None
        if problem := self._embedder_problem():
            raise ValueError(problem)

    def _embedder_problem(self) -> str | None:
        """What the engine, backend and device ask of this machine that it lacks (None when nothing)."""
        if self.backend.startswith("onnx") and self.device.split(":", 1)[0] == "mps":
            return f"--chunkeval-backend {self.backend} runs on cpu or cuda, not mps"
        from pytest_chunkeval.retrieval.remote import route_of

        remote = [m for m in self.models if route_of(m)]
        if self.engine == "ray" and remote:  # its actors load a sentence-transformers model; a remote one has none
            return (f"--chunkeval-engine ray embeds with a local model; {remote[0]} is served elsewhere: use the "
                    "local engine (its requests already run in parallel, chunkeval_embedder_concurrency)")
        if self.engine == "ray" and not _installed("ray"):
            return "--chunkeval-engine ray needs Ray Data: pip install 'pytest-chunkeval[ray]'"
        if self.backend.startswith("onnx"):
            from pytest_chunkeval.retrieval.onnx_backend import missing_packages

            if missing := missing_packages():
                return (f"--chunkeval-backend {self.backend} needs {' and '.join(missing)}: "
                        "pip install 'pytest-chunkeval[onnx]'")
        if self.engine == "local" and self.device != "cpu":  # a Ray cluster's workers have their own devices
            from pytest_chunkeval.retrieval.devices import missing_device

            if why := missing_device(self.device, self.backend):
                return f"{SETTING['device'].where} = {self.device}: {why}"
        return None


#: Bytes written to a probe file in the cache and index folders: a full disk refuses them.
PROBE_BYTES = 4096


def local_folder(uri: str) -> Path | None:
    """The folder of a LanceDB URI on this machine (a plain path or ``file://``); None for an object store."""
    if "://" not in uri:
        return Path(uri)
    return Path(uri.removeprefix("file://")) if uri.startswith("file://") else None


def unusable_folder(path: Path) -> str | None:
    """Why the run could not keep files in ``path``, or None: it is a folder, or can be made inside the nearest one
    that exists, and a file of :data:`PROBE_BYTES` can be written there (a file where the folder
    belongs, a read-only place such as ``/proc``, no permission, or a full disk are each said here, before any item
    runs, rather than in a traceback of every item). The probe file is removed."""
    try:
        folder = path
        while not folder.is_dir():
            if folder.is_symlink() and not folder.exists():
                return f"{folder} is a symbolic link that leads nowhere"
            if folder.exists():
                return f"{folder} is a file, not a folder" if folder.is_file() else f"{folder} is not a folder"
            if folder.parent == folder:
                return f"{folder} does not exist"
            folder = folder.parent
        _probe(folder)
    except OSError as exc:
        return f"cannot write in {exc.filename or path} ({exc.strerror or exc})"
    return None


def _probe(folder: Path) -> None:
    """Write and remove a file in ``folder``; ``OSError`` naming the folder when any of it fails."""
    import os
    import tempfile

    try:
        fd, name = tempfile.mkstemp(prefix=".chunkeval-probe-", dir=folder)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(folder)) from None
    try:
        os.write(fd, b"\0" * PROBE_BYTES)  # a full disk refuses it here (not synced: an fsync would slow every run)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(folder)) from None
    finally:
        os.close(fd)
        os.unlink(name)


def _installed(name: str) -> bool:
    """Whether ``name`` can be imported, found without importing it (importing Ray takes seconds)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module without a spec
        return False


def read_options(config: pytest.Config) -> Options:
    """The run's settings, or ``pytest.UsageError`` naming the first option that is wrong."""
    try:
        values = {s.name: read(config, s) for s in SETTINGS}
        # -q is a request for less output: progress lines are the first thing to go (the summary stays).
        values["progress"] = values["progress"] and config.get_verbosity() >= 0
        if values["report"] is None:  # where the cache lives: out of git status, never left in the project's root
            values["report"] = values["cache_dir"] / REPORT_NAME
        options = Options(rootdir=base_dir(config), **values)
        options.validate()
    except ValueError as exc:  # Invalid too: both carry the whole message
        raise pytest.UsageError(str(exc)) from None
    return options
