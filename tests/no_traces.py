"""What a plain ``pytest`` run leaves behind, to show that the installed plugin adds nothing to a run that does not
ask for ``--chunkeval``: the files written (in the project and in ``HOME``) and the lines printed, compared with the
same run under ``-p no:chunkeval``. Comparing with a run without the plugin, rather than with nothing, keeps what
pytest itself and any other installed plugin write out of the verdict.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

#: The trivial test file of the scratch project.
TRIVIAL_TEST = "def test_addition():\n    assert 1 + 1 == 2\n"
#: pytest's header line listing the installed plugins: the one line the plugin is allowed to change.
PLUGINS_LINE = "plugins:"

_DURATION = re.compile(r"\b\d+(\.\d+)?s\b|\(\d+:\d\d:\d\d\)")
#: pytest-randomly's header line names a new seed every run, with or without the plugin.
_SEED = re.compile(r"(--randomly-seed=)\d+")


def write_scratch_project(folder: Path) -> None:
    """A folder holding one trivial test file: no configuration, not a git repository."""
    folder.mkdir(parents=True)
    (folder / "test_trivial.py").write_text(TRIVIAL_TEST)


def files_under(root: Path) -> set[str]:
    """Every file and folder below ``root`` (folders end with ``/``, so an empty one written still counts)."""
    return {p.relative_to(root).as_posix() + ("/" if p.is_dir() else "") for p in root.rglob("*")}


@dataclass(frozen=True)
class Trace:
    """One run: the paths under each watched folder (prefixed by the folder's label) and its normalized output."""

    files: frozenset[str]
    lines: tuple[str, ...]

    @classmethod
    def of(cls, output: str, folders: Mapping[str, Path]) -> Trace:
        """``folders`` maps a label (``project``, ``home``) to the folder the run used under that label; their
        paths in the output become the label, so two runs in different folders print the same lines."""
        files = {f"{label}/{rel}" for label, root in folders.items() for rel in files_under(root)}
        return cls(frozenset(files), tuple(normalized(output, folders)))


def normalized(output: str, folders: Mapping[str, Path]) -> list[str]:
    """Output lines with the run's folders replaced by their labels, durations by ``Ns``, a pytest-randomly seed by
    ``N`` and pytest's ``=`` rules collapsed (their width follows the length of the text they frame, which a
    duration changes)."""
    out = []
    for line in output.splitlines():
        for label, root in sorted(folders.items(), key=lambda kv: -len(str(kv[1]))):
            line = line.replace(str(root), f"<{label}>")
        line = re.sub(r"=+", "=", _SEED.sub(r"\1N", _DURATION.sub("Ns", line))).strip()
        if line:
            out.append(line)
    return out


def lines_added(with_plugin: Trace, without: Trace) -> list[str]:
    """Lines the run with the plugin printed that the run without it did not, except pytest's plugin list."""
    return [line for line in with_plugin.lines if line not in without.lines and not line.startswith(PLUGINS_LINE)]


def difference(with_plugin: Trace, without: Trace) -> list[str]:
    """Everything the plugin changed, one finding a line; empty when it left no trace."""
    found: Iterable[str] = (
        *(f"file written only with the plugin: {f}" for f in sorted(with_plugin.files - without.files)),
        *(f"file written only without the plugin: {f}" for f in sorted(without.files - with_plugin.files)),
        *(f"line printed only with the plugin: {line}" for line in lines_added(with_plugin, without)),
    )
    return list(found)
