"""Compare only like with like: what two runs must share before their numbers may be set against each other.

Two reports made with another k never share a metric key (``ndcg@5`` against ``ndcg@10``), so a comparison between them
would have no metric at all and pass; another model, retrieval modes, line budgets, metric set or corpus change every
number for reasons the pull request did not cause. A head run and its base (a git ref's evaluation or a stored report)
are therefore checked before any item runs, and refused with every difference and both values named.

Golden *query* edits are not a difference here: they keep their own rule (listed, and left out of the pairing). A
field a base report does not record (made by an older pytest-chunkeval) is not checked, and said so.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pytest_chunkeval.core.vocabulary import (
    BUDGET_RECALL,
    LINES,
    RANK_MODES,
    line_metric_keys,
    metric_keys,
    mode_metric,
    split_mode_metric,
)

#: The report's top-level fields this check reads, recorded under "comparable" in every JSON report.
FIELDS = ("k", "model", "model_revision", "model_sha256", "modes", "budgets", "metrics")


def metric_set(k: int, budgets: tuple[int, ...]) -> tuple[str, ...]:
    """Every ``mode:metric`` a run computes per query, as the scoring code names them."""
    return (*(mode_metric(mode, m) for mode in RANK_MODES for m in metric_keys(k)),
            *(mode_metric(LINES, m) for m in line_metric_keys(k, budgets)))


def identity(k: int, model: str, model_sha256: Mapping[str, str], modes: tuple[str, ...], budgets: tuple[int, ...],
             metrics: tuple[str, ...], model_revision: str = "") -> dict[str, Any]:
    """What a run records about itself (the report's ``comparable``), in plain JSON values. ``model_revision`` is
    the hub commit a model's files came from ("" for the bundled model or a local directory)."""
    return {"k": k, "model": model, "model_revision": model_revision,
            "model_sha256": dict(sorted(model_sha256.items())), "modes": list(modes), "budgets": list(budgets),
            "metrics": sorted(metrics)}


def of_report(report: Mapping[str, Any]) -> dict[str, Any]:
    """A report's identity: its ``comparable`` block, or what an older report lets one derive (None where nothing)."""
    found = dict(report.get("comparable") or {})
    model = report.get("model") or {}
    found.setdefault("k", report.get("k"))
    found.setdefault("model", model.get("id"))
    found.setdefault("model_sha256", dict(sorted((model.get("sha256") or {}).items())) or None)
    # In a report that records no revision only a hub model goes without weights digests: a report with digests and
    # no revision is made with the bundled model or a directory (no revision); one with neither is not checked.
    found.setdefault("model_revision", model.get("revision", "" if model.get("sha256") else None))
    modes = report.get("retrieval_modes") or [m for m in str(report.get("retrieval") or "").split(",") if m]
    found.setdefault("modes", list(modes) or None)
    aggregates = [e.get("aggregate") for s in (report.get("suites") or {}).values()
                  for e in (s.get("strategies") or {}).values() if e.get("aggregate")]
    if aggregates and "metrics" not in found:
        found["metrics"] = sorted(mode_metric(mode, m) for mode, ms in aggregates[0].items() for m in ms)
    if "budgets" not in found and found.get("metrics"):
        found["budgets"] = sorted(parts[2] for parts in map(split_mode_metric, found["metrics"])
                                  if parts is not None and parts[:2] == (LINES, BUDGET_RECALL))
    return {name: found.get(name) for name in FIELDS}


def differences(head: Mapping[str, Any], base: Mapping[str, Any], head_corpora: Mapping[str, Mapping[str, Any]],
                base_corpora: Mapping[str, Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """(differences, unchecked): one line per field or suite corpus that differs, naming both values; and the fields
    the base does not record. ``*_corpora``: suite key -> {"hash": ..., "files": {path: short sha}}; only suites
    both sides have are compared (a suite new on head has no base and is compared with nothing)."""
    out: list[str] = []
    unchecked: list[str] = []
    for name in FIELDS:
        theirs, ours = base.get(name), head.get(name)
        if theirs is None:
            unchecked.append(name)
        elif theirs != ours:
            out.append(f"{_label(name)}: base {_show(theirs)}, head {_show(ours)}")
    for key, ours_corpus in head_corpora.items():
        theirs_corpus = base_corpora.get(key)
        if theirs_corpus is None:
            continue
        if not theirs_corpus.get("hash"):
            unchecked.append(f"{key} corpus")
            continue
        if theirs_corpus["hash"] != ours_corpus.get("hash"):
            out.append(f"{key} corpus: base {str(theirs_corpus['hash'])[:12]}, head {str(ours_corpus.get('hash'))[:12]}"
                       f" ({_changed_files(theirs_corpus.get('files') or {}, ours_corpus.get('files') or {})})")
    return out, unchecked


def _label(name: str) -> str:
    return {"k": "k (rank cutoff)", "model": "model", "model_revision": "model revision (hub commit)",
            "model_sha256": "model weights (sha256)",
            "modes": "retrieval modes", "budgets": "line budgets (tokens)", "metrics": "metric set"}[name]


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {str(v)[:12]}" for k, v in value.items()) or "none"
    if value == "":
        return "none"
    if isinstance(value, list):
        head = ",".join(map(str, value[:4]))
        return ",".join(map(str, value)) if len(value) <= 8 else f"{len(value)} entries ({head}, …)"
    return str(value)


def _changed_files(base: Mapping[str, str], head: Mapping[str, str]) -> str:
    if not base:
        return "the base report does not list its files"
    changed = sorted(p for p in set(base) | set(head) if base.get(p) != head.get(p))
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    return f"files that differ: {shown}" if changed else "same files"


def suite_digest(corpus_hash: str, query_set: Mapping[str, Any]) -> str:
    """A suite's identity by content: sha256 of its corpus's content hash and its queries (texts and relevance, as a
    report's ``query_set`` holds them). Two reports' suites are the same suite exactly when their digests are equal,
    whatever their paths: ``chunkeval init`` names every repository's suites ``golden/docs`` and ``golden/history``.
    "" when the corpus hash is unknown (a report from before it was recorded)."""
    if not corpus_hash:
        return ""
    queries = json.dumps(query_set, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{corpus_hash}\0{queries}".encode()).hexdigest()


def recorded_digest(entry: Mapping[str, Any]) -> str:
    """The content digest of a report's suite entry: recorded (``content_digest``), else computed from its corpus
    hash and query set (older reports record both), else ""."""
    recorded = entry.get("content_digest")
    if isinstance(recorded, str) and recorded:
        return recorded
    corpus, queries = entry.get("corpus_hash"), entry.get("query_set")
    return suite_digest(corpus, queries) if isinstance(corpus, str) and isinstance(queries, Mapping) else ""
