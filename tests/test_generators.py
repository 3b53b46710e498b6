"""Golden-suite generators (``chunkeval golden from-docs|from-history``) on small hand-made sources and a git repo
built in the test: queries, spans, blanking with line numbers kept, drop reasons, determinism, validation."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pytest_chunkeval.cli import main
from pytest_chunkeval.commands.golden.common import NoQueriesError, round_robin
from pytest_chunkeval.commands.golden.doc_extract import blank_rows
from pytest_chunkeval.commands.golden.doc_langs import DOC_LANGUAGES
from pytest_chunkeval.commands.golden.docs import DocsOptions, build_from_docs
from pytest_chunkeval.commands.golden.history import (
    HistoryOptions,
    build_from_history,
    group_spans,
)
from pytest_chunkeval.commands.golden.text import (
    clean_subject,
    leading_name_removed,
    reject_reason,
)
from pytest_chunkeval.core.golden import load_golden

SOURCES: dict[str, str] = {
    "pkg/geometry.py": '''import math


def polygon_area(points):
    """Compute the signed area of a simple polygon with the shoelace formula.

    Longer explanation that is not part of the query.
    """
    total = 0.0
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]):
        total += x1 * y2 - x2 * y1
    return total / 2


def tiny(x):
    """Too short here."""
    return x + 1
''',
    "server/retry.go": '''package server

import "time"

// Backoff returns the delay before the next attempt, doubling each time up to a ceiling.
//
// It never returns a negative duration.
func Backoff(attempt int, ceiling time.Duration) time.Duration {
	d := time.Duration(1<<attempt) * time.Millisecond
	if d > ceiling {
		return ceiling
	}
	return d
}

// Options:
//   - a
//   - b
func Options() []string {
	return []string{"a", "b"}
}
''',
    "web/cache.ts": '''/**
 * Evict the least recently used entries until the cache fits its byte budget.
 * @param budget maximum bytes kept
 */
export function evictUntilFits(cache: Map<string, Uint8Array>, budget: number): void {
  let size = 0;
  for (const v of cache.values()) size += v.length;
  for (const k of cache.keys()) {
    if (size <= budget) break;
    size -= cache.get(k)!.length;
    cache.delete(k);
  }
}
''',
    "core/ring.rs": '''/// Pushes a value onto the ring buffer, overwriting the oldest slot when it is full.
///
/// # Panics
/// Never.
#[inline]
pub fn push_overwrite(buf: &mut Vec<u32>, cap: usize, v: u32) {
    if buf.len() == cap {
        buf.remove(0);
    }
    buf.push(v);
}
''',
    "jvm/Tokens.java": '''package jvm;

public class Tokens {
    /**
     * Splits a command line into words, honouring {@code "double quotes"} around spaces.
     */
    public static java.util.List<String> split(String line) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String w : line.split(" ")) out.add(w);
        return out;
    }
}
''',
    "jvm/Money.kt": '''package jvm

/** Rounds a monetary amount half-even to the currency's minor unit precision. */
fun roundMoney(amount: Double, digits: Int): Double {
    val f = Math.pow(10.0, digits.toDouble())
    return Math.rint(amount * f) / f
}
''',
    "net/Hosts.cs": '''namespace Net
{
    public static class Hosts
    {
        /// <summary>
        /// Resolves a host name through the local hosts file before asking <see cref="System.Net.Dns"/>.
        /// </summary>
        public static string Resolve(string name)
        {
            var local = name.Trim();
            return local;
        }
    }
}
''',
    # the same sentence on two declarations: no single right answer
    "dup/a.py": 'def first_copy(x):\n    """Normalize the payload before it is written to the audit log."""\n    y = x\n    return y\n',
    "dup/b.py": 'def second_copy(x):\n    """Normalize the payload before it is written to the audit log."""\n    z = x\n    return z\n',
    # the sentence survives verbatim in an ordinary comment elsewhere in the corpus
    "echo/c.py": 'def echoed(x):\n    """Merge overlapping intervals into the smallest covering set."""\n    a = x\n    return a\n',
    "echo/d.py": '# merge overlapping intervals into the smallest covering set\nVALUE = 1\n',
    "tests/test_geometry.py": 'def test_area():\n    """Check the area of a unit square is exactly one here."""\n    a = 1\n    assert a == 1\n',
    "README.md": "Not code: never part of the corpus.\n",
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def docs_suite(tmp_path: Path) -> tuple[Path, Path, dict]:
    src = write_tree(tmp_path / "src", SOURCES)
    out = tmp_path / "out"
    meta = build_from_docs(src, out, DocsOptions(seed=7))
    return src, out, meta


def by_path(out: Path) -> dict[str, dict]:
    data = yaml.safe_load((out / "queries.yaml").read_text(encoding="utf-8"))
    return {q["relevant"][0]["path"]: q for q in data["queries"]}


def test_from_docs_queries_and_spans(docs_suite: tuple[Path, Path, dict]) -> None:
    _src, out, meta = docs_suite
    queries = by_path(out)
    expected = {
        "pkg/geometry.py": ("Compute the signed area of a simple polygon with the shoelace formula.", [4, 12]),
        "server/retry.go": ("Returns the delay before the next attempt, doubling each time up to a ceiling.", [8, 14]),
        "web/cache.ts": ("Evict the least recently used entries until the cache fits its byte budget.", [5, 13]),
        "core/ring.rs": ("Pushes a value onto the ring buffer, overwriting the oldest slot when it is full.", [5, 11]),
        "jvm/Tokens.java": ('Splits a command line into words, honouring "double quotes" around spaces.', [7, 11]),
        "jvm/Money.kt": ("Rounds a monetary amount half-even to the currency's minor unit precision.", [4, 7]),
        "net/Hosts.cs": ("Resolves a host name through the local hosts file before asking Dns.", [8, 12]),
    }
    assert {p: (q["query"], q["relevant"][0]["lines"]) for p, q in queries.items()} == expected
    assert meta["queries"] == 7 and meta["missing_grammars"] == []
    suite = load_golden(out / "queries.yaml")  # the project's own validation
    assert len(suite.queries) == 7
    assert "README.md" not in suite.corpus.files and "tests/test_geometry.py" in suite.corpus.files


def test_from_docs_blanks_comments_and_keeps_line_numbers(docs_suite: tuple[Path, Path, dict]) -> None:
    src, out, _meta = docs_suite
    for rel in ("pkg/geometry.py", "server/retry.go", "web/cache.ts", "core/ring.rs", "net/Hosts.cs"):
        before = (src / rel).read_text().split("\n")
        after = (out / "corpus" / rel).read_text().split("\n")
        assert len(before) == len(after), rel
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert changed and all(after[i] == "" for i in changed), rel
        assert not any(q in "\n".join(after) for q in ("shoelace", "ceiling.\n", "byte budget", "oldest slot", "hosts file"))
    go = (out / "corpus" / "server/retry.go").read_text().split("\n")
    assert go[3:7] == ["", "", "", ""] and go[7].startswith("func Backoff")
    assert go[15] == "// Options:"  # not queried (list-like), so not blanked
    rs = (out / "corpus" / "core/ring.rs").read_text().split("\n")
    assert rs[:4] == ["", "", "", ""] and rs[4] == "#[inline]"
    py = (out / "corpus" / "pkg/geometry.py").read_text()
    compile(py, "geometry.py", "exec")  # blank lines inside a body keep Python valid


def test_from_docs_drop_reasons(docs_suite: tuple[Path, Path, dict]) -> None:
    _src, out, meta = docs_suite
    saved = json.loads((out / "meta.json").read_text())
    assert saved["dropped"] == meta["dropped"]
    dropped = meta["dropped"]
    assert dropped["shared_text"] == 2  # dup/a.py and dup/b.py
    assert dropped["verbatim_in_corpus"] == 1  # echo/c.py, still present in echo/d.py's comment
    assert dropped["list_like"] == 1  # Options:
    assert dropped["too_few_words"] == 1  # tiny()
    assert dropped["in_test_or_docs_file"] == 1
    assert sum(dropped.values()) + meta["queries"] == meta["documented_declarations"]
    assert meta["languages"]["go"] == {"files": 1, "documented": 2, "queries": 1}
    assert "echo/c.py" in (out / "corpus" / "echo/c.py").as_posix()


def test_from_docs_is_deterministic_and_seeded(tmp_path: Path) -> None:
    files = {f"m{i}.go": f"package m\n\n// Compute{i} folds the input slice into a checksum for block number {i}.\n"
                         f"func Compute{i}(b []byte) int {{\n\treturn len(b) + {i}\n}}\n" for i in range(12)}
    src = write_tree(tmp_path / "src", files)

    def run(seed: int, name: str) -> tuple[str, list[str]]:
        out = tmp_path / name
        build_from_docs(src, out, DocsOptions(seed=seed, max_queries=4))
        text = (out / "queries.yaml").read_text()
        return text, sorted(q["relevant"][0]["path"] for q in yaml.safe_load(text)["queries"])

    a, picked_a = run(1, "a")
    b, _ = run(1, "b")
    _, picked_c = run(2, "c")
    assert a == b and len(picked_a) == 4
    assert picked_a != picked_c  # another seed draws other declarations (12 choose 4)
    meta = json.loads((tmp_path / "a" / "meta.json").read_text())
    assert meta["dropped"] == {"beyond_max_queries": 8}
    unqueried = next(p for p in files if p not in picked_a)
    assert (tmp_path / "a" / "corpus" / unqueried).read_text() == files[unqueried]  # only queried docs are blanked


def test_unit_text_rules() -> None:
    assert clean_subject("fix(parser): handle empty input (#123)") == ("Handle empty input", "fix")
    assert clean_subject("net/http: reject bad header names") == ("Reject bad header names", None)
    assert clean_subject("gh-9876: Speed up the tokenizer.") == ("Speed up the tokenizer", None)
    assert clean_subject("[core] Cache compiled patterns (closes #7)") == ("Cache compiled patterns", None)
    assert leading_name_removed("Backoff returns the delay", "Backoff") == "Returns the delay"
    assert leading_name_removed("The Client type is a pool of connections", "Client") == "A pool of connections"
    assert leading_name_removed("Returns the delay", "Backoff") == "Returns the delay"
    assert reject_reason("- item one and item two and three", "f") == "list_like"
    assert reject_reason("Options for the client are:", "f") == "list_like"
    assert reject_reason("Deprecated: use the other function instead", "f") == "uninformative"
    assert reject_reason("Parse parses the parse", "parse") in ("too_few_words", "mostly_name")
    # A URL's pieces are not words (seen on go-chi/chi: "Taken from https://github.com/mytrile/nocache").
    assert reject_reason("Taken from https://github.com/mytrile/nocache", "NoCache") == "too_few_words"
    assert reject_reason("Retries the request as described at https://example.org/retry", "f") is None
    assert blank_rows("a\r\nb\r\nc", [(1, 1)]) == "a\r\n\r\nc"
    assert group_spans([3, 4, 7, 20], ["x"] * 25, gap=2) == [(3, 7), (20, 20)]
    assert group_spans([5], ["x"] * 4 + ["}"], gap=2) == []  # a lone brace is not a span
    assert round_robin({"a": [1, 2, 3], "b": [4]}, seed=3, per_group=2) == round_robin({"b": [4], "a": [1, 2, 3]}, 3, 2)
    assert set(DOC_LANGUAGES) >= {"python", "go", "javascript", "typescript", "rust", "java", "kotlin", "csharp"}


# --------------------------------------------------------------------------- from-history


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def commit(repo: Path, subject: str, files: dict[str, str]) -> str:
    write_tree(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject)
    return git(repo, "rev-parse", "HEAD").strip()


TOKENIZER = '''def read_number(text, pos):
    start = pos
    while pos < len(text) and text[pos].isdigit():
        pos += 1
    return int(text[start:pos]), pos
'''


@pytest.fixture
def history_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shas = {}
    shas["base"] = commit(repo, "Initial layout of the package", {"README.md": "demo\n", "src/__init__.py": "VERSION = '0.1'\n"})
    shas["tok"] = commit(repo, "feat(lexer): read integer literals in the tokenizer (#12)", {"src/lexer.py": TOKENIZER})
    shas["fmt"] = commit(repo, "Tidy up the lexer module", {"src/lexer.py": TOKENIZER.replace("    ", "\t")})
    shas["chore"] = commit(repo, "chore: bump version to 0.2", {"src/__init__.py": "VERSION = '0.2'\n"})
    shas["docs"] = commit(repo, "Explain the lexer in the readme", {"README.md": "demo\nlexer reads numbers\n"})
    shas["tests"] = commit(repo, "Add tests for the tokenizer", {"tests/test_lexer.py": "def test_x():\n    assert 1\n"})
    shas["wide"] = commit(repo, "Introduce constants for every module in the package",
                          {f"src/m{i}.py": f"A{i} = {i}\nB{i} = {i + 1}\nC{i} = {i + 2}\n" for i in range(5)})
    shas["gone"] = commit(repo, "Add a temporary debugging helper for spans",
                          {"src/debug.py": "def dump(x):\n    print(x)\n    return x\n"})
    shas["fix"] = commit(repo, "fix: clamp negative offsets when slicing spans",
                         {"src/debug.py": "def clamp(a, b):\n    lo = max(0, a)\n    hi = max(lo, b)\n    return lo, hi\n",
                          "tests/test_debug.py": "def test_clamp():\n    assert True\n"})
    shas["short"] = commit(repo, "fix: typo", {"src/m0.py": "A0 = 0\nB0 = 1\nC0 = 3\n"})
    return repo, shas


def test_from_history_queries_spans_and_drops(history_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, shas = history_repo
    out = tmp_path / "out"
    meta = build_from_history(repo, out, HistoryOptions(rev="main"))
    data = yaml.safe_load((out / "queries.yaml").read_text())
    got = {q["query"]: [(r["path"], r["lines"]) for r in q["relevant"]] for q in data["queries"]}
    assert got == {
        # blame -w sees through the re-indentation: the lines still belong to the commit that wrote them
        "Read integer literals in the tokenizer": [("src/lexer.py", [1, 5])],
        "Clamp negative offsets when slicing spans": [("src/debug.py", [1, 4])],  # the test file is not relevance
    }
    notes = {q["query"]: q["note"] for q in data["queries"]}
    assert notes["Read integer literals in the tokenizer"].startswith(f"commit {shas['tok']}")
    assert meta["dropped"] == {
        "no_surviving_lines": 2,  # the initial VERSION line was rewritten; the debugging helper was overwritten
        "formatting_only": 1,  # re-indentation: white space only, and handed to blame as a revision to ignore
        "type_chore": 1, "docs_subject": 2, "tests_subject": 1, "too_many_files": 1,
    }, meta["dropped"]
    assert meta["formatting_commits_ignored_by_blame"] == 1
    assert sum(meta["dropped"].values()) + meta["queries"] == meta["commits_examined"] == len(shas)
    suite = load_golden(out / "queries.yaml")
    assert "README.md" not in suite.corpus.files  # only code files
    assert suite.corpus.files["src/lexer.py"] == TOKENIZER.replace("    ", "\t")  # the files at REV, as they are


def test_from_history_at_an_older_rev_and_deterministic(history_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, shas = history_repo
    build_from_history(repo, tmp_path / "a", HistoryOptions(rev=shas["gone"]))
    build_from_history(repo, tmp_path / "b", HistoryOptions(rev=shas["gone"]))
    a = (tmp_path / "a" / "queries.yaml").read_text()
    assert a == (tmp_path / "b" / "queries.yaml").read_text()
    queries = {q["query"]: q["relevant"] for q in yaml.safe_load(a)["queries"]}
    assert queries["Add a temporary debugging helper for spans"] == [{"path": "src/debug.py", "lines": [1, 3]}]
    assert not (tmp_path / "a" / "corpus" / "tests" / "test_debug.py").exists()  # did not exist yet at that rev


def test_excluded_paths_and_an_empty_result(tmp_path: Path, history_repo: tuple[Path, dict[str, str]],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``exclude`` keeps a generator's own output (a suite inside the repository it mines) out of the corpus; a
    run that finds no query writes nothing and says why in its error, since no meta.json is left to read."""
    geometry = SOURCES["pkg/geometry.py"]
    src = write_tree(tmp_path / "src", {"pkg/geometry.py": geometry, "golden/docs/corpus/pkg/geometry.py": geometry})
    meta = build_from_docs(src, tmp_path / "a", DocsOptions(exclude=("golden",)))
    assert meta["files"]["corpus"] == 1 and meta["queries"] == 1
    with pytest.raises(NoQueriesError, match=r"no query survived the filters \(no candidate found\)"):
        build_from_docs(src, tmp_path / "b", DocsOptions(exclude=("golden/", "pkg/geometry.py")))
    assert not (tmp_path / "b").exists()
    write_tree(src, {"pkg/geometry.py": "def tiny(x):\n    \"\"\"Too short here.\"\"\"\n    return x\n"})
    assert main(["golden", "from-docs", str(src / "pkg"), str(tmp_path / "c")]) == 1
    assert "chunkeval: no query survived the filters (dropped: too_few_words=1)" in capsys.readouterr().err
    repo, _ = history_repo
    meta = build_from_history(repo, tmp_path / "h", HistoryOptions(rev="main", exclude=("src/debug.py",)))
    assert "src/debug.py" not in {p.relative_to(tmp_path / "h" / "corpus").as_posix()
                                  for p in (tmp_path / "h" / "corpus").rglob("*.py")}
    assert meta["queries"] == 1  # the clamp commit's lines are in the excluded file


