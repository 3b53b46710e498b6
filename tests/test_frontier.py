"""The frontier on hand-made reports: Pareto sets worked out by hand (ties, equal costs), which point is a default,
Holm over the defaults compared, the suite-stratified test against a brute-force enumeration, pooling, the command
and its chart."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from frontier_reports import entry, hand_made_report, report

from pytest_chunkeval.cli import main
from pytest_chunkeval.frontier.analysis import analyse, from_reports
from pytest_chunkeval.frontier.pareto import best, dominates, frontier
from pytest_chunkeval.frontier.points import Point, default_metric, report_points, report_tags
from pytest_chunkeval.frontier.pooled import pool
from pytest_chunkeval.frontier.significance import against_defaults, stratified_test
from pytest_chunkeval.output.frontier_chart import short_label
from pytest_chunkeval.scoring.family import adjust
from pytest_chunkeval.scoring.stats import paired_test


def point(label: str, quality: float, cost: float, default: bool = False) -> Point:
    return Point("s", "hybrid", label, label, {}, default, {"bytes": cost, "chunks": cost, "embed_tokens": cost},
                 {"s": {"q": quality}})


def test_the_default_quality_is_line_projected_ndcg_at_k() -> None:
    assert default_metric(10) == "lines:ndcg@10" and default_metric(5) == "lines:ndcg@5"


def test_the_pareto_set_worked_out_by_hand_keeps_ties_and_drops_equal_cost_losers() -> None:
    a, b, c, d, e = (point("a", 0.5, 100), point("b", 0.6, 200), point("c", 0.55, 300), point("d", 0.6, 200),
                     point("e", 0.4, 100))
    pts = [c, e, d, a, b]
    assert [p.label for p in frontier(pts, "bytes")] == ["a", "b", "d"]  # b and d tie: neither dominates the other
    assert dominates(b, c, "bytes") and dominates(a, e, "bytes") and not dominates(b, d, "bytes")
    assert best(pts, "bytes").label == "b"  # equal quality and cost: the label decides, never the order
    panel = analyse(pts, "lines:ndcg@10", "bytes").panels[0]
    assert panel.dominated_by == {"c": "b", "e": "a"}
    assert [p.label for p in panel.points] == ["a", "e", "b", "d", "c"]  # cheapest first


def test_defaults_are_plain_strategies_or_the_point_at_the_factorys_defaults() -> None:
    grid = {f"fixed_size[size={s}]": entry([0.5], s, strategy=f"fixed_size[size={s}]", family="fixed_size",
                                          params={"size": s}, defaults={"size": 1000, "overlap": 100})
            for s in (500, 1000)}
    old = {"ast[size=200]": entry([0.5], 1, strategy="ast[size=200]"), "file_level": entry([0.5], 1,
                                                                                          strategy="file_level")}
    points, _ = report_points([report({"s": {**grid, **old}})])
    assert {p.label for p in points if p.default} == {"fixed_size[size=1000]", "file_level"}
    assert {p.label: (p.family, dict(p.params)) for p in points}["ast[size=200]"] == ("ast", {"size": 200})
    # With the plain strategy in the run (the baseline named plainly), the plain row is the default.
    plain = {**grid, "fixed_size": entry([0.5], 1, strategy="fixed_size")}
    points, _ = report_points([report({"s": plain})])
    assert {p.label for p in points if p.default} == {"fixed_size"}


def test_the_best_point_is_tested_against_every_other_default_with_holm_over_their_number() -> None:
    best_values = [0.9, 0.8, 0.9, 1.0, 0.7, 0.9, 0.8, 0.9]
    others = {name: [v - shift for v in best_values] for name, shift in (("x", 0.3), ("y", 0.1), ("z", 0.0))}
    pts = [Point("s", "m", "top", "top", {}, False, {"bytes": 5.0},
                 {"s": {f"q{i}": v for i, v in enumerate(best_values)}})]
    pts += [Point("s", "m", n, n, {}, True, {"bytes": 1.0}, {"s": {f"q{i}": v for i, v in enumerate(vs)}})
            for n, vs in others.items()]
    tests = against_defaults(pts[0], pts)
    raw = [paired_test(best_values, others[n]) for n in ("x", "y", "z")]
    assert [v.default.label for v in tests] == ["x", "y", "z"]
    assert [v.p_value for v in tests] == raw
    assert [v.p_holm for v in tests] == adjust(raw, "holm")
    assert {v.compared for v in tests} == {3}  # one candidate (top) against three defaults
    assert tests[0].p_holm == pytest.approx(min(1.0, 3 * raw[0]))  # 2 ** 8 = 256 assignments: exact
    assert tests[0].delta == pytest.approx(0.3) and tests[2].p_value == 1.0
    # The best point, itself a default, is not compared with itself; the family is still every candidate (top and
    # the best) against every other default: top-x, top-y, z-x, z-y.
    versus = against_defaults(pts[3], pts)
    assert [v.default.label for v in versus] == ["x", "y"] and {v.compared for v in versus} == {4}


def test_the_family_is_every_point_against_every_default_because_the_best_was_chosen_among_them() -> None:
    base = [0.5, 0.6, 0.4, 0.7, 0.5, 0.6, 0.5, 0.4]
    lifts = {"a": 0.05, "b": 0.1, "best": 0.3}
    pts = [Point("s", "m", "default", "f", {}, True, {"bytes": 1.0}, {"s": {f"q{i}": v for i, v in enumerate(base)}})]
    pts += [Point("s", "m", n, "f", {}, False, {"bytes": 2.0},
                  {"s": {f"q{i}": v + lift * (1 if i % 3 else -1) for i, v in enumerate(base)}})
            for n, lift in lifts.items()]
    (versus,) = against_defaults(pts[3], pts)
    raws = [paired_test([v + lift * (1 if i % 3 else -1) for i, v in enumerate(base)], base)
            for lift in lifts.values()]
    assert versus.compared == 3 and versus.p_value == raws[2]
    assert versus.p_holm == adjust(raws, "holm")[2]
    assert versus.p_holm > versus.p_value  # more than the one test a point picked beforehand would need


def _brute_force(strata: list[list[float]]) -> float:
    flat = [(i, d) for i, s in enumerate(strata) for d in s]

    def stat(signs: tuple[int, ...]) -> float:
        sums = [0.0] * len(strata)
        for sign, (i, d) in zip(signs, flat, strict=True):
            sums[i] += sign * d
        return abs(sum(t / len(s) for t, s in zip(sums, strata, strict=True)) / len(strata))

    observed = stat((1,) * len(flat))
    every = list(itertools.product((1, -1), repeat=len(flat)))
    return sum(stat(s) >= observed - 1e-12 for s in every) / len(every)


@pytest.mark.parametrize("strata", [[[0.5, 0.1], [-0.05, 0.02, 0.01, -0.03, 0.04]], [[0.2], [0.1, -0.3, 0.05]],
                                    [[0.3, 0.2, 0.25]]])
def test_the_stratified_test_equals_a_brute_force_enumeration_of_sign_flips(strata: list[list[float]]) -> None:
    assert stratified_test(strata) == pytest.approx(_brute_force(strata))


def test_one_stratum_is_the_plain_paired_test_and_a_big_suite_does_not_dominate() -> None:
    diffs = [0.1, -0.2, 0.3, 0.05, 0.0, 0.15]
    assert stratified_test([diffs]) == paired_test(diffs, [0.0] * len(diffs))
    assert stratified_test([]) == 1.0
    # Suite a: 12 queries, the point 0.01 better on each; suite b: 2 queries, 0.5 worse. Pooled over all 14 queries
    # the difference would be about -0.06; as the mean of the suites' means it is -0.245.
    per = {"a": {f"q{i}": 0.5 for i in range(12)}, "b": {"q0": 0.5, "q1": 0.5}}
    top = Point("pooled", "m", "top", "top", {}, False, {"bytes": 1.0},
                {"a": {q: v + 0.01 for q, v in per["a"].items()}, "b": {q: v - 0.5 for q, v in per["b"].items()}})
    base = Point("pooled", "m", "base", "base", {}, True, {"bytes": 1.0}, per)
    (versus,) = against_defaults(top, [top, base])
    assert versus.delta == pytest.approx((0.01 - 0.5) / 2) and versus.queries == 14
    assert top.quality == pytest.approx((0.51 + 0.0) / 2)


def test_pooling_keeps_points_on_every_suite_averages_suite_means_and_sums_costs() -> None:
    suites = {
        "a": {"p": entry([1.0, 0.0], 100, strategy="p"), "q": entry([0.2], 50, strategy="q")},
        "b": {"p": entry([0.2, 0.2, 0.2, 0.2], 300, strategy="p")},
    }
    points, _ = report_points([report(suites)])
    pooled, left_out = pool(points)
    assert [p.label for p in pooled] == ["p"] and left_out == ["q (hybrid): on 1 of 2 suites"]
    assert pooled[0].quality == pytest.approx((0.5 + 0.2) / 2) and pooled[0].costs["bytes"] == 400
    result = analyse(points, "lines:ndcg@10", "bytes")
    assert [p.pooled for p in result.panels] == [False, False, True]


def test_the_command_prints_the_table_and_writes_markdown_and_a_png_of_the_expected_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = hand_made_report(tmp_path)
    png, md = tmp_path / "out" / "f.png", tmp_path / "out" / "f.md"
    assert main(["frontier", str(path), "--chart", str(png), "--markdown", str(md)]) == 0
    out = capsys.readouterr().out
    assert "NDCG@10 lines against index KB" in out
    assert "★ frontier, best" in out and "dominated by fixed_size[size=500]" in out
    assert "best: fixed_size[size=500]" in out
    assert "default fixed_size[size=1000]: +0.325 over 4 paired queries" in out
    assert "Holm over 4 comparisons" in out  # 500 and 2000 against 1000 and file_level
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (640, 460)  # one panel
    text = md.read_text()
    assert text.startswith("## Frontier") and "![frontier](f.png)" in text and "| fixed_size[size=500] |" in text


def test_the_command_takes_another_metric_and_cost_and_refuses_a_bad_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = hand_made_report(tmp_path)
    assert main(["frontier", str(path), "--metric", "file:ndcg@10", "--cost", "chunks"]) == 0
    assert "NDCG@10 file against chunks" in capsys.readouterr().out
    assert main(["frontier", str(path), "--metric", "ndcg"]) == 2
    assert "is not MODE:METRIC@CUTOFF" in capsys.readouterr().err
    result = from_reports([json.loads(path.read_text())], None, "bytes")
    assert [p.label for p in result.panels[0].frontier] == ["file_level", "fixed_size[size=500]"]


def test_each_retrieval_mode_is_its_own_panel_and_pooled_per_mode() -> None:
    suites = {key: {f"{name}[{mode}]": entry([q, q], size, strategy=name, mode=mode)
                    for name, q, size in (("a", 0.5, 10), ("b", 0.7, 20)) for mode in ("vector", "hybrid")}
              for key in ("s1", "s2")}
    multi = report(suites) | {"retrieval": "vector,hybrid", "retrieval_modes": ["vector", "hybrid"]}
    result = from_reports([multi], None, "bytes")
    assert [(p.suite, p.mode, p.pooled) for p in result.panels] == [
        ("s1", "vector", False), ("s1", "hybrid", False), ("s2", "vector", False), ("s2", "hybrid", False),
        ("pooled over 2 suites", "vector", True), ("pooled over 2 suites", "hybrid", True)]
    assert {p.label for p in result.panels[0].points} == {"a", "b"} and result.panels[-1].best.label == "b"


def test_the_chart_can_hold_only_the_pooled_panels(tmp_path: Path) -> None:
    suites = {key: {f"{name}[{mode}]": entry([q, q], size, strategy=name, mode=mode)
                    for name, q, size in (("a", 0.5, 10), ("b", 0.7, 20)) for mode in ("vector", "hybrid")}
              for key in ("s1", "s2")}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report(suites) | {"retrieval": "vector,hybrid", "retrieval_modes": ["vector", "hybrid"]}))
    every, pooled = tmp_path / "all.png", tmp_path / "pooled.png"
    assert main(["frontier", str(path), "--chart", str(every)]) == 0
    assert main(["frontier", str(path), "--chart", str(pooled), "--chart-panels", "pooled"]) == 0

    def size(png: Path) -> tuple[int, int]:
        data = png.read_bytes()
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")

    assert size(every) == (3 * 640, 2 * 460)  # six panels, three a row
    assert size(pooled) == (2 * 640, 460)  # the two pooled ones


def test_points_equal_on_both_axes_and_pooled_points_list_their_values_as_numbers() -> None:
    sizes = (2000, 500, 1000)
    grid = {f"w[size={s}]": entry([0.5], 100, strategy=f"w[size={s}]", family="w", params={"size": s},
                                 defaults={"size": 1000}) for s in sizes}
    points, _ = report_points([report({"a": grid, "b": grid})])
    pooled, _ = pool(points)
    assert [p.label for p in pooled] == ["w[size=500]", "w[size=1000]", "w[size=2000]"]  # as text: 1000, 2000, 500
    panel = analyse(points, "lines:ndcg@10", "bytes").panels[0]
    assert [p.label for p in panel.points] == ["w[size=500]", "w[size=1000]", "w[size=2000]"]


def test_the_embedding_cost_is_the_tokens_embedded_whatever_the_cache_held(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # b shares a's texts, so when it was built every text came from the cache: 0.0 seconds, the same tokens.
    a = entry([0.5, 0.5], 100, strategy="a", tokens=4_000)
    b = entry([0.6, 0.6], 100, strategy="b", tokens=4_000)
    b["index"]["cost"]["embed_seconds"] = 0.0
    c = entry([0.7, 0.7], 300, strategy="c", tokens=9_000)
    old = entry([0.9, 0.9], 50, strategy="old", tokens=None)  # a report from before embed_tokens
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report({"s": {"a": a, "b": b, "c": c, "old": old}})))
    assert main(["frontier", str(path), "--cost", "embed_tokens"]) == 0
    out = capsys.readouterr().out
    assert "NDCG@10 lines against embed tokens" in out
    rows = {line.split()[0]: line for line in out.splitlines() if line[:1] == " " and line.split()[:1] in (["a"], ["b"], ["c"])}
    assert "dominated by b" in rows["a"] and "4,000" in rows["b"] and "★ frontier" in rows["c"]
    assert "left out: 1 point(s) of s whose report does not record embed tokens" in out
    assert main(["frontier", str(path)]) == 0  # by index size the old point is in, its token cell empty
    old_row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(" old "))
    assert old_row.split()[4] == "—"


def test_a_strategy_in_two_reports_keeps_both_points_each_named_by_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 33: a base's report and a pull request's, both with fixed_size, kept one point (0.311 vanished)."""
    def one(folder: str, fixed: float) -> Path:
        path = tmp_path / folder / "chunkeval-report.json"
        path.parent.mkdir()
        path.write_text(json.dumps(report({"s": {
            "fixed_size": entry([fixed] * 4, 2000, strategy="fixed_size"),
            "file_level": entry([0.2] * 4, 9000, strategy="file_level"),
            **({"ast": entry([0.1] * 4, 1000, strategy="ast")} if folder == "head" else {})}})))
        return path

    base, head = one("base", 0.311), one("head", 0.246)
    md, png = tmp_path / "f.md", tmp_path / "f.png"
    assert main(["frontier", str(base), str(head), "--markdown", str(md), "--chart", str(png)]) == 0
    out = capsys.readouterr().out
    kept = ("fixed_size (base/chunkeval-report.json)", "fixed_size (head/chunkeval-report.json)")
    rows = {label: line for line in out.splitlines() for label in kept if line.startswith(f" {label} ")}
    assert set(rows) == set(kept), out
    assert "0.311" in rows[kept[0]] and "0.246" in rows[kept[1]]
    assert f"best: {kept[0]}" in out
    assert f"fixed_size is in 2 reports on the same suite; each is kept, named by its report: {kept[0]}, {kept[1]}" \
        in out
    # a label only one report holds stays plain; so does one both hold with the same values (shown once)
    assert " ast " in out and " file_level " in out and "file_level (base" not in out
    assert "s: file_level (hybrid) is the same point in base/chunkeval-report.json, head/chunkeval-report.json: " \
           "shown once" in out
    text = md.read_text()
    assert all(f"| {label} |" in text for label in kept)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    panel = from_reports([json.loads(p.read_text()) for p in (base, head)], None, "bytes",
                         names=[str(base), str(head)]).panels[0]
    assert len(panel.points) == 4 and len({p.label for p in panel.points}) == 4
    assert {short_label(p) for p in panel.frontier} >= {"fixed_size (base/chunkeval-report.json)"}


