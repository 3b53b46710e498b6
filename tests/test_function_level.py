"""The ``function_level`` strategy: exact chunk line spans on hand-made sources, one per language family.

Each case states the rules the module docstring promises, on a file small enough to read: a function or method is
one chunk with the comments and decorators/attributes right above it, a blank line ends that attachment, a class
with methods keeps its header and fields in chunks of its own, a class without methods is plain remainder, the
closing brace after the last method joins that method, and module-level text between functions is grouped.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_chunkeval.chunking.ast.chunker import ast_chunks
from pytest_chunkeval.chunking.function_level import STAT_KEYS, FunctionLevelChunker, function_level_chunks
from pytest_chunkeval.chunking.strategy_sources import packaged
from pytest_chunkeval.core.chunk import Chunk

ROOT = Path(__file__).resolve().parents[1]

PYTHON = '''\
"""Inventory helpers."""
import os
from typing import Any

LIMIT = 10


# Decides whether a SKU is stocked.
@cache
@trace(level=2)
def in_stock(sku: str) -> bool:
    return sku in STOCK


class Shelf(Base):
    """A shelf of books."""

    capacity: int = 5

    def __init__(self, books: list[Any]) -> None:
        self.books = books

    # Books sorted by title.
    @property
    def sorted(self) -> list[Any]:
        def key(b: Any) -> str:
            return b.title
        return sorted(self.books, key=key)

    # trailing note about shelves


class Empty(Exception):
    pass


if __name__ == "__main__":
    print(in_stock(os.environ["SKU"]))
'''

GO = """\
// Copyright 2024 Pagebound.

package shipping

import "fmt"

// Parcel is one box.
type Parcel struct {
\tWeight int
}

// Describe says what the parcel weighs.
func (p Parcel) Describe() string {
\treturn fmt.Sprintf("%d g", p.Weight)
}

// NewParcel builds a parcel.
// It never fails.
func NewParcel(w int) Parcel {
\treturn Parcel{Weight: w}
}
"""

TYPESCRIPT = """\
import { Injectable } from "./di";

/** Caches prices per ISBN. */
@Injectable()
export class PriceCache {
  private readonly prices = new Map<string, number>();

  /** Price in minor units. */
  @Memo()
  get(isbn: string): number | undefined {
    return this.prices.get(isbn);
  }

  clear = (): void => {
    this.prices.clear();
  };
}

export interface Priced {
  price(): number;
}

// Formats minor units.
export const formatPrice = (minor: number): string => {
  return (minor / 100).toFixed(2);
};
"""

JAVASCRIPT = """\
const express = require("express");

function health(req, res) {
  res.json({ ok: true });
}

class Router {
  constructor() {
    this.routes = [];
  }
}

module.exports = { health, Router };
"""

RUST = """\
//! Money helpers.
use std::fmt;

/// Minor units per major unit.
pub const MINOR: i64 = 100;

/// Rounds half away from zero.
#[inline]
pub fn round_half(x: i64) -> i64 {
    (x + 50) / 100
}

impl fmt::Display for Money {
    /// Renders as 12.34.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

pub trait Priced {
    fn price(&self) -> i64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds() {
        assert_eq!(round_half(150), 2);
    }
}
"""

JAVA = """\
package shop;

import java.util.List;

/** A customer order. */
public abstract class Order {
    private final List<String> items;

    /** Number of items. */
    @Override
    public int size() {
        return items.size();
    }