def test_cli_and_module_entry(tmp_path: Path, history_repo: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]) -> None:
    src = write_tree(tmp_path / "src", {k: v for k, v in SOURCES.items() if k.endswith((".go", ".rs"))})
    out = tmp_path / "suite"
    assert main(["golden", "from-docs", str(src), str(out), "--seed", "3", "--max-queries", "1"]) == 0
    printed = capsys.readouterr().out
    assert "1 queries over 2 corpus files" in printed and "beyond_max_queries=1" in printed
    assert json.loads((out / "meta.json").read_text())["command"].startswith("chunkeval golden from-docs")
    assert main(["golden", "from-docs", str(src), str(out)]) == 0  # an earlier suite may be replaced
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    assert main(["golden", "from-docs", str(src), str(busy)]) == 2  # a folder that is not a suite is not touched
    assert (busy / "keep.txt").read_text() == "mine"
    repo, _ = history_repo
    assert main(["golden", "from-history", str(repo), str(tmp_path / "h"), "--rev", "main"]) == 0
    assert main(["golden", "from-history", str(repo), str(tmp_path / "h2"), "--rev", "no-such-rev"]) == 1
    proc = subprocess.run([sys.executable, "-m", "pytest_chunkeval", "golden", "from-history", "--help"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and "--rev" in proc.stdout


@pytest.mark.parametrize("lang, path, text, span", [
    ("swift", "a.swift", ("/// Computes the checksum of a byte buffer with the Adler algorithm.\n"
                          "func adler(_ b: [UInt8]) -> UInt32 {\n    return 1\n}\n"), (2, 4)),
    ("php", "a.php", ("<?php\n/**\n * Sends the queued mail messages through the configured transport.\n */\n"
                      "function flush_mail($q) {\n    return 1;\n}\n"), (5, 7)),
    ("c", "a.c", ("/** Frees every node of a singly linked list, starting at the head. */\n"
                  "void list_free(struct node *h) {\n    free(h);\n}\n"), (2, 4)),
    ("javascript", "a.js", ("/**\n * Debounces a callback so it runs once after the calls stop.\n */\n"
                            "export const debounce = (fn, ms) => {\n  let t;\n  return () => t;\n};\n"), (4, 7)),
    # Express/jshttp style: a blank line between the JSDoc and its function.
    ("javascript", "b.js", ("/**\n * Format a Date in the common log format.\n *\n * @private\n */\n\n"
                            "function clfdate (dateTime) {\n  return dateTime\n}\n"), (7, 9)),
])
def test_more_doc_styles(lang: str, path: str, text: str, span: tuple[int, int]) -> None:
    from pytest_chunkeval.commands.golden.doc_extract import extract_docs

    (cand,) = extract_docs(path, text, DOC_LANGUAGES[lang]).candidates
    assert cand.span == span and cand.drop is None and cand.sentence and cand.sentence.endswith(".")
    blanked = blank_rows(text, [cand.doc_rows]).split("\n")
    assert len(blanked) == len(text.split("\n"))
    assert blanked[cand.doc_rows[0]: cand.doc_rows[1] + 1] == [""] * (cand.doc_rows[1] - cand.doc_rows[0] + 1)
    assert blanked[span[0] - 1:] == text.split("\n")[span[0] - 1:]


def test_line_comments_a_blank_line_above_are_not_a_declarations_doc() -> None:
    from pytest_chunkeval.commands.golden.doc_extract import extract_docs

    text = "// Computes the checksum of a byte buffer with the Adler algorithm.\n\nfunc adler(b []byte) uint32 {\n\treturn 1\n}\n"
    assert [c for c in extract_docs("a.go", text, DOC_LANGUAGES["go"]).candidates if c.sentence] == []


def test_a_subject_that_continues_in_the_commit_body_is_no_query() -> None:
    from pytest_chunkeval.commands.golden.git import Commit
    from pytest_chunkeval.commands.golden.history import _pre_filter

    change = {"src/parse.py": (12, 0)}
    cut = Commit("a" * 40, ["b" * 40], "Add parsing support for:", change, change)
    whole = Commit("c" * 40, ["b" * 40], "Add parsing support for URN and braced forms", change, change)
    assert _pre_filter(cut, HistoryOptions())[0] == "continues_in_body"
    assert _pre_filter(whole, HistoryOptions())[0] is None


def test_code_spans_keep_their_tags_and_eg_does_not_end_the_sentence() -> None:
    from pytest_chunkeval.commands.golden.text import first_sentence, strip_doc_markup

    doc = ('Indicates whether special tags (`<script>`, `<style>`, and `<title>`) should get special treatment and '
           'if "empty" tags (eg. `<br>`) can have children. <b>More</b> here.')
    assert first_sentence(strip_doc_markup(doc)) == (
        'Indicates whether special tags (<script>, <style>, and <title>) should get special treatment and if '
        '"empty" tags (eg. <br>) can have children.')
    assert strip_doc_markup("Returns the <b>first</b> [`Node`] of {@code list}.") == "Returns the first `Node` of list."
