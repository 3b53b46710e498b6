"""The pytest hooks of a run that evaluates (``--chunkeval``), each a few lines into the run's state: collection,
reports, pytest-xdist. What a finished run shows and writes has hooks of its own (outputs_plugin.py).

plugin.py registers this module in ``pytest_configure``, and only for such a run: a plain ``pytest`` run of a
project with the plugin installed never calls these hooks, not once per collected file, path or test report
(docs/benchmarks.md: the plugin in a plain pytest run). So every hook here may take the run's state as given.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_chunkeval.output.escape import node_id
from pytest_chunkeval.run.distributed import PAYLOAD_KEY, is_worker
from pytest_chunkeval.run.items import ComparisonItem, EvalItem, GoldenFile, NamedReport
from pytest_chunkeval.run.library_warnings import tolerant
from pytest_chunkeval.run.parts import STATE_KEY
from pytest_chunkeval.run.state import RunState

#: The name plugin.py registers this module under.
PLUGIN_NAME = "chunkeval-run"


def _state(config: pytest.Config) -> RunState:
    return config.stash[STATE_KEY]


@pytest.hookimpl(tryfirst=True)
def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """What a user should know before the run: why pytest's configfile is this package's isolated.ini (chunkeval
    run), a strategy that replaces another of the same name, and where the index tables are when not in the default
    local folder (the URI without user info or query, the storage options by key, secret values as ***)."""
    from pytest_chunkeval.retrieval.storage import is_local, redact_uri

    state = _state(config)
    o = state.options
    lines = []
    if o.project is not None:
        from pytest_chunkeval.run.isolation import header_line

        lines.append(header_line(o.project, config.rootpath))
    lines += [f"chunkeval: {note}" for note in state.notes]
    if not is_local(o.db_uri) or o.storage_options:
        extra = f" (storage options: {o.storage_options.describe()})" if o.storage_options else ""
        lines.append(f"chunkeval: index tables in {redact_uri(o.db_uri)}{extra}")
    return lines or None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Never collect inside a suite's corpus: its files are data (a corpus ``conftest.py`` must not run)."""
    state = _state(config)
    path = collection_path.resolve()
    if any(path == corpus or corpus in path.parents for corpus in state.catalog.corpus_dirs()):
        return True
    if state.options.project is not None:
        # An isolated run collects the suites and nothing else: the folders on the way to one, and the suite files.
        return not any(path == suite or path in suite.parents for suite in state.catalog.suite_paths())
    if (config.option.markexpr or "").strip() == "chunkeval" and path.suffix == ".py":
        # `-m chunkeval` (as `make eval` runs it) selects only this plugin's items, which no Python module holds:
        # importing the project's test modules would cost seconds (some import torch) for items all deselected.
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    catalog, suite = _state(parent.config).catalog, file_path.resolve()
    if suite not in catalog.suite_paths():
        return None
    catalog.collected_suites.add(suite)
    return GoldenFile.from_parent(parent, path=file_path, nodeid=suite_nodeid(file_path, parent.config.rootpath))