    abstract void ship();
}
"""

# (path, source, [(start_line, end_line, kind, name)]): name is the function's, None for other chunks
CASES = [
    ("inventory.py", PYTHON, [
        (1, 5, "remainder", None),      # module docstring, imports, constant: grouped
        (8, 12, "function", "in_stock"),  # comment and both decorators attach; the nested blank line does not
        (15, 18, "class", None),        # class header, docstring and field: the class's own chunk
        (20, 21, "function", "__init__"),
        (23, 28, "function", "sorted"),   # comment + decorator + method, with its nested function
        (30, 30, "class", None),        # text between/after methods stays with the class
        (33, 38, "remainder", None),    # a class without methods is remainder, grouped with what follows
    ]),
    ("parcel.go", GO, [
        (1, 10, "remainder", None),     # licence header (blank line below it: not attached), package, struct
        (12, 15, "function", "Describe"),
        (17, 21, "function", "NewParcel"),  # a two-line doc comment attaches whole
    ]),
    ("price_cache.ts", TYPESCRIPT, [
        (1, 1, "remainder", None),
        (3, 6, "class", None),          # doc comment, class decorator, header and field
        (8, 12, "function", "get"),     # doc comment + method decorator
        (14, 17, "function", "clear"),  # an arrow-function field is a method; the class's closing brace joins it
        (19, 21, "remainder", None),    # an interface of signatures only is remainder
        (23, 26, "function", "formatPrice"),  # exported arrow-function const, with its comment
    ]),
    ("router.js", JAVASCRIPT, [
        (1, 1, "remainder", None),
        (3, 5, "function", "health"),
        (7, 7, "class", None),
        (8, 11, "function", "constructor"),
        (13, 13, "remainder", None),
    ]),
    ("money.rs", RUST, [
        (1, 5, "remainder", None),      # inner doc comment, use, documented const
        (7, 11, "function", "round_half"),  # doc comment and attribute attach
        (13, 13, "class", None),        # impl header
        (14, 18, "function", "fmt"),
        (20, 22, "remainder", None),    # a trait of signatures only
        (24, 26, "class", None),        # #[cfg(test)] mod tests { use super::*;
        (28, 32, "function", "rounds"),
    ]),
    ("Order.java", JAVA, [
        (1, 3, "remainder", None),
        (5, 7, "class", None),          # javadoc, header, field
        (9, 13, "function", "size"),    # javadoc + annotation
        (15, 16, "class", None),        # an abstract method (no body) stays with the class, with its brace
    ]),
]


def spans(chunks: list[Chunk]) -> list[tuple[int, int, str, str | None]]:
    return [(c.start_line, c.end_line, c.kind, c.metadata.get("name") if c.kind == "function" else None)
            for c in chunks]


def assert_lossless(text: str, chunks: list[Chunk], max_size: int) -> None:
    """Chunks are exact slices, in order, within the limit, with only white space between them."""
    data = text.encode("utf-8")
    pos = 0
    for c in chunks:
        assert data[c.start_byte:c.end_byte] == c.text.encode("utf-8")
        assert c.start_byte >= pos and not data[pos:c.start_byte].strip(), f"text lost before line {c.start_line}"
        assert c.text.strip() and len(c.text) <= max_size
        assert c.start_line == data.count(b"\n", 0, c.start_byte) + 1
        assert c.end_line == data.count(b"\n", 0, c.end_byte - 1) + 1
        pos = c.end_byte
    assert not data[pos:].strip()


@pytest.mark.parametrize(("path", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_exact_spans(path: str, source: str, expected: list[tuple[int, int, str, str | None]]) -> None:
    chunks = function_level_chunks(source, path)
    assert spans(chunks) == expected
    assert_lossless(source, chunks, 1000)


def test_containers_are_named_in_metadata() -> None:
    chunks = function_level_chunks(RUST, "money.rs")
    assert [c.metadata.get("part_of") for c in chunks] == [None, None, ["Money"], ["Money"], None, ["tests"],
                                                         ["tests"]]
    assert {c.metadata["language"] for c in chunks} == {"rust"}


BIG = ("import os\n\n# Sums rows.\n@trace\ndef total(rows):\n"
       + "".join(f"    acc_{i} = rows[{i}] * {i}\n" for i in range(12)) + "    return acc_0\n\n"
       + "TABLE = {\n" + "".join(f'    "key_{i}": {i},\n' for i in range(12)) + "}\n")


def test_oversized_nodes_are_split_by_the_ast_splitter() -> None:
    stats: dict[str, int] = {}
    chunks = function_level_chunks(BIG, "big.py", max_chunk_size=200, min_chunk_size=40, stats=stats)
    assert spans(chunks) == [
        (1, 1, "remainder", None),
        (3, 11, "function", "total"),   # the comment and decorator open the first piece
        (12, 18, "function", "total"),
        (20, 20, "remainder", None),    # `TABLE = {`: with the rest it would not fit 200
        (21, 33, "remainder", None),
    ]
    assert [c.metadata.get("part") for c in chunks] == [None, 1, 2, None, None]
    assert stats["split_functions"] == 1 and stats["split_remainders"] == 1 and stats["functions"] == 1
    assert_lossless(BIG, chunks, 200)
    # with room for everything, the same file is one function and grouped remainder
    assert spans(function_level_chunks(BIG, "big.py")) == [
        (1, 1, "remainder", None), (3, 18, "function", "total"), (20, 33, "remainder", None)]


def test_a_cut_never_falls_inside_a_line() -> None:
    """``export `` and ``function f() {`` are two nodes on one line: a split keeps the line in one piece."""
    body = "".join(f"  const v{i} = compute({i});\n" for i in range(9))
    src = "/**\n * Builds the app.\n * Used by tests.\n */\nexport function build() {\n" + body + "}\n"
    chunks = function_level_chunks(src, "app.ts", max_chunk_size=280)  # the function fits, not with its comment
    assert spans(chunks) == [(1, 4, "function", "build"), (5, 15, "function", "build")]
    assert_lossless(src, chunks, 280)


def test_unknown_languages_fall_back_like_ast() -> None:
    """The same cuts as ``ast`` (whole lines up to the limit); blank lines at a chunk's edges are left out."""
    text = "".join(f"line {i} of a notes file\n" + ("\n" if i % 7 == 0 else "") for i in range(200))
    stats: dict[str, int] = {}
    chunks = function_level_chunks(text, "notes.avap", stats=stats)
    reference = ast_chunks(text, "notes.avap", preserve_context=False)
    assert len(chunks) == len(reference) > 1
    for mine, ref in zip(chunks, reference, strict=True):
        assert ref.start_byte <= mine.start_byte < mine.end_byte <= ref.end_byte
        assert mine.text.strip() == ref.text.strip()
    assert {c.kind for c in chunks} == {"text"} and stats["fallback_files"] == 1
    assert_lossless(text, chunks, 1000)


def test_parse_errors_and_empty_files_lose_nothing() -> None:
    broken = "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass K:\n    def m(self):\n        return )\n"
    stats: dict[str, int] = {}
    chunks = function_level_chunks(broken, "broken.py", stats=stats)
    assert stats["parse_errors"] == 1 and chunks
    assert_lossless(broken, chunks, 1000)
    assert function_level_chunks("", "empty.py") == []
    assert function_level_chunks("\n\n  \n", "blank.py") == []


def test_languages_without_functions_are_grouped_remainder() -> None:
    md = "# Title\n\nIntro.\n\n## Usage\n\nRun it.\n"
    assert spans(function_level_chunks(md, "README.md")) == [(1, 7, "remainder", None)]
    sql = "CREATE TABLE a (id int);\n\nSELECT * FROM a;\n"
    assert spans(function_level_chunks(sql, "q.sql")) == [(1, 3, "remainder", None)]


def test_every_polyglot_file_is_covered_within_the_limit() -> None:
    corpus = ROOT / "golden" / "polyglot" / "corpus"
    files = sorted(p for p in corpus.rglob("*") if p.is_file())
    if not files:
        pytest.skip("golden/polyglot/corpus not present")
    stats: dict[str, int] = {}
    for p in files:
        text = p.read_text(encoding="utf-8")
        assert_lossless(text, function_level_chunks(text, p.relative_to(corpus).as_posix(), stats=stats), 1000)
    assert stats["functions"] > 200 and stats.get("fallback_files", 0) == 0


def test_strategy_declarations_and_counters() -> None:
    assert "function_level" in {r.name for r in packaged()}
    s = FunctionLevelChunker()
    assert (s.name, s.max_chunk_size, s.size_unit, s.lossless, s.extensions) == \
        ("function_level", 1000, "chars", True, None)
    chunks = s.chunk("money.rs", RUST)
    assert all(c.strategy == "function_level" for c in chunks)
    stats = s.stats()
    assert tuple(stats) == STAT_KEYS
    assert (stats["files"], stats["chunks"], stats["functions"], stats["class_chunks"]) == (1, 7, 3, 2)
    s.reset_stats()
    assert s.stats()["chunks"] == 0
    assert {p.name for p in s.source_files()} >= {"split.py", "languages.py"}
    with pytest.raises(ValueError):
        FunctionLevelChunker(size_unit="tokens")
