"""tools/versus_default.py on hand-made reports: each point against its own strategy's default, pooled as the
frontier pools (mean of the suites' means), the over-window share counted over chunks, Holm over the candidates."""
from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from frontier_reports import entry, report
from tool_modules import load_tool

DEFAULTS = {"size": 1000, "size_unit": "chars"}


def _tool() -> ModuleType:
    return load_tool("versus_default")


def _point(size: Any, values: list[float], *, over: int, chunks: int, recall: float = 1.0) -> dict[str, Any]:
    label = f"fixed_size[size={size}]"
    out = entry(values, chunks * 100, strategy=label, chunks=chunks, family="fixed_size", params={"size": size},
                defaults=DEFAULTS)
    for q in out["queries"].values():
        q["metrics"]["file"]["recall@10"] = recall
    out["quality"] = {"chunks": chunks, "over_window": over}
    return out


def _write(tmp_path: Path, name: str, suites: dict[str, dict[str, Any]]) -> Path:
    path = tmp_path / name
    body = report(suites)
    for key, suite in body["suites"].items():
        suite["content_digest"] = key  # each key one suite's content
        suite["name"] = f"repo-{key}"
    path.write_text(json.dumps(body))
    return path


A = {1000: [0.2, 0.3, 0.1, 0.2], "window": [0.5, 0.6, 0.4, 0.7]}
B = {1000: [0.4, 0.4, 0.5], "window": [0.6, 0.5, 0.7]}


def _two_reports(tmp_path: Path) -> list[Path]:
    """The default in one report and the candidate in another, on the same two suites (as a sweep runs them)."""
    chars = _write(tmp_path, "chars.json", {
        "a": {"fixed_size[size=1000]": _point(1000, A[1000], over=6, chunks=10)},
        "b": {"fixed_size[size=1000]": _point(1000, B[1000], over=1, chunks=10)}})
    window = _write(tmp_path, "window.json", {
        "a": {"fixed_size[size=window]": _point("window", A["window"], over=0, chunks=20, recall=0.5)},
        "b": {"fixed_size[size=window]": _point("window", B["window"], over=0, chunks=30, recall=0.5)}})
    return [chars, window]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def test_the_candidate_is_pooled_over_both_reports_and_tested_against_its_own_default(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "versus.md"
    assert _tool().main([*map(str, _two_reports(tmp_path)), "--markdown", str(out)]) == 0
    text = out.read_text()
    assert text == capsys.readouterr().out.rstrip("\n") + "\n"
    pooled = {size: (_mean(A[size]) + _mean(B[size])) / 2 for size in A}
    assert f"| `fixed_size[size=1000]` (default) | {pooled[1000]:.3f} | 1.000 | 35% | 2 | 20 |" in text
    assert f"| `fixed_size[size=window]` | {pooled['window']:.3f} | 0.500 | 0% | 5 | 50 |" in text
    delta = pooled["window"] - pooled[1000]
    assert f"`fixed_size[size=window]` − `fixed_size[size=1000]`: {delta:+.3f} over 7 paired queries" in text
    assert "Holm over 1" in text


def test_holm_adjusts_over_every_candidate_and_an_even_point_is_not_significant(tmp_path: Path) -> None:
    tool = _tool()
    reports = [json.loads(p.read_text()) for p in _two_reports(tmp_path)]
    same = _write(tmp_path, "same.json", {
        "a": {"fixed_size[size=999]": _point(999, A[1000], over=0, chunks=10)},
        "b": {"fixed_size[size=999]": _point(999, B[1000], over=0, chunks=10)}})
    points, _ = tool.report_points([*reports, json.loads(same.read_text())], tool.QUALITY)
    pooled = tool._pooled(points, "hybrid")
    pairs, notes = tool.default_pairs(list(pooled.values()))
    assert sorted(pairs) == [("fixed_size[size=999]", "fixed_size[size=1000]"),
                             ("fixed_size[size=window]", "fixed_size[size=1000]")] and notes == []
    tests = {t.candidate: t for t in tool.versus(pooled, pairs, resamples=2000, seed=0)}
    even, better = tests["fixed_size[size=999]"], tests["fixed_size[size=window]"]
    assert even.delta == 0 and even.p_value == 1.0 and even.p_holm == 1.0
    assert better.delta > 0 and better.p_value < 0.05
    assert better.p_holm == pytest.approx(min(1.0, 2 * better.p_value))


def test_a_pair_naming_no_pooled_point_is_one_message_and_exit_2(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    paths = _two_reports(tmp_path)
    assert _tool().main([*map(str, paths), "--pair", "fixed_size[size=650]=fixed_size[size=1000]"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("versus_default: 'fixed_size[size=650]' is not a point on every suite") and err.count("\n") == 1


def test_a_point_on_one_suite_only_is_left_out_of_the_pool(tmp_path: Path) -> None:
    tool = _tool()
    chars, window = (json.loads(p.read_text()) for p in _two_reports(tmp_path))
    del window["suites"]["b"]
    points, _ = tool.report_points([chars, window], tool.QUALITY)
    assert list(tool._pooled(points, "hybrid")) == ["fixed_size[size=1000]"]


@pytest.mark.parametrize(("text", "pair"), [
    ("fixed_size[size=window,size_unit=tokens]=fixed_size[size=1000]",
     ("fixed_size[size=window,size_unit=tokens]", "fixed_size[size=1000]")),
    ("ast[size=window]=ast", ("ast[size=window]", "ast")),
    ("ast=file_level", ("ast", "file_level")),
])
def test_a_pair_splits_where_the_candidate_label_ends(text: str, pair: tuple[str, str]) -> None:
    assert _tool().parse_pair(text) == pair


@pytest.mark.parametrize("text", ["ast", "=ast", "ast="])
def test_a_pair_without_both_labels_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not CANDIDATE=DEFAULT"):
        _tool().parse_pair(text)


def test_per_suite_shows_each_suite_mean_of_each_point(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _tool().main([*map(str, _two_reports(tmp_path)), "--per-suite"]) == 0
    text = capsys.readouterr().out
    assert "| point | repo-a | repo-b |" in text
    for size in A:
        assert f"| `fixed_size[size={size}]` | {_mean(A[size]):.3f} | {_mean(B[size]):.3f} |" in text


def test_the_metric_tested_can_be_the_file_recall_the_gates_read(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert _tool().main([*map(str, _two_reports(tmp_path)), "--metric", "file:recall@10"]) == 0
    text = capsys.readouterr().out
    assert "| `fixed_size[size=1000]` (default) | 1.000 | 1.000 |" in text
    assert "`fixed_size[size=window]` − `fixed_size[size=1000]`: -0.500 over 7 paired queries" in text


def test_a_metric_that_is_not_mode_metric_cutoff_is_one_message(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert _tool().main([*map(str, _two_reports(tmp_path)), "--metric", "ndcg"]) == 2
    assert capsys.readouterr().err.startswith("versus_default: 'ndcg' is not MODE:METRIC@CUTOFF")


def test_a_file_that_is_not_a_report_is_one_message_naming_it(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert _tool().main([*map(str, _two_reports(tmp_path)), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"versus_default: {bad}: not a pytest-chunkeval report") and err.count("\n") == 1
