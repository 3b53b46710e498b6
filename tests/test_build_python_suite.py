"""Tests for tools/build_python_suite.py on a small fake stdlib written to tmp_path."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import pytest
import yaml

TOOL = Path(__file__).resolve().parents[1] / "tools" / "build_python_suite.py"


@pytest.fixture(scope="module")
def bps():
    """The tool as a module, leaving no trace for later tests. Run from a checkout, it puts the checkout on sys.path
    when no sys.path folder holds pytest_chunkeval (the `pytest` script, an editable install): left there, pytest's
    in-process runs in later tests would find the checkout's pytest_chunkeval.egg-info and add a warning (it cannot
    rewrite the already imported pytest_chunkeval) to their output. Its imports are done once it has run."""
    spec = importlib.util.spec_from_file_location("build_python_suite", TOOL)
    module = importlib.util.module_from_spec(spec)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, spec.name, module)
        before = list(sys.path)
        try:
            spec.loader.exec_module(module)
        finally:
            sys.path[:] = [p for p in sys.path if p in before]
        yield module


PADDING = "".join(f"# padding line {i:03d} so the file is over the 2 KB minimum size\n" for i in range(40))

GEOMETRY = '''"""Geometry helpers (module docstring stays)."""

import functools


def memo(func):
    return functools.lru_cache(maxsize=None)(func)


@memo
def polygon_area(points):
    """Compute the signed area of a simple polygon with the shoelace formula.

    >>> polygon_area([(0, 0), (1, 0), (0, 1)])
    0.5
    """

    total = 0.0
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]):
        total += x1 * y2 - x2 * y1
    return total / 2


def centroid_of(points):
    """Average the coordinates of every vertex to locate the :func:`centre <mid>` point."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return sum(xs) / len(xs), sum(ys) / len(ys)


class Shape:
    """A shape (class docstring stays)."""

    def __init__(self, points):
        """Store the vertices of the shape for later geometric queries."""
        self.points = list(points)
        self.closed = True

    @property
    def size(self):
        """Number of vertices stored inside this shape instance right now."""
        count = len(self.points)
        return count

    def scale_by(self, factor):
        """Multiply every vertex coordinate by ``factor`` in place and keep closure."""
        self.points = [(x * factor, y * factor) for x, y in self.points]
        return self

    def abstract_thing(self):
        """Subclasses decide how the outline gets rendered onto a canvas."""
        raise NotImplementedError

    def emit(self):
        """Write the polygon outline to standard output using plain text markers."""
        for x, y in self.points:
            print(x, y)
        return None
'''

TEXTUTIL = '''"""Text utilities."""


def collapse_spaces(text):
    """Replace every run of whitespace characters with a single plain space."""
    return " ".join(text.split())


def shout_words(text):
    """Convert the given sentence to upper case and append an exclamation mark."""
    loud = text.upper()
    return loud + "!"


def whisper_words(text):
    """Convert the given sentence to lower case and append a trailing ellipsis."""
    quiet = text.lower()
    return quiet + "..."


def dup_one(text):
    """This sentence is duplicated across two files so it is ambiguous."""
    value = text * 2
    return value
'''

NETPKG = '''"""A package module."""


def parse_address(text):
    """Split a host and port pair written as host:port into a tuple."""
    host, _, port = text.rpartition(":")
    return host, int(port)


async def fetch_banner(reader):
    """Read the first line the remote server sends after connecting."""
    line = await reader.readline()
    return line.decode()


def dup_two(text):
    """This sentence is duplicated across two files so it is ambiguous."""
    value = text * 3
    return value
'''

EXCLUDED = '''def excluded_function_{n}(x):
    """This function number {n} lives in an excluded place and must never appear."""
    y = x + 1
    return y


def other_excluded_{n}(x):
    """Another function number {n} that lives in an excluded place as well."""
    y = x + 2
    return y
