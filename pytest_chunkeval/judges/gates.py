"""Acceptance gates: a candidate strategy against the baseline, with the ADR's thresholds as defaults.

Pure functions over two :class:`~results.StrategyResult` values (from a run or a stored report alike), so a gate can
be re-checked from a stored report. NDCG gain is relative, Recall drop is in absolute points, index size increase
is relative.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_chunkeval.core.vocabulary import FILE, NDCG, RECALL, label, metric_keys
from pytest_chunkeval.results.decisions import GateResult

if TYPE_CHECKING:
    from pytest_chunkeval.results.typed import StrategyResult

__all__ = ["GATE_METRIC", "GATE_NAMES", "GateResult", "Thresholds", "evaluate_gates"]

GATE_NAMES = ("ndcg-gain", "recall-drop", "index-size")
#: The metric each quality gate reads (the queries that moved it most are the ones a failing gate shows).
GATE_METRIC = {"ndcg-gain": NDCG, "recall-drop": RECALL}
# Means of per-query floats carry rounding error: a drop of exactly 5 points must not fail a "<= 5 points" gate.
EPS = 1e-9


@dataclass(frozen=True)
class Thresholds:
    ndcg_gain: float = 0.10  # candidate NDCG@k must be >= baseline * (1 + this)
    recall_drop: float = 0.05  # candidate Recall@k may be at most this many points (as a fraction) below
    size_increase: float = 0.50  # candidate index may be less than this much bigger (relative)
    mode: str = FILE  # which relevance view the gates read: file or chunk
    size_measure: str = "bytes"  # bytes (the index payload, vocabulary.SIZE_MEASURE), chunk_count or text_bytes


def evaluate_gates(candidate: StrategyResult, baseline: StrategyResult, k: int, t: Thresholds) -> list[GateResult]:
    """Every gate for one candidate; each result says what was measured against which threshold.

    A ratio against a zero baseline is undefined: the gain then counts as met only when the candidate scores at all,
    and ``measured`` is None rather than an infinity no strict JSON parser accepts.
    """
    cand, base = candidate.means[t.mode], baseline.means[t.mode]
    nd, rc, _ = metric_keys(k)
    gain: float | None = (cand[nd] - base[nd]) / base[nd] if base[nd] else None
    gain_ok = gain >= t.ndcg_gain - EPS if gain is not None else cand[nd] > 0
    drop = base[rc] - cand[rc]
    b_size, c_size = baseline.index.measure(t.size_measure), candidate.index.measure(t.size_measure)
    # Growth against an empty baseline index is undefined: it passes only if the candidate's index is empty too.
    increase: float | None = (c_size - b_size) / b_size if b_size else None
    size_ok = increase < t.size_increase if increase is not None else c_size == 0
    gain_text = f"{gain:+.1%}" if gain is not None else "baseline scores 0"
    size_text = f"{increase:+.0%}" if increase is not None else "the baseline index is empty"
    return [
        GateResult("ndcg-gain", gain_ok, gain, t.ndcg_gain,
                   f"{label(NDCG, k, long=True)} ({t.mode}) {cand[nd]:.4f} vs baseline {base[nd]:.4f}: {gain_text},"
                   f" needs >= {t.ndcg_gain:+.0%}"),
        GateResult("recall-drop", drop <= t.recall_drop + EPS, drop, t.recall_drop,
                   f"{label(RECALL, k, long=True)} ({t.mode}) {cand[rc]:.4f} vs baseline {base[rc]:.4f}: "
                   f"drop {drop * 100:.1f} points, "
                   f"allowed <= {t.recall_drop * 100:.0f}"),
        GateResult("index-size", size_ok, increase, t.size_increase,
                   f"index {t.size_measure} {c_size:.0f} vs baseline {b_size:.0f}: {size_text}, must stay below "
                   f"{t.size_increase:+.0%}"),
    ]
