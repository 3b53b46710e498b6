"""Issue 34 (item 1): every untrusted string is escaped for where it goes. A suite folder, a corpus file, a query
id and a strategy name each hold newline, CR, ESC, BEL, ``::``, ``#``, ``|``, backticks, ``<``, ``[]()`` and
U+2028 (a query id holds what a golden file lets it: no white space, no ``::``); one ``--chunkeval`` run writes the
terminal summary, the frontier, annotations, the Markdown report, the JSON report and JUnit XML, and each is read
back as its consumer reads it: the CI log line by line, the Markdown with markdown-it-py, the XML with ElementTree,
the JSON with ``json``. The inner run embeds with ``FakeSentenceModel`` (what retrieves best does not matter here).

A second project is evaluated twice: its hostile strategy changes between the runs (the hostile corpus file, cut in
two on the first, is one chunk on the second, with a warning naming it), so the second run, compared with the
first one's report (``--chunkeval-compare``), loses two hostile-named queries, gains one, has a new one and sees
the file's chunks move: the "Head vs base" tables, the "What changed" lists, the lost and gained queries and the
verdict's regression lines all name them. Its Markdown, its job summary (``$GITHUB_STEP_SUMMARY``) and the body
``chunkeval comment --dry-run`` makes of it are read back with markdown-it-py; its log, JUnit XML and JSON as the
first run's. That run embeds with ``MarkerModel``, whose vectors say which marker words a text holds, so which
query is lost and which is gained is the test's choice.
"""
from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fake_model import FakeSentenceModel, MarkerModel
from markdown_it import MarkdownIt
from markdown_it.token import Token
from project_files import run, set_ini

from pytest_chunkeval.cli import main
from pytest_chunkeval.output.escape import log_text
from pytest_chunkeval.retrieval.embed import Embedder

HOSTILE = "\n::error title=PWNED::x\r\x1b[31m\x07\u2028 # |c| `b` <img src=x> [l](javascript:e)"
SUITE = "s" + HOSTILE
CORPUS = "## Verdict: PASS [link](https:e.test) |cell|" + HOSTILE + ".py"
QID = "q\x1b[31m\x07#|`b`<img>[l](u):x"  # a golden file refuses white space and "::" in an id
STRATEGY = "st" + HOSTILE
RAW = re.compile(r"[\x1b\x07\r\u2028\u2029]")
OWN_ANNOTATION = re.compile(r"^::(error|warning) (file=[^,:\n]*,)?title=[^:\n]*::")
# The only HTML a report holds is its renderer's own: the <details> blocks, whose <summary> text is escaped.
OWN_HTML = re.compile(r"<details>\n<summary>[^<>\n]*</summary>\n|</details>\n|<!-- pytest-chunkeval -->\n")
LINK = "https://x.test/run"  # the comment's link to its workflow run: the one link a body may hold

SHOWN_KEY = log_text(f"golden/{SUITE}/queries.yaml")  # the suite as a reader reads it: on one line, escaped


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


def assert_inert_log(result: pytest.RunResult) -> list[str]:
    """The run's log as a runner reads it: no workflow command but the run's own annotations, no raw control
    character, no line that a name started. pytester splits the output at "\\r" and U+2028 too: a raw one shows as
    a line that starts with the hostile text after it (ESC, " # |c|"), which the last two assertions catch."""
    lines = [*result.outlines, *result.errlines]
    commands = [line for line in lines if line.lstrip().startswith("::")]
    assert all(OWN_ANNOTATION.match(line) for line in commands), commands
    assert not [line for line in lines if RAW.search(line)]
    assert not [line for line in lines if line.lstrip().startswith(("# ", "## ", "|c|"))]
    return lines


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


