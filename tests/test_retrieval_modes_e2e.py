"""``--chunkeval-retrieval vector,hybrid`` end to end: real model, real LanceDB, the ``project`` fixture.

One run with both modes embeds what a one-mode run embeds (chunks and tables are shared; only the search runs per
mode), and its rows of each mode equal the one-mode runs of that mode.
"""
from __future__ import annotations

import json
from typing import Any

import pytest
from project_files import run

pytestmark = pytest.mark.slow


def _evaluate(p: pytest.Pytester, name: str, *args: str) -> dict[str, Any]:
    result = run(p, "-m", "chunkeval", f"--chunkeval-report={name}.json", "-o", f"chunkeval_cache_dir=.cache-{name}",
                 "-o", f"chunkeval_db=.cache-{name}/lancedb", *args)
    assert result.ret == 0, result.stdout.str()[-3000:]
    return json.loads((p.path / f"{name}.json").read_text())


def _scores(entry: dict[str, Any]) -> tuple[Any, ...]:
    rankings = {q: [r["chunk_id"] for r in v["ranking"]] for q, v in entry["queries"].items()}
    return entry["aggregate"], rankings, entry["index"]["table"]


def test_two_modes_share_chunks_and_embeddings_and_equal_one_mode_runs(project: pytest.Pytester) -> None:
    both = _evaluate(project, "both", "--chunkeval-retrieval=vector,hybrid")
    hybrid = _evaluate(project, "hybrid", "--chunkeval-retrieval=hybrid")
    vector = _evaluate(project, "vector", "--chunkeval-retrieval=vector")
    assert both["retrieval_modes"] == ["vector", "hybrid"]
    assert both["embedding"]["embedded"] == hybrid["embedding"]["embedded"] > 0  # each cold, nothing twice
    suite = "golden/shop/queries.yaml"
    rows = both["suites"][suite]["strategies"]
    assert sorted(rows) == ["file_level[hybrid]", "file_level[vector]", "fixed_size[hybrid]", "fixed_size[vector]"]
    for name in ("file_level", "fixed_size"):
        assert rows[f"{name}[hybrid]"]["retrieval"] == "hybrid" and rows[f"{name}[hybrid]"]["strategy"] == name
        assert _scores(rows[f"{name}[hybrid]"]) == _scores(hybrid["suites"][suite]["strategies"][name])
        assert _scores(rows[f"{name}[vector]"]) == _scores(vector["suites"][suite]["strategies"][name])
        assert rows[f"{name}[vector]"]["index"]["table"] == rows[f"{name}[hybrid]"]["index"]["table"]