'''

CHOSEN_ANYWAY = {
    "geometry.py": {"polygon_area", "centroid_of", "Shape.scale_by", "Shape.emit"},
    "textutil.py": {"shout_words", "whisper_words"},  # collapse_spaces: under 3 code lines
    "net/client.py": {"parse_address", "fetch_banner"},
}


@pytest.fixture()
def fake_stdlib(tmp_path: Path) -> Path:
    root = tmp_path / "Lib"
    files = {
        "geometry.py": GEOMETRY,
        "textutil.py": TEXTUTIL,
        "net/__init__.py": '"""net package."""\n',
        "net/client.py": NETPKG,
        "test/geometry_cases.py": EXCLUDED.format(n=1),
        "net/tests/helpers.py": EXCLUDED.format(n=2),
        "site-packages/thirdparty.py": EXCLUDED.format(n=3),
        "test_toplevel.py": EXCLUDED.format(n=4),
        "generated_table.py": "# This file is automatically generated. DO NOT EDIT.\n" + EXCLUDED.format(n=5),
        "__pycache__/cached.py": EXCLUDED.format(n=6),
        "encodings/cp000.py": EXCLUDED.format(n=7),
        "tiny.py": EXCLUDED.format(n=8),  # under 2 KB: no padding added below
        "huge.py": EXCLUDED.format(n=9) + "# filler\n" * 5000,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if rel == "tiny.py" else text + PADDING, encoding="utf-8")
    return root


def run(bps, stdlib: Path, out: Path, *extra: str) -> dict:
    assert bps.main(["--stdlib", str(stdlib), "--out", str(out), "--files", "10", "--queries", "50", *extra]) == 0
    return yaml.safe_load((out / "queries.yaml").read_text(encoding="utf-8"))


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def functions_by_span(tree: ast.Module) -> dict[tuple[int, int], ast.AST]:
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out[(start, node.end_lineno)] = node
    return out


def test_selection_and_exclusions(bps, fake_stdlib, tmp_path):
    out = tmp_path / "suite"
    data = run(bps, fake_stdlib, out)
    corpus = sorted(p.relative_to(out / "corpus").as_posix() for p in (out / "corpus").rglob("*.py"))
    # Excluded dirs/names, generated, too small/large files never appear; net/__init__.py has no candidates.
    assert corpus == ["geometry.py", "net/client.py", "textutil.py"]
    assert data["corpus"] == "corpus"
    chosen: dict[str, set[str]] = {}
    for q in data["queries"]:
        (rel,) = [r["path"] for r in q["relevant"]]
        text = (out / "corpus" / rel).read_text(encoding="utf-8")
        start, end = q["relevant"][0]["lines"]
        node = functions_by_span(ast.parse(text))[(start, end)]
        qual = node.name
        if rel == "geometry.py" and node.name in {"scale_by", "emit"}:
            qual = f"Shape.{node.name}"
        chosen.setdefault(rel, set()).add(qual)
    # Properties, dunders, NotImplementedError stubs, one-liners and duplicated sentences are skipped.
    assert chosen == CHOSEN_ANYWAY


def test_docstrings_removed_and_spans_exact(bps, fake_stdlib, tmp_path):
    out = tmp_path / "suite"
    data = run(bps, fake_stdlib, out)
    assert len(data["queries"]) == 8
    for q in data["queries"]:
        rel = q["relevant"][0]["path"]
        start, end = q["relevant"][0]["lines"]
        text = (out / "corpus" / rel).read_text(encoding="utf-8")
        tree = ast.parse(text)  # rewritten file still parses
        lines = text.split("\n")
        assert lines[start - 1].lstrip().startswith(("def ", "async def ", "@")), q["id"]
        node = functions_by_span(tree)[(start, end)]  # KeyError if the span is off
        assert ast.get_docstring(node) is None, q["id"]
        assert q["query"] not in text
        # The span ends at the function's last line: the next line is not part of its body.
        indent = len(lines[start - 1]) - len(lines[start - 1].lstrip())
        if end < len(lines) and lines[end].strip():
            assert len(lines[end]) - len(lines[end].lstrip()) <= indent

    geometry = (out / "corpus" / "geometry.py").read_text(encoding="utf-8")
    # Decorator included in the span.
    (area,) = [q for q in data["queries"] if q["id"].endswith("polygon-area")]
    assert geometry.split("\n")[area["relevant"][0]["lines"][0] - 1] == "@memo"
    assert area["query"] == "Compute the signed area of a simple polygon with the shoelace formula."
    # Markup stripped from the query.
    (cen,) = [q for q in data["queries"] if q["id"].endswith("centroid-of")]
    assert cen["query"] == "Average the coordinates of every vertex to locate the centre point."
    # Other docstrings and comments are kept.
    for kept in ("Geometry helpers (module docstring stays).", "A shape (class docstring stays).",
                 "Number of vertices stored inside", "Store the vertices of the shape", "# padding line 039"):
        assert kept in geometry
    assert "shoelace" not in geometry and ">>> polygon_area" not in geometry
    # Nothing but the chosen docstrings (and one blank line after each) was removed.
    original = (fake_stdlib / "geometry.py").read_text(encoding="utf-8").split("\n")
    assert len(original) - len(geometry.split("\n")) == (5 + 1) + 1 + 1 + 1


def test_ids_unique_short_kebab(bps, fake_stdlib, tmp_path):
    data = run(bps, fake_stdlib, tmp_path / "suite")
    ids = [q["id"] for q in data["queries"]]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) and len(i) <= 60 for i in ids), ids
    assert "geometry-shape-scale-by" in ids and "net-client-fetch-banner" in ids
    long_id = bps.make_id("pkg/" + "very_long_module_name_" * 3 + ".py", "SomeClass.some_really_long_method_name")
    assert 50 <= len(long_id) <= 60 and re.fullmatch(r"[a-z0-9-]+", long_id)


def test_deterministic_and_limits(bps, fake_stdlib, tmp_path):
    out = tmp_path / "suite"
    run(bps, fake_stdlib, out)
    first = snapshot(out)
    (out / "corpus" / "stale.py").write_text("x = 1\n")  # a rerun replaces the corpus entirely
    run(bps, fake_stdlib, out)
    assert snapshot(out) == first
    data = run(bps, fake_stdlib, out, "--queries", "4")
    assert len(data["queries"]) == 4
    assert len({q["relevant"][0]["path"] for q in data["queries"]}) == 3  # spread over files first


def test_pass_inserted_when_body_would_be_empty(bps):
    text = 'class A:\n    def f(self):\n        """Only a docstring here in this body."""\n\n\nx = 1\n'
    node = ast.parse(text).body[0].body[0]
    doc = node.body[0]
    cand = bps.Candidate("A.f", "f", "q", doc.lineno, doc.end_lineno, doc.col_offset, 0, "")
    rewritten = bps.remove_docstrings(text, [cand])
    assert rewritten == 'class A:\n    def f(self):\n        pass\n\n\nx = 1\n'
    assert bps.final_spans(rewritten)["A.f"] == (2, 3)


def test_first_sentence(bps):
    assert bps.first_sentence("Return the ``thing``, e.g. a :class:`Foo`.  More text.") == "Return the thing, e.g. a Foo."
    assert bps.first_sentence("Summary line\n    continues here.\n\nSecond para.") == "Summary line continues here."
    assert bps.first_sentence(">>> f()\n1") is None
    assert not bps.informative("Return the value.", "value", None)
    assert not bps.informative("Get the server name of the server.", "get_server_name", "Server")
    assert not bps.informative("For internal use only by the parser module.", "helper", None)
    assert bps.informative("Retrieve the certificate from the server at the specified address.", "get_server_certificate", None)
