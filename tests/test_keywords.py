"""Keyword phrasing (``chunkeval golden keywords``): the pure rules on hand-made queries and code, a property test,
and the derived suite (same corpus and relevance, labelled ``keyword`` in the report) from a suite written here."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_chunkeval.cli import main
from pytest_chunkeval.commands.golden.keyword_suite import derive_keyword_suite
from pytest_chunkeval.commands.golden.keywords import (
    KeywordOptions,
    code_identifiers,
    document_frequency,
    keyword_query,
    looks_like_identifier,
    query_terms,
)
from pytest_chunkeval.core.golden import GoldenError, load_golden
from pytest_chunkeval.results.typed import SuiteResult

PY = '''import math

# retry_later is mentioned only in this comment
def backoff_delay(attempt, ceiling):
    delay = min(2 ** attempt, ceiling)
    log = "jitter_amount in a string"
    return apply_jitter(delay)
'''
GO = '''// Backoff doubles the delay.
func (s *Server) Backoff(attempt int) time.Duration {
	d := time.Duration(1<<attempt)
	return clampDelay(d)
}
'''
QUESTION = "How is the delay between retries computed with exponential backoff?"


def test_query_terms_drop_question_words_and_keep_identifiers_as_written() -> None:
    assert query_terms("How does the Node API drain in-flight requests when Kubernetes sends SIGTERM?") == [
        "API", "requests", "kubernetes", "SIGTERM"]  # 6 content terms: identifiers kept, then the longer words
    assert query_terms("Where is os.path.join called with a user_id, and what does parseConfig() return?") == [
        "os.path.join", "called", "user_id", "parseConfig"]
    assert query_terms("How is it done?") == []
    assert query_terms("cache Cache CACHE") == ["cache"]  # repeats ignoring case are kept once


@pytest.mark.parametrize(("token", "expected"), [
    ("user_id", True), ("parseConfig", True), ("SIGTERM", True), ("os.path", True), ("run()", True),
    ("utf8", True), ("Kubernetes", False), ("delay", False), ("A", False),
])
def test_looks_like_identifier(token: str, expected: bool) -> None:
    assert looks_like_identifier(token) is expected


def test_code_identifiers_ignore_comments_and_strings_and_put_declarations_first() -> None:
    assert code_identifiers(PY) == (["backoff_delay"], ["delay", "log", "apply_jitter"])  # min: a built-in
    assert code_identifiers(GO) == (["Backoff"], ["Duration", "clampDelay"])  # Go receiver skipped; d too short


def test_keyword_query_terms_then_declared_then_rarest_identifiers() -> None:
    assert keyword_query(QUESTION, [PY]) == "retries computed exponential backoff backoff_delay delay"
    rare = {"backoff_delay": 3, "delay": 9, "log": 1, "apply_jitter": 2}
    assert keyword_query(QUESTION, [PY], rare) == "retries computed exponential backoff backoff_delay log"
    assert keyword_query("How is it done?", [GO]) == "Backoff Duration clampDelay"  # no terms: one more name
    assert keyword_query("How is it done?", ["# only a comment"]) == "How is it"  # never empty
    assert keyword_query(QUESTION, [PY], options=KeywordOptions(max_query_terms=1, max_identifiers=1)) == (
        "exponential backoff_delay delay")  # under two terms: one name more
    terms_only = KeywordOptions(max_identifiers=0)
    assert keyword_query(QUESTION, [PY], options=terms_only) == "retries computed exponential backoff"
    assert keyword_query("How is it done?", [GO], options=terms_only) == "How is it"  # no name, even with no term


def test_document_frequency_counts_files_not_occurrences() -> None:
    df = document_frequency(["delay = delay + 1", "x = delay", "# delay in a comment"])
    assert df["delay"] == 2


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200)


@settings(max_examples=150, deadline=None)
@given(query=_TEXT.filter(lambda q: q.strip() != ""), spans=st.lists(_TEXT, max_size=3))
def test_keyword_query_is_deterministic_non_empty_and_short(query: str, spans: list[str]) -> None:
    first = keyword_query(query, spans)
    assert first == keyword_query(query, list(spans))
    assert first.strip() and len(first.split()) <= KeywordOptions().max_tokens
    assert " ".join(first.split()) == first  # single spaces, no line breaks


def _suite(tmp_path: Path) -> Path:
    corpus = tmp_path / "s" / "src"
    corpus.mkdir(parents=True)
    (corpus / "retry.py").write_text(PY, encoding="utf-8")
    (corpus / "retry.go").write_text(GO, encoding="utf-8")
    golden = tmp_path / "s" / "queries.yaml"
    golden.write_text(yaml.safe_dump({"corpus": "src", "queries": [
        {"id": "py-backoff", "query": QUESTION, "tags": ["python"],
         "relevant": [{"path": "retry.py", "lines": [4, 7], "grade": 2}, {"path": "retry.go", "grade": 1}]},
        {"id": 7, "query": "How does the server clamp its delay?", "relevant": [{"path": "retry.go"}]},
    ]}), encoding="utf-8")
    return golden


def test_derived_suite_shares_corpus_and_relevance(tmp_path: Path) -> None:
    source = _suite(tmp_path)
    out = tmp_path / "elsewhere" / "deep" / "kw.yaml"
    suite = derive_keyword_suite(source, out, "chunkeval golden keywords x")
    original = load_golden(source)
    assert suite.corpus_dir == original.corpus_dir and suite.phrasing == "keyword" and original.phrasing == "sentence"
    assert [q.id for q in suite.queries] == ["py-backoff-kw", "7-kw"]
    assert [q.relevant for q in suite.queries] == [q.relevant for q in original.queries]
    # only the grade-2 span feeds the names: the Go file (grade 1) adds none
    assert suite.queries[0].text == "retries computed exponential backoff backoff_delay delay"  # delay, log: tie
    text = out.read_text("utf-8")
    assert text.startswith("# Derived by `chunkeval golden keywords`") and "# Command: chunkeval golden keywords x" in text
    data = yaml.safe_load(text)
    assert data["corpus"] == "../../s/src" and data["phrasing"] == "keyword"
    assert data["queries"][0]["tags"] == ["python"] and data["queries"][1]["note"].startswith("from 7: How does")
    derive_keyword_suite(source, out)
    assert yaml.safe_load(out.read_text("utf-8"))["queries"] == data["queries"]  # deterministic


def test_cli_default_out_and_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _suite(tmp_path)
    assert main(["golden", "keywords", str(source)]) == 0
    beside = source.parent / "queries.keywords.yaml"
    assert load_golden(beside).corpus_dir == load_golden(source).corpus_dir
    assert f"--chunkeval-golden={beside}" in capsys.readouterr().out
    assert main(["golden", "keywords", str(source), "-o", str(source)]) == 1  # never over its source
    terms = tmp_path / "terms.yaml"
    assert main(["golden", "keywords", str(source), "-o", str(terms), "--identifiers", "0"]) == 0
    assert len(load_golden(terms).queries) == len(load_golden(source).queries)
    assert main(["golden", "keywords", str(tmp_path / "missing.yaml")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_from_docs_keyword_queries_option(tmp_path: Path) -> None:
    src = tmp_path / "repo"
    src.mkdir()
    (src / "geometry.py").write_text('''def polygon_area(points):
    """Compute the signed area of a simple polygon with the shoelace formula."""
    total = 0.0
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]):
        total += x1 * y2 - x2 * y1
    return total / 2
''', encoding="utf-8")
    out = tmp_path / "suite"
    assert main(["golden", "from-docs", str(src), str(out), "--keyword-queries"]) == 0
    kw = load_golden(out / "queries.keywords.yaml")
    assert kw.phrasing == "keyword" and kw.corpus_dir == (out / "corpus").resolve()
    assert [q.text for q in kw.queries] == ["compute polygon shoelace formula polygon_area total"]


def test_phrasing_is_validated_and_labels_report_rows(tmp_path: Path) -> None:
    source = _suite(tmp_path)
    source.write_text(source.read_text("utf-8") + "phrasing: shouting\n", encoding="utf-8")
    with pytest.raises(GoldenError, match="phrasing"):
        load_golden(source)
    suite = derive_keyword_suite(_suite(tmp_path / "b"), tmp_path / "kw.yaml")
    result = SuiteResult.from_suite("golden/s/queries.keywords.yaml", suite, "golden/s/src")
    assert result.heading == "golden/s/queries.keywords.yaml (keyword queries)"
    entry = result.to_entry()
    assert entry["phrasing"] == "keyword"
    assert SuiteResult.from_entry(result.key, entry).heading == result.heading
    sentence = SuiteResult.from_suite("q.yaml", load_golden(tmp_path / "b" / "s" / "queries.yaml"), "src")
    assert sentence.heading == "q.yaml" and "phrasing" not in sentence.to_entry()  # old reports stay as they were
