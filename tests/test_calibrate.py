"""chunkeval calibrate on hand-made reports (no evaluation): null changes stay within alpha with a correction and do
not without one, injected regressions are caught more often the larger they are, the figures are the same for a seed
however the runs are split, and the command prints and writes what it says. Several tests patch the real decision
code to show that the simulation runs it (a simulation that reimplemented the decision would not notice)."""
from __future__ import annotations

import json
import random
import statistics
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pytest_chunkeval import cli
from pytest_chunkeval.commands.calibrate import figures as summary
from pytest_chunkeval.commands.calibrate.cli import one_blas_thread
from pytest_chunkeval.commands.calibrate.inject import demoted, detect, share_for, targets
from pytest_chunkeval.commands.calibrate.nulls import ALL, flipped_sides, plan, same_tree, sign_flips
from pytest_chunkeval.core.ranking import Ranked, Relevant
from pytest_chunkeval.judges import comparison
from pytest_chunkeval.judges.comparison import Policy
from pytest_chunkeval.results.typed import IndexInfo, QueryResult, QuerySpec, StrategyResult, SuiteResult
from pytest_chunkeval.scoring.family import per_test_alpha
from pytest_chunkeval.scoring.metrics import evaluate_query

K = 10


@pytest.fixture(autouse=True)
def _one_blas_thread() -> Iterator[None]:
    with one_blas_thread():  # as the command runs: a paired test's product is too small for threads
        yield


def _ranking(rnd: random.Random, qi: int, hit_rank: int | None) -> tuple[Ranked, ...]:
    """Ten chunks of distractor files, with the query's relevant file at ``hit_rank`` (1-based) when given."""
    out = []
    for r in range(1, K + 1):
        path = f"src/m{qi}.py" if r == hit_rank else f"src/other{rnd.randrange(50)}.py"
        out.append(Ranked(f"{path}#{r}", path, r, r + 5, 1.0 - r / 100))
    return tuple(out)


def make_suite(key: str, strategies: int, queries: int, seed: int = 0, hit: float = 0.8) -> SuiteResult:
    """A suite whose strategies rank each query's one relevant file at a random rank (or miss it); every stored
    metric is what ``evaluate_query`` says of the ranking, as in a real report."""
    rnd = random.Random(seed)
    specs = {f"q{i}": QuerySpec(f"q{i}", f"query {i}", (Relevant(f"src/m{i}.py"),)) for i in range(queries)}
    suite = SuiteResult(key, key, "corpus", 60, {}, specs)
    for s in range(strategies):
        name = f"s{s:02d}"
        results = {}
        for i, (qid, spec) in enumerate(specs.items()):
            ranking = _ranking(rnd, i, rnd.randint(1, K) if rnd.random() < hit else None)
            metrics = evaluate_query(ranking, spec.relevant, (), K)
            results[qid] = QueryResult(qid, metrics["file"][f"ndcg@{K}"] > 0, ranking, metrics)
        suite.strategies[name] = StrategyResult(key, name, files=60, queries=results, index=IndexInfo(digest=name),
                                                mode="hybrid", label=name)
    return suite


def report_dict(*suites: SuiteResult) -> dict:
    return {"version": 3, "k": K, "retrieval": "hybrid", "suites": {s.key: s.to_entry() for s in suites}}


# -- null pull requests ------------------------------------------------------------------------------------------


def test_sign_flip_nulls_stay_within_alpha_with_holm_and_pair_every_strategy_with_the_next() -> None:
    suite = make_suite("a.yaml", strategies=6, queries=30)
    p = plan({suite.key: suite}, K)
    first = p.pairs[suite.key][0]
    assert first.table.label == "s00"  # changed; its partner is the next strategy, s01
    assert first.partner[0].metrics["file"] == {m: v for m, v in suite.strategies["s01"].queries["q0"].metrics["file"]
                                                .items() if m in ("ndcg@10", "recall@10")}
    assert p.scopes == ["a.yaml"] and p.changed("a.yaml") == 6
    (rates,) = sign_flips(p, Policy(k=K), ["holm", "none"], range(150), seed=1)
    assert rates.runs == 150 and rates.family == 18  # every strategy changed: NDCG, R and the hit test each
    # Holm keeps the whole run at alpha; three standard errors of a share of 0.05 over 150 runs is 0.053.
    assert rates.rate("holm") <= 0.05 + 0.053
    assert rates.rate("none") >= rates.rate("holm")


def test_without_a_correction_a_large_family_fails_far_more_often_than_alpha() -> None:
    """The test that fails if the simulation did not exercise the family: 20 changed strategies, 40 tests."""
    suite = make_suite("big.yaml", strategies=20, queries=14, seed=3)
    (rates,) = sign_flips(plan({suite.key: suite}, K), Policy(k=K), ["holm", "none"], range(60), seed=2)
    assert rates.family == 60
    assert rates.rate("none") > 0.3  # about 1 - 0.95 ** (independent tests among the 40)
    assert rates.rate("holm") <= 0.15


