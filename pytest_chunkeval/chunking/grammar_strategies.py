"""The ADR's grammar strategies for any language, configured from the ini instead of written in Python.

A team with its own DSL names its files::

    chunkeval_grammar = grammar/lang.lark                 # -> ebnf_metadata, ebnf_full (Lark engine)
    chunkeval_grammar_config = grammar/lang_config.json   # -> grammar_definition, grammar_blocks (config engine)

Each setting takes several files (one a line); with more than one of a kind, each strategy name gets the
language as a suffix (``grammar_definition_avap``), so two languages never share a name. A Lark grammar's language
is its file name (``avap.lark`` -> ``avap``) and it handles the file extensions of the config of the same language,
else ``.<language>``. The files are read when the strategies are built: an invalid grammar or config fails those
strategies' own items with ``file:line: reason``, and every other strategy is still evaluated.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.contract import Registration
from pytest_chunkeval.chunking.strategy_base import WINDOW

#: kind -> the engine setting that configures it
LARK_KINDS = ("ebnf_metadata", "ebnf_full")
CONFIG_KINDS = ("grammar_definition", "grammar_blocks")
REF = f"{__name__}:build"


def build(kind: str, path: str, extensions: str = "", name: str = "") -> Any:
    """The strategy ``kind`` on the grammar or config at ``path``, named ``name`` (default: the kind): what every
    registration here calls.

    Strings only, so a worker process (the Ray engine) can rebuild it from ``Registration.ref``/``args``.
    Chunks of the config engine are sized to the window of the model in use, in its own tokens, header included,
    so none is truncated (blocks larger than that are split with their signature as context).
    """
    if kind in CONFIG_KINDS:
        from pytest_chunkeval.chunking.regex_config.chunker import GrammarChunker

        extras = kind == "grammar_definition"
        return GrammarChunker(Path(path), name=name or kind, signatures=extras, overlap=extras,
                              max_chunk_size=WINDOW, size_unit="tokens")
    if kind in LARK_KINDS:
        from pytest_chunkeval.chunking.lark.strategies import EbnfFullChunker, EbnfMetadataChunker

        cls = EbnfMetadataChunker if kind == "ebnf_metadata" else EbnfFullChunker
        return cls(Path(path), extensions=tuple(e for e in extensions.split(",") if e), name=name or kind)
    raise ValueError(f"unknown grammar strategy kind {kind!r}")


def config_language(path: Path) -> tuple[str, tuple[str, ...]]:
    """A config's ``language`` and ``file_extensions``, read leniently: naming must not fail on a broken config
    (building its strategies reports the problem, with its line)."""
    try:
        data = json.loads(path.read_text("utf-8"))
        language = str(data.get("language") or path.stem)
        extensions = tuple(str(e) for e in data.get("file_extensions") or ())
    except (OSError, ValueError, AttributeError, TypeError):
        return path.stem, ()
    return language, extensions


def registrations(grammars: list[Path], configs: list[Path], setting: str = "ini") -> list[Registration]:
    """The strategies the grammar settings ask for, named ``<kind>`` (``<kind>_<language>`` when several)."""
    found: list[Registration] = []
    languages = {path: config_language(path) for path in configs}
    for path in configs:
        language = languages[path][0]
        for kind in CONFIG_KINDS:
            name = kind if len(configs) == 1 else f"{kind}_{language}"
            found.append(_registration(name, kind, path, "", f"{setting} chunkeval_grammar_config: {path.name}"))
    for path in grammars:
        language = path.stem
        exts = next((e for lang, e in languages.values() if lang == language and e), (f".{language}",))
        for kind in LARK_KINDS:
            name = kind if len(grammars) == 1 else f"{kind}_{language}"
            found.append(_registration(name, kind, path, ",".join(exts), f"{setting} chunkeval_grammar: {path.name}"))
    return found


def _registration(name: str, kind: str, path: Path, extensions: str, provider: str) -> Registration:
    args = (kind, str(path), extensions, name)

    def factory() -> Any:
        return build(*args)

    return Registration(name, factory, f"{path}:1", source="grammar", ref=REF, args=args, provider=provider)