def inert_markdown(text: str) -> list[Token]:
    """``text`` parsed as GitHub reads Markdown, once checked: no raw control character or workflow command, no
    image or inline HTML, no HTML block but the renderer's own ``<details>``, no row with a cell more or less than
    its table's header."""
    assert not RAW.search(text) and not [line for line in text.splitlines() if line.lstrip().startswith("::")]
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    assert not inline_kinds(tokens) & {"image", "html_inline"}
    html = [t.content for t in tokens if t.type == "html_block"]
    assert all(OWN_HTML.fullmatch(block) for block in html), html
    rows = _table_rows(tokens)
    assert rows and all(cells == header for cells, header in rows), rows  # no name split a cell
    return tokens


def read(inline: Token) -> str:
    """An inline token's text as a reader reads it (escapes and entities undone, code spans as their code)."""
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "text_special", "code_inline"))


def headings(tokens: list[Token]) -> list[str]:
    return [read(tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "heading_open"]


def links(tokens: list[Token]) -> list[str]:
    return [str(c.attrs.get("href")) for t in tokens for c in (t.children or []) if c.type == "link_open"]


def read_texts(tokens: list[Token]) -> list[str]:
    """Each paragraph, list item, cell and heading as it reads."""
    return [read(t) for t in tokens if t.type == "inline"]


def code_spans(tokens: list[Token]) -> list[str]:
    return [c.content for t in tokens for c in (t.children or []) if c.type == "code_inline"]


@pytest.fixture
def hostile_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> tuple[pytest.RunResult, Path]:
    fake = FakeSentenceModel()
    monkeypatch.setattr(Embedder, "model", lambda self: fake)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    write_hostile_project(pytester)
    # The hostile strategy is the baseline (a setting's value): the legends, the Δ column and the command that
    # records the misses (this run's own command line) name it.
    result = run(pytester, "-v", "-rA", "--chunkeval-annotations", "--chunkeval-markdown=out.md",
                 "--chunkeval-report=out.json", "--junitxml=junit.xml", "--chunkeval-frontier",
                 "--chunkeval-retrieval=vector", "--chunkeval-k=3", "--chunkeval-gate=all",
                 f"--chunkeval-baseline={STRATEGY}")
    return result, pytester.path


def test_no_log_line_is_a_workflow_command_or_holds_a_raw_control_character(
        hostile_run: tuple[pytest.RunResult, Path]) -> None:
    result, _ = hostile_run
    lines = assert_inert_log(result)
    assert any("st\\n:\\x3aerror" in line for line in lines)  # the strategy's items are there, escaped
    assert any("st\\n::error" in line for line in lines)  # and its rows
    assert any(line.startswith("::error ") for line in lines)  # a failed gate is annotated


def test_the_markdown_report_has_no_heading_link_html_or_cell_from_a_name(
        hostile_run: tuple[pytest.RunResult, Path]) -> None:
    _, root = hostile_run
    text = (root / "out.md").read_text()
    assert "st\\\\n" in text and "PWNED" in text  # the names are shown (rows, headings, failures), escaped
    tokens = inert_markdown(text)
    shown = headings(tokens)
    assert [h for h in shown if "PWNED" in h] == [h for h in shown if h.startswith("golden/s")], shown
    assert not [h for h in shown if h.startswith("Verdict: PASS")] and not links(tokens)
    texts = read_texts(tokens)
    assert [t for t in texts if t.startswith("Legend — ") and f"relative to {log_text(STRATEGY)}, paired" in t]
    assert [t for t in texts if t.startswith("Legend — ") and f"bytes against {log_text(STRATEGY)}; " in t]
    # A failed gate's line in the verdict names the baseline on one line (was: cut at its newline, "against st").
    assert [t for t in texts if f"fails gate ndcg-gain against {log_text(STRATEGY)}: " in t]


def test_junit_xml_and_the_json_report_read_back(hostile_run: tuple[pytest.RunResult, Path]) -> None:
    _, root = hostile_run
    tree = ET.parse(root / "junit.xml")
    cases = tree.getroot().iter("testcase")
    names = [c.get("name", "") + c.get("classname", "") for c in cases]
    assert names and not [n for n in names if RAW.search(n) or "\n" in n]
    report = json.loads((root / "out.json").read_text())
    (suite,) = report["suites"].values()
    assert STRATEGY in suite["strategies"]  # JSON keeps the name exactly: json.dumps escapes it for JSON


# -- against a base: the second project ----------------------------------------------------------------------------

LOST, GAINED, ADDED = (QID + "1", QID + "2"), QID + "3", QID + "4"
WINDOWS = """
from pytest_chunkeval import FixedSizeChunker, strategy


class Windows(FixedSizeChunker):
    def chunk(self, path, text):
        if WHOLE and path.startswith("##"):  # the hostile corpus file, in one chunk, and a warning naming it
            self.warn(f"{path}:1: kept whole")
            return FixedSizeChunker(10_000, 0, name=self.name).chunk(path, text)
        return FixedSizeChunker(60, 0, name=self.name).chunk(path, text)


@strategy(name=NAME)
def hostile():
    return Windows(max_chunk_size=200, overlap=0)
"""


def write_compared_project(root: Path, whole: bool) -> None:
    """The hostile corpus file holds 60 characters of "alpha" lines, then 60 of "beta" lines: the first run's
    windows are one of each, the second run's one chunk of both. With :class:`MarkerModel`, an "alpha" query
    ranks a pure "alpha" window (cosine 1) over the "alpha zeta" files (0.89) over the whole file (0.71): lost;
    an "alpha beta" query ranks the whole file (1) over the "alpha beta zeta" files (0.94) over either window
    (0.71): gained. The second run's golden file adds a query."""
    (root / "strategies").mkdir(exist_ok=True)
    (root / "strategies" / "hostile.py").write_text(f"WHOLE = {whole}\nNAME = {STRATEGY!r}\n{WINDOWS}")
    corpus = root / "golden" / SUITE / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    (corpus / CORPUS).write_text("alpha\n" * 10 + "beta\n" * 12)
    for i in range(3):  # one chunk each, on both sides
        (corpus / f"a{i}.py").write_text(f"alpha zeta {i}\n")
        (corpus / f"ab{i}.py").write_text(f"alpha beta zeta {i}\n")
    texts = {LOST[0]: "alpha?\n::error::q", LOST[1]: "## where is alpha <img src=x>", GAINED: "alpha and beta |c|",
             **({ADDED: "beta"} if whole else {})}
    (corpus.parent / "queries.yaml").write_text(json.dumps({"corpus": "corpus", "queries": [
        {"id": qid, "query": text, "relevant": [{"path": CORPUS}]} for qid, text in texts.items()]}))


@pytest.fixture
def compared_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> tuple[pytest.RunResult, Path, str]:
    """The second run, against the first one's report, with a job summary; and the comment's body made of it."""
    model = MarkerModel()
    monkeypatch.setattr(Embedder, "model", lambda self: model)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "summary.md"))
    set_ini(pytester.path, "chunkeval_golden", '["golden/*/queries.yaml"]', "\n    golden/*/queries.yaml")
    settings = ("--chunkeval-retrieval=vector", "--chunkeval-k=3", "--chunkeval-strategies=file_level",
                f"--chunkeval-baseline={STRATEGY}")
    write_compared_project(pytester.path, whole=False)
    assert "failed" not in run(pytester, "--chunkeval-report=base.json", *settings).parseoutcomes()
    write_compared_project(pytester.path, whole=True)
    # Three paired queries are never significant: with significance off, the fall itself fails the comparison.
    result = run(pytester, "-v", "-rA", "--chunkeval-annotations", "--chunkeval-markdown=out.md",
                 "--chunkeval-report=out.json", "--junitxml=junit.xml", "--chunkeval-compare=base.json",
                 "--chunkeval-step-summary", "-o", "chunkeval_regression_alpha=off", *settings)
    capsys.readouterr()
    assert main(["comment", "--markdown", str(pytester.path / "out.md"), "--dry-run", "--link", LINK]) == 0
    return result, pytester.path, capsys.readouterr().out


