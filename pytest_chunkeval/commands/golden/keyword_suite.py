"""``chunkeval golden keywords``: a keyword-phrased copy of any golden suite, evaluated as a suite of its own.

The derived suite shares everything but the query text with its source: the same corpus folder (its ``corpus:``
points at the source's, so chunk embeddings and indexes are reused and only the new queries are embedded), the same
relevant items copied as written, the same tags, ids with ``-kw`` appended (``-`` rather than ``~``, which pytest's
``-k`` cannot parse). It says ``phrasing: keyword`` so reports label its rows, and a header names the command that
wrote it, since it is derived output and never edited by hand. The query text comes from
:func:`pytest_chunkeval.commands.golden.keywords.keyword_query`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from pytest_chunkeval.commands.golden.keywords import KeywordOptions, document_frequency, keyword_query
from pytest_chunkeval.core.golden import GoldenSuite, _load_document, load_golden

KEYWORDS_FILE = "queries.keywords.yaml"
ID_SUFFIX = "-kw"


def default_out(source: Path) -> Path:
    """Where a suite's keyword copy goes by default: ``queries.keywords.yaml`` beside it."""
    return source.parent / KEYWORDS_FILE


def _span_text(suite: GoldenSuite, path: str, lines: tuple[int, int] | None) -> str:
    text = suite.corpus.files[path]
    if lines is None:
        return text
    return "\n".join(text.split("\n")[lines[0] - 1: lines[1]])


def keyword_queries(suite: GoldenSuite, options: KeywordOptions | None = None) -> dict[str, str]:
    """Query id -> keyword phrasing, for every query of a loaded suite (identifier rarity from its corpus)."""
    df = document_frequency(suite.corpus.files.values())
    out = {}
    for q in suite.queries:
        top = max(r.grade for r in q.relevant)
        spans = [_span_text(suite, r.path, r.lines) for r in q.relevant if r.grade == top]
        out[q.id] = keyword_query(q.text, spans, df, options)
    return out


def derive_keyword_suite(source: Path, out: Path | None = None, command: str = "",
                         options: KeywordOptions | None = None) -> GoldenSuite:
    """Write the keyword copy of the suite ``source`` to ``out`` (default :func:`default_out`) and return it loaded
    by the project's validator. Raises :class:`pytest_chunkeval.core.golden.GoldenError` when the source (or, from a
    bug here, the result) does not validate; refuses to overwrite the source itself."""
    suite = load_golden(source)
    out = out if out is not None else default_out(source)
    if out.resolve() == source.resolve():
        raise ValueError(f"{out} is the source suite; write the keyword suite elsewhere")
    raw, _ = _load_document(source)
    phrased = keyword_queries(suite, options)
    records: list[dict[str, Any]] = []
    for item in raw["queries"]:
        qid = str(item["id"])
        record: dict[str, Any] = {"id": qid + ID_SUFFIX, "query": phrased[qid], "relevant": item["relevant"]}
        if item.get("tags"):
            record["tags"] = item["tags"]
        record["note"] = f"from {qid}: " + " ".join(str(item["query"]).split())
        records.append(record)
    corpus = Path(os.path.relpath(suite.corpus_dir, out.resolve().parent)).as_posix()
    name = raw.get("name") or source.parent.name
    body = yaml.safe_dump(
        {"name": f"{name}-keywords", "phrasing": "keyword",
         "description": f"keyword phrasing of {source.name} (chunkeval golden keywords)",
         "corpus": corpus, "queries": records},
        sort_keys=False, default_flow_style=None, allow_unicode=True, width=10_000)
    header = [
        f"Derived by `chunkeval golden keywords` from {source.name}: not edited by hand; regenerate, never edit.",
        "Query: the source query as the keyword list a person types into code search (its content terms, then",
        "identifiers declared or used in the most relevant code, rarest in the corpus first). Same corpus and",
        f"relevance as the source; ids end in {ID_SUFFIX}; each note holds the source sentence.",
    ]
    if command:
        header.append(f"Command: {command}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(f"# {line}\n" for line in header) + body, encoding="utf-8")
    return load_golden(out)
