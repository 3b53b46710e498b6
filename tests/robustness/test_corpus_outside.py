"""A golden file's ``corpus:`` that leads out of the project (``/etc``, ``../../``, a symbolic link) is refused with
the file, the line and the reason, unless --chunkeval-allow-outside-corpus (ini chunkeval_allow_outside_corpus) says
otherwise. A corpus in the project, or in the golden file's own folder (a suite kept elsewhere and named on the
command line), is read as before."""
from __future__ import annotations

from pathlib import Path

import pytest
from project_files import SHOP_CORPUS, SHOP_GOLDEN, name_suites, set_ini, write_suite

from pytest_chunkeval.core.golden import GoldenError, load_golden


def _golden(corpus: object) -> str:
    """The shop's golden file with its ``corpus:`` naming ``corpus``."""
    return SHOP_GOLDEN.replace("corpus: corpus", f"corpus: {corpus}", 1)


def _layout(tmp_path: Path, corpus: str) -> tuple[Path, Path, Path]:
    """(project root, golden file, the corpus outside): ``root/golden/shop/queries.yaml`` pointing at ``corpus``."""
    outside = tmp_path / "outside"
    write_suite(outside, SHOP_CORPUS, "")  # outside/corpus/auth.py ...
    root = tmp_path / "project"
    write_suite(root / "golden" / "shop", SHOP_CORPUS, _golden(corpus.format(outside=outside)))
    return root, root / "golden" / "shop" / "queries.yaml", (outside / "corpus").resolve()


@pytest.mark.parametrize("corpus", ["{outside}/corpus", "../../../outside/corpus", "link"])
def test_a_corpus_outside_the_project_is_refused_naming_file_and_line(tmp_path: Path, corpus: str) -> None:
    root, golden, outside = _layout(tmp_path, corpus)
    (golden.parent / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(GoldenError) as info:
        load_golden(golden, root=root)
    assert info.value.problems == [
        f"{golden}:2: corpus: folder {outside} is outside the project {root.resolve()} and outside the golden file's "
        f"folder {golden.parent.resolve()}; allow it with --chunkeval-allow-outside-corpus "
        "(ini chunkeval_allow_outside_corpus = true)"]
    assert load_golden(golden, root=root, outside=True).corpus_dir == outside  # allowed: read as before


def test_system_folders_are_refused_before_they_are_read(tmp_path: Path) -> None:
    root, golden, _ = _layout(tmp_path, "/etc")
    with pytest.raises(GoldenError, match=r":2: corpus: folder /etc is outside the project"):
        load_golden(golden, root=root)


def test_a_corpus_in_the_project_or_beside_its_golden_file_is_read(tmp_path: Path) -> None:
    root, golden, _ = _layout(tmp_path, "../../shared")
    write_suite(root / "shared" / "x", SHOP_CORPUS, "")
    (root / "shared" / "auth.py").write_text((root / "shared" / "x" / "corpus" / "auth.py").read_text())
    assert load_golden(golden, root=root).corpus_dir == (root / "shared").resolve()  # elsewhere in the project
    elsewhere = tmp_path / "elsewhere"
    write_suite(elsewhere, SHOP_CORPUS, _golden("corpus"))
    assert load_golden(elsewhere / "queries.yaml", root=root).corpus_dir == (elsewhere / "corpus").resolve()


def collect(p: pytest.Pytester, *args: str) -> pytest.RunResult:
    return p.runpytest("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress", "--collect-only", "-q",
                       "--chunkeval-strategies=file_level", *args)


def test_the_plugin_refuses_such_a_suite_unless_the_ini_allows_it(pytester: pytest.Pytester) -> None:
    name_suites(pytester)
    outside = pytester.path.parent / f"{pytester.path.name}-outside"
    write_suite(outside, SHOP_CORPUS, "")
    write_suite(pytester.path / "golden" / "shop", SHOP_CORPUS, _golden(outside / "corpus"))
    refused = collect(pytester)
    assert refused.ret == pytest.ExitCode.INTERRUPTED  # a collection error, like any invalid golden file
    refused.stdout.fnmatch_lines([f"*golden/shop/queries.yaml:2: corpus: folder {outside}/corpus is outside the "
                                  "project*--chunkeval-allow-outside-corpus*"])
    collect(pytester, "--chunkeval-allow-outside-corpus").stdout.fnmatch_lines(["*::file_level::password-hash"])
    set_ini(pytester.path, "chunkeval_allow_outside_corpus", "true", "true")
    collect(pytester).stdout.fnmatch_lines(["*::file_level::password-hash"])
    set_ini(pytester.path, "chunkeval_allow_outside_corpus", "false", "false")
    assert collect(pytester).ret == pytest.ExitCode.INTERRUPTED
