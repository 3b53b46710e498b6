"""Strategy parameters as a grid: parsing the ini/command-line lines, labels and ``-k`` keywords, which registrations
a run evaluates, and that grid points whose chunks are identical share one table (and embed nothing twice).

The sharing test evaluates with ``FakeSentenceModel`` (a named stand-in that counts what it is asked to embed): it
shows what is embedded and which table is used, never a retrieval result.
"""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from fake_model import fake_embedder

from pytest_chunkeval.chunking.contract import Registration
from pytest_chunkeval.chunking.fixed import FixedSizeChunker
from pytest_chunkeval.chunking.strategies.ast import ast
from pytest_chunkeval.chunking.strategies.fixed_size import fixed_size
from pytest_chunkeval.chunking.strategies.function_level import function_level
from pytest_chunkeval.chunking.strategy_sources import StrategySet
from pytest_chunkeval.core.grid import (
    check_params,
    keyword,
    label,
    merged,
    needs_arguments,
    parse_grid,
    parse_line,
    parse_value,
    points,
)


def test_values_are_read_plainly() -> None:
    assert [parse_value(v) for v in ("500", "-3", "0.5", "1e3", "true", "False", "isolate", " x ")] == [
        500, -3, 0.5, 1000.0, True, False, "isolate", "x"]


def test_a_line_names_strategy_parameter_and_values() -> None:
    assert parse_line("fixed_size.size=500,1000, 2000") == ("fixed_size", "size", (500, 1000, 2000))
    assert parse_line("my.pkg.strategy.merge=isolate,greedy") == ("my.pkg.strategy", "merge", ("isolate", "greedy"))
    for bad in ("fixed_size=500", "fixed_size.size", "fixed_size.size=", ".size=1", "fixed_size.2x=1"):
        with pytest.raises(ValueError, match="STRATEGY.PARAMETER=VALUE"):
            parse_line(bad)


def test_later_lines_replace_earlier_ones_for_the_same_parameter() -> None:
    grid = parse_grid(["fixed_size.size=500,1000", "", "fixed_size.overlap=0", "fixed_size.size=2000", "ast.size=800"])
    assert grid == {"fixed_size": {"size": (2000,), "overlap": (0,)}, "ast": {"size": (800,)}}


def test_points_labels_and_keywords_keep_the_declared_order() -> None:
    every = points({"size": (500, 1000), "overlap": (0, 100)})
    assert [label("fixed_size", p) for p in every] == [
        "fixed_size[size=500,overlap=0]", "fixed_size[size=500,overlap=100]",
        "fixed_size[size=1000,overlap=0]", "fixed_size[size=1000,overlap=100]"]
    assert keyword("fixed_size", every[1]) == "fixed_size-size500-overlap100"
    assert label("ast", (("preserve_context", True), ("merge", "a b"))) == "ast[preserve_context=true,merge=a b]"
    assert keyword("ast", (("merge", "a b"),)) == "ast-mergea_b"
    assert label("plain", ()) == "plain"


def test_the_ini_and_command_line_override_declared_values_and_add_parameters() -> None:
    def windows(size: int, overlap: int = 0, name: str = "w") -> Any: ...

    assert merged({"overlap": (0, 10)}, {"size": (5,), "overlap": (1,)}, windows) == {"overlap": (1,), "size": (5,)}
    assert needs_arguments(windows) == ["size"]


def test_an_unknown_parameter_names_the_accepted_ones() -> None:
    with pytest.raises(ValueError, match=r"'fixed_size' has no parameter 'sise'; it accepts: size, overlap"):
        check_params("fixed_size", fixed_size, ["sise"])
    check_params("anything", lambda **kw: None, ["whatever"])  # **kwargs takes every name


def test_the_built_ins_take_their_parameters_as_keywords() -> None:
    small = fixed_size(size=200, overlap=0)
    assert (small.max_chunk_size, small.overlap) == (200, 0)
    assert fixed_size().max_chunk_size == 1000  # called plainly: the seed's chunker, as before
    assert ast(size=600, min_size=50, merge="greedy").max_chunk_size == 600
    assert function_level(size=700, min_size=20).max_chunk_size == 700


