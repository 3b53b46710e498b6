"""Text a corpus or a golden file chose (a file name with a newline, a query with HTML) is shown, never acted on
(issue 28): not as a workflow command in the log (a line of its own that starts with ``::``), not as a heading or
HTML in the Markdown report, the job summary or the pull-request comment. The results are the hand-made
ones of tests/hand_made_results.py with hostile names put in every place a name is shown."""
from __future__ import annotations

import dataclasses
import html
import re
import shlex
from pathlib import Path

from hand_made_results import CHUNKS, KEY, made_comparison, made_suite, made_summary
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from pytest_chunkeval.commands.github.comment import build_body
from pytest_chunkeval.core.ranking import Relevant
from pytest_chunkeval.judges.comparison import QueryChange
from pytest_chunkeval.judges.verdict import Failure
from pytest_chunkeval.output import headline
from pytest_chunkeval.output.annotations import annotation_lines
from pytest_chunkeval.output.escape import (
    command_data,
    command_property,
    html_text,
    log_lines,
    log_text,
    md_cell,
    md_code,
    md_text,
    node_id,
)
from pytest_chunkeval.output.markdown import document
from pytest_chunkeval.output.messages import describe_outcome
from pytest_chunkeval.output.report import Summary
from pytest_chunkeval.output.tables import summary_text
from pytest_chunkeval.results.typed import ChunkSpan, QuerySpec, RankedChunk
from pytest_chunkeval.run.outputs_plugin import verdict as judge
from pytest_chunkeval.scoring.outcomes import QueryOutcome

NAME = "x\n::error file=pwned.py::injected\n## Verdict: ✅ PASS <img src=x onerror=alert(1)>.py"
TEXT = "How are passwords hashed?\r\n## Verdict: ✅ PASS <img src=https://evil.test/q.png> `code` [a](b)"
QID = "id<img/src=x/onerror=alert(1)>"


def hostile_summary() -> Summary:
    """Every place a file name, a query id or its text reaches a renderer, holding the hostile ones."""
    relevant = (Relevant(NAME, (1, 2), 1),)
    lost = QueryChange(QID, TEXT, relevant, 1, None, (ChunkSpan("n#0", NAME, 1, 2, "block"),),
                       (ChunkSpan("n#0", NAME, 1, 1, "block"),), (RankedChunk("n#1", NAME, 3, 4, 0.8),))
    comparison = made_comparison()
    ast = dataclasses.replace(comparison.strategies["ast"], lost=[lost], files_rechunked=[NAME],
                              new_warnings=[f"{NAME}:3: closing line without an open block"])
    comparison = dataclasses.replace(comparison, added=[QID], strategies={**comparison.strategies, "ast": ast})
    suite = made_suite()
    peers = dataclasses.replace(suite.strategies["peers"], fallbacks=(f"{NAME}: SyntaxError at line 3",))
    suite = dataclasses.replace(suite, skipped_files={NAME: "not text"},
                                queries={**suite.queries, QID: QuerySpec(QID, TEXT, relevant)},
                                strategies={**suite.strategies, "peers": peers})
    return made_summary(suites={KEY: suite}, comparisons={KEY: comparison})


EXPECTED_HEADINGS = {"# pytest-chunkeval report", "## Verdict: ❌ FAIL — 2 reasons", f"## Head vs base: {KEY}",
                     f"## {KEY}", f"### What changed on {KEY}"}


def test_the_markdown_report_and_the_comment_show_hostile_names_inert() -> None:
    doc = document(hostile_summary())
    body = build_body(doc).text
    for text in (doc, body):
        headings = {line for line in text.splitlines() if line.lstrip().startswith("#")}
        assert headings <= EXPECTED_HEADINGS, headings - EXPECTED_HEADINGS  # no fake "## Verdict: ✅ PASS"
        outside_code = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", text)  # in a code span, "<img>" is text
        assert not re.search(r"<(img|a|script)\b", outside_code, re.IGNORECASE)
        assert not [line for line in text.splitlines() if line.startswith("::")]
    # Shown, escaped, wherever it was shown before: the lost query, its spans and chunks, the moved file, warnings.
    assert md_code(QID) + " — " + md_text(TEXT) in doc
    assert md_text(f"{NAME}:1-2") in doc and md_code(f"{NAME}:1-2 block") in doc and md_code(f"{NAME}:3-4") in doc
    assert f"- {md_text(NAME)}\n" in doc and md_text(f"{NAME}:3: closing line without an open block") in doc
    assert "x\\\\n::error file=pwned.py::injected\\\\n## Verdict: ✅ PASS &lt;img src=x onerror=alert(1)&gt;.py" in doc


def test_the_terminal_summary_and_failures_never_start_a_log_line_of_their_own() -> None:
    text = summary_text(hostile_summary())
    outcome = QueryOutcome(query=QuerySpec(QID, TEXT, (Relevant(NAME, (1, 2), 1),)),  # type: ignore[arg-type]
                           ranking=[RankedChunk("n#1", NAME, 3, 4, 0.8)], metrics={"file": {"ndcg@10": 0.0}},
                           hit=False)
    failure = "\n".join(describe_outcome(outcome, 10))
    for out in (text, failure):
        assert not [line for line in out.splitlines() if line.lstrip().startswith(("::", "## "))]
    assert log_text(NAME) in failure and log_text(TEXT) in failure
    assert "x\\n::error file=pwned.py::injected\\n## Verdict" in failure


def test_annotations_escape_a_hostile_file_name_in_every_field() -> None:
    (line,) = annotation_lines([(f"{KEY}::ast::q1", NAME, f"MISS: {NAME}")])
    assert "\n" not in line and "\r" not in line
    command, message = line.removeprefix("::").split("::", 1)  # the first "::" after the properties ends them
    assert command == f"error file={command_property(NAME)},title={command_property(f'{KEY}::ast::q1')}"
    assert message == command_data(f"MISS: {NAME}")


