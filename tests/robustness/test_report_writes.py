"""Output files survive hostile conditions: two writers of one report never share a temporary file (a reader always
reads a whole report, and neither writer fails), and a stored report given to ``--chunkeval-compare`` that is not
strict JSON or not shaped like a report is refused naming the file, never a traceback deep in the run."""
from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from pytest_chunkeval.judges.regression import load_previous
from pytest_chunkeval.output.files import Written, failure, write_text
from pytest_chunkeval.output.report import write_json

REPORT = {"version": 3, "suites": {"s": {"strategies": {f"x{i}": {"ranking": list(range(200))} for i in range(200)}}}}


def _write_many(path: str, tag: int, times: int) -> None:
    for i in range(times):
        write_json({**REPORT, "writer": tag, "i": i}, Path(path))


def test_two_writers_of_one_report_never_mix_their_files(tmp_path: Path) -> None:
    target = tmp_path / "chunkeval-report.json"
    write_json(REPORT, target)
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_write_many, args=(str(target), tag, 150)) for tag in (1, 2)]
    for w in writers:
        w.start()
    reads = bad = 0
    while any(w.is_alive() for w in writers) or reads == 0:
        reads += 1
        try:
            json.loads(target.read_text())
        except json.JSONDecodeError:
            bad += 1
    for w in writers:
        w.join()
    assert [w.exitcode for w in writers] == [0, 0]  # the old fixed .tmp name: one writer's rename lost its file
    assert bad == 0, f"{bad} of {reads} reads saw a half-written report"
    assert json.loads(target.read_text())["i"] == 149
    assert [p.name for p in tmp_path.iterdir()] == ["chunkeval-report.json"]  # no temporary file left behind


def test_a_file_that_cannot_be_written_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "blocked").write_text("a file where a folder should be\n")
    done = Written()
    target = tmp_path / "blocked" / "summary.md"
    done.attempt(target, lambda: write_text(target, "# summary\n"))
    [line] = done.errors
    assert line.startswith(f"chunkeval: could not write {target}: ") and "FileExistsError" in line
    assert failure(tmp_path / "r.json", OSError(28, "No space left on device")) == \
        f"chunkeval: could not write {tmp_path / 'r.json'}: No space left on device [OSError]"


@pytest.mark.parametrize(("text", "why"), [
    ('{"suites": {"a": {"strategies": {"x": {"aggregate": {"file": {"ndcg@10": NaN}}}}}}}', "it holds NaN"),
    ('{"suites": {}, "k": Infinity}', "it holds Infinity"),
    ('{"suites": {}, "k": -1e999}', "it holds -1e999 (out of range)"),
    ('{"suites": {"golden/a/queries.yaml": []}}', "not a pytest-chunkeval report this version can read"),
    ('{"suites": {"golden/a/queries.yaml": {"strategies": {"x": 3}}}}', "this version can read (AttributeError"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_a_stored_report_that_is_not_one_is_refused_naming_the_file(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "main-report.json"
    path.write_text(text)
    with pytest.raises(ValueError) as info:
        load_previous(path)
    assert str(info.value).startswith(f"{path}: ") and why in str(info.value)


def test_a_stored_report_that_is_not_utf8_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "main-report.json"
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ValueError, match=rf"^{path}: cannot read the previous report: 'utf-8' codec"):
        load_previous(path)
