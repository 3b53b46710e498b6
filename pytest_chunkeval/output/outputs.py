"""Every output file a finished run asks for, each written on its own (:mod:`files`): one that cannot be written is a
line naming it, and the others are still written. Kept apart from :mod:`files`, which the renderers use to write
atomically, because this module imports the renderers."""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_chunkeval.output.files import Written, partial_path, write_text

if TYPE_CHECKING:
    from pytest_chunkeval.judges.judged_run import Summary


class Asked(Protocol):
    """The outputs a run asks for, as :class:`pytest_chunkeval.settings.options.Options` holds them: named here, not
    imported, because the options are the plugin's, a layer above the renderers (tools/import_graph.py --layers)."""

    report: Path | None
    markdown: Path | None
    chart: Path | None
    step_summary: bool
    frontier: bool


def write_outputs(options: Asked, summary: Summary, report: dict[str, Any], complete: bool,
                  save_accepted: Callable[[], object]) -> Written:
    """Every output the options ask for, each on its own: the JSON report (a partial one beside it when the run did
    not finish, and then nothing else), the Markdown, the job summary, the chart, the frontier and the accepted
    misses."""
    from pytest_chunkeval.output.report import write_json

    done = Written()
    if options.report is not None:
        target = options.report if complete else partial_path(options.report)
        done.attempt(target, lambda: write_json(report, target))
    if not complete:
        return done
    markdown = options.markdown
    if markdown is not None:
        from pytest_chunkeval.output.markdown import document

        done.attempt(markdown, lambda: write_text(markdown, document(summary)))
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if options.step_summary and step_summary:
        from pytest_chunkeval.output.markdown import append_step_summary

        done.attempt(step_summary, lambda: append_step_summary(summary, Path(step_summary)))
    chart = options.chart
    if chart is not None:
        from pytest_chunkeval.output.chart import write_chart

        done.attempt(chart, lambda: write_chart(report, chart))
    if options.frontier:
        from pytest_chunkeval.output.frontier_files import write as write_frontier

        text = done.attempt(chart or markdown or "the frontier", lambda: write_frontier(report, markdown, chart))
        done.frontier_text = text or ""
    done.attempt("accepted_misses.yaml", save_accepted)
    return done
