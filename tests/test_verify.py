"""verify.py recomputes a report with trec_eval: a consistent report passes, one corrupted number is named."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

from pytest_chunkeval.commands.verify import check_report, load_golden, main, verify_report
from pytest_chunkeval.core.ranking import ChunkRef, Ranked, Relevant
from pytest_chunkeval.scoring.metrics import evaluate_query, sort_ranking

pytest.importorskip("pytrec_eval")

GOLDEN_YAML = """\
name: tiny
queries:
  - id: errors
    query: how are errors handled
    relevant:
      - {path: a.avap, lines: [5, 12], grade: 2}
      - {path: c.avap}
  - id: login
    query: user login
    relevant:
      - {path: ./b.avap, lines: [1, 3], grade: 3}
      - {path: a.avap, lines: [30, 30]}
  - id: nothing-retrieved
    query: something
    relevant:
      - {path: b.avap}
  - id: nothing-relevant-in-index
    query: another thing
    relevant:
      - {path: d.avap}
"""

CHUNKS = [
    ChunkRef("a.avap#0", "a.avap", 1, 10),
    ChunkRef("a.avap#1", "a.avap", 11, 20),
    ChunkRef("a.avap#2", "a.avap", 21, 35),
    ChunkRef("b.avap#0", "b.avap", 1, 8),
    ChunkRef("b.avap#1", "b.avap", 9, 14),
    ChunkRef("c.avap#0", "c.avap", 1, 6),
]

RELEVANT = {
    "errors": [Relevant("a.avap", (5, 12), 2), Relevant("c.avap")],
    "login": [Relevant("b.avap", (1, 3), 3), Relevant("a.avap", (30, 30))],
    "nothing-retrieved": [Relevant("b.avap")],
    "nothing-relevant-in-index": [Relevant("d.avap")],
}

SCORES = {  # ties on purpose: sort_ranking decides, and the report's order must be taken as is
    "errors": {"b.avap#1": 0.9, "a.avap#1": 0.7, "a.avap#0": 0.7, "c.avap#0": 0.2, "b.avap#0": 0.1},
    "login": {"a.avap#2": 0.8, "a.avap#0": 0.8, "b.avap#1": 0.5, "b.avap#0": 0.4, "c.avap#0": 0.3},
    "nothing-retrieved": {},
    "nothing-relevant-in-index": {"a.avap#0": 0.5, "b.avap#0": 0.4},
}


def _build(tmp_path: Path, k: int = 3, golden_name: str = "queries.yaml") -> Path:
    """A report as the harness writes it, with metrics from metrics.py (which verify.py must not share code with)."""
    suite_dir = tmp_path / "golden" / "tiny"
    suite_dir.mkdir(parents=True)
    if golden_name.endswith(".jsonl"):
        import yaml

        data = yaml.safe_load(GOLDEN_YAML)
        lines = [json.dumps({"corpus": "corpus"})] + [json.dumps(q) for q in data["queries"]]
        (suite_dir / golden_name).write_text("\n".join(lines) + "\n")
    else:
        (suite_dir / golden_name).write_text(GOLDEN_YAML)
    by_id = {c.chunk_id: c for c in CHUNKS}
    queries = {}
    for qid, scores in SCORES.items():
        ranking = sort_ranking(
            Ranked(cid, by_id[cid].path, by_id[cid].start_line, by_id[cid].end_line, s) for cid, s in scores.items()
        )
        queries[qid] = {
            "ranking": [
                {"chunk_id": r.chunk_id, "path": r.path, "start_line": r.start_line, "end_line": r.end_line,
                 "score": r.score}
                for r in ranking
            ],
            "metrics": evaluate_query(ranking, RELEVANT[qid], CHUNKS, k=k),
        }
    aggregate = {
        mode: {m: sum(q["metrics"][mode][m] for q in queries.values()) / len(queries) for m in queries["errors"]["metrics"][mode]}
        for mode in ("file", "chunk")
    }
    # As the harness writes it: plain means, and each with its interval beside them (what verify reads is the mean).
    intervals = {"file": {m: {"mean": v, "ci_low": 0.0, "ci_high": 1.0} for m, v in aggregate["file"].items()}}
    key = f"golden/tiny/{golden_name}"
    report = {
        "k": k,
        "model": {"id": "test", "sha256": {}},
        "suites": {key: {"golden": key, "strategies": {"fixed": {
            "chunks": [{"id": c.chunk_id, "path": c.path, "start_line": c.start_line, "end_line": c.end_line}
                       for c in CHUNKS],
            "aggregate": aggregate,
            "intervals": intervals,
            "queries": queries,
        }}}},
    }
    out = tmp_path / "report.json"
    out.write_text(json.dumps(report, indent=1))
    return out


def _edit(path: Path, fn) -> None:
    report = json.loads(path.read_text())
    fn(report["suites"]["golden/tiny/queries.yaml"]["strategies"]["fixed"])
    path.write_text(json.dumps(report))


@pytest.mark.parametrize("k", [1, 2, 3, 10])
def test_consistent_report_has_no_mismatches(tmp_path: Path, k: int):
    result = check_report(_build(tmp_path, k=k))
    assert result.mismatches == []
    # 4 queries x 2 modes x 3 metrics, plus 2 modes x 3 aggregate means.
    assert result.checked == 4 * 2 * 3 + 2 * 3


def test_the_example_is_not_trivial(tmp_path: Path):
    # Nonzero, non-one values in both modes, so a wrong rule shows up as a mismatch.
    report = json.loads(_build(tmp_path).read_text())
    queries = report["suites"]["golden/tiny/queries.yaml"]["strategies"]["fixed"]["queries"]
    for mode in ("file", "chunk"):
        values = {v for q in queries.values() for v in q["metrics"][mode].values()}
        assert any(0.0 < v < 1.0 for v in values), mode


def test_jsonl_golden_with_header_line(tmp_path: Path):
    report = _build(tmp_path, golden_name="queries.jsonl")
    assert verify_report(report) == []
    assert load_golden(report.parent / "golden/tiny/queries.jsonl")["login"][0] == ("b.avap", (1, 3), 3)


@pytest.mark.parametrize("mode,metric", [("file", "ndcg@3"), ("chunk", "recall@3"), ("chunk", "mrr@3")])
def test_corrupted_metric_is_reported(tmp_path: Path, mode: str, metric: str):
    path = _build(tmp_path)

    def corrupt(strategy):
        strategy["queries"]["login"]["metrics"][mode][metric] += 2e-9

    _edit(path, corrupt)
    mismatches = verify_report(path)
    assert len(mismatches) == 1
    assert "login" in mismatches[0] and mode in mismatches[0] and metric in mismatches[0]


def test_reordered_ranking_is_caught(tmp_path: Path):
    # The stored order is authoritative: swapping two ranked chunks without recomputing metrics must be noticed.
    path = _build(tmp_path)

    def swap(strategy):
        ranking = strategy["queries"]["errors"]["ranking"]
        ranking[0], ranking[2] = ranking[2], ranking[0]

    _edit(path, swap)
    assert any("errors" in m for m in verify_report(path))


def test_missing_metric_unknown_query_and_foreign_chunk_are_reported(tmp_path: Path):
    path = _build(tmp_path)

    def damage(strategy):
        del strategy["queries"]["errors"]["metrics"]["file"]["mrr@3"]
        strategy["queries"]["ghost"] = copy.deepcopy(strategy["queries"]["errors"])
        strategy["queries"]["login"]["ranking"].append(
            {"chunk_id": "zzz", "path": "a.avap", "start_line": 1, "end_line": 2, "score": 0.0}
        )
        strategy["queries"]["login"]["ranking"][0]["end_line"] = 99

    _edit(path, damage)
    text = "\n".join(verify_report(path))
    assert "'errors' file mrr@3: report None" in text
    assert "'ghost': not in the golden file" in text
    assert "'a.avap#0' is ('a.avap', 1, 99)" in text
    # 'zzz' is ranked below the top 3, so it is outside what the metrics saw: no complaint about it.
    assert "zzz" not in text


def test_cli_prints_counts_and_exit_status(tmp_path: Path, capsys):
    path = _build(tmp_path)
    assert main([str(path)]) == 0
    assert capsys.readouterr().out.strip() == "30 metrics checked, 0 mismatches"

    def corrupt(strategy):
        strategy["aggregate"]["chunk"]["ndcg@3"] = 0.5

    _edit(path, corrupt)
    assert main([str(path)]) == 1
    out = capsys.readouterr().out
    assert "aggregate chunk ndcg@3" in out
    assert out.strip().endswith("30 metrics checked, 1 mismatches")


def _random_cases():
    # The generator of test_metrics.py (ties, overlapping chunks, whole-file items, grades 1-3, empty rankings).
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("_chunkeval_metric_cases", Path(__file__).with_name("test_metrics.py"))
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up while the class is created
        spec.loader.exec_module(module)
    return module.CASES[:150]


@pytest.mark.parametrize("k", [3, 10])
def test_random_reports_agree_and_wrong_rules_would_not(tmp_path: Path, k: int):
    """Each random case becomes a strategy with one query; verify.py must agree with metrics.py on all of them."""
    cases = _random_cases()
    golden = {"queries": [
        {"id": f"q{i}", "query": "x", "relevant": [
            {"path": r.path, "grade": r.grade, **({"lines": list(r.lines)} if r.lines else {})} for r in c.relevant
        ]}
        for i, c in enumerate(cases)
    ]}
    (tmp_path / "g.json").write_text(json.dumps(golden))  # YAML is a superset of JSON
    strategies = {}
    for i, c in enumerate(cases):
        strategies[f"s{i}"] = {
            "chunks": [{"id": x.chunk_id, "path": x.path, "start_line": x.start_line, "end_line": x.end_line}
                       for x in c.chunks],
            "queries": {f"q{i}": {
                "ranking": [{"chunk_id": r.chunk_id, "path": r.path, "start_line": r.start_line,
                             "end_line": r.end_line, "score": r.score} for r in c.ranking],
                "metrics": evaluate_query(c.ranking, c.relevant, c.chunks, k=k),
            }},
        }
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"k": k, "suites": {"g.json": {"golden": "g.json", "strategies": strategies}}}))
    result = check_report(path)
    assert result.mismatches == []
    assert result.checked == len(cases) * 6


def test_without_trec_eval_it_says_what_to_install_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "pytrec_eval", None)  # as if the extra were not installed
    assert main([str(tmp_path / "report.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'pytest-chunkeval[verify]'" in err
