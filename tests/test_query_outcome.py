"""What a query's hit or miss means for its item, decided without pytest: every case of the typed outcome."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_chunkeval.chunking.contract import Registration
from pytest_chunkeval.run.accepted import AcceptedMisses
from pytest_chunkeval.run.parts.query_outcome import (
    Counted,
    Fixed,
    Missed,
    MissedAccepted,
    MissedAgainstBase,
    MissedAtGridPoint,
    MissedNoRecordYet,
    MissedUnlisted,
    QueryOutcome,
    against_record,
    query_outcome,
)

RECORD = Path("golden/s/accepted_misses.yaml")
SECTION = "model | vector | k=10"
PLAIN = Registration("ast", lambda: None, "test")
POINT = Registration("ast[size=5]", lambda: None, "test", point=(("size", 5),), family="ast")


def record(data: dict[str, dict[str, list[str]]]) -> AcceptedMisses:
    return AcceptedMisses(RECORD, data)


def decide(hit: bool, *, comparing: str | None = None, accept: bool = False, gate_grid: bool = False,
           misses: str = "fail", reg: Registration = PLAIN,
           data: dict[str, dict[str, list[str]]] | None = None) -> QueryOutcome:
    options = SimpleNamespace(accept_misses=accept, gate_grid=gate_grid, misses=misses)
    held = record({SECTION: {}} if data is None else data)

    def ranked(*_: Any) -> tuple[str, int | None]:
        return ("on base main", 3)

    ledger: Any = SimpleNamespace(options=options, record_of=lambda _s: held, section_for=lambda _m: SECTION)
    base: Any = SimpleNamespace(comparing=comparing, ranked=ranked)
    return query_outcome(ledger, base, SimpleNamespace(), reg, "vector", "q1", hit)  # type: ignore[arg-type]


@pytest.mark.parametrize("hit", [True, False])
def test_accepting_misses_counts_every_query(hit: bool) -> None:
    assert decide(hit, accept=True, comparing="base", reg=POINT) == Counted()


def test_a_miss_with_a_base_is_evidence_with_what_the_base_found() -> None:
    assert decide(False, comparing="base") == MissedAgainstBase(("on base main", 3))
    assert decide(True, comparing="report") == Counted()


def test_a_grid_point_is_measured_unless_the_grid_is_gated() -> None:
    assert decide(False, reg=POINT) == MissedAtGridPoint()
    assert decide(True, reg=POINT) == Counted()
    assert decide(False, reg=POINT, gate_grid=True) == Missed()


def test_settings_with_no_record_yet_list_the_miss() -> None:
    assert decide(False, data={}) == MissedNoRecordYet(RECORD, SECTION)
    assert decide(True, data={}) == Counted()


def test_an_accepted_miss_names_whose_record_accepts_it() -> None:
    assert decide(False, data={SECTION: {"ast": ["q1"]}}) == MissedAccepted(RECORD, None)
    assert decide(False, reg=POINT, gate_grid=True, data={SECTION: {"ast": ["q1"]}}) == MissedAccepted(RECORD, "ast")


def test_an_unlisted_miss_fails_only_when_misses_fail() -> None:
    assert decide(False) == Missed()
    assert decide(False, misses="report") == MissedUnlisted(RECORD)


def test_a_fixed_query_fails_only_on_its_own_strict_record() -> None:
    own = {SECTION: {"ast": ["q1"]}}
    assert decide(True, data=own) == Fixed()
    assert decide(True, data=own, misses="report") == Counted()
    assert decide(True, reg=POINT, gate_grid=True, data=own) == Counted()  # the strategy's record, not the point's
    assert against_record(record(own), SECTION, PLAIN, "q2", True, strict=True) == Counted()
