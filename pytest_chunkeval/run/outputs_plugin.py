"""What a finished ``pytest --chunkeval`` run shows and writes, owned by one plugin object with hooks of its own (as
pytest's junitxml owns its XML file): the failed evaluation items it heard, the verdict, the report, every output
file, the run's exit status and the terminal summary.

plugin.py registers it on the process that writes the outputs only: a serial run, or pytest-xdist's controller,
which hears every worker's reports. A worker registers none (it has nothing to write), so no other module calls
into it, and nothing in it asks which process it runs in.
"""
from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

from pytest_chunkeval.output.escape import log_lines
from pytest_chunkeval.run.library_warnings import tolerant
from pytest_chunkeval.settings.flags import output_only_flags

if TYPE_CHECKING:
    from pytest_chunkeval.judges.judged_run import Verdict
    from pytest_chunkeval.judges.verdict import Failure, FailureKind
    from pytest_chunkeval.output.report import Summary
    from pytest_chunkeval.run.state import RunState

#: Its name among the run's plugins (never blocked: its verdict decides the run's exit status).
PLUGIN_NAME = "chunkeval-outputs"


def verdict(summary: Summary | None, failures: list[Failure], accept: str | None = None, notes: Sequence[str] = (),
            node_part: Callable[[str], str] = str) -> Verdict:
    """The run's verdict as it is shown: judged (:func:`~pytest_chunkeval.judges.verdict.judge`), then worded
    (:func:`~pytest_chunkeval.output.verdict_text.worded`, with ``accept`` the command that records misses and
    ``notes`` the run's own)."""
    from pytest_chunkeval.judges.verdict import judge
    from pytest_chunkeval.output.verdict_text import ACCEPT, worded

    return worded(judge(summary, failures, node_part), ACCEPT if accept is None else accept, notes)


class FailedItem(NamedTuple):
    """A failed evaluation item, for the verdict and the annotations."""

    nodeid: str
    path: str  # its golden file, as pytest locates it
    first_line: str  # of its failure message
    kind: FailureKind = "other"  # what its item says its failure is (verdict.FailureKind), carried on its report


