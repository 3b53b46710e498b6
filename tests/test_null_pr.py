"""tools/null_pr.py without an evaluation: the comment it writes fits each language, a suite is copied whole, and
a report's comparison is read as the check reads it (red exactly when a strategy is worse)."""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tool_modules import load_tool


def _tool() -> ModuleType:
    return load_tool("null_pr")


def test_the_comment_is_written_in_the_file_s_own_syntax() -> None:
    tool = _tool()
    assert tool.comment_for(Path("a.py")) == f"# {tool.TEXT}"
    assert tool.comment_for(Path("x/b.avap")) == f"// {tool.TEXT}"
    assert tool.comment_for(Path("q.SQL")) == f"-- {tool.TEXT}"
    assert tool.comment_for(Path("README.md")) == f"<!-- {tool.TEXT} -->"
    assert tool.comment_for(Path("data.json")) is None  # JSON has no comments: never picked


def test_a_suite_is_copied_with_its_corpus_and_records(tmp_path: Path) -> None:
    tool = _tool()
    src = tmp_path / "src" / "mine"
    (src / "corpus").mkdir(parents=True)
    (src / "queries.yaml").write_text("corpus: corpus\nqueries: []\n")
    (src / "accepted_misses.yaml").write_text("{}\n")
    (src / "corpus" / "a.py").write_text("x = 1\n")
    copy = tool.copy_suite(src / "queries.yaml", tmp_path / "out")
    assert copy == tmp_path / "out" / "mine" / "queries.yaml"
    assert (copy.parent / "corpus" / "a.py").read_text() == "x = 1\n" and (copy.parent / "accepted_misses.yaml").is_file()


def test_the_comparison_is_read_as_the_check_reads_it() -> None:
    tool = _tool()
    metrics = [{"gating": True, "p_adjusted": 0.2}, {"gating": True, "p_adjusted": 0.03}, {"gating": False, "p_adjusted": None}]
    report = {"suites": {"a.yaml": {"comparison": {"strategies": {
        "ast": {"verdict": "worse", "metrics": metrics, "problems": ["ndcg@10 (file) fell"]},
        "file_level": {"verdict": "unchanged", "metrics": []}}}}}}
    found = tool.verdicts(report)
    assert found["a.yaml::ast"] == {"verdict": "worse", "min_p_adjusted": 0.03, "problems": ["ndcg@10 (file) fell"]}
    assert found["a.yaml::file_level"]["verdict"] == "unchanged"