def _set(**factories: Any) -> StrategySet:
    grids = {name: f.grid for name, f in factories.items() if hasattr(f, "grid")}
    regs = {name: Registration(name, getattr(f, "factory", f), "x.py:1", grid=grids.get(name, ()))
            for name, f in factories.items()}
    return StrategySet(regs)


class _Declared:
    def __init__(self, grid: dict[str, tuple[Any, ...]]) -> None:
        self.grid = tuple(grid.items())

    @staticmethod
    def factory(size: int, overlap: int) -> Any:
        return FixedSizeChunker(size, overlap)


def test_a_grid_runs_as_its_points_and_the_baseline_stays_plain() -> None:
    found = _set(file_level=lambda: None, fixed_size=fixed_size)
    chosen = found.select([], "file_level", {"fixed_size": {"size": (500, 1000)}})
    assert list(chosen) == ["file_level", "fixed_size[size=500]", "fixed_size[size=1000]"]
    point = chosen["fixed_size[size=500]"]
    assert (point.strategy_name, point.point) == ("fixed_size", (("size", 500),))
    assert point.build().max_chunk_size == 500
    # Named plainly as the baseline, a gridded strategy also runs as itself (never a grid unless asked) ...
    as_base = found.select([], "fixed_size", {"fixed_size": {"size": (500,)}})
    assert list(as_base) == ["file_level", "fixed_size", "fixed_size[size=500]"]
    # ... or as the one point the baseline names; selecting a strategy by name selects all its points.
    one = found.select(["file_level"], "fixed_size[size=500]", {"fixed_size": {"size": (500, 1000)}})
    assert list(one) == ["file_level", "fixed_size[size=500]"]
    assert found.labels({"fixed_size": {"size": (500,)}}) == ["file_level", "fixed_size", "fixed_size[size=500]"]


def test_a_declared_grid_and_its_errors() -> None:
    found = _set(file_level=lambda: None, windows=_Declared({"size": (100, 200), "overlap": (0,)}))
    chosen = found.select([], "file_level", {"windows": {"overlap": (0, 10)}})
    assert [n for n in chosen if n != "file_level"] == [
        "windows[size=100,overlap=0]", "windows[size=100,overlap=10]",
        "windows[size=200,overlap=0]", "windows[size=200,overlap=10]"]
    with pytest.raises(ValueError, match=r"baseline 'windows' exists only as grid points .*'windows\[size=100"):
        found.select([], "windows", {})
    with pytest.raises(ValueError, match=r"unknown strategy 'nope'; known strategies: file_level, windows"):
        found.select([], "file_level", {"nope": {"size": (1,)}})
    with pytest.raises(ValueError, match=r"'windows' has no parameter 'depth'; it accepts: size, overlap"):
        found.select([], "file_level", {"windows": {"depth": (1,)}})


CORPUS = {
    "a.py": "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n",
    "b.py": "class Gamma:\n    def delta(self):\n        return 'delta'\n",
}


def test_points_with_identical_chunks_share_one_table_and_embed_nothing_again(tmp_path: Path) -> None:
    from pytest_chunkeval.chunking.sizing import default_tokens
    from pytest_chunkeval.core.golden import load_golden
    from pytest_chunkeval.evaluation.evaluate import EvalConfig, Evaluator
    from pytest_chunkeval.retrieval.index import IndexStore

    suite_dir = tmp_path / "suite"
    (suite_dir / "corpus").mkdir(parents=True)
    for name, text in CORPUS.items():
        (suite_dir / "corpus" / name).write_text(text)
    (suite_dir / "queries.yaml").write_text(textwrap.dedent("""
        corpus: corpus
        queries:
          - {id: q1, query: what does beta return, relevant: [{path: a.py}]}
    """))
    suite = load_golden(suite_dir / "queries.yaml")
    embedder, fake = fake_embedder(tmp_path)
    embedder._tokens = default_tokens()  # the fake's folder has weights only: count with the bundled tokenizer
    evaluator = Evaluator(EvalConfig(retrieval="vector"), embedder, IndexStore(str(tmp_path / "db"), tmp_path / "locks"))
    found = StrategySet({"fixed_size": Registration("fixed_size", fixed_size, "x.py:1")})
    grid = {"fixed_size": {"size": (30, 4000), "overlap": (0, 10)}}
    runs = {name: evaluator.run(suite, reg) for name, reg in found.select([], "", grid).items()}
    whole = [runs["fixed_size[size=4000,overlap=0]"], runs["fixed_size[size=4000,overlap=10]"]]
    assert whole[0].table == whole[1].table  # a file fits one window whatever the overlap: identical chunks
    assert (whole[0].reused, whole[1].reused) == (False, True)
    assert whole[1].embed.embedded == 0
    small = [runs["fixed_size[size=30,overlap=0]"], runs["fixed_size[size=30,overlap=10]"]]
    assert len({small[0].table, small[1].table, whole[0].table}) == 3  # other chunks, other tables
    texts = [c.text for run in runs.values() for _, c in run.facts.chunks]
    # Every distinct chunk text embedded once over all four points (and the query once).
    assert sorted(fake.seen) == sorted({*texts, "what does beta return"})


