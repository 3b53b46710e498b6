"""Several embedding models in one run (``--chunkeval-model A,B``): their labels, and one summary made of theirs.

Each model is evaluated as a run of its own would be (a :class:`~pytest_chunkeval.run.state.RunState` per
model: its evaluator, results, baseline judgements, comparisons and accepted-miss sections), so a strategy under
one model is only ever compared with the baseline under the same model. What names them apart:

- items: ``golden/x/queries.yaml::ast@all-mpnet-base-v2::q1`` (``-k all-mpnet-base-v2`` selects a model);
- report and tables: one suite section per (suite, model), ``golden/x/queries.yaml · all-mpnet-base-v2``, whose
  entry names its ``model``; the report's ``model`` is the first model's, with ``models`` listing each one's id,
  weights, window and the texts it embedded.

With one model nothing is labelled: item ids and report keys are those of a run without this feature.
Embedding caches and tables never mix models: both are keyed by the embedder's ``cache_id`` (model id and weights
digest).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

#: Between a suite's key and its model's label in a multi-model report.
SUITE_SEPARATOR = " · "


def model_labels(models: Sequence[str | None]) -> list[str]:
    """Short names for ``models``: the last part of each id (``all-MiniLM-L6-v2``), the whole id where two models
    would share a short name; raise ``ValueError`` for a model named twice."""
    from pytest_chunkeval.core.model_files import resolve_model

    ids = []
    for model in models:
        try:
            ids.append(resolve_model(model)[0])
        except Exception:  # the default package missing: check_model says so, with the fix
            ids.append(model or "default")
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ValueError(f"--chunkeval-model names {', '.join(twice)} twice")
    short = [i.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] for i in ids]
    return ["".join(c if c.isalnum() or c in "-_." else "_" for c in (s if short.count(s) == 1 else i))
            for s, i in zip(short, ids, strict=True)]


def suite_section(key: str, label: str) -> str:
    """The report key of suite ``key`` under model ``label`` ("" for a single-model run: the key itself)."""
    return f"{key}{SUITE_SEPARATOR}{label}" if label else key


def merge(parts: Sequence[tuple[str, Any]]) -> Any:
    """One summary (``judges.judged_run.Summary``) of per-model summaries ``(label, summary)``: suites and comparisons
    under their section keys, embedding counts added up (and kept per model), the first model as ``model``."""
    first = parts[0][1]
    suites: dict[str, Any] = {}
    comparisons: dict[str, Any] = {}
    models: dict[str, Any] = {}
    embedding: dict[str, int] = {}
    family = 0
    for label, summary in parts:
        for key, suite in summary.suites.items():
            suites[suite_section(key, label)] = replace(suite, model=label)
        for key, comparison in summary.comparisons.items():
            comparisons[suite_section(key, label)] = comparison
        models[label] = {**summary.model, "embedding": dict(summary.embedding)}
        for name, count in summary.embedding.items():
            embedding[name] = embedding.get(name, 0) + count
        family += summary.family_size
    return replace(first, suites=suites, comparisons=comparisons, embedding=embedding, family_size=family,
                   model={**first.model, "models": models})
