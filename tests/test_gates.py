"""The ADR's acceptance gates as pure functions over typed strategy results."""
from __future__ import annotations

import pytest

from pytest_chunkeval.judges.gates import Thresholds, evaluate_gates
from pytest_chunkeval.results.typed import IndexInfo, StrategyResult


def entry(ndcg: float, recall: float, size: int) -> StrategyResult:
    return StrategyResult(
        "suite", "s", means={"file": {"ndcg@10": ndcg, "recall@10": recall}},
        index=IndexInfo(bytes=size, chunk_count=1, text_bytes=1),
    )


def outcome(candidate: StrategyResult, baseline: StrategyResult, **kw: object) -> dict[str, bool]:
    return {g.name: g.passed for g in evaluate_gates(candidate, baseline, 10, Thresholds(**kw))}


def test_adr_defaults() -> None:
    base = entry(0.60, 0.80, 1000)
    assert outcome(entry(0.66, 0.75, 1499), base) == {"ndcg-gain": True, "recall-drop": True, "index-size": True}
    assert outcome(entry(0.659, 0.749, 1500), base) == {"ndcg-gain": False, "recall-drop": False, "index-size": False}


@pytest.mark.parametrize("kw, name, expected", [({"ndcg_gain": 0.0}, "ndcg-gain", True), ({"recall_drop": 0.2}, "recall-drop", True),
                                                ({"size_increase": 2.0}, "index-size", True)])
def test_thresholds_are_configurable(kw: dict, name: str, expected: bool) -> None:
    assert outcome(entry(0.6, 0.7, 2500), entry(0.6, 0.8, 1000), **kw)[name] is expected


def test_details_name_values_and_thresholds() -> None:
    gates = evaluate_gates(entry(0.5, 0.8, 3000), entry(0.6, 0.8, 1000), 10, Thresholds())
    assert gates[0].detail == "NDCG@10 (file) 0.5000 vs baseline 0.6000: -16.7%, needs >= +10%"
    assert gates[2].detail == "index bytes 3000 vs baseline 1000: +200%, must stay below +50%"


def test_a_zero_baseline_gives_no_infinite_ratio() -> None:
    gates = evaluate_gates(entry(0.4, 0.8, 1000), entry(0.0, 0.8, 1000), 10, Thresholds())
    assert gates[0].measured is None and gates[0].passed and "baseline scores 0" in gates[0].detail
    assert not evaluate_gates(entry(0.0, 0.8, 1000), entry(0.0, 0.8, 1000), 10, Thresholds())[0].passed


def test_an_empty_baseline_index_fails_the_size_gate_unless_the_candidate_is_empty_too() -> None:
    import json

    gates = evaluate_gates(entry(0.4, 0.8, 1000), entry(0.0, 0.0, 0), 10, Thresholds())
    size = gates[2]
    assert size.measured is None and not size.passed and "the baseline index is empty" in size.detail
    assert evaluate_gates(entry(0.0, 0.0, 0), entry(0.0, 0.0, 0), 10, Thresholds())[2].passed
    # Strict JSON: None, never Infinity or NaN.
    json.dumps([g.__dict__ for g in gates], allow_nan=False)