def test_the_base_side_evaluates_the_heads_grid() -> None:
    from pytest_chunkeval.core.grid import grid_text
    from pytest_chunkeval.run.base_ref import BaseRequest, _command

    grid = parse_grid(["fixed_size.size=500,1000", "ast.merge=isolate,greedy"])
    cmd = _command(BaseRequest(Path("."), "main", [], grid=grid_text(grid)), Path("/base"), [], Path("r.json"))
    assert [a for a in cmd if a.startswith("--chunkeval-grid")] == [
        "--chunkeval-grid=fixed_size.size=500,1000", "--chunkeval-grid=ast.merge=isolate,greedy"]
    plain = _command(BaseRequest(Path("."), "main", []), Path("/base"), [], Path("r.json"))
    assert not any(a.startswith("--chunkeval-grid") for a in plain)  # a base before the option still runs


def test_a_shared_table_belongs_to_its_strategy_for_cleaning() -> None:
    from pytest_chunkeval.retrieval.index_clean import _stale
    from pytest_chunkeval.retrieval.table_identity import TableIdentity

    shared = TableIdentity.shared(Path(__file__), "fixed_size", "ab" * 32, "cd" * 32)
    assert (shared.strategy, shared.family) == ("fixed_size@" + "ab" * 6, "fixed_size")
    assert TableIdentity.of(Path(__file__), "fixed_size", "cd" * 32).family == "fixed_size"
    other = TableIdentity.shared(Path(__file__), "fixed_size", "ef" * 32, "01" * 32)
    records = {"t1": shared, "t2": other}
    assert _stale(records, {"fixed_size"}, None) == {}  # two contents: neither supersedes the other
    assert set(_stale(records, {"ast"}, None)) == {"t1", "t2"}


def test_a_label_reads_back_to_its_strategy_and_values() -> None:
    from pytest_chunkeval.core.grid import label, parse_label

    point = (("size", 1000), ("merge", "greedy"), ("preserve_context", True), ("ratio", 0.5))
    assert parse_label(label("ast", point)) == ("ast", point)
    assert parse_label("fixed_size") is None


def test_labels_sort_by_strategy_then_values_as_numbers_where_they_are_numbers() -> None:
    from pytest_chunkeval.core.grid import sort_key

    shuffled = ["fixed_size[size=2000,overlap=0]", "fixed_size", "ast", "fixed_size[size=500,overlap=100]",
                "fixed_size[size=1000,overlap=0]", "fixed_size[size=500,overlap=0]", "ast[merge=greedy,ratio=0.25]",
                "ast[merge=greedy,ratio=0.125]", "ast[merge=off,ratio=0.125]", "ast-x"]
    assert sorted(shuffled, key=sort_key) == [
        "ast", "ast[merge=greedy,ratio=0.125]", "ast[merge=greedy,ratio=0.25]", "ast[merge=off,ratio=0.125]",
        "ast-x", "fixed_size", "fixed_size[size=500,overlap=0]", "fixed_size[size=500,overlap=100]",
        "fixed_size[size=1000,overlap=0]", "fixed_size[size=2000,overlap=0]"]
    # Numbers before words within one parameter, booleans as written (false before true).
    assert sorted(["s[x=true]", "s[x=10]", "s[x=false]", "s[x=9]"], key=sort_key) == [
        "s[x=9]", "s[x=10]", "s[x=false]", "s[x=true]"]
