"""Accepted-miss records on hand-made outcomes: what is recorded, what is forgotten, what a file says on disk."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_chunkeval.run.accepted import FILE_NAME, HEADER, RUN_COMMAND, AcceptedMisses, header, record_section

HYBRID = record_section("m", "hybrid", 10)
VECTOR = record_section("m", "vector", 10)


def test_no_file_holds_nothing_and_a_recorded_run_without_misses_holds_every_query(tmp_path: Path) -> None:
    record = AcceptedMisses.load(tmp_path)
    assert record.ids(HYBRID, "ast") == set() and not record.dirty and not record.holds(HYBRID)
    record.update(HYBRID, "ast", {"q1": True, "q2": True})
    record.save()
    again = AcceptedMisses.load(tmp_path)  # written: "recorded, no misses" is a record a new miss fails against
    assert again.holds(HYBRID) and not again.holds(VECTOR) and again.ids(HYBRID, "ast") == set()


def test_misses_are_recorded_sorted_per_setting_and_strategy_and_read_back(tmp_path: Path) -> None:
    record = AcceptedMisses.load(tmp_path)
    record.update(HYBRID, "ast", {"q2": False, "q1": False, "q3": True})
    record.update(VECTOR, "ast", {"q3": False})
    record.save()
    text = (tmp_path / FILE_NAME).read_text()
    assert text.startswith(HEADER)
    again = AcceptedMisses.load(tmp_path)
    assert again.data == {HYBRID: {"ast": ["q1", "q2"]}, VECTOR: {"ast": ["q3"]}}
    assert again.ids(HYBRID, "ast") == {"q1", "q2"} and again.ids(HYBRID, "fixed_size") == set()


def test_the_header_names_the_command_the_run_was_started_with(tmp_path: Path) -> None:
    """Issue 33: a record written by `chunkeval run` named `pytest --chunkeval --chunkeval-accept-misses`."""
    assert "# Written by `pytest --chunkeval --chunkeval-accept-misses`;" in HEADER
    record = AcceptedMisses(tmp_path / FILE_NAME, {HYBRID: {"ast": ["q1"]}}, dirty=True, command=RUN_COMMAND)
    record.save()
    text = (tmp_path / FILE_NAME).read_text()
    assert text.startswith(header(RUN_COMMAND))
    assert "# Written by `chunkeval run --chunkeval-accept-misses`;" in text and "pytest --chunkeval" not in text
    assert AcceptedMisses.load(tmp_path).data == {HYBRID: {"ast": ["q1"]}}


def test_a_fixed_query_is_forgotten_and_one_that_did_not_run_is_kept(tmp_path: Path) -> None:
    record = AcceptedMisses(tmp_path / FILE_NAME, {HYBRID: {"ast": ["q1", "q2"]}})
    record.update(HYBRID, "ast", {"q1": True})  # q1 now hits; q2 was not run (deselected): its record stands
    assert record.dirty and record.data == {HYBRID: {"ast": ["q2"]}}
    record.update(HYBRID, "ast", {"q2": True})
    assert record.data == {HYBRID: {}}  # nothing missed: the section stays, holding every query
    (tmp_path / FILE_NAME).write_text("stale")
    record.save()
    assert AcceptedMisses.load(tmp_path).data == {HYBRID: {}}


def test_an_unchanged_record_is_not_rewritten(tmp_path: Path) -> None:
    record = AcceptedMisses(tmp_path / FILE_NAME, {HYBRID: {"ast": ["q1"]}})
    record.update(HYBRID, "ast", {"q1": False, "q2": True})
    assert not record.dirty


@pytest.mark.parametrize(("text", "message"), [
    ("a: [1, 2\n", rf"{FILE_NAME}:\d+: not valid YAML"),
    ("- just\n- a list\n", "expected a mapping of settings -> strategy -> \\[query ids\\]"),
    ("s:\n  ast: not-a-list\n", "expected a mapping of settings -> strategy -> \\[query ids\\]"),
])
def test_a_damaged_record_names_the_file_and_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / FILE_NAME).write_text(text)
    with pytest.raises(ValueError, match=message):
        AcceptedMisses.load(tmp_path)


def test_a_grid_point_with_no_record_of_its_own_reads_its_strategys_and_one_recorded_clean_does_not(
    tmp_path: Path,
) -> None:
    point = "fixed_size[size=500,overlap=0]"
    record = AcceptedMisses(tmp_path / FILE_NAME, {HYBRID: {"fixed_size": ["q1"]}})
    assert record.accepted(HYBRID, "fixed_size") == ({"q1"}, True)
    assert record.accepted(HYBRID, point, "fixed_size") == ({"q1"}, False)  # inherited: not the point's own
    assert record.accepted(HYBRID, "ast") == (set(), True)
    record.update(HYBRID, point, {"q1": True, "q2": True}, keep_empty=True)
    assert record.dirty and record.data[HYBRID][point] == []  # recorded with no misses: no fallback any more
    assert record.accepted(HYBRID, point, "fixed_size") == (set(), True)
    record.save()
    assert AcceptedMisses.load(tmp_path).accepted(HYBRID, point, "fixed_size") == (set(), True)
