"""The settings table (``settings/table.py``) made into pytest options, and a run's ``Options`` read back from them.

Every setting is declared once, in the table; this module only turns each declaration into a flag and an ini entry,
reads the value (the command line over the ini file, relative paths under the ini file's folder), and checks it. A bad
value stops the run before anything is collected, with one ``pytest.UsageError`` in one wording, ``--flag / ini key
must be <what>, got <value>``: a wrong setting is a usage mistake, never a failure of every item or an INTERNALERROR.
No other module reads an option: the hooks ask the few functions here (``evaluating``, ``cleaning``,
``strategy_files``) and everything else reads ``Options``.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_chunkeval.settings.setting import Bad, Invalid, Setting
from pytest_chunkeval.settings.table import SETTING, SETTINGS

if TYPE_CHECKING:  # every pytest run imports this module (pytest_addoption): these are imported where used
    from pytest_chunkeval.grid import Grid
    from pytest_chunkeval.judges.comparison import Policy
    from pytest_chunkeval.judges.gates import Thresholds
    from pytest_chunkeval.project import ProjectConfig
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
    gate_grid: bool = _default("gate_grid")  # a grid point's misses fail (a sweep measures by default)
    grammars: list[Path] = _default("grammars")  # Lark grammars -> ebnf_metadata, ebnf_full
    grammar_configs: list[Path] = _default("grammar_configs")  # JSON configs -> grammar_definition, grammar_blocks
    baseline: str = _default("baseline")
    grid: Grid = _default("grid")  # strategy -> parameter -> values (grid points beside declared ones)
    allow_outside_corpus: bool = _default("allow_outside_corpus")  # a corpus outside project and golden folder
    chunk_timeout: float = _default("chunk_timeout")  # seconds per file before it falls back (0: no limit)
    max_fallback: float = _default("max_fallback")  # share of a suite's files chunked by fixed windows instead
    model: str | None = _default("model")  # None: the bundled model
    device: str = _default("device")  # chosen, never guessed: it is part of the embedding cache key
    backend: str = _default("backend")
    batch_size: int = _default("batch_size")
    engine: str = _default("engine")  # chunk + embed here, or as a Ray Data pipeline (retrieval/ray_engine.py)
    ray_address: str | None = _default("ray_address")  # None: ray.init() starts or attaches a local cluster
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
        if self.compare is not None and self.base:
            raise ValueError("--chunkeval-compare and --chunkeval-base both name what to compare with: choose one")
        if self.base:
            from pytest_chunkeval.base_ref import BaseRefError, resolve_commit

            try:
                resolve_commit(self.rootdir, self.base)
            except BaseRefError as exc:
                raise ValueError(str(exc)) from None
        if self.backend.startswith("onnx") and self.device.split(":", 1)[0] == "mps":
            raise ValueError(f"--chunkeval-backend {self.backend} runs on cpu or cuda, not mps")
        if self.engine == "ray" and not _installed("ray"):
            raise ValueError("--chunkeval-engine ray needs Ray Data: pip install 'pytest-chunkeval[ray]'")
        if self.backend.startswith("onnx"):
            from pytest_chunkeval.retrieval.onnx_backend import missing_packages

            if missing := missing_packages():
                raise ValueError(f"--chunkeval-backend {self.backend} needs {' and '.join(missing)}: "
                                 "pip install 'pytest-chunkeval[onnx]'")


def _installed(name: str) -> bool:
    """Whether ``name`` can be imported, found without importing it (importing Ray takes seconds)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module without a spec
        return False


# -- the table as pytest options -------------------------------------------------------------------------------------

def add_options(parser: pytest.Parser) -> None:
    """A flag and an ini entry for each setting that has one. Flag values stay strings (default None: not given)
    and are converted when read, so a mistake on the command line and the same mistake in the ini file get the same
    message; ini entries are typed (``chunkeval_k (int)`` in pytest --help) and default to None, so that a value
    the file does not set falls through to the table's default."""
    group = parser.getgroup("chunkeval", "pytest-chunkeval: evaluate code-chunking strategies for retrieval")
    for s in SETTINGS:
        if s.flag is not None:
            text = _help(s, f"ini {s.ini}" if s.ini else None).replace("%", "%%")  # argparse formats help with %
            if s.kind.switch:
                group.addoption(s.flag, action="store_true", default=False, help=text)
            elif s.repeatable:
                group.addoption(s.flag, action="append", default=[], metavar=s.metavar, help=text)
            else:
                group.addoption(s.flag, default=None, metavar=s.metavar, help=text)
        if s.ini is not None:
            ini_type: Any = s.kind.ini_type  # one of pytest's ini type names, or None for a string
            parser.addini(s.ini, _help(s, f"command line {s.flag}" if s.flag else None), type=ini_type, default=None)


def _help(s: Setting, other_name: str | None) -> str:
    """The table's help with what pytest --help should also say: the default, repeatable, the other spelling."""
    notes = [] if s.kind.switch else [f"default: {s.default_text()}"]
    notes += ["repeatable"] if s.repeatable else []
    notes += [other_name] if other_name else []
    return f"{s.help} ({'; '.join(notes)})" if notes else s.help


