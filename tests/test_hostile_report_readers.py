"""Issue 34, item 5 (leftovers): ``python -m pytest_chunkeval.verify`` and the ``--chunkeval-base`` side read a report
through the checked reader (pytest_chunkeval/results/report_file.py), as frontier, calibrate and --chunkeval-compare do: a
report holding NaN, nested 100,000 deep, out of its fields' range or not JSON is one message naming the file, never a
traceback (they were: a RecursionError, a ValueError or a KeyError mid-check, and a base report of NDCG 12345 taken as
it stood)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hostile_reports import RANGE_CASES

from pytest_chunkeval.commands.verify import check_report, main
from pytest_chunkeval.results.report_file import ReportError
from pytest_chunkeval.run import base_ref
from pytest_chunkeval.run.base_ref import BaseRefError, BaseRequest, evaluate_base

#: name -> (the report's text, what the one message says of it)
CASES = {
    "NaN": ('{"suites": {"a": {"strategies": {"x": {"files": NaN}}}}}', "not a report: NaN at $.suites"),
    "nested 100,000 deep": ("[" * 100_000 + "]" * 100_000, "not a report: nested too deeply to read"),
    "not JSON": ('{"suites": ', "not a report: not JSON"),
    "not UTF-8": ("\udcff", "not a report: not UTF-8 text"),
    "an array": ("[1, 2]", "not a pytest-chunkeval report: should be object, not array"),
    **{name: (text, said) for name, (text, said, *_rest) in RANGE_CASES.items()},
}


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


@pytest.mark.parametrize("name", list(CASES))
def test_verify_says_one_line_naming_the_file(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pytrec_eval")
    text, said = CASES[name]
    path = _write(tmp_path / "report.json", text)
    assert main([str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"python -m pytest_chunkeval.verify: {path}") and said in err, err
    with pytest.raises(ReportError, match="not a"):  # the library call says the same, as a ValueError
        check_report(path)


def _repo(tmp_path: Path) -> Path:
    """A git repository with one suite committed: what a base evaluation checks out."""
    repo = tmp_path / "repo"
    (repo / "golden" / "s").mkdir(parents=True)
    (repo / "golden" / "s" / "queries.yaml").write_text("corpus: corpus\nqueries: []\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "suite"], cwd=repo, check=True)
    return repo


@pytest.mark.parametrize("name", ["NaN", "nested 100,000 deep", "ndcg 12345", "bytes 10^400", "an array"])
def test_a_base_report_that_is_not_a_report_is_one_base_error(name: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The base's pytest stands in here: it writes ``text`` as its report and exits 1 (items failed)."""
    text, said = CASES[name]

    def base_pytest(cmd: list[str], cwd: Path, env: dict[str, str], progress: object) -> tuple[int, str]:
        report = next(a.split("=", 1)[1] for a in cmd if a.startswith("--chunkeval-report="))
        _write(Path(report), text)
        return 1, ""

    monkeypatch.setattr(base_ref, "_run_streaming", base_pytest)
    repo = _repo(tmp_path)
    with pytest.raises(BaseRefError) as info:
        evaluate_base(BaseRequest(root=repo, ref="HEAD", suites=["golden/s/queries.yaml"], cache_dir=repo / ".c"))
    message = str(info.value)
    assert message.startswith("--chunkeval-base HEAD (") and "its evaluation wrote a report this version cannot read:" \
        in message and "base-report.json" in message and said in message, message
    assert "\n" not in message
