"""``--chunkeval-frontier`` end to end (pytester, the fake embedder of the grid tests): the frontier section after
the summary, the grid point at the factory's defaults marked default, the section in the Markdown, the chart beside
``--chunkeval-chart``, and report entries that record each point's family, values and defaults."""
from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from project_files import run_vector, set_ini

from pytest_chunkeval.results.comparable import suite_digest
from pytest_chunkeval.results.report_file import shape_problem
from pytest_chunkeval.retrieval.embed import Embedder

DEFAULT = "fixed_size[size=1000,overlap=100]"


def test_the_frontier_flag_prints_the_frontier_and_adds_it_to_markdown_and_a_chart(
    grid_project: pytest.Pytester,
) -> None:
    set_ini(grid_project.path, "chunkeval_strategies", '"file_level,fixed_size"', "file_level,fixed_size")
    grid = ["--chunkeval-grid", "fixed_size.size=200,1000", "--chunkeval-grid", "fixed_size.overlap=0,100"]
    plain = run_vector(grid_project, *grid)
    assert plain.ret == 0 and "chunkeval frontier" not in plain.stdout.str()  # only when asked
    cold = json.loads((grid_project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    result = run_vector(grid_project, *grid, "--chunkeval-frontier", "--chunkeval-markdown=out/summary.md",
                 "--chunkeval-chart=out/chart.png")
    assert result.ret == 0
    out = result.stdout.str()
    section = out[out.index("chunkeval frontier"):]
    assert "golden/shop/queries.yaml — vector retrieval: NDCG@10 lines against index KB" in section
    assert "★ frontier" in section and "best: " in section
    row = next(line for line in section.splitlines() if line.strip().startswith(DEFAULT))
    assert " default " in row
    strategies = json.loads((grid_project.path / ".chunkeval" / "chunkeval-report.json").read_text())[
        "suites"]["golden/shop/queries.yaml"]["strategies"]
    assert {k: strategies[DEFAULT][k] for k in ("family", "params", "defaults")} == {
        "family": "fixed_size", "params": {"size": 1000, "overlap": 100}, "defaults": {"size": 1000, "overlap": 100,
                                                                            "size_unit": "chars"}}
    assert "family" not in strategies["file_level"]
    markdown = (grid_project.path / "out" / "summary.md").read_text()
    assert "## Frontier" in markdown and "![frontier](chart-frontier.png)" in markdown
    assert (grid_project.path / "out" / "chart-frontier.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    warm = json.loads((grid_project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    _embedding_cost_and_suite_identity_are_recorded(grid_project, cold, warm)


def _embedding_cost_and_suite_identity_are_recorded(tester: pytest.Pytester, cold: dict[str, Any],
                                                    warm: dict[str, Any]) -> None:
    """``index.embed_tokens`` is what embedding the index reads, the same cold and warm and for points sharing a
    table (one of which embedded nothing); the suite records its content digest; the report has the shape readers
    check."""
    assert shape_problem(cold) is None and shape_problem(warm) is None
    (key,) = cold["suites"]
    suite = cold["suites"][key]
    assert suite["content_digest"] == suite_digest(suite["corpus_hash"], suite["query_set"])
    assert warm["suites"][key]["content_digest"] == suite["content_digest"]
    cold_s, warm_s = suite["strategies"], warm["suites"][key]["strategies"]
    tokens = {name: e["index"]["embed_tokens"] for name, e in cold_s.items()}
    assert tokens == {name: e["index"]["embed_tokens"] for name, e in warm_s.items()}  # the cache changes nothing
    assert all(e["index"]["embedded"] == 0 for e in warm_s.values())  # though the warm run embedded nothing
    shared = [(a, b) for a, b in itertools.combinations(cold_s, 2)
              if cold_s[a]["index"]["digest"] == cold_s[b]["index"]["digest"]]
    assert shared and any(0 in (cold_s[a]["index"]["embedded"], cold_s[b]["index"]["embedded"]) for a, b in shared)
    assert all(tokens[a] == tokens[b] > 0 for a, b in shared)
    # file_level embeds each file whole: its tokens by the model's tokenizer, specials included, cut at the window.
    model = Embedder().tokens
    files = sorted((tester.path / "golden" / "shop" / "corpus").iterdir())
    assert tokens["file_level"] == sum(min(model.count(f.read_text()), model.window) for f in files)
