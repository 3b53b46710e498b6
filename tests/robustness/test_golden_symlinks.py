"""A relevant path that resolves outside the corpus through a symbolic link is refused like a ``..`` path, with
the usual ``file:line: query 'id': field: reason`` message.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_chunkeval.core.golden import GoldenError, load_golden

GOLDEN = """corpus: corpus
queries:
  - id: ok
    query: where is main
    relevant:
      - path: main.py
  - id: host
    query: what is the host name
    relevant:
      - path: {path}
"""


def _suite(tmp_path: Path, relevant: str) -> Path:
    outside = tmp_path / "outside"
    (outside / "pkg").mkdir(parents=True)
    (outside / "hostname").write_text("box\n")
    (outside / "pkg" / "mod.py").write_text("x = 1\n")
    root = tmp_path / "suite" / "corpus"
    root.mkdir(parents=True)
    (root / "main.py").write_text("print('hi')\n")
    (root / "host.txt").symlink_to(outside / "hostname")
    (root / "vendored").symlink_to(outside / "pkg", target_is_directory=True)
    golden = tmp_path / "suite" / "queries.yaml"
    golden.write_text(GOLDEN.format(path=relevant))
    return golden


@pytest.mark.parametrize("relevant, target", [("host.txt", "hostname"), ("vendored/mod.py", "pkg/mod.py")])
def test_relevant_path_through_a_link_out_of_the_corpus_is_refused(tmp_path: Path, relevant: str, target: str) -> None:
    golden = _suite(tmp_path, relevant)
    with pytest.raises(GoldenError) as info:
        load_golden(golden)
    corpus = (tmp_path / "suite" / "corpus").resolve()
    outside = (tmp_path / "outside" / target).resolve()
    assert info.value.problems == [
        f"{golden}:10: query 'host': relevant[0].path: {relevant!r} leaves the corpus {corpus} (it resolves to {outside})"
    ]


def test_the_same_suite_without_the_link_loads_and_lists_the_links_as_skipped(tmp_path: Path) -> None:
    golden = _suite(tmp_path, "main.py")
    suite = load_golden(golden)
    assert sorted(suite.corpus.files) == ["main.py"]
    assert sorted(suite.corpus.skipped) == ["host.txt", "vendored"]
