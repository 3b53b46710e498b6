"""``from-docs``: a golden suite from a repository's documentation comments (CodeSearchNet's convention).

Each query is the first sentence of a documentation comment, with the declaration's own name removed; the
relevant span is the declaration it documents. The comments of every sampled query are blanked in ``OUT/corpus``
(lines emptied, never removed, so every line number stays true), so retrieval has to find the code, not the
sentence. Sentences that still occur word for word in the blanked corpus, or that several declarations share,
cannot have one right answer and are dropped; every drop is counted by reason in ``OUT/meta.json``.
"""
from __future__ import annotations

import os
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.ast.parsing import ParseTimeout, parse_bytes, parser_for
from pytest_chunkeval.commands.golden.common import (
    SuiteQuery,
    VerbatimIndex,
    counted,
    excluded_path,
    file_problem,
    is_aux_path,
    round_robin,
    under,
    write_suite,
)
from pytest_chunkeval.commands.golden.doc_extract import DocCandidate, blank_rows, extract_docs
from pytest_chunkeval.commands.golden.doc_langs import doc_language_for, missing_grammars
from pytest_chunkeval.commands.golden.text import leading_name_removed, normalized_words, reject_reason


@dataclass
class DocsOptions:
    seed: int = 20240229
    max_queries: int = 300
    max_per_file: int = 5
    min_words: int = 5
    min_span_lines: int = 2
    max_span_lines: int = 200
    max_file_bytes: int = 300_000
    #: repository-relative folders or files never read (``chunkeval init`` passes its own outputs)
    exclude: tuple[str, ...] = ()


@dataclass
class _Scan:
    texts: dict[str, str] = field(default_factory=dict)  # corpus files, original text
    languages: dict[str, str] = field(default_factory=dict)  # path -> language
    candidates: list[DocCandidate] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)


def _walk(src: Path, skip: Path | None = None) -> list[str]:
    """Every regular file under ``src`` as a sorted posix path (symbolic links are not followed); ``skip`` is the
    output folder, which may well sit inside the repository it is generated from."""
    found: list[str] = []
    skip = skip.resolve() if skip is not None else None
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if skip is None or Path(dirpath, d).resolve() != skip)
        for name in filenames:
            found.append(Path(dirpath, name).relative_to(src).as_posix())
    return sorted(found)


def _scan(src: Path, opts: DocsOptions, skip: Path | None) -> _Scan:
    scan = _Scan()
    for rel in _walk(src, skip):
        lang = doc_language_for(rel)
        if lang is None or under(rel, opts.exclude):
            continue  # not a language with documentation comments: not part of the corpus
        path = src / rel
        if excluded_path(rel):
            scan.skipped["excluded_dir"] += 1
            continue
        if path.is_symlink():
            scan.skipped["symlink"] += 1
            continue
        if not lang.installed:
            scan.skipped[f"no_grammar_{lang.name}"] += 1
            continue
        problem, text = file_problem(path.read_bytes(), opts.max_file_bytes)
        if problem:
            scan.skipped[problem] += 1
            continue
        try:
            docs = extract_docs(rel, text, lang)
        except ParseTimeout:
            scan.skipped["parse_timeout"] += 1
            continue
        scan.texts[rel] = text
        scan.languages[rel] = lang.name
        for cand in docs.candidates:
            if cand.drop is None and docs.has_error:
                cand.drop = "file_has_parse_errors"
            scan.candidates.append(cand)
    return scan


def _judge(cand: DocCandidate, opts: DocsOptions) -> None:
    """Set the query text, or the reason the candidate cannot be one."""
    if cand.sentence:
        cand.query = leading_name_removed(cand.sentence, cand.name)
    if cand.drop:
        return
    lines = cand.span[1] - cand.span[0] + 1
    if is_aux_path(cand.path):
        cand.drop = "in_test_or_docs_file"
    elif lines < opts.min_span_lines:
        cand.drop = "declaration_too_short"
    elif lines > opts.max_span_lines:
        cand.drop = "declaration_too_long"
    else:
        cand.drop = reject_reason(cand.query, cand.name, min_words=opts.min_words, extra_names=cand.owners[-1:])


def _parses_cleanly(rel: str, text: str) -> bool:
    lang = doc_language_for(rel)
    assert lang is not None
    return not parse_bytes(parser_for(lang.spec), text.encode("utf-8"), None, lang.spec).root_node.has_error