def test_against_a_base_the_verdict_log_junit_and_json_name_every_hostile_change(
        compared_run: tuple[pytest.RunResult, Path, str], pytester: pytest.Pytester) -> None:
    result, root, _ = compared_run
    report = json.loads((root / "out.json").read_text())
    (suite,) = report["suites"].values()
    compared = suite["comparison"]["strategies"][STRATEGY]  # JSON keeps every name exactly
    assert [q["id"] for q in compared["lost"]] == list(LOST) and [q["id"] for q in compared["gained"]] == [GAINED]
    assert compared["files_rechunked"] == [CORPUS] and compared["new_warnings"] == [f"{CORPUS}:1: kept whole"]
    # The comparison item's id holds the names escaped; its failure is still the comparison's (was: "other").
    titles = [r["title"] for r in report["verdict"]["reasons"]]
    assert titles[0] == "regressions against the base" and "other failures" not in titles, titles
    lines = assert_inert_log(result)
    assert f"{log_text(STRATEGY)}: lost on head: {log_text(LOST[0])} (rank 1 → none)" in lines
    assert f"queries added since base, left out of the paired tests: {log_text(ADDED)}" in lines
    assert [line for line in lines if line.startswith("::error ") and "regression" in line]
    names = [c.get("name", "") + c.get("classname", "") for c in ET.parse(root / "junit.xml").getroot().iter("testcase")]
    assert names and not [n for n in names if RAW.search(n) or "\n" in n]
    # The hostile file edited: the base is refused before any item runs, the suite and the file named on one line.
    (root / "golden" / SUITE / "corpus" / CORPUS).write_text("alpha\n" * 11)
    refused = run(pytester, "--chunkeval-compare=base.json", "--chunkeval-retrieval=vector", "--chunkeval-k=3",
                  "--chunkeval-strategies=file_level", f"--chunkeval-baseline={STRATEGY}")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in assert_inert_log(refused) if f"{SHOWN_KEY} corpus: base " in line
            and f"files that differ: {log_text(CORPUS)})" in line]


