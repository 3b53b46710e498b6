"""``--chunkeval-frontier`` end to end (pytester, the fake embedder of the grid tests): the frontier section after
the summary, the grid point at the factory's defaults marked default, the section in the Markdown, the chart beside
``--chunkeval-chart``, and report entries that record each point's family, values and defaults."""
from __future__ import annotations

import json

import lancedb  # noqa: F401
import pytest
from project_files import set_ini
from test_grid_plugin import project, run  # noqa: F401  (the fixture)

DEFAULT = "fixed_size[size=1000,overlap=100]"


def test_the_frontier_flag_prints_the_frontier_and_adds_it_to_markdown_and_a_chart(
    project: pytest.Pytester,  # noqa: F811
) -> None:
    set_ini(project.path, "chunkeval_strategies", '"file_level,fixed_size"', "file_level,fixed_size")
    grid = ["--chunkeval-grid", "fixed_size.size=200,1000", "--chunkeval-grid", "fixed_size.overlap=0,100"]
    plain = run(project, *grid)
    assert plain.ret == 0 and "chunkeval frontier" not in plain.stdout.str()  # only when asked
    result = run(project, *grid, "--chunkeval-frontier", "--chunkeval-markdown=out/summary.md",
                 "--chunkeval-chart=out/chart.png")
    assert result.ret == 0
    out = result.stdout.str()
    section = out[out.index("chunkeval frontier"):]
    assert "golden/shop/queries.yaml — vector retrieval: NDCG@10 lines against index KB" in section
    assert "★ frontier" in section and "best: " in section
    row = next(line for line in section.splitlines() if line.strip().startswith(DEFAULT))
    assert " default " in row
    strategies = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())[
        "suites"]["golden/shop/queries.yaml"]["strategies"]
    assert {k: strategies[DEFAULT][k] for k in ("family", "params", "defaults")} == {
        "family": "fixed_size", "params": {"size": 1000, "overlap": 100}, "defaults": {"size": 1000, "overlap": 100}}
    assert "family" not in strategies["file_level"]
    markdown = (project.path / "out" / "summary.md").read_text()
    assert "## Frontier" in markdown and "![frontier](chart-frontier.png)" in markdown
    assert (project.path / "out" / "chart-frontier.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
