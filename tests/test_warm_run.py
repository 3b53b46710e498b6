"""A warm run redoes nothing that a cold run already computed: no chunking, no embedding, no search, no test-module
imports in an evaluation-only run; and what it reads back gives the very numbers a cold run gives.

End to end through pytester with the real model and LanceDB (the tiny project of the ``project`` fixture); the unit
tests at the bottom need neither.
"""
from __future__ import annotations

import json
import pickle
import re
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from project_files import run, write_strategies

from pytest_chunkeval.chunking.lark.strategies import load_grammar
from pytest_chunkeval.scoring import stats

COUNTING = """
from pytest_chunkeval import FixedSizeChunker, strategy


class CountingChunker(FixedSizeChunker):
    \"\"\"Fixed windows that leave a mark for every file chunked, so a test can tell whether chunking ran.\"\"\"

    name = "counting"

    def chunk(self, path, text):
        with open("chunk-calls.log", "a") as log:
            log.write(path + "\\n")
        return super().chunk(path, text)


@strategy
def counting():
    return CountingChunker(max_chunk_size=120, overlap=20)
"""


def _report(p: pytest.Pytester, name: str) -> dict[str, Any]:
    return json.loads((p.path / name).read_text())


def _numbers(report: dict[str, Any]) -> dict[str, Any]:
    """What a run measured, without how it got there (timings, reuse flags)."""
    out = {}
    for key, suite in report["suites"].items():
        for name, s in suite["strategies"].items():
            index = {k: v for k, v in s["index"].items()
                     if k not in ("reused", "cached", "embedded", "chunk_seconds", "build_seconds", "chunks_cached", "cost")}
            out[(key, name)] = (s["aggregate"], s["queries"], s["quality"], s["strategy_stats"], s["chunks"], index)
    return out


@pytest.mark.slow
def test_a_warm_run_chunks_nothing_and_reports_the_cold_numbers(project: pytest.Pytester) -> None:
    write_strategies(project.path, {"counting.py": COUNTING})
    log = project.path / "chunk-calls.log"
    files = sorted(p.name for p in (project.path / "golden" / "shop" / "corpus").iterdir())
    cold = run(project, "-m", "chunkeval", "--chunkeval-report=cold.json")
    assert cold.ret == 0, cold.stdout.str()[-3000:]
    assert sorted(log.read_text().split()) == files
    log.unlink()

    warm = run(project, "-m", "chunkeval", "--chunkeval-report=warm.json")
    assert warm.ret == 0
    assert not log.exists(), "the warm run chunked files again"
    a, b = _report(project, "cold.json"), _report(project, "warm.json")
    assert b["embedding"]["embedded"] == 0
    assert _numbers(a) == _numbers(b)
    costs = [{n: s["index"]["cost"] for n, s in r["suites"]["golden/shop/queries.yaml"]["strategies"].items()}
             for r in (a, b)]
    assert costs[0] == costs[1]  # the warm run shows what the cold build cost
    for suite in b["suites"].values():
        for s in suite["strategies"].values():
            assert s["index"]["reused"] and s["index"]["chunks_cached"]
            # What building the index cost is reported on the warm run too: the cold run's figures.
            assert set(s["index"]["cost"]) == {"chunk_seconds", "embed_seconds", "build_seconds"}
    warm.stdout.fnmatch_lines(["*chunks and index*chunk s*embed s*build s*"])

    # A damaged cached entry is a miss, said once: the files are chunked again and the numbers stay the same.
    db = sqlite3.connect(project.path / ".chunkeval" / "cache.sqlite")
    db.execute("UPDATE facts SET value = ?", (b"not a pickle",))
    db.commit()
    db.close()
    healed = run(project, "-m", "chunkeval", "--chunkeval-report=healed.json", "-W", "always")
    assert healed.ret == 0
    assert sorted(log.read_text().split()) == files
    assert "dropped a damaged cached chunking" in healed.stdout.str()
    assert _numbers(_report(project, "healed.json")) == _numbers(a)


@pytest.mark.slow
def test_an_evaluation_only_run_imports_no_test_module(project: pytest.Pytester) -> None:
    # A test module that would announce its import; -m chunkeval deselects its tests anyway.
    (project.path / "tests").mkdir()
    (project.path / "tests" / "test_unit.py").write_text(
        "open('imported.log', 'w').close()\n\ndef test_unit():\n    pass\n")
    evaluation = run(project, "-m", "chunkeval")
    assert evaluation.ret == 0
    assert not (project.path / "imported.log").exists()
    everything = run(project)
    assert everything.ret == 0 and (project.path / "imported.log").exists()
    everything.assert_outcomes(passed=10, skipped=5)  # the evaluation's items and the unit test


