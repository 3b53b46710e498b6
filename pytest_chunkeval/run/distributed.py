"""pytest-xdist: each worker evaluates what its items need; only the controller writes the outputs.

Under ``-n N`` every worker is a separate pytest session with its own evaluator. Items of one (suite, strategy) may
land on several workers, and each of them evaluates that strategy whole (the shared embedding and ranking caches
make the repeats cheap), so every worker's result for a strategy is complete and identical. A worker therefore
sends its typed results to the controller (``config.workeroutput``) instead of writing a report; the controller
takes the union and writes the one report, Markdown, chart and accepted-miss records, as a serial run would. A
worker never writes ``chunkeval-report.json`` itself: two workers racing for one file would give a report that
silently lacks whatever the other evaluated.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_chunkeval.results.typed import SuiteResult

PAYLOAD_KEY = "chunkeval"


def is_worker(config: Any) -> bool:
    return hasattr(config, "workerinput")


@dataclass
class WorkerResults:
    """What one worker evaluated, in the report's own JSON shapes (execnet carries plain data only)."""

    suites: dict[str, Any] = field(default_factory=dict)  # suite key -> SuiteResult.to_entry()
    embedding: dict[str, int] = field(default_factory=dict)
    model: dict[str, Any] | None = None
    # (golden path, strategy, query, hit, retrieval mode); a 4-tuple from an older worker means the first mode
    outcomes: list[tuple[Any, ...]] = field(default_factory=list)
    base_report: dict[str, Any] | None = None  # the base ref's report, when this worker evaluated it
    base_info: dict[str, Any] | None = None
    compared: list[list[str]] = field(default_factory=list)  # [suite key, row label] of its comparison items

    def dumps(self) -> str:
        return json.dumps(self.__dict__, allow_nan=False)

    @classmethod
    def loads(cls, text: str) -> WorkerResults:
        data = json.loads(text)
        data["outcomes"] = [tuple(o) for o in data.get("outcomes", [])]
        return cls(**data)


def merge(
    results: list[WorkerResults], baseline: str, modes: tuple[str, ...] = ()
) -> tuple[dict[str, SuiteResult], WorkerResults]:
    """The union of the workers' results, ordered as a serial run orders them (suites by key, strategies by
    ``ordering.strategy_order``); plus the merged totals, model, outcomes and base."""
    from pytest_chunkeval.results.ordering import strategy_order
    from pytest_chunkeval.results.typed import SuiteResult

    merged = WorkerResults()
    entries: dict[str, dict[str, Any]] = {}
    for part in results:
        for key, entry in part.suites.items():
            into = entries.setdefault(key, {**entry, "strategies": {}})
            for name, strategy in entry["strategies"].items():
                # A strategy another worker evaluated fully wins over a placeholder; both are whole otherwise.
                if name not in into["strategies"] or (
                    into["strategies"][name].get("skipped") and not strategy.get("skipped")
                    and not strategy.get("failed")
                ):
                    into["strategies"][name] = strategy
        for name, n in part.embedding.items():
            merged.embedding[name] = merged.embedding.get(name, 0) + n
        merged.model = merged.model or part.model
        merged.outcomes.extend(part.outcomes)
        merged.compared += [c for c in part.compared if c not in merged.compared]
        if part.base_report is not None and merged.base_report is None:
            merged.base_report, merged.base_info = part.base_report, part.base_info
    suites: dict[str, SuiteResult] = {}
    for key in sorted(entries):
        entry = entries[key]
        entry["strategies"] = dict(sorted(entry["strategies"].items(), key=lambda item: (
            strategy_order(str(item[1].get("strategy") or item[0]), str(item[1].get("retrieval") or ""), baseline,
                           modes), item[0])))
        suites[key] = SuiteResult.from_entry(key, entry)
    return suites, merged
