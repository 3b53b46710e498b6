"""The README and the docs/ site say what the code does, and hold together.

- every relative link of README.md and docs/**/*.md names a file that exists, and an anchor that the target's
  headings make, as GitHub and MkDocs spell them (docs pages are read on both);
- the README stays a short user path (at most 269 lines, 19 of them the workflow init writes);
- the worked example of docs/metrics.md is what pytest_chunkeval.scoring.metrics computes;
- the strategy example of the README (and its copy in docs/strategies.md) is a working strategy;
- docs/options.md holds the options reference the settings table makes, naming every option and ini setting;
- `mkdocs build --strict` passes, when mkdocs is installed (the `docs` extra).
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest

from pytest_chunkeval.chunking.boundary import chunk_problem
from pytest_chunkeval.chunking.contract import resolve, unregister
from pytest_chunkeval.chunking.strategy_files import exec_source
from pytest_chunkeval.core.ranking import ChunkRef, Ranked, Relevant
from pytest_chunkeval.scoring.metrics import evaluate_query, hit
from pytest_chunkeval.scoring.quality import check

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
#: 250 lines of prose, plus the 19 more that the workflow file `chunkeval init` writes takes, shown verbatim (checked
#: by tests/test_init.py)
README_MAX_LINES = 269

FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose(text: str) -> str:
    """``text`` with fenced code blocks emptied and inline code spans blanked, line for line (numbers stay true)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return re.sub(r"`[^`]*`", lambda m: re.sub(r"[^\n]", " ", m.group()), "\n".join(out))


def heading_texts(path: Path) -> list[str]:
    """Each heading as its rendered text: code spans keep their content, links their label, emphasis goes."""
    texts = []
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if match:
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(2))
            texts.append(re.sub(r"[`*]|(?<!\w)_|_(?!\w)", "", text))
    return texts


def github_slug(text: str) -> str:
    """GitHub's heading id: lower case, punctuation dropped (letters, digits, '_', '-' and spaces stay), spaces to
    hyphens; no collapsing."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def mkdocs_slug(text: str) -> str:
    """Python-Markdown's toc slugify (MkDocs' default): ASCII only, punctuation dropped, runs of spaces and hyphens
    collapsed to one hyphen."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())


def anchors(path: Path, slug, duplicate) -> set[str]:  # type: ignore[no-untyped-def]
    seen: dict[str, int] = {}
    found = set()
    for text in heading_texts(path):
        base = slug(text)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else duplicate(base, n))
    return found


def github_anchors(path: Path) -> set[str]:
    return anchors(path, github_slug, lambda s, n: f"{s}-{n}")


def mkdocs_anchors(path: Path) -> set[str]:
    return anchors(path, mkdocs_slug, lambda s, n: f"{s}_{n}")


def relative_links(path: Path) -> list[tuple[int, str]]:
    return links_in(path.read_text(encoding="utf-8"))


