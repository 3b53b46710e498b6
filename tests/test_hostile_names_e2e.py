"""Issue 34 (item 1): every untrusted string is escaped for where it goes. A suite folder, a corpus file, a query
id and a strategy name each hold newline, CR, ESC, BEL, ``::``, ``#``, ``|``, backticks, ``<``, ``[]()`` and
U+2028 (a query id holds what a golden file lets it: no white space, no ``::``); one ``--chunkeval`` run writes the
terminal summary, the frontier, annotations, the Markdown report, the JSON report and JUnit XML, and each is read
back as its consumer reads it: the CI log line by line, the Markdown with markdown-it-py, the XML with ElementTree,
the JSON with ``json``. The inner run embeds with ``FakeSentenceModel`` (what retrieves best does not matter here).
"""
from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fake_model import FakeSentenceModel
from markdown_it import MarkdownIt
from markdown_it.token import Token
from project_files import run, set_ini

from pytest_chunkeval.retrieval.embed import Embedder

HOSTILE = "\n::error title=PWNED::x\r\x1b[31m\x07\u2028 # |c| `b` <img src=x> [l](javascript:e)"
SUITE = "s" + HOSTILE
CORPUS = "## Verdict: PASS [link](https:e.test) |cell|" + HOSTILE + ".py"
QID = "q\x1b[31m\x07#|`b`<img>[l](u):x"  # a golden file refuses white space and "::" in an id
STRATEGY = "st" + HOSTILE
RAW = re.compile(r"[\x1b\x07\r\u2028\u2029]")
OWN_ANNOTATION = re.compile(r"^::(error|warning) (file=[^,:\n]*,)?title=[^:\n]*::")


def write_hostile_project(pytester: pytest.Pytester) -> None:
    """One suite in the hostile folder, its corpus file hostile, one hostile query (and one that misses, so a
    failure and an annotation name the suite and the file), and a project strategy with the hostile name."""
    set_ini(pytester.path, "chunkeval_golden", '["golden/*/queries.yaml"]', "\n    golden/*/queries.yaml")
    set_ini(pytester.path, "chunkeval_misses", '"fail"', "fail")
    (pytester.path / "strategies").mkdir()
    (pytester.path / "strategies" / "hostile.py").write_text(textwrap.dedent(f"""
        from pytest_chunkeval import FixedSizeChunker, strategy

        @strategy(name={STRATEGY!r})
        def hostile():
            return FixedSizeChunker(max_chunk_size=60, overlap=0)
    """))
    corpus = pytester.path / "golden" / SUITE / "corpus"
    corpus.mkdir(parents=True)
    (corpus / CORPUS).write_text("def hash_password(p):\n    return p\n" * 5)
    for i in range(6):  # short files: the fake model ranks them first for a short query, so "miss" misses
        (corpus / f"f{i}.py").write_text(f"x = {i}\n")
    (corpus.parent / "queries.yaml").write_text(json.dumps({"corpus": "corpus", "queries": [
        {"id": QID, "query": "How are passwords hashed?\n::error::q", "relevant": [{"path": CORPUS}]},
        {"id": "miss", "query": "x", "relevant": [{"path": CORPUS, "lines": [9, 10]}]}]}))
    (pytester.path / "accepted").mkdir()


def inline_kinds(tokens: list[Token]) -> set[str]:
    return {t.type for t in tokens} | {c.type for t in tokens for c in (t.children or [])}


@pytest.fixture
def hostile_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> tuple[pytest.RunResult, Path]:
    fake = FakeSentenceModel()
    monkeypatch.setattr(Embedder, "model", lambda self: fake)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    write_hostile_project(pytester)
    result = run(pytester, "-v", "-rA", "--chunkeval-annotations", "--chunkeval-markdown=out.md",
                 "--chunkeval-report=out.json", "--junitxml=junit.xml", "--chunkeval-frontier",
                 "--chunkeval-retrieval=vector", "--chunkeval-k=3", "--chunkeval-gate=all")
    return result, pytester.path


def test_no_log_line_is_a_workflow_command_or_holds_a_raw_control_character(
        hostile_run: tuple[pytest.RunResult, Path]) -> None:
    result, _ = hostile_run
    # pytester splits the output at "\r" and U+2028 too: a raw one shows as a line that starts with the hostile
    # text after it (ESC, " # |c|"), which the last two assertions catch.
    lines = [*result.outlines, *result.errlines]
    assert any("st\\n:\\x3aerror" in line for line in lines)  # the strategy's items are there, escaped
    assert any("st\\n::error" in line for line in lines)  # and its rows
    assert any(line.startswith("::error ") for line in lines)  # a failed gate is annotated
    commands = [line for line in lines if line.lstrip().startswith("::")]
    assert all(OWN_ANNOTATION.match(line) for line in commands), commands
    assert not [line for line in lines if RAW.search(line)]
    assert not [line for line in lines if line.lstrip().startswith(("# ", "## ", "|c|"))]


def _table_rows(tokens: list[Token]) -> list[tuple[int, int]]:
    """(cells in the row, cells in its table's header) for every row of every table."""
    out, header, cells = [], 0, 0
    for t in tokens:
        if t.type == "thead_open":
            header = -1
        elif t.type in ("th_open", "td_open"):
            cells += 1
        elif t.type == "tr_close":
            header = cells if header == -1 else header
            out.append((cells, header))
            cells = 0
    return out


def test_the_markdown_report_has_no_heading_link_html_or_cell_from_a_name(
        hostile_run: tuple[pytest.RunResult, Path]) -> None:
    _, root = hostile_run
    text = (root / "out.md").read_text()
    assert "st\\\\n" in text and "PWNED" in text  # the names are shown (rows, headings, failures), escaped
    assert not RAW.search(text) and not [line for line in text.splitlines() if line.lstrip().startswith("::")]
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert [h for h in headings if "PWNED" in h] == [h for h in headings if h.startswith("golden/s")], headings
    assert not [h for h in headings if h.startswith("Verdict: PASS")]
    assert not inline_kinds(tokens) & {"link_open", "image", "html_inline", "html_block"}
    rows = _table_rows(tokens)
    assert rows and all(cells == header for cells, header in rows), rows  # no name split a cell


def test_junit_xml_and_the_json_report_read_back(hostile_run: tuple[pytest.RunResult, Path]) -> None:
    _, root = hostile_run
    tree = ET.parse(root / "junit.xml")
    cases = tree.getroot().iter("testcase")
    names = [c.get("name", "") + c.get("classname", "") for c in cases]
    assert names and not [n for n in names if RAW.search(n) or "\n" in n]
    report = json.loads((root / "out.json").read_text())
    (suite,) = report["suites"].values()
    assert STRATEGY in suite["strategies"]  # JSON keeps the name exactly: json.dumps escapes it for JSON
