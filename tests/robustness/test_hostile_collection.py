"""Inputs that used to stop collection with an INTERNALERROR or a RuntimeError: an absolute ``chunkeval_golden``
pattern (``Path.glob`` refuses one) and a corpus holding a symbolic link to itself (resolving it never ends). Each now
collects its suite; the link is skipped and listed with the reason like any other unreadable corpus file."""
from __future__ import annotations

from pathlib import Path

import pytest
from project_files import SHOP_CORPUS, SHOP_GOLDEN, name_suites, set_ini, write_suite

from pytest_chunkeval.chunking.strategy_files import discover_suites
from pytest_chunkeval.core.corpus import read_corpus
from pytest_chunkeval.core.golden import GoldenError, load_golden


def collect(p: pytest.Pytester) -> pytest.RunResult:
    return p.runpytest("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress", "--collect-only", "-q",
                       "--chunkeval-strategies=file_level")


def test_an_absolute_golden_pattern_collects_its_suites(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path / "golden" / "shop", SHOP_CORPUS, SHOP_GOLDEN)
    name_suites(pytester, f"{pytester.path}/golden/*/queries.yaml")
    result = collect(pytester)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["golden/shop/queries.yaml::file_level::password-hash"])
    assert result.ret == pytest.ExitCode.OK


def test_discovery_globs_absolute_and_relative_patterns_alike(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "queries.yaml").write_text("")
    found = [tmp_path.resolve() / "a" / "queries.yaml"]
    assert discover_suites(tmp_path, ["*/queries.yaml"]) == found
    assert discover_suites(Path("/nonexistent"), [f"{tmp_path}/*/queries.yaml"]) == found
    assert discover_suites(tmp_path, ["", "/"]) == []


def test_a_link_loop_in_the_corpus_is_skipped_and_listed(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "main.py").write_text("print('hi')\n")
    (root / "self").symlink_to(root / "self")
    (root / "ring_a").symlink_to(root / "ring_b")
    (root / "ring_b").symlink_to(root / "ring_a")
    corpus = read_corpus(root)
    assert list(corpus.files) == ["main.py"]
    assert sorted(corpus.skipped) == ["ring_a", "ring_b", "self"]
    assert all(reason.startswith("symbolic link loop (not followed)") for reason in corpus.skipped.values())


def test_a_relevant_path_through_a_link_loop_is_a_golden_error_naming_file_and_line(tmp_path: Path) -> None:
    write_suite(tmp_path / "shop", SHOP_CORPUS, SHOP_GOLDEN.replace("path: auth.py", "path: loop/auth.py"))
    (tmp_path / "shop" / "corpus" / "loop").symlink_to(tmp_path / "shop" / "corpus" / "loop")
    golden = tmp_path / "shop" / "queries.yaml"
    with pytest.raises(GoldenError) as info:
        load_golden(golden)
    [problem] = info.value.problems
    assert problem.startswith(f"{golden}:7: query 'password-hash': relevant[0].path: 'loop/auth.py' is not a readable "
                              "file in the corpus") and "Symlink loop" in problem


def test_a_suite_whose_corpus_holds_a_link_loop_is_collected(pytester: pytest.Pytester) -> None:
    name_suites(pytester)
    corpus = write_suite(pytester.path / "golden" / "shop", SHOP_CORPUS, SHOP_GOLDEN)
    (corpus / "self").symlink_to(corpus / "self")
    set_ini(pytester.path, "chunkeval_strategies", '"file_level"', "file_level")
    result = collect(pytester)
    assert "RuntimeError" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["golden/shop/queries.yaml::file_level::password-hash"])
    assert result.ret == pytest.ExitCode.OK