class SessionOutputs:
    """The outputs of one session. It listens to logged reports, not to made ones: under pytest-xdist the
    controller, which writes the outputs, sees only the reports the workers send."""

    def __init__(self, config: pytest.Config, state: RunState, report_type: type[pytest.TestReport]) -> None:
        self.config = config
        self.state = state
        self.report_type = report_type  # the evaluation items' reports (items.NamedReport)
        self.failed_items: list[FailedItem] = []
        self.summary: Summary | None = None  # the finished run's, with its verdict
        self.report: dict[str, Any] | None = None  # the JSON report as written
        self.frontier_text = ""  # --chunkeval-frontier: the frontier of the finished run, printed after the summary
        self.write_errors: list[str] = []  # one line per output file that could not be written
        self.items_reported = 0  # evaluation items that ran (their call reports): a run of them owes a verdict
        self.no_verdict = False  # evaluation items ran, yet no verdict could be made: the run cannot pass

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if isinstance(report, self.report_type) and report.when == "call":
            self.items_reported += 1
        if isinstance(report, self.report_type) and report.failed:
            first = next((ln for ln in str(report.longrepr).splitlines() if ln.strip()), "failed")
            kind: FailureKind = getattr(report, "failure_kind", "other")  # NamedReport's; "other" for any else
            self.failed_items.append(FailedItem(report.nodeid, report.location[0], first, kind))

    @pytest.hookimpl(tryfirst=True)
    @tolerant
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Judge the verdict and write every output the options ask for. A lost output file fails a run that
        passed, and so does a run with no verdict. First of the session's finishers, so that every other plugin
        reads the exit status the verdict set; the terminal reporter prints its summary after all of them."""
        from pytest_chunkeval.judges.verdict import Failure
        from pytest_chunkeval.output.escape import node_id
        from pytest_chunkeval.output.outputs import write_outputs
        from pytest_chunkeval.output.report import build_report

        state = self.state
        summary = state.summary(run_base=exitstatus != pytest.ExitCode.INTERRUPTED)
        if summary is None:
            # Items were evaluated and nothing judged them: whatever went wrong, a run with no verdict never passes
            # (a gate reading exit 0 would pass a pull request that nothing evaluated).
            if self.items_reported and session.exitstatus == pytest.ExitCode.OK:
                self.no_verdict = True
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
            return
        failures = [Failure(item.nodeid, item.kind, item.first_line) for item in self.failed_items]
        summary.verdict = verdict(summary, failures, accept=self.accept_command(), notes=self._miss_notes(),
                                  node_part=node_id)  # the items' ids hold their names so escaped
        self.summary = summary  # the verdict is printed whatever happens to the files below
        # Only a run that went through writes the report, Markdown, chart and accepted misses; an interrupted or
        # broken one leaves the earlier report as it was and writes what it has beside it, marked incomplete.
        complete = exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
        self.report = build_report(summary, state.options.rootdir, complete=complete)
        written = write_outputs(state.options, summary, self.report, complete, state.save_accepted)
        self.frontier_text, self.write_errors = written.frontier_text, written.errors
        if written.errors and session.exitstatus == pytest.ExitCode.OK:  # a lost report is no passing run
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _miss_notes(self) -> list[str]:
        from pytest_chunkeval.output.misses import drift_note

        state = self.state
        if state.base.comparing:
            return []
        note = drift_note(state.record_drift(), self.accept_command(), strict=state.options.misses == "fail")
        return [note] if note else []

    @tolerant
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """The summary table, the frontier, where the files went, and what to do about misses."""
        terminal = terminalreporter
        if self.no_verdict:
            terminal.write_line(f"chunkeval: {self.items_reported} evaluation items ran but no verdict was made "
                                "and no report written; the run fails (exit status 1)", red=True)
        if self.summary is None:
            return
        from pytest_chunkeval.output.files import report_lines
        from pytest_chunkeval.output.tables import summary_text

        o = self.state.options
        terminal.section("chunkeval summary")
        terminal.write(summary_text(self.summary, width=shutil.get_terminal_size((160, 24)).columns))
        if self.frontier_text:
            terminal.section("chunkeval frontier")
            terminal.write(self.frontier_text)
        for line in report_lines(o.report, self.report, self.write_errors):
            terminal.write_line(log_lines(line))
        if o.step_summary and not os.environ.get("GITHUB_STEP_SUMMARY"):
            terminal.write_line("--chunkeval-step-summary: $GITHUB_STEP_SUMMARY is not set; nothing appended")
        self._miss_lines(terminal)
        if o.annotations:
            from pytest_chunkeval.output.annotations import annotation_lines

            for line in annotation_lines([item[:3] for item in self.failed_items]):
                terminal.write_line(line)

    def _miss_lines(self, terminal: pytest.TerminalReporter) -> None:
        from pytest_chunkeval.output.misses import drift_lines, unrecorded_lines

        state = self.state
        missed = any(not hit for each in state.model_states() for ran in each.ledger.outcomes.values()
                     for hit in ran.values())
        if state.base.comparing and missed:
            terminal.write_line("missed queries are xfailed as evidence: the comparison weighs the queries lost "
                                "against those gained (its hits column; the Markdown lists them), and decides")
        elif not state.base.comparing:
            for line in drift_lines(state.record_drift(), state.options.rootdir, self.accept_command(),
                                    strict=state.options.misses == "fail"):
                terminal.write_line(log_lines(line))
        for record in state.ledger.records.values():
            if state.options.accept_misses:
                terminal.write_line(log_lines(f"accepted misses: {record.path}"))
        if not state.base.comparing:  # with a base the record decides nothing: no advice to make one
            for line in unrecorded_lines(state.unrecorded_misses(), state.options.rootdir, self.accept_command()):
                terminal.write_line(log_lines(line))

    def accept_command(self) -> str:
        """This run's own command line with ``--chunkeval-accept-misses``: records misses for the same suites,
        strategies and settings (``chunkeval run ...`` for an isolated run, as the user typed it)."""
        args = list(self.config.invocation_params.args)
        if self.state.options.project is not None:
            from pytest_chunkeval.run.isolation import user_args

            return shlex.join(["chunkeval", "run", *recording_args(user_args(args)), "--chunkeval-accept-misses"])
        return shlex.join(["pytest", *recording_args(args), "--chunkeval-accept-misses"])


def recording_args(args: list[str]) -> list[str]:
    """``args`` without the options that shape only this run's comparison or outputs (the settings table marks
    them; pytest's --junitxml too): recording misses needs none of them."""
    dropped = {**output_only_flags(), "--junitxml": True}  # flag -> whether it takes a value
    kept: list[str] = []
    skip_value = False
    for arg in args:
        if skip_value:
            skip_value = False
            continue
        name = arg.split("=", 1)[0]
        if name in dropped:
            skip_value = dropped[name] and "=" not in arg  # its value is the next argument
            continue
        kept.append(arg)
    return kept