def test_cached_sign_draws_give_the_p_values_of_a_fresh_draw() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.random(80), rng.random(80)
    stats._cached_sign_blocks.cache_clear()
    first = stats.paired_test(a, b)
    assert stats._cached_sign_blocks.cache_info().currsize == 1
    again = stats.paired_test(a, b)
    fresh = sum(int(np.count_nonzero(np.abs(s @ (a - b)) / 80 >= abs((a - b).mean()) - 1e-12))
                for s in stats._draw_sign_blocks(80, 10000, 0))
    assert first == again == (fresh + 1) / 10001


def test_one_parser_per_grammar_content(tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[1] / "strategies" / "avap.lark"
    grammar = tmp_path / "avap.lark"
    grammar.write_bytes(shipped.read_bytes())
    first, second = load_grammar(grammar), load_grammar(grammar)
    assert first is second  # built once, shared by both EBNF strategies
    grammar.write_text(shipped.read_text() + "\n// an edit\n")
    assert load_grammar(grammar) is not first  # an edited grammar is never served stale


def test_cached_facts_hold_plain_package_values() -> None:
    """Pickled entries hold this package's dataclasses only, which the facts key versions by their code."""
    from pytest_chunkeval.core.chunk import Chunk
    from pytest_chunkeval.evaluation.build_facts import BuildFacts, BuildFactsCache

    facts = BuildFacts(1, [("a.py#0", Chunk(text="x", path="a.py", start_line=1, end_line=1, start_byte=0,
                                            end_byte=1, strategy="s"))], [], {}, None)
    assert pickle.loads(pickle.dumps(facts)) == facts
    assert BuildFactsCache.key("fp") != "fp" and BuildFactsCache.key("fp").startswith("fp:")


def test_the_pickled_build_facts_are_pinned_to_their_version() -> None:
    """A run holds its BuildFacts (run.facts) and the cache pickles them: what a pickle holds is the instance's fields,
    so a change to them must come with a new FACTS_VERSION, else older entries load without the new fields. Changing
    this list means bumping the version in the same commit."""
    from pytest_chunkeval.evaluation.build_facts import FACTS_VERSION, BuildFacts

    fields = ("files_handled", "chunks", "fallbacks", "strategy_stats", "quality", "tokens", "index_bytes", "cost")
    assert (tuple(BuildFacts.__dataclass_fields__), FACTS_VERSION) == (fields, "1")
    assert sorted(vars(BuildFacts())) == sorted(fields)  # nothing else reaches the pickle


@pytest.mark.slow
def test_scores_cached_for_the_old_questions_are_not_served_for_edited_ones(project: pytest.Pytester) -> None:
    assert run(project, "-m", "chunkeval", "--chunkeval-report=before.json").ret == 0
    golden = project.path / "golden" / "shop" / "queries.yaml"
    # The same question, now judged relevant in another file: every cached score of it is stale.
    text = golden.read_text()
    edited_text = re.sub(r"path: orders.py(\s+)lines: \[10, 12\]", r"path: auth.py\1lines: [8, 9]", text)
    assert edited_text != text
    golden.write_text(edited_text)
    edited = run(project, "-m", "chunkeval", "--chunkeval-report=edited.json")
    fresh = run(project, "-m", "chunkeval", "--chunkeval-report=fresh.json", "-o", "chunkeval_cache_dir=.fresh",
                "--chunkeval-db=.fresh/lancedb")
    assert edited.ret == fresh.ret
    before, after, cold = (_report(project, n) for n in ("before.json", "edited.json", "fresh.json"))
    assert _numbers(after) == _numbers(cold)  # what a cache-less run computes
    assert _numbers(after) != _numbers(before)


def test_a_result_that_cannot_be_pickled_is_left_uncached_with_a_warning(tmp_path: Path) -> None:
    import warnings

    from pytest_chunkeval.core.chunk import Chunk
    from pytest_chunkeval.evaluation.build_facts import BuildFacts, BuildFactsCache

    chunk = Chunk(text="x", path="a.py", start_line=1, end_line=1, start_byte=0, end_byte=1, strategy="s",
                  metadata={"parser": lambda: None})  # a user strategy's metadata need not pickle
    cache = BuildFactsCache(tmp_path / "cache.sqlite")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache.put("fp", BuildFacts(1, [("a.py#0", chunk)], [], {}, None))
    assert cache.get("fp") is None
    assert any("cannot cache this result" in str(w.message) for w in caught)