@pytest.mark.parametrize("output", ["report", "job summary", "comment"])
def test_against_a_base_the_markdown_shows_every_hostile_name_as_text(
        compared_run: tuple[pytest.RunResult, Path, str], output: str) -> None:
    _, root, body = compared_run
    text = {"report": (root / "out.md").read_text(), "job summary": (root / "summary.md").read_text(),
            "comment": body}[output]
    tokens = inert_markdown(text)
    shown = headings(tokens)
    assert shown[0] == "pytest-chunkeval report" and shown[1].startswith("Verdict: ❌ FAIL")
    assert shown[2:] == [f"Head vs base: {SHOWN_KEY}", SHOWN_KEY, f"What changed on {SHOWN_KEY}"], shown
    assert links(tokens) == ([LINK] if output == "comment" else [])
    texts, spans = read_texts(tokens), code_spans(tokens)
    assert log_text(CORPUS) in texts  # "What changed": the file whose chunks moved, one list item of text
    assert f"{log_text(CORPUS)}:1: kept whole" in texts  # the new warning
    assert [t for t in texts if t.endswith(f"(first: {log_text(CORPUS)}:1: kept whole)")]  # the comparison's problems
    assert [t for t in texts if t.startswith("Legend — ") and f"relative to {log_text(STRATEGY)}, paired" in t]
    assert {log_text(q) for q in (*LOST, GAINED)} <= set(spans)  # the lost and gained queries, each a code span
    assert f"queries added since base, left out of the paired tests: {log_text(ADDED)}" in texts
    assert f"{SHOWN_KEY}::{log_text(STRATEGY)}" in spans  # the verdict's regression lines name the item
