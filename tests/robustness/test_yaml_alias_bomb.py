"""A YAML alias bomb (levels of anchors, each a list of aliases to the level below) in a golden file or an
accepted-misses record is refused at its first alias, naming the file and the line, before any value is built: a
safe loader would expand nine levels of ten into 10⁹ values (half a minute, then a MemoryError cascade)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_chunkeval.core.golden import GoldenError, load_golden
from pytest_chunkeval.run.accepted import AcceptedMisses


def bomb(levels: int, indent: str = "") -> str:
    """``levels`` anchored lists of ten, each of aliases to the one before: 10**levels values once expanded."""
    lines = [f"{indent}l0: &l0 [{', '.join(['lol'] * 10)}]"]
    lines += [f"{indent}l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


GOLDEN = """corpus: corpus
queries:
  - id: q
    query: where is main
    relevant:
      - path: main.py
"""


@pytest.mark.parametrize("levels", [3, 9])
def test_a_golden_file_with_aliases_is_refused_at_the_first_alias(tmp_path: Path, levels: int) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "main.py").write_text("print('hi')\n")
    golden = tmp_path / "queries.yaml"
    golden.write_text(GOLDEN + bomb(levels))
    with pytest.raises(GoldenError) as info:
        load_golden(golden)
    assert info.value.problems == [f"{golden}:8: invalid YAML: an alias (*l0) is not allowed here: write the value "
                                   "out instead (aliases can expand a small file into billions of values)"]


def test_the_same_golden_file_without_the_aliases_loads(tmp_path: Path) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "main.py").write_text("print('hi')\n")
    golden = tmp_path / "queries.yaml"
    golden.write_text(GOLDEN)
    assert [q.id for q in load_golden(golden).queries] == ["q"]


@pytest.mark.parametrize("levels", [3, 9])
def test_an_accepted_misses_record_with_aliases_is_refused_naming_file_and_line(tmp_path: Path, levels: int) -> None:
    record = tmp_path / "accepted_misses.yaml"
    record.write_text("model | hybrid | k=10:\n  fixed_size: [a]\n" + bomb(levels, indent="  "))
    with pytest.raises(ValueError, match=rf"^{record}:4: not valid YAML \(an alias \(\*l0\) is not allowed here"):
        AcceptedMisses.load(tmp_path)


def test_a_saved_record_has_no_anchors_even_when_two_strategies_share_one_list(tmp_path: Path) -> None:
    record = AcceptedMisses(tmp_path / "accepted_misses.yaml", dirty=True)
    shared = ["q1", "q2"]
    record.data = {"m | hybrid | k=10": {"a": shared, "b": shared}}
    record.save()
    assert "&" not in record.path.read_text() and "*" not in record.path.read_text()
    assert AcceptedMisses.load(tmp_path).data == record.data