def base_dir(config: pytest.Config) -> Path:
    """Where relative settings are resolved: the ini file's folder, else the invocation folder; in an isolated run
    (``--chunkeval-project``), the project configuration's folder.

    Not the rootdir: pytest derives the rootdir from path-like arguments before plugins load, so the value of
    ``--chunkeval-golden /elsewhere/queries.yaml`` can move the rootdir outside the project when no ini is found.
    """
    isolated = project(config)
    if isolated is not None:
        return isolated.root
    return Path(config.inipath).parent if config.inipath else Path(config.invocation_params.dir)


_PROJECT_KEY: pytest.StashKey[ProjectConfig | None] = pytest.StashKey()


def project(config: pytest.Config) -> ProjectConfig | None:
    """The project an isolated run evaluates (``--chunkeval-project``, as ``chunkeval run`` passes it), or None.

    Read from the command line alone: every other setting's folder and ini value depend on it."""
    if _PROJECT_KEY in config.stash:
        return config.stash[_PROJECT_KEY]
    setting = SETTING["project"]
    raw = config.getoption(setting.dest) if setting.dest else None
    found = None
    if raw:
        from pytest_chunkeval.project import ConfigError, ProjectConfig

        path = Path(str(raw)).expanduser()
        path = path if path.is_absolute() else Path(config.invocation_params.dir) / path
        if not path.exists():
            raise pytest.UsageError(f"{setting.flag}: {path} does not exist")
        try:
            found = ProjectConfig.locate(path)
        except ConfigError as exc:
            raise pytest.UsageError(f"{setting.flag}: {exc}") from None
    config.stash[_PROJECT_KEY] = found
    return found


def _given(config: pytest.Config, s: Setting) -> Any:
    """The command line's value, or None when the flag was not given (a switch off, a repeatable flag never used)."""
    if s.dest is None:
        return None
    value = config.getoption(s.dest)
    return None if value is None or value is False or value == [] else value


def _ini(config: pytest.Config, s: Setting) -> Any:
    """The ini file's value, typed by pytest, or None when the file does not set it."""
    if s.ini is None:
        return None
    isolated = project(config)
    try:
        value = config.getini(s.ini)  # in an isolated run: an -o override, else nothing (the neutral file sets none)
        if value is None and isolated is not None:
            value = isolated.value(s.ini, s.kind.ini_type)
        return value
    except (ValueError, TypeError, pytest.UsageError) as exc:  # pytest's message names the value, not the setting
        raise Invalid(s.problem(Bad(s.kind.noun, _value_in(str(exc))))) from None


def _value_in(message: str) -> Any:
    """The value a pytest ini conversion error ends with (``...: 'abc'``), as it was written."""
    text = message.rsplit(": ", 1)[-1]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _raw(config: pytest.Config, s: Setting) -> Any:
    """The value as written: the command line's, else the ini file's, else the table's default; for a merged
    setting the ini file's list and the command line's together."""
    given = _given(config, s)
    if s.merged:
        return [*(_ini(config, s) or []), *(given or [])]
    if given is not None:
        return given
    from_ini = _ini(config, s)
    return s.default if from_ini is None else from_ini


def _read(config: pytest.Config, s: Setting) -> Any:
    return s.read(_raw(config, s), base_dir(config))


def read_options(config: pytest.Config) -> Options:
    """The run's settings, or ``pytest.UsageError`` naming the first option that is wrong."""
    try:
        values = {s.name: _read(config, s) for s in SETTINGS}
        # -q is a request for less output: progress lines are the first thing to go (the summary stays).
        values["progress"] = values["progress"] and config.get_verbosity() >= 0
        if values["report"] is None:  # where the cache lives: out of git status, never left in the project's root
            values["report"] = values["cache_dir"] / REPORT_NAME
        options = Options(rootdir=base_dir(config), **values)
        options.validate()
    except ValueError as exc:  # Invalid too: both carry the whole message
        raise pytest.UsageError(str(exc)) from None
    return options


# -- the settings the hooks need before (or without) an evaluation ---------------------------------------------------

def evaluating(config: pytest.Config) -> bool:
    """``--chunkeval`` was given: without it the plugin collects nothing and reads no other setting."""
    return bool(_read(config, SETTING["evaluate"]))


def cleaning(config: pytest.Config) -> bool:
    """``--chunkeval-clean`` was given (it needs ``--chunkeval``: the caller says so)."""
    return bool(_read(config, SETTING["clean"]))


def output_only_flags() -> dict[str, bool]:
    """The flags that only compare or write outputs, each with whether it takes a value: a command that records
    misses for this run's selection leaves them out."""
    return {s.flag: not s.kind.switch for s in SETTINGS if s.flag is not None and not s.recorded}


@dataclass(frozen=True)
class StrategyFiles:
    """Where a project's strategies are defined: its folder of strategy files and the ini's grammar files.

    Read also without ``--chunkeval`` (they register the strategy fixtures), so only these three settings are read:
    the rest are not checked there.
    """

    folder: Path
    grammars: list[Path]
    configs: list[Path]


def strategy_files(config: pytest.Config) -> StrategyFiles:
    try:
        return StrategyFiles(folder=_read(config, SETTING["strategies_dir"]),
                             grammars=_read(config, SETTING["grammars"]),
                             configs=_read(config, SETTING["grammar_configs"]))
    except Invalid as exc:
        raise pytest.UsageError(str(exc)) from None
