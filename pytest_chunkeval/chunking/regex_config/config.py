"""Config-driven structure of line-oriented source, the config half: load and validate a language config.

This is the generic half of the ADR's "grammar definition chunking": everything about the language lives in a JSON
config (``strategies/avap_config.json`` for AVAP), validated against ``pytest_chunkeval/schemas/
grammar_config.schema.json`` and then checked for what a schema cannot say (valid regular expressions, references
to blocks and categories that exist). :mod:`.scanner` reads a file with it, and :mod:`.chunker` turns what it reads
into chunks.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

SCHEMA_PACKAGE = "pytest_chunkeval"
SCHEMA_PATH = ("schemas", "grammar_config.schema.json")


class GrammarConfigError(ValueError):
    """A config that is not valid; the message is ``<file>: <json path>: <reason>`` (one line per problem)."""


def load_schema() -> dict[str, Any]:
    """The shipped JSON Schema, read with importlib.resources so it works from a wheel as well as a checkout."""
    res = resources.files(SCHEMA_PACKAGE).joinpath(*SCHEMA_PATH)
    return json.loads(res.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class BlockRule:
    name: str
    open: re.Pattern[str]
    close: re.Pattern[str]
    middle: tuple[re.Pattern[str], ...] = ()
    signature: str | None = None
    top_level_only: bool = False


@dataclass(frozen=True)
class StatementRule:
    category: str
    pattern: re.Pattern[str]
    refers_to: str | None = None


@dataclass(frozen=True)
class TagRule:
    tag: str
    pattern: re.Pattern[str] | None = None
    categories: frozenset[str] = frozenset()
    blocks: frozenset[str] = frozenset()
    chunk_kinds: frozenset[str] = frozenset()


@dataclass(frozen=True)
class GrammarConfig:
    """A validated, compiled config. Build it with :func:`load_config` or :func:`parse_config`."""

    language: str
    version: str
    file_extensions: tuple[str, ...]
    string_delimiters: tuple[str, ...]
    escape_char: str
    comment_line: tuple[str, ...]
    comment_block: tuple[str, str] | None
    blocks: tuple[BlockRule, ...]
    statements: tuple[StatementRule, ...]
    tags: tuple[TagRule, ...]
    source: str = "<config>"

    @property
    def comment_prefix(self) -> str:
        """Marker used to write context headers as comments of the language (the shortest line comment)."""
        return min(self.comment_line, key=len) if self.comment_line else "#"


def load_config(path: Path) -> GrammarConfig:
    """Read, validate and compile ``path``; every problem is reported as ``name:line: $.json.path: reason``."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GrammarConfigError(f"{path.name}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    try:
        return parse_config(data, source=path.name)
    except GrammarConfigError as exc:
        raise GrammarConfigError(_with_lines(str(exc), path.name, text)) from None


def _with_lines(message: str, source: str, text: str) -> str:
    """``name: $.a[1].b: reason`` -> ``name:LINE: $.a[1].b: reason``, LINE where that value starts in the file.

    JSON is YAML, whose composer keeps every node's position (the json module keeps none); a file YAML cannot read
    (a tab where YAML wants none) keeps the path alone, which still names the value exactly.
    """
    import yaml

    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return message
    prefix = f"{source}: $"
    out = []
    for line in message.splitlines():
        if line.startswith(prefix):
            where = line[len(source) + 2 :].split(": ", 1)[0]
            found = _node_line(root, where)
            if found is not None:
                line = f"{source}:{found}: {line[len(source) + 2 :]}"
        out.append(line)
    return "\n".join(out)


def _node_line(root: Any, json_path: str) -> int | None:
    """1-based line of the node at ``$.a[1].b`` (jsonschema's ``json_path``), or of its nearest existing parent."""
    node, line = root, None
    for key, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", json_path.removeprefix("$")):
        line = node.start_mark.line + 1 if node is not None else line
        if node is None:
            break
        if key and hasattr(node, "value") and isinstance(node.value, list) and node.tag.endswith(":map"):
            node = next((v for k, v in node.value if getattr(k, "value", None) == key), None)
        elif index and node.tag.endswith(":seq") and int(index) < len(node.value):
            node = node.value[int(index)]
        else:
            node = None
    return node.start_mark.line + 1 if node is not None else line


