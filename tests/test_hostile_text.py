"""Text a corpus or a golden file chose (a file name with a newline, a query with HTML) is shown, never acted on
(issue 28): not as a workflow command in the log (a line of its own that starts with ``::``), not as a heading or
HTML in the Markdown report, the job summary or the pull-request comment. The results are the hand-made
ones of tests/hand_made_results.py with hostile names put in every place a name is shown."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from hand_made_results import CHUNKS, KEY, made_comparison, made_suite, made_summary

from pytest_chunkeval.github.comment import build_body
from pytest_chunkeval.judges.comparison import QueryChange
from pytest_chunkeval.output.annotations import annotation_lines
from pytest_chunkeval.output.escape import command_data, command_property, log_text, md_code, md_text
from pytest_chunkeval.output.markdown import document
from pytest_chunkeval.output.messages import describe_outcome
from pytest_chunkeval.output.report import Summary
from pytest_chunkeval.output.tables import summary_text
from pytest_chunkeval.ranking import Relevant
from pytest_chunkeval.results import ChunkSpan, QuerySpec, RankedChunk
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
    assert ("x\\\\n\\:\\:error file=pwned.py\\:\\:injected\\\\n\\#\\# Verdict\\: ✅ PASS "
            "&lt;img src=x onerror=alert\\(1\\)&gt;.py") in doc


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