def test_report_names_in_labels_are_short_and_unique() -> None:
    assert report_tags(["a.json", "b.json"]) == ["a.json", "b.json"]
    assert report_tags(["runs/base/r.json", "runs/head/r.json", "x.json"]) == ["base/r.json", "head/r.json", "x.json"]
    assert report_tags(["/tmp/a/x/r.json", "/tmp/b/x/r.json"]) == ["a/x/r.json", "b/x/r.json"]
    assert report_tags(["r.json", "old/r.json"]) == ["r.json", "old/r.json"]
    assert report_tags(["r.json", "r.json"]) == ["r.json #1", "r.json #2"]  # one report given twice
    # pooled over suites: each report's point pools with its own report's points
    two = report({"s1": {"a": entry([0.5], 10, strategy="a")}, "s2": {"a": entry([0.5], 10, strategy="a")}})
    one = report({"s1": {"a": entry([0.7], 10, strategy="a")}})
    points, notes = report_points([two, one], names=["two.json", "one.json"])
    assert sorted((p.suite, p.label) for p in points) == [
        ("s1", "a (one.json)"), ("s1", "a (two.json)"), ("s2", "a (two.json)")]
    pooled, left_out = pool(points)
    assert [p.label for p in pooled] == ["a (two.json)"] and left_out == ["a (one.json) (hybrid): on 1 of 2 suites"]