Compile = Callable[[str, str], re.Pattern[str]]


def _compile(value: str, where: str, problems: list[str]) -> re.Pattern[str]:
    """``value`` compiled; an invalid expression is a problem at ``where`` (all are reported together) and never
    matches."""
    try:
        return re.compile(value)
    except re.error as exc:
        problems.append(f"{where}: invalid regular expression: {exc}")
        return re.compile(r"(?!)")


def _statement_rules(items: list[dict[str, Any]], rx: Compile, block_names: set[str], source: str,
                     problems: list[str]) -> list[StatementRule]:
    statements: list[StatementRule] = []
    for i, s in enumerate(items):
        pattern = rx(s["pattern"], f"$.statements[{i}].pattern")
        ref = s.get("refers_to")
        if ref is not None and ref not in block_names:
            problems.append(
                f"{source}: $.statements[{i}].refers_to: unknown block {ref!r} (blocks: {sorted(block_names)})"
            )
        if ref is not None and "ref" not in pattern.groupindex:
            problems.append(f"{source}: $.statements[{i}].pattern: refers_to needs a named group (?P<ref>...)")
        statements.append(StatementRule(s["category"], pattern, ref))
    return statements


#: What a semantic tag's name lists are checked against: key -> the word its problems use.
_TAG_REFERENCES = {"categories": "category", "blocks": "block"}


def _tag_rules(items: list[dict[str, Any]], rx: Compile, known: dict[str, set[str]], source: str,
               problems: list[str]) -> list[TagRule]:
    tags: list[TagRule] = []
    for i, t in enumerate(items):
        for key, what in _TAG_REFERENCES.items():
            for j, name in enumerate(t.get(key, [])):
                if name not in known[key]:
                    problems.append(f"{source}: $.semantic_tags[{i}].{key}[{j}]: unknown {what} {name!r}")
        tags.append(TagRule(
            tag=t["tag"],
            pattern=rx(t["pattern"], f"$.semantic_tags[{i}].pattern") if "pattern" in t else None,
            categories=frozenset(t.get("categories", [])),
            blocks=frozenset(t.get("blocks", [])),
            chunk_kinds=frozenset(t.get("chunk_kinds", [])),
        ))
    return tags


def parse_config(data: Any, source: str = "<config>") -> GrammarConfig:
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        raise GrammarConfigError("\n".join(f"{source}: {e.json_path}: {e.message}" for e in errors))

    problems: list[str] = []

    def rx(value: str, where: str) -> re.Pattern[str]:
        return _compile(value, f"{source}: {where}", problems)

    lexer = data["lexer"]
    if not lexer["line_oriented"]:
        problems.append(f"{source}: $.lexer.line_oriented: only line-oriented languages are supported (got false)")
    blocks = tuple(
        BlockRule(
            name=b["name"],
            open=rx(b["open"], f"$.blocks[{i}].open"),
            close=rx(b["close"], f"$.blocks[{i}].close"),
            middle=tuple(rx(m, f"$.blocks[{i}].middle[{j}]") for j, m in enumerate(b.get("middle", []))),
            signature=b.get("signature"),
            top_level_only=bool(b.get("top_level_only", False)),
        )
        for i, b in enumerate(data["blocks"])
    )
    block_names = {b.name for b in blocks}
    statements = _statement_rules(data["statements"], rx, block_names, source, problems)
    categories = {s.category for s in statements}
    tags = _tag_rules(data["semantic_tags"], rx, {"categories": categories, "blocks": block_names}, source, problems)
    if problems:
        raise GrammarConfigError("\n".join(problems))
    cb = lexer["comment_block"]
    return GrammarConfig(
        language=data["language"],
        version=data["version"],
        file_extensions=tuple(data["file_extensions"]),
        string_delimiters=tuple(lexer["string_delimiters"]),
        escape_char=lexer["escape_char"],
        comment_line=tuple(sorted(lexer["comment_line"], key=len, reverse=True)),
        comment_block=(cb["open"], cb["close"]),
        blocks=blocks,
        statements=tuple(statements),
        tags=tuple(tags),
        source=source,
    )