def test_escapes_round_trip_what_github_decodes() -> None:
    assert command_property("a:b,c%\r\n") == "a%3Ab%2Cc%25%0D%0A"
    assert log_text("a\nb\x1b[31m\u2028") == "a\\nb\\x1b[31m\\u2028"
    assert md_code("a`b") == "``a`b``" and md_code("`x") == "`` `x ``"
    assert md_text("<b>&_*") == "&lt;b&gt;&amp;\\_\\*"
    assert Path(CHUNKS[0].path).name == "a.py"  # the hand-made results are test_renderers' own


# -- escape.py's functions, each against what its destination's reader makes of it ------------------------------

HOSTILE_CHARS = "\n\r\x1b\x07\u2028\u2029\t1-+=.:#|`<>[]()!*_&\\@ w."
hostile_text = st.text(alphabet=st.sampled_from(HOSTILE_CHARS) | st.characters(), max_size=40)
PARSER = MarkdownIt("commonmark").enable("table")
INERT = {"paragraph_open", "paragraph_close", "inline", "text", "softbreak"}  # what plain text parses to


def _kinds(text: str) -> set[str]:
    tokens = PARSER.parse(text)
    return {t.type for t in tokens} | {c.type for t in tokens for c in (t.children or [])}


@given(hostile_text)
def test_md_text_is_plain_text_on_one_line_at_the_start_of_a_line_or_in_a_list(text: str) -> None:
    escaped = md_text(text)
    assert "\n" not in escaped and "\r" not in escaped
    lists = {"bullet_list_open", "bullet_list_close", "list_item_open", "list_item_close"}
    places = {f"x{escaped}": INERT, f"- {escaped}": INERT | lists, f"## {escaped}": INERT | {"heading_open",
                                                                                            "heading_close"}}
    for place, allowed in places.items():  # running text, a list item, a heading's text
        assert _kinds(place) <= allowed, (text, place)
    assert _kinds(escaped) <= INERT  # never a heading, rule, quote or list of its own


@given(st.lists(hostile_text, min_size=1, max_size=4))
def test_md_cell_never_splits_a_table_row_nor_makes_a_link_or_html(cells: list[str]) -> None:
    header = "| " + " | ".join(f"h{i}" for i in range(len(cells))) + " |"
    rule = "|" + "|".join("---" for _ in cells) + "|"
    table = "\n".join([header, rule, "| " + " | ".join(md_cell(c) for c in cells) + " |"])
    tokens = PARSER.parse(table)
    assert sum(t.type == "td_open" for t in tokens) == len(cells)
    assert not {c.type for t in tokens for c in (t.children or [])} & {"link_open", "image", "html_inline",
                                                                       "code_inline"}


@given(hostile_text)
def test_md_code_is_one_code_span(text: str) -> None:
    (paragraph,) = [t for t in PARSER.parse(f"x {md_code(text)}") if t.type == "inline"]
    assert [c.type for c in paragraph.children or []] == ["text", "code_inline"]


@given(hostile_text)
def test_html_text_in_a_summary_is_its_text_and_no_tag(text: str) -> None:
    """A ``<summary>`` is an HTML block, where GitHub reads no Markdown: the name shows as written (no backslash
    escapes), on one line, and opens no tag of its own."""
    block = f"<details>\n<summary>{html_text(text)}</summary>\n\nbody\n\n</details>\n"
    tokens = PARSER.parse(block)
    assert [t.type for t in tokens][:1] == ["html_block"] and tokens[0].content.count("<") == 3  # ours only
    assert html.unescape(html_text(text)) == log_text(text)


SUMMARY = made_summary()


@given(hostile_text)
def test_what_settles_a_miss_shows_the_runs_command_as_one_code_span_whatever_it_quotes(name: str) -> None:
    """The command that records misses is this run's own command line: a setting's value in it (a strategy name
    holding a newline, a backtick, "## ") stays inside its code span, and the text around it stays text."""
    command = shlex.join(["pytest", "--chunkeval", f"--chunkeval-baseline={name}", "--chunkeval-accept-misses"])
    verdict = judge(None, [Failure("golden/s/queries.yaml::ast::q", "miss", "MISS: q")], accept=command)
    (settle,) = [line for line in headline.markdown(verdict, SUMMARY) if line.startswith("- ↳ ")]
    (item,) = [t for t in PARSER.parse(settle) if t.type == "inline"]
    assert [c.type for c in item.children or []] == ["text", "code_inline", "text"], settle
    assert (item.children or [])[1].content == log_text(command)


@given(hostile_text)
def test_log_text_and_log_lines_never_start_a_workflow_command_nor_hold_a_control_character(text: str) -> None:
    one = log_text(text)
    assert one.splitlines() in ([one], [])  # str.splitlines splits at every line break a reader might honour
    assert not re.search(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", one)
    block = log_lines(f"own line\n{text}\n  {text}")
    lines = block.split("\n")
    assert not [line for line in lines if line.lstrip().startswith("::")]
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", block)
    assert lines[0] == "own line"


@given(hostile_text)
def test_node_id_and_annotation_fields_stay_one_part_of_one_line(text: str) -> None:
    part = node_id(text)
    assert "::" not in part and not re.search(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", part)
    prop, data = command_property(text), command_data(text)
    assert not re.search(r"[\x00-\x1f\x7f-\x9f\u2028\u2029,:]", prop)
    assert not re.search(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", data)
    if not re.search(r"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]", text):  # else shown as escapes
        assert data.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%") == text  # what GitHub decodes
