"""The golden validator: every kind of mistake is an error naming file, line, query id and field."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_chunkeval.core.golden import GoldenError, load_golden


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    (corpus / "pkg").mkdir(parents=True)
    (corpus / "a.py").write_text("def a():\n    return 1\n")
    (corpus / "pkg" / "b.py").write_text("x = 1\ny = 2\nz = 3\n")
    (corpus / "blob.bin").write_bytes(b"\x00\x01\x02")
    return tmp_path


def write(suite_dir: Path, text: str, name: str = "queries.yaml") -> Path:
    path = suite_dir / name
    path.write_text(text)
    return path


def errors(path: Path) -> list[str]:
    with pytest.raises(GoldenError) as info:
        load_golden(path)
    return info.value.problems


GOOD = """\
corpus: corpus
queries:
  - id: first
    query: where is a defined
    relevant:
      - path: a.py
        lines: [1, 2]
        grade: 2
      - path: pkg/b.py
"""


def test_valid_suite_loads(suite_dir: Path) -> None:
    suite = load_golden(write(suite_dir, GOOD))
    assert [q.id for q in suite.queries] == ["first"]
    rel = suite.queries[0].relevant
    assert (rel[0].path, rel[0].lines, rel[0].grade) == ("a.py", (1, 2), 2)
    assert (rel[1].path, rel[1].lines, rel[1].grade) == ("pkg/b.py", None, 1)
    assert sorted(suite.corpus.files) == ["a.py", "pkg/b.py"]
    assert suite.corpus.skipped == {"blob.bin": "binary file"}


@pytest.mark.parametrize(
    "mutation, line, fragment",
    [
        (("    query: where is a defined\n", "    query: where is a defined\n    colour: red\n"), 3, "'colour' was unexpected"),
        (("    query: where is a defined\n", "    query: '   '\n"), 4, "query:"),
        (("        lines: [1, 2]\n", "        lines: [1, 9]\n"), 7, "runs past the end of a.py (2 lines)"),
        (("        lines: [1, 2]\n", "        lines: [2, 1]\n"), 7, "start 2 is after end 1"),
        (("        lines: [1, 2]\n", "        lines: [0, 1]\n"), 7, "less than the minimum of 1"),
        (("      - path: pkg/b.py\n", "      - path: missing.py\n"), 9, "'missing.py' is not a readable file"),
        (("      - path: pkg/b.py\n", "      - path: ../outside.py\n"), 9, "leaves the corpus"),
        (("      - path: pkg/b.py\n", "      - path: /etc/passwd\n"), 9, "is absolute"),
        (("      - path: pkg/b.py\n", "      - path: blob.bin\n"), 9, "(binary file)"),
        (("        grade: 2\n", "        grade: two\n"), 8, "'two' is not of type 'integer'"),
    ],
)
def test_each_mistake_names_file_line_query_and_field(suite_dir: Path, mutation: tuple[str, str], line: int, fragment: str) -> None:
    old, new = mutation
    assert old in GOOD
    path = write(suite_dir, GOOD.replace(old, new, 1))
    problems = errors(path)
    assert len(problems) == 1, problems
    message = problems[0]
    assert message.startswith(f"{path}:{line}:"), message
    assert "query 'first'" in message
    assert fragment in message


@pytest.mark.parametrize(("path", "said"), [
    ("'::error ::x.py'", "'::error ::x.py' is not a readable file in the corpus"),  # was: "is absolute"
    ("'::'", "'::' is not a readable file in the corpus"),
    ("'C:/data/a.py'", "'C:/data/a.py' names a drive (C:); paths are relative to the corpus"),
    ("'c:a.py'", "'c:a.py' names a drive (c:); paths are relative to the corpus"),
    ("'\\\\srv\\share\\a.py'", "is absolute; paths are relative to the corpus"),
])
def test_a_relevant_path_is_told_what_is_really_wrong_with_it(suite_dir: Path, path: str, said: str) -> None:
    problems = errors(write(suite_dir, GOOD.replace("path: pkg/b.py", f"path: {path}")))
    assert len(problems) == 1 and said in problems[0], problems
    assert ("absolute" in problems[0]) == ("absolute" in said)


def test_a_corpus_file_whose_name_starts_with_colons_is_found(suite_dir: Path) -> None:
    (suite_dir / "corpus" / "::odd.py").write_text("x = 1\n")
    suite = load_golden(write(suite_dir, GOOD.replace("path: pkg/b.py", "path: '::odd.py'")))
    assert suite.queries[0].relevant[1].path == "::odd.py"


def test_a_jsonl_line_nested_past_the_parser_is_one_problem_naming_it(suite_dir: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    path = write(suite_dir, json.dumps({"corpus": "corpus"}) + "\n" + deep + "\n", "queries.jsonl")
    assert errors(path) == [f"{path}:2: invalid JSON: nested too deeply to read"]  # was: a RecursionError


def test_duplicate_ids_point_at_both_lines(suite_dir: Path) -> None:
    text = GOOD + GOOD.split("queries:\n", 1)[1]
    problems = errors(write(suite_dir, text))
    assert problems == [f"{suite_dir / 'queries.yaml'}:10: query 'first': id: duplicate id (first used at line 3)"]


def test_all_problems_reported_at_once(suite_dir: Path) -> None:
    text = GOOD.replace("lines: [1, 2]", "lines: [1, 99]").replace("path: pkg/b.py", "path: nope.py")
    assert len(errors(write(suite_dir, text))) == 2


def test_missing_corpus_and_bad_yaml(suite_dir: Path) -> None:
    assert "folder" in errors(write(suite_dir, GOOD.replace("corpus: corpus", "corpus: elsewhere")))[0]
    problems = errors(write(suite_dir, "queries:\n  - id: [unclosed\n"))
    assert "invalid YAML" in problems[0] and ":3" in problems[0]
    assert "'queries' is a required property" in errors(write(suite_dir, "corpus: corpus\n"))[0]


def test_jsonl_format_with_header_and_line_numbers(suite_dir: Path) -> None:
    lines = [
        json.dumps({"corpus": "corpus"}),
        json.dumps({"id": "q1", "query": "a", "relevant": [{"path": "a.py"}]}),
        "",
        json.dumps({"id": "q2", "query": "b", "relevant": [{"path": "pkg/b.py", "lines": [1, 3]}]}),
    ]
    suite = load_golden(write(suite_dir, "\n".join(lines) + "\n", "queries.jsonl"))
    assert [q.id for q in suite.queries] == ["q1", "q2"]
    lines[3] = json.dumps({"id": "q2", "query": "b", "relevant": [{"path": "pkg/b.py", "lines": [1, 30]}]})
    problems = errors(write(suite_dir, "\n".join(lines) + "\n", "queries.jsonl"))
    assert problems[0].startswith(f"{suite_dir / 'queries.jsonl'}:4: query 'q2': relevant[0].lines:")
    problems = errors(write(suite_dir, lines[0] + "\n{not json\n", "queries.jsonl"))
    assert problems[0].startswith(f"{suite_dir / 'queries.jsonl'}:2: invalid JSON")


def test_bundled_suites_are_valid() -> None:
    root = Path(__file__).resolve().parents[1]
    suites = sorted(root.glob("golden/*/queries.yaml"))
    assert suites, "no bundled golden suites found"
    for path in suites:
        suite = load_golden(path)
        assert len(suite.queries) >= 70


def test_ids_may_be_integers_but_not_contain_spaces_or_double_colons(suite_dir: Path) -> None:
    suite = load_golden(write(suite_dir, GOOD.replace("id: first", "id: 17")))
    assert suite.queries[0].id == "17"
    assert load_golden(write(suite_dir, GOOD.replace("id: first", "id: json.decoder:raw_decode"))).queries[0].id == "json.decoder:raw_decode"
    for bad in ("'two words'", "'a::b'"):
        problems = errors(write(suite_dir, GOOD.replace("id: first", f"id: {bad}")))
        assert len(problems) == 1 and ": id: " in problems[0] and "is not valid under any of the given schemas" in problems[0]
