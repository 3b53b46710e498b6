"""Corpus reading never follows a symbolic link out of the corpus: such links are listed in ``skipped`` with the
reason (like binary files), never indexed, and never silently dropped.
"""
from __future__ import annotations

from pathlib import Path

from pytest_chunkeval.core.corpus import read_corpus


def _corpus(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not part of the suite\n")
    (outside / "pkg").mkdir()
    (outside / "pkg" / "mod.py").write_text("x = 1\n")
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / "main.py").write_text("print('hi')\n")
    (root / "sub" / "util.py").write_text("def util():\n    pass\n")
    return root, outside


def test_links_out_of_the_corpus_are_skipped_with_the_reason(tmp_path: Path) -> None:
    root, outside = _corpus(tmp_path)
    (root / "host.txt").symlink_to(outside / "secret.txt")
    (root / "vendored").symlink_to(outside / "pkg", target_is_directory=True)
    (root / "gone.py").symlink_to(tmp_path / "nowhere.py")
    corpus = read_corpus(root)
    assert sorted(corpus.files) == ["main.py", "sub/util.py"]
    assert set(corpus.skipped) == {"host.txt", "vendored", "gone.py"}
    assert "outside the corpus" in corpus.skipped["host.txt"] and str(outside / "secret.txt") in corpus.skipped["host.txt"]
    assert "outside the corpus" in corpus.skipped["vendored"]
    assert "outside the corpus" in corpus.skipped["gone.py"]


def test_links_inside_the_corpus(tmp_path: Path) -> None:
    """A link to a file of the corpus is read (as before); a link to one of its folders is listed, not followed."""
    root, _ = _corpus(tmp_path)
    (root / "alias.py").symlink_to(root / "main.py")
    (root / "again").symlink_to(root / "sub", target_is_directory=True)
    (root / "dangling.py").symlink_to(root / "missing.py")
    corpus = read_corpus(root)
    assert corpus.files["alias.py"] == corpus.files["main.py"]
    assert "sub/util.py" in corpus.files and not any(k.startswith("again/") for k in corpus.files)
    assert corpus.skipped["again"] == "symbolic link to the folder sub of the corpus (not followed)"
    assert corpus.skipped["dangling.py"].startswith("broken symbolic link")
