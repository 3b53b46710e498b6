"""The languages of a repository, from the project's own language tables, and the files none of them reads.

A team needs to know two things before its first run: which of its languages the built-in strategies and the
documentation miner understand, and which files (a DSL of its own, say) they will only see as plain text, for which
a grammar can be configured. Extensions are mapped with the tables the chunkers and generators use
(:mod:`pytest_chunkeval.chunking.ast.languages`, :mod:`pytest_chunkeval.commands.golden.doc_langs`), so the answer is
what an evaluation will actually do.
"""
from __future__ import annotations

import importlib.util
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from pytest_chunkeval.chunking.ast.languages import LANGUAGES, language_for
from pytest_chunkeval.commands.golden.common import EXCLUDED_DIRS, excluded_path, under
from pytest_chunkeval.commands.golden.doc_langs import DOC_LANGUAGES, doc_language_for
from pytest_chunkeval.commands.init.repo import RepoInfo, git_files

#: Text formats that are nobody's programming language: not worth a grammar, so not listed as unknown.
PLAIN_FORMATS = frozenset({
    ".txt", ".rst", ".adoc", ".cfg", ".ini", ".conf", ".lock", ".csv", ".tsv", ".log", ".svg", ".mod", ".sum",
    ".in", ".typed", ".pem", ".properties",
})
_SNIFF_BYTES = 8192


@dataclass(frozen=True)
class Language:
    name: str
    files: int
    docs: bool  # from-docs reads its documentation comments (grammar wheel installed)
    ast: bool  # the AST chunkers parse it (grammar wheel installed)


@dataclass
class Detection:
    listing: str  # how the files were listed
    files: int
    languages: list[Language] = field(default_factory=list)  # most files first
    unknown: dict[str, int] = field(default_factory=dict)  # extension -> text files no built-in parser reads


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _walk(root: Path) -> list[str]:
    """Without git: every file, minus hidden folders, virtualenvs, dependencies and build output."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in EXCLUDED_DIRS
                             and not (here / d / "pyvenv.cfg").is_file())
        found.extend((here / name).relative_to(root).as_posix() for name in filenames)
    return sorted(found)


def _is_text(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return False
    return bool(head.strip()) and b"\0" not in head


def detect(info: RepoInfo, exclude: tuple[str, ...] = ()) -> Detection:
    """Count the files of each language under ``info.root``; ``exclude`` (relative paths) are init's own outputs."""
    listed = git_files(info)
    if listed is None:
        listing, files = "every file; hidden folders, virtualenvs, dependencies and build output left out", \
            _walk(info.root)
    else:
        listing = "git: tracked files and untracked ones not ignored; vendored and build folders left out"
        files = [p for p in listed if not excluded_path(p)]
    files = [p for p in files if not under(p, exclude)]
    counts: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    for rel in files:
        spec, doc = language_for(rel), doc_language_for(rel)
        name = spec.name if spec is not None else doc.name if doc is not None else None
        if name is not None:
            counts[name] += 1
            continue
        suffix = PurePosixPath(rel).suffix.lower()
        if suffix and suffix not in PLAIN_FORMATS and _is_text(info.root / rel):
            unknown[suffix] += 1
    languages = [
        Language(name, n, docs=name in DOC_LANGUAGES and DOC_LANGUAGES[name].installed,
                 ast=name in LANGUAGES and _installed(LANGUAGES[name].module))
        for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return Detection(listing, len(files), languages, dict(sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))))
