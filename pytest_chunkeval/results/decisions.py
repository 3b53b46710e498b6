"""What the judges decided about one result, as plain data: a gate's outcome and a result against its baseline.

Kept apart from the code that decides (:mod:`~pytest_chunkeval.judges.gates`,
:mod:`~pytest_chunkeval.judges.against_baseline`) so that :mod:`~pytest_chunkeval.results.typed` can carry a decision
without importing the judges: a result value holds its verdict, and every renderer reads it from there.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

#: mode -> metric -> {"delta": mean difference, "relative": delta / baseline mean (None at 0), "p_value": paired p}
VsBaseline = dict[str, dict[str, dict[str, float | None]]]


@dataclass(frozen=True)
class GateResult:
    name: str
    passed: bool
    measured: float | None
    threshold: float
    detail: str


@dataclass(frozen=True)
class AgainstBaseline:
    """One result against the baseline searched the same way on the same suite, judged once per run.

    ``vs`` is empty for the baseline itself and when the baseline has no numbers; ``gates`` is None for the baseline
    itself (no gate applies, and the report writes no ``gates`` key) and empty when the baseline has no numbers."""

    vs: VsBaseline
    gates: tuple[GateResult, ...] | None = ()

    def report_fields(self) -> dict[str, Any]:
        """The report entry's ``vs_baseline`` and (for a candidate) ``gates``, in the report's shapes."""
        out: dict[str, Any] = {"vs_baseline": self.vs}
        if self.gates is not None:
            out["gates"] = [asdict(g) for g in self.gates]
        return out

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> AgainstBaseline | None:
        """From a report entry (None for one written without a judgement, such as an xdist worker's)."""
        if "vs_baseline" not in entry:
            return None
        gates = entry.get("gates")
        known = GateResult.__dataclass_fields__
        return cls(dict(entry["vs_baseline"] or {}),
                   None if gates is None else tuple(GateResult(**{k: v for k, v in g.items() if k in known})
                                                    for g in gates))