@pytest.hookimpl(tryfirst=True)
@tolerant
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Add the golden suites that ordinary collection did not reach (it only walks the given paths/testpaths).

    With --chunkeval-golden and no test paths on the command line, the run is about those suites only: other items
    are deselected (shown as such). This also keeps a run whose suite lies outside the project, where pytest may
    not find the project's ini file, from running the project's own tests without their settings.
    """
    state = _state(config)
    explicit_args = config.args_source == pytest.Config.ArgsSource.ARGS
    wanted = [p.resolve() for p in state.options.golden_paths] if explicit_args else state.catalog.suite_paths()
    for suite in wanted:
        if suite in state.catalog.collected_suites:
            continue
        state.catalog.collected_suites.add(suite)
        node = GoldenFile.from_parent(session, path=suite, nodeid=suite_nodeid(suite, config.rootpath))
        items.extend(session.genitems(node))
    if state.options.golden_paths and not explicit_args:
        keep = [item for item in items if item.get_closest_marker("chunkeval")]
        dropped = [item for item in items if not item.get_closest_marker("chunkeval")]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep


def suite_nodeid(suite: Path, rootdir: Path) -> str | None:
    """A suite outside the rootdir gets ``<its folder>/queries.yaml`` as its id (pytest would make it
    ``::queries.yaml``), so ``-k`` and failure headers read as they do for suites inside the project. A suite
    folder whose name holds a newline, ESC or ``::`` gets its id with them escaped (``node_id``): pytest prints ids
    in ``-v`` lines, failure headers and JUnit XML, where such a name would start a line of the log of its own."""
    try:
        shown = suite.relative_to(rootdir).as_posix()
    except ValueError:
        return node_id(f"{suite.parent.name}/{suite.name}")
    inert = node_id(shown)
    return inert if inert != shown else None  # else pytest's own: the path relative to the rootdir


@tolerant
def pytest_sessionstart(session: pytest.Session) -> None:
    """An xdist controller collects no items; it checks the model before the workers start, so a wrong model is
    one usage error there too."""
    state = _state(session.config)
    if _xdist_controller(session.config) and not session.config.option.collectonly:
        state.check_model()
    _clean_index(session, state)


def _clean_index(session: pytest.Session, state: RunState) -> None:
    """--chunkeval-clean: once per run (the xdist controller, never a worker), before anything is evaluated."""
    if not state.options.clean or session.config.option.collectonly or is_worker(session.config):
        return
    from pytest_chunkeval.retrieval.index import IndexStore

    store = IndexStore(state.options.db_uri, state.head.cache_dir() / "locks", storage=state.options.storage_options)
    running = state.catalog.load_strategies()  # grid points' shared tables are recorded under their strategy's name
    names = {*running, *(reg.strategy_name for reg in running.values())}
    for line in store.clean(names, state.options.rootdir).lines(store.shown_uri):
        state.write(line + "\n")


def _xdist_controller(config: pytest.Config) -> bool:
    return config.pluginmanager.has_plugin("dsession") and not is_worker(config)


@tolerant
def pytest_collection_finish(session: pytest.Session) -> None:
    """Check the embedding model once, before the first item: a wrong model is one usage error, not a failure of
    every item. Only when evaluation items remain after deselection (and not for --collect-only)."""
    state = _state(session.config)
    for item in session.items:  # the comparisons that run form the family their p-values are adjusted across
        if isinstance(item, ComparisonItem):
            node = item.strategy_node
            node.state.judgements.compare_item(node.suite, node.reg, node.mode)
    if session.config.option.collectonly:
        return
    if any(isinstance(item, EvalItem) for item in session.items):
        state.check_model()
    if state.judgements.compared and not is_worker(session.config):
        _check_comparable(state)


def _check_comparable(state: RunState) -> None:
    """Refuse a base made unlike this run before any item runs (a worker's items say it instead: see BaseSide.suites).
    A base that cannot be evaluated at all is left to the comparison items, which report it in full."""
    from pytest_chunkeval.run.base_ref import BaseRefError

    try:
        unchecked = state.base.check_comparable()
    except BaseRefError:
        return
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if unchecked:
        state.write(f"[chunkeval] the base does not record {', '.join(unchecked)} (made by an older "
                    "pytest-chunkeval): not checked\n")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
    """Evaluation items get reports whose failure header is the item's id, not pytest's "test session"."""
    return NamedReport.of(item, call) if isinstance(item, EvalItem) else None


@pytest.hookimpl(tryfirst=True)
def pytest_report_from_serializable(config: pytest.Config, data: dict[str, Any]) -> pytest.TestReport | None:
    """pytest-xdist sends reports as data tagged with their class; rebuild ours (pytest knows only its own)."""
    if data.get("$report_type") == NamedReport.__name__:
        return NamedReport._from_json(data)
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist: a worker finished; keep what it evaluated for the controller's report."""
    payload = getattr(node, "workeroutput", {}).get(PAYLOAD_KEY)
    if payload:
        _state(node.config).exchange.add(payload)


@tolerant
def pytest_sessionfinish(session: pytest.Session) -> None:
    """A worker sends its results to the controller, whose outputs plugin writes them once, from every worker's."""
    if is_worker(session.config):
        _send_results(session.config, _state(session.config))


def _send_results(config: pytest.Config, state: RunState) -> None:
    payload = state.payload()
    if payload is not None:
        config.workeroutput[PAYLOAD_KEY] = payload  # type: ignore[attr-defined]


@tolerant
def pytest_unconfigure(config: pytest.Config) -> None:
    _state(config).close()