def test_the_simulation_runs_the_real_adjustment(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the family adjustment replaced by "no adjustment", Holm's rate becomes the uncorrected one: the
    simulation decides with comparison.judge, not with a copy of it."""
    suite = make_suite("big.yaml", strategies=20, queries=14, seed=3)
    p = plan({suite.key: suite}, K)
    (honest,) = sign_flips(p, Policy(k=K), ["holm", "none"], range(30), seed=2)
    monkeypatch.setattr(comparison, "adjust", lambda ps, method: [min(1.0, x) for x in ps])
    (broken,) = sign_flips(p, Policy(k=K), ["holm", "none"], range(30), seed=2)
    assert broken.red["holm"] == broken.red["none"] == honest.red["none"] > honest.red["holm"]


def test_several_suites_are_one_family_and_each_suite_alone_is_a_scope() -> None:
    a, b = make_suite("a.yaml", 3, 20, seed=4), make_suite("b.yaml", 2, 20, seed=5)
    p = plan({a.key: a, b.key: b}, K)
    rates = {r.scope: r for r in sign_flips(p, Policy(k=K), ["holm"], range(5), seed=0)}
    assert set(rates) == {ALL, "a.yaml", "b.yaml"}
    assert (rates[ALL].family, rates["a.yaml"].family, rates["b.yaml"].family) == (15, 9, 6)


def test_a_suite_with_one_strategy_has_no_null_pair() -> None:
    suite = make_suite("one.yaml", strategies=1, queries=10)
    assert plan({suite.key: suite}, K).pairs == {}


def test_a_report_without_query_sets_still_pairs_its_queries_but_injects_nothing() -> None:
    suite = make_suite("old.yaml", 3, 20, seed=4)
    suite.queries = {}
    bases, heads = flipped_sides(plan({suite.key: suite}, K), np.random.default_rng(0))
    comparisons, family = comparison.compare_run(dict(bases), heads, Policy(k=K))
    assert family == 9 and {c.paired for c in comparisons["old.yaml"].strategies.values()} == {20}
    assert targets(suite, K, "clean") == []


def test_the_same_tree_is_never_red_and_tests_nothing() -> None:
    a, b = make_suite("a.yaml", 3, 20, seed=4), make_suite("b.yaml", 2, 20, seed=5)
    rows = same_tree({a.key: a, b.key: b}, Policy(k=K), ["holm", "none"])
    assert [(r.scope, r.changed, r.family, r.red) for r in rows] == [
        (ALL, 0, 0, {"holm": 0, "none": 0}), ("a.yaml", 0, 0, {"holm": 0, "none": 0}),
        ("b.yaml", 0, 0, {"holm": 0, "none": 0})]


def test_null_runs_are_the_same_for_a_seed_however_they_are_split() -> None:
    suite = make_suite("a.yaml", 4, 25, seed=6)
    p = plan({suite.key: suite}, K)
    whole = sign_flips(p, Policy(k=K), ["none"], range(40), seed=9)[0]
    parts = [sign_flips(p, Policy(k=K), ["none"], r, seed=9)[0] for r in (range(0, 25), range(25, 40))]
    parts[0].add(parts[1])
    assert (parts[0].runs, parts[0].red) == (whole.runs, whole.red)
    assert sign_flips(p, Policy(k=K), ["none"], range(40), seed=9)[0].red == whole.red


# -- injected regressions ----------------------------------------------------------------------------------------


def test_the_loss_moves_every_chunk_of_the_first_relevant_file_below_k() -> None:
    rel = (Relevant("a.py"), Relevant("b.py"))
    ranking = (Ranked("x#1", "x.py", 1, 2, 0.9), Ranked("a#1", "a.py", 1, 2, 0.8), Ranked("b#1", "b.py", 1, 2, 0.7),
               Ranked("a#2", "a.py", 5, 6, 0.6))
    assert demoted(ranking, rel, K) == (ranking[0], ranking[2])
    assert demoted(ranking[:1], rel, K) is None  # nothing relevant in the top k: nothing to lose
    before = evaluate_query(ranking, rel, (), K)["file"]
    after = evaluate_query(demoted(ranking, rel, K) or (), rel, (), K)["file"]
    assert after["recall@10"] == 0.5 and after["ndcg@10"] < before["ndcg@10"]


def test_the_injected_size_is_the_factor_times_the_mde_the_report_would_print() -> None:
    suite = make_suite("a.yaml", 2, 60, seed=7)
    (target, _) = targets(suite, K, "clean")
    assert target.mismatches == 0  # the stored metrics are reproduced from the rankings
    alpha = per_test_alpha(0.05, 2, "holm")
    share, fall, mde = share_for(target, 1.0, alpha)
    assert 0 < share < 1 and fall == pytest.approx(mde, rel=0.01)
    share2, fall2, mde2 = share_for(target, 2.0, alpha)
    assert share2 > share and fall2 >= 2 * mde2
    # 60 queries cannot show a fall of 8 MDEs by losing files: every query lost is the closest it gets
    share8, fall8, mde8 = share_for(target, 8.0, alpha)
    assert share8 == 1.0 and fall8 < 8 * mde8


def test_detection_rises_with_the_size_of_the_regression() -> None:
    suite = make_suite("a.yaml", 2, 60, seed=8)
    target = targets(suite, K, "churn")[0]
    rates = [detect(target, Policy(k=K), ["holm", "none"], f, range(40), seed=0) for f in (0.25, 1.0, 4.0)]
    holm = [d.rate("holm") for d in rates]
    assert holm[0] < holm[1] <= holm[2] == 1.0
    assert all(d.rate("none") >= d.rate("holm") for d in rates)  # the same runs, a laxer decision
    # the MDE judge printed in the runs is the population's the size was chosen by, up to sampling
    assert rates[1].mdes and statistics.mean(rates[1].mdes) == pytest.approx(rates[1].mde, rel=0.25)


def test_detection_is_the_same_for_a_seed_however_it_is_split() -> None:
    target = targets(make_suite("a.yaml", 2, 40, seed=8), K, "clean")[1]
    whole = detect(target, Policy(k=K), ["holm"], 1.0, range(20), seed=3)
    part = detect(target, Policy(k=K), ["holm"], 1.0, range(0, 8), seed=3)
    part.add(detect(target, Policy(k=K), ["holm"], 1.0, range(8, 20), seed=3))
    assert (part.runs, part.detected, part.falls) == (whole.runs, whole.detected, whole.falls)


def test_detection_runs_the_real_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    target = targets(make_suite("a.yaml", 2, 40, seed=8), K, "clean")[0]
    monkeypatch.setattr(comparison, "paired_test", lambda a, b, **kw: 1.0)  # no metric's fall is significant
    alone = detect(target, Policy(k=K), ["holm"], 4.0, range(5), seed=0)
    assert alone.by_ndcg == {"holm": 0} and alone.detected == alone.by_hits  # what is caught, the hit test caught
    assert alone.by_hits["holm"] > 0  # it loses whole queries: the hit test sees them
    monkeypatch.setattr(comparison, "hits_test", lambda lost, gained: 1.0)  # nor the hit test's
    assert detect(target, Policy(k=K), ["holm"], 4.0, range(5), seed=0).detected == {"holm": 0}


# -- the command -------------------------------------------------------------------------------------------------


def test_the_command_prints_both_tables_and_writes_every_figure(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    report.write_text(json.dumps(report_dict(make_suite("a.yaml", 3, 20, seed=1), make_suite("b.yaml", 2, 20))))
    out = tmp_path / "cal.json"
    assert cli.main(["calibrate", str(report), "--runs", "10", "--power-runs", "4", "--jobs", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "False alarms" in text and "Detection" in text and "all suites" in text
    doc = json.loads(out.read_text())
    assert set(doc) >= {"settings", "false_alarms", "detection", "detection_per_strategy"}
    first = doc["false_alarms"][0]
    assert first["scope"] == ALL and first["tests"] == 15 and first["holm"]["runs"] == 10
    assert set(first) >= {"holm", "bh", "none"} and len(first["holm"]["ci95"]) == 2
    assert doc["settings"]["mismatches"] == 0
    # 5 strategies x 2 kinds x 3 sizes
    assert len(doc["detection_per_strategy"]) == 30
    assert {d["kind"] for d in doc["detection"]} == {"clean", "churn"}


def test_the_command_gives_the_same_figures_with_several_processes(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    report.write_text(json.dumps(report_dict(make_suite("a.yaml", 3, 20, seed=1))))
    docs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"cal{jobs}.json"
        assert cli.main(["calibrate", str(report), "--runs", "60", "--power-runs", "4", "--kinds", "clean",
                         "--jobs", jobs, "--json", str(out)]) == 0
        doc = json.loads(out.read_text())
        docs.append((doc["false_alarms"], doc["detection_per_strategy"]))
    assert docs[0] == docs[1]


def test_the_command_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    report.write_text(json.dumps(report_dict(make_suite("a.yaml", 2, 10))))
    assert cli.main(["calibrate", str(report), "--corrections", "bonferroni"]) == 2
    assert cli.main(["calibrate", str(tmp_path / "missing.json")]) == 2
    assert "chunkeval calibrate" in capsys.readouterr().err


def test_wilson_interval() -> None:
    assert summary.wilson(0, 100)[0] == 0.0 and summary.wilson(100, 100)[1] == pytest.approx(1.0)
    low, high = summary.wilson(50, 1000)
    assert low < 0.05 < high and high - low == pytest.approx(0.027, abs=0.002)