def links_in(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every link outside code whose target has no scheme (http:, mailto:, ...)."""
    body = prose(text)
    return [(body.count("\n", 0, m.start()) + 1, m.group(1)) for m in LINK.finditer(body)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", m.group(1))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    problems = []
    for number, target in relative_links(page):
        where = f"{page.relative_to(ROOT)}:{number}: {target}"
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            problems.append(f"{where}: no such file")
            continue
        if page.is_relative_to(DOCS) and not dest.is_relative_to(DOCS):
            problems.append(f"{where}: outside docs/, so the site cannot link to it (name the path in `code`)")
            continue
        if not anchor:
            continue
        if dest.suffix != ".md":
            problems.append(f"{where}: an anchor into a file that is not Markdown")
        elif anchor not in github_anchors(dest):
            problems.append(f"{where}: {dest.relative_to(ROOT)} has no heading with GitHub's id {anchor!r}")
        elif dest.is_relative_to(DOCS) and anchor not in mkdocs_anchors(dest):
            problems.append(f"{where}: MkDocs names that heading of {dest.relative_to(ROOT)} differently")
    assert not problems, "\n".join(problems)


def test_the_link_check_sees_links_and_slugs_as_the_renderers_do() -> None:
    assert github_slug("Why ast is cut this way (ablations)") == "why-ast-is-cut-this-way-ablations"
    assert github_slug("Start in your repository: chunkeval init") == "start-in-your-repository-chunkeval-init"
    assert github_slug("a — b") == "a--b" and mkdocs_slug("a — b") == "a-b"  # why headings avoid dashes
    assert mkdocs_slug("The config engine (grammar_definition, grammar_blocks)") == \
        "the-config-engine-grammar_definition-grammar_blocks"
    assert heading_texts(DOCS / "strategies.md")[0] == "Strategies"  # "# strategies/..." in code is no heading
    assert "chunkeval-init" in github_anchors(DOCS / "golden-suites.md")
    text = "a\n`[no](skip.md)`\n```\n[no](code.md)\n```\nsee [x](docs/x.md#y), [web](https://e.org), [a\nb](c.md)\n"
    assert links_in(text) == [(6, "docs/x.md#y"), (6, "c.md")]


def test_the_readme_stays_a_short_user_path() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/"
    sections = [line[3:] for line in lines if line.startswith("## ")]
    assert sections[-1] == "Developing this repository", "users first, contributors last"
    assert sections.index("Install") < sections.index("Gating a pull request")


# --- docs/metrics.md: the worked example -----------------------------------------------------------------------------

CHUNKS = [ChunkRef("a#0", "a.py", 1, 20), ChunkRef("a#1", "a.py", 21, 40), ChunkRef("b#0", "b.py", 1, 15),
          ChunkRef("c#0", "c.py", 1, 15), ChunkRef("c#1", "c.py", 16, 30), ChunkRef("d#0", "d.py", 1, 10)]
QUERIES = {
    "q1": (["b#0", "a#1", "a#0", "c#0"], [Relevant("a.py", (25, 30), 1)]),
    "q2": (["c#0", "a#0", "d#0", "c#1"], [Relevant("c.py", (5, 25), 2), Relevant("d.py", None, 1)]),
    "q3": (["a#0", "c#1", "d#0", "b#0"], [Relevant("b.py", (3, 8), 1)]),
}
ROW = re.compile(r"^\| (q\d|mean) \| (file|chunk) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", re.MULTILINE)


def test_the_worked_example_of_the_metrics_page_is_what_the_code_computes() -> None:
    by_id = {c.chunk_id: c for c in CHUNKS}
    computed: dict[tuple[str, str], list[float]] = {}
    for qid, (ids, relevant) in QUERIES.items():
        ranking = [Ranked(i, by_id[i].path, by_id[i].start_line, by_id[i].end_line, 1.0 - n / 10)
                   for n, i in enumerate(ids)]
        metrics = evaluate_query(ranking, relevant, CHUNKS, k=3)
        for mode in ("file", "chunk"):
            computed[(qid, mode)] = [metrics[mode][m] for m in ("ndcg@3", "recall@3", "mrr@3")]
        assert hit(ranking, relevant, 3) == (qid != "q3"), "q3 is the page's miss"
    for mode in ("file", "chunk"):
        rows = [computed[(q, mode)] for q in QUERIES]
        computed[("mean", mode)] = [sum(column) / len(rows) for column in zip(*rows, strict=True)]
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    documented = {(q, mode): [float(v) for v in values] for q, mode, *values in ROW.findall(text)}
    assert set(documented) == set(computed), "one row per query and mode, and the means"
    for key, values in documented.items():
        assert values == pytest.approx(computed[key], abs=5e-4), key  # the page rounds to 3 decimals


# --- the strategy example users copy -------------------------------------------------------------------------------

def python_block(path: Path, first_line: str) -> str:
    text = path.read_text(encoding="utf-8")
    start = text.index(f"```python\n{first_line}\n") + len("```python\n")
    return text[start:text.index("```", start)]


@pytest.fixture(scope="module")
def readme_strategy(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    source = python_block(README, "# strategies/top_level.py")
    path = tmp_path_factory.mktemp("strategies") / "top_level.py"
    path.write_text(source, encoding="utf-8")
    module = ModuleType("chunkeval_readme_example")
    module.__file__ = str(path)
    exec_source(module, path)
    yield module
    unregister("top_level")


def test_the_strategy_example_is_the_same_in_the_readme_and_the_strategies_page() -> None:
    first = "# strategies/top_level.py"
    assert python_block(README, first) == python_block(DOCS / "strategies.md", first)


def test_the_readme_strategy_example_works_on_real_files(readme_strategy: ModuleType) -> None:
    strategy = readme_strategy.TopLevelChunker()
    files = sorted((ROOT / "pytest_chunkeval").rglob("*.py"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        chunks = strategy.chunk(path.name, text)
        assert chunk_problem(chunks, path.name, text) is None, path
        report = check(resolve(strategy), {path.name: text}, {path.name: chunks}, token_counts=[0] * len(chunks))
        assert report.uncovered == [], (path, report.uncovered[:3])  # it claims to be lossless
    spans = [(c.start_line, c.end_line) for c in strategy.chunk("a.py", "import os\n\n\ndef f():\n    return 1\n"
                                                                          "\n\nclass A:\n    pass\n")]
    assert spans == [(1, 3), (4, 7), (8, 9)] and strategy.chunk("a.py", "") == []


# --- docs/options.md ------------------------------------------------------------------------------------------------

def test_the_options_page_holds_the_reference_the_settings_table_makes() -> None:
    from pytest_chunkeval.settings.markdown import COMMAND, rewrite

    page = (DOCS / "options.md").read_text(encoding="utf-8")
    assert rewrite(page) == page, f"docs/options.md's options reference is not the settings table's: run `{COMMAND}`"


def test_the_options_page_names_every_option_and_ini_setting() -> None:
    from pytest_chunkeval.settings import SETTINGS

    declared = [name for s in SETTINGS for name in (s.flag, s.ini) if name]
    assert len(declared) > 40, "the declarations were not found: has the settings table changed shape?"
    table = (DOCS / "options.md").read_text(encoding="utf-8").split("\n## All options\n", 1)[1].split("\n## ", 1)[0]
    missing = [name for name in declared if not re.search(rf"`{re.escape(name)}(?:[ `])", table)]
    assert not missing, f"docs/options.md does not list: {missing}"


def test_init_points_to_the_golden_suite_format_where_it_is() -> None:
    from pytest_chunkeval.commands.init.cli import BY_HAND

    page, heading = re.search(r"\(format: (docs/[\w/-]+\.md) in pytest-chunkeval, \"([^\"]+)\"\)", BY_HAND).groups()
    assert heading in heading_texts(ROOT / page)


# --- the site --------------------------------------------------------------------------------------------------------

def test_mkdocs_builds_the_site_strictly(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("needs mkdocs and mkdocs-material (the docs extra: pip install -e '.[docs]')")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, check=False, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    assert (tmp_path / "site" / "metrics" / "index.html").is_file()
