"""The run's state on hand-made outcomes, no pytest run: which misses fail, which records a run writes, and how
several retrieval modes keep apart (each in the section a one-mode run of it would use)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from project_files import write_suite

from pytest_chunkeval.run.accepted import FILE_NAME, AcceptedMisses, record_section
from pytest_chunkeval.run.state import RunState
from pytest_chunkeval.settings.options import Options


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    questions = "".join(f"  - {{id: q{i}, query: question number {i}, relevant: [{{path: a.py}}]}}\n" for i in range(3))
    folder = tmp_path / "golden" / "shop"
    write_suite(folder, {"a.py": "def a():\n    return 1\n"}, "corpus: corpus\nqueries:\n" + questions)
    return folder


def state(root: Path, **kw: object) -> RunState:
    options = Options(rootdir=root, golden_patterns=["golden/*/queries.yaml"], golden_paths=[],
                      strategies_dir=root / "strategies", **kw)
    s = RunState(options, write=lambda text: None)
    s.ledger.received([], "m")  # as an xdist controller knows it: no evaluator, no model needed
    return s


def test_only_misses_without_a_record_count_and_each_mode_reads_its_own_section(suite_dir: Path) -> None:
    AcceptedMisses(suite_dir / FILE_NAME, {record_section("m", "hybrid", 10): {"ast": ["q0"]}}, dirty=True).save()
    s = state(suite_dir.parent.parent, retrieval="hybrid,vector")
    suite = s.catalog.suite(suite_dir / "queries.yaml")
    s.ledger.record(suite, "ast", "q0", False, "hybrid")  # recorded under hybrid: accepted
    s.ledger.record(suite, "ast", "q1", True, "hybrid")
    s.ledger.record(suite, "ast", "q0", False, "vector")  # the same query under vector: no record holds that mode yet
    s.ledger.record(suite, "ast", "q2", False)  # no mode: the run's first, whose record holds it: a new miss
    (drift,) = s.record_drift()  # only the hybrid section is held by the record
    assert (drift.label, drift.recorded, drift.unlisted, drift.found) == ("ast[hybrid]", 1, ("q2",), ())
    assert s.unrecorded_misses() == {(suite_dir / "queries.yaml").resolve(): {"ast[vector]": ["q0"]}}
    assert s.catalog.label("ast", "vector") == "ast[vector]"


@pytest.mark.parametrize(("isolated", "command"), [(False, "pytest --chunkeval --chunkeval-accept-misses"),
                                                   (True, "chunkeval run --chunkeval-accept-misses")])
def test_the_record_names_the_command_the_run_was_started_with(suite_dir: Path, isolated: bool, command: str) -> None:
    """Issue 33: a record written by `chunkeval run` named the pytest command in its header."""
    root = suite_dir.parent.parent
    s = state(root, accept_misses=True, project=root if isolated else None)
    s.ledger.record(s.catalog.suite(suite_dir / "queries.yaml"), "ast", "q1", False)
    assert s.save_accepted() == [suite_dir / FILE_NAME]
    assert f"# Written by `{command}`;" in (suite_dir / FILE_NAME).read_text()


def test_accepting_writes_each_modes_section_and_nothing_without_the_flag(suite_dir: Path) -> None:
    root = suite_dir.parent.parent
    plain = state(root, retrieval="hybrid,vector")
    plain.ledger.record(plain.catalog.suite(suite_dir / "queries.yaml"), "ast", "q1", False, "vector")
    assert plain.save_accepted() == [] and not (suite_dir / FILE_NAME).exists()

    s = state(root, retrieval="hybrid,vector", accept_misses=True)
    suite = s.catalog.suite(suite_dir / "queries.yaml")
    s.ledger.record(suite, "ast", "q1", False, "vector")
    s.ledger.record(suite, "ast", "q2", False, "hybrid")
    s.ledger.record(suite, "fixed_size", "q0", True, "hybrid")
    assert s.save_accepted() == [suite_dir / FILE_NAME]
    assert s.record_drift() == []  # accepting: nothing drifts, the record is being made
    assert AcceptedMisses.load(suite_dir).data == {record_section("m", "hybrid", 10): {"ast": ["q2"]},
                                                  record_section("m", "vector", 10): {"ast": ["q1"]}}


def test_the_cache_folder_it_creates_ignores_itself_and_a_folder_that_was_there_is_left_alone(tmp_path: Path) -> None:
    """Another team's repository does not list .chunkeval in its .gitignore (this one does, which hid it): the
    tables, SQLite store and locks must not show up in ``git status`` or a ``git add -A``."""
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)
    cache = state(tmp_path, cache_dir=tmp_path / ".chunkeval").head.cache_dir()
    assert cache == tmp_path / ".chunkeval"
    (cache / "lancedb").mkdir()
    (cache / "cache.sqlite").write_bytes(b"")
    (tmp_path / "kept.py").write_text("x = 1\n")
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tmp_path,
                            capture_output=True, text=True, check=True).stdout
    assert status.splitlines() == ["?? kept.py"]
    state(tmp_path, cache_dir=tmp_path).head.cache_dir()  # a folder of the user's: no .gitignore written into it
    assert not (tmp_path / ".gitignore").exists()
