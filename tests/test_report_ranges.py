"""A stored report's numbers are range-checked by every command that reads one (issue 34, item 5): metrics are shares
from 0 to 1, counts and sizes are non-negative and finite, and no number is past a float's range. Each case of
tests/hostile_reports.py is one message naming the file and the field, with a usage exit status and no traceback:
here for ``chunkeval calibrate`` and ``--chunkeval-compare`` (``chunkeval frontier``: tests/test_report_file.py).
It used to be an OverflowError (``chunkeval frontier`` on an integer of 400 digits), or a PASS (a compared report
whose per-query NDCG is 12345)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hostile_reports import RANGE_CASES
from project_files import run_vector

from pytest_chunkeval.cli import main
from pytest_chunkeval.judges.regression import load_previous


def _write(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "main-report.json"
    path.write_text(RANGE_CASES[name][0])
    return path


@pytest.mark.parametrize("name", list(RANGE_CASES))
def test_calibrate_refuses_a_number_out_of_range_naming_file_and_field(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, name)
    assert main(["calibrate", str(path), "--jobs", "1", "--runs", "1", "--power-runs", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"chunkeval calibrate: {path}: ") and RANGE_CASES[name][1] in err, err


@pytest.mark.parametrize("name", list(RANGE_CASES))
def test_the_compared_report_is_read_with_the_same_ranges(name: str, tmp_path: Path) -> None:
    """Every case through the reader of --chunkeval-compare; four of them end to end below (a run's set-up takes
    seconds)."""
    path = _write(tmp_path, name)
    with pytest.raises(ValueError) as info:
        load_previous(path)
    _, said, compare_said = RANGE_CASES[name]
    assert str(info.value).startswith(f"{path}: ") and (compare_said or said) in str(info.value)


@pytest.mark.parametrize("name", ["ndcg 12345", "bytes 10^400", "aggregate 2", "score 10^400"])
def test_compare_against_a_report_out_of_range_is_one_usage_error_before_any_item(
        name: str, grid_project: pytest.Pytester) -> None:
    path = _write(grid_project.path, name)
    result = run_vector(grid_project, f"--chunkeval-compare={path}")
    output = result.stdout.str() + "\n" + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in output and "INTERNALERROR" not in output
    errors = [line for line in output.splitlines() if line.startswith("ERROR:")]
    _, said, compare_said = RANGE_CASES[name]
    assert len(errors) == 1 and errors[0].startswith(f"ERROR: {path}: ") and (compare_said or said) in errors[0], \
        output
    assert "no tests ran" in output  # before any item