def _sample(scan: _Scan, opts: DocsOptions) -> tuple[list[DocCandidate], dict[str, str]]:
    """Pick queries in seeded round-robin order; blank their comments; drop those still verbatim in the corpus.

    Blanking only removes text, so a sentence found absent stays absent; the loop tops up until ``max_queries``
    survive or the candidates run out. A dropped query's comment stays blanked, keeping the corpus monotone.
    """
    order = _round_robin_order(scan, opts)
    texts = dict(scan.texts)
    blanked: dict[str, list[tuple[int, int]]] = {}
    chosen: list[DocCandidate] = []
    pos = 0
    while len(chosen) < opts.max_queries and pos < len(order):
        batch = order[pos: pos + opts.max_queries - len(chosen)]
        pos += len(batch)
        for cand in batch:
            blanked.setdefault(cand.path, []).append(cand.doc_rows)
        for rel in {c.path for c in batch}:
            texts[rel] = blank_rows(scan.texts[rel], blanked[rel])
        index = VerbatimIndex(texts.values())
        chosen.extend(batch)
        for cand in list(chosen):
            if cand.query in index:
                cand.drop = "verbatim_in_corpus"
                chosen.remove(cand)
    for cand in order[pos:]:
        cand.drop = "beyond_max_queries"
    _keep_parseable(scan, texts, sorted(blanked), chosen)
    return chosen, texts


def _round_robin_order(scan: _Scan, opts: DocsOptions) -> list[DocCandidate]:
    """The usable candidates in seeded round-robin order over files; those past the per-file cap are dropped."""
    usable: dict[str, list[DocCandidate]] = {}
    for cand in scan.candidates:
        if cand.drop is None:
            usable.setdefault(cand.path, []).append(cand)
    order = round_robin(usable, opts.seed, opts.max_per_file)
    in_order = {id(c) for c in order}
    for group in usable.values():
        for cand in group:
            if id(cand) not in in_order:
                cand.drop = "over_per_file_cap"
    return order


def _keep_parseable(scan: _Scan, texts: dict[str, str], blanked: list[str], chosen: list[DocCandidate]) -> None:
    """A file that parsed before its comments were blanked must still parse after: else it is restored and its
    queries dropped (never observed; kept as a guard: the corpus must stay parseable)."""
    for rel in blanked:
        if _parses_cleanly(rel, scan.texts[rel]) and not _parses_cleanly(rel, texts[rel]):
            texts[rel] = scan.texts[rel]
            for cand in [c for c in chosen if c.path == rel]:
                cand.drop = "blanking_broke_parse"
                chosen.remove(cand)


def _qualified(c: DocCandidate) -> str:
    """``Owner.name``; an anonymous declaration (Go's ``var ( ... )`` group) is named by its kind and line."""
    return ".".join(n for n in (*c.owners, c.name) if n) if c.name else f"{c.kind}-{c.span[0]}"


def _git_commit(src: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def build_from_docs(src: Path, out: Path, opts: DocsOptions | None = None, command: str = "") -> dict[str, Any]:
    """Build the suite under ``out``; returns the meta dict (also written to ``out/meta.json``)."""
    opts = opts or DocsOptions()
    scan = _scan(src, opts, out)
    for cand in scan.candidates:
        _judge(cand, opts)
    sentences = Counter(normalized_words(c.query) for c in scan.candidates if c.query)
    for cand in scan.candidates:
        if cand.drop is None and sentences[normalized_words(cand.query)] > 1:
            cand.drop = "shared_text"
    chosen, texts = _sample(scan, opts)
    dropped = Counter(c.drop for c in scan.candidates if c.drop)
    languages: dict[str, Counter[str]] = {}
    for lang in scan.languages.values():
        languages.setdefault(lang, Counter())["files"] += 1
    for cand in scan.candidates:
        languages[cand.language]["documented"] += 1
    for cand in chosen:
        languages[cand.language]["queries"] += 1
    queries = [
        SuiteQuery(key=(c.path, _qualified(c)), text=c.query, spans=[(c.path, *c.span)], tags=[c.language, c.kind],
                   note=f"{c.kind} {_qualified(c)}")
        for c in chosen
    ]
    commit = _git_commit(src)
    meta: dict[str, Any] = {
        "generator": "from-docs",
        "source": str(src),
        "commit": commit,
        "command": command,
        "options": vars(opts),
        "files": {"corpus": len(texts), "with_queries": len({c.path for c in chosen}),
                  "skipped": sum(scan.skipped.values())},
        "skipped_files": counted(scan.skipped),
        "missing_grammars": missing_grammars(),
        "languages": {k: dict(v) for k, v in sorted(languages.items())},
        "documented_declarations": len(scan.candidates),
        "dropped": counted(dropped),
    }
    header = (f"Generated by pytest-chunkeval golden from-docs from {src.name}"
              + (f" at {commit}" if commit else "") + ".\n"
              f"Query: the first sentence of a documentation comment (declaration name removed); relevant: the\n"
              f"documented declaration. Those comments are blanked in corpus/ (line numbers kept).\n"
              f"Command: {command or 'build_from_docs()'}\nCounts and drop reasons: meta.json.")
    write_suite(out, texts, queries, meta, header, name=f"{src.resolve().name}-docs")
    return {**meta, "queries": len(queries), "corpus_files": len(texts)}
