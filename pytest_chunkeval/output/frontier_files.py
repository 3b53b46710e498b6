"""What ``--chunkeval-frontier`` adds to a finished run: the frontier of the run's own report, written beside its
outputs. Kept here so the plugin's hooks only call it."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pytest_chunkeval.frontier.analysis import from_reports
from pytest_chunkeval.output import frontier_tables as render

COST = "bytes"  # the plugin's axis: index size, as the chart draws it (the command offers the others)


def chart_path(chart: Path) -> Path:
    """``out/chart.png`` -> ``out/chart-frontier.png``: beside the run's own chart."""
    return chart.with_name(chart.stem + "-frontier" + (chart.suffix or ".png"))


def write(report: dict[str, Any], markdown: Path | None, chart: Path | None) -> str:
    """The frontier's text for the terminal; appends its section to ``markdown`` and writes its chart beside
    ``chart`` when those were asked for."""
    result = from_reports([report], None, COST)
    if not result.panels:
        return "frontier: no scored points\n"
    png = chart_path(chart) if chart is not None else None
    if png is not None:
        from pytest_chunkeval.output.frontier_chart import write_chart

        write_chart(result, png)
    if markdown is not None and markdown.is_file():
        link = os.path.relpath(png, markdown.parent) if png is not None else None
        with markdown.open("a", encoding="utf-8") as fh:
            fh.write("\n" + render.markdown(result, link))
    return render.text(result)
