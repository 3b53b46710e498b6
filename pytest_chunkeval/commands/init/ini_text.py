"""A pytest configuration file edited as text, so that everything but the lines added or replaced stays byte for
byte what the user wrote (comments, order, quoting, line endings).

One model for both syntaxes: a section (a TOML table, an INI section) is its header line and its entries, each
entry a key with its first and last line (a TOML array or an INI value may span lines). No parser keeps that
information, hence this small scanner; :mod:`.ini` checks every edit with a real parser before anything is
written, so a case the scanner gets wrong is refused, never written.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

Value = str | Sequence[str]

_KEY_PART = r"""(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)"""
_TOML_KEY = re.compile(rf"\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*=")
_TOML_HEADER = re.compile(rf"\s*\[\s*({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*\]\s*(?:#.*)?$")
_PART = re.compile(_KEY_PART)


@dataclass
class Entry:
    key: str
    first: int  # line index of the key
    last: int  # line index where its value ends


@dataclass
class Section:
    header: int
    end: int  # where new entries go: after the section's last entry, or right after the header
    entries: list[Entry] = field(default_factory=list)


def _dotted(text: str) -> tuple[str, ...]:
    """``tool . "pytest".ini_options`` -> ("tool", "pytest", "ini_options")."""
    parts = []
    for token in _PART.findall(text):
        parts.append(json.loads(token) if token.startswith('"') else token.strip("'"))
    return tuple(parts)


def _value_end(lines: Sequence[str], row: int, col: int) -> int:
    """The line on which a TOML value starting at (row, col) ends: arrays, inline tables and multi-line strings
    may go on over several lines; comments and string contents are not brackets."""
    depth, quote = 0, ""
    for j in range(row, len(lines)):
        depth, quote = _read_toml(lines[j], col if j == row else 0, depth, quote)
        if len(quote) == 1:
            quote = ""  # a one-line string cannot go on: the file is malformed, and the final parse says so
        if depth <= 0 and not quote:
            return j
    return len(lines) - 1


def _read_toml(line: str, k: int, depth: int, quote: str) -> tuple[int, str]:
    """The bracket depth and the open string's quote ("" when none) after reading ``line`` from column ``k``."""
    while k < len(line):
        if quote:
            k, quote = _string_step(line, k, quote)
            continue
        c = line[k]
        if c == "#":
            break
        if line.startswith(('"""', "'''"), k):
            quote, k = line[k:k + 3], k + 3
            continue
        if c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        k += 1
    return depth, quote


def _string_step(line: str, k: int, quote: str) -> tuple[int, str]:
    """One step inside a string opened by ``quote``: an escape (basic strings only), the closing quote (then no
    string is open), or one character."""
    if quote[0] == '"' and line[k] == "\\":
        return k + 2, quote
    if line.startswith(quote, k):
        return k + len(quote), ""
    return k + 1, quote


def toml_sections(lines: Sequence[str]) -> dict[tuple[str, ...], Section]:
    """Every ``[table]`` of a TOML file by its dotted name (``[[array]]`` tables end a section but are not kept)."""
    found: dict[tuple[str, ...], Section] = {}
    current: Section | None = None
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if stripped.startswith("["):
            header = _TOML_HEADER.match(lines[i])
            current = None
            if header and not stripped.startswith("[["):
                current = found.setdefault(_dotted(header.group(1)), Section(header=i, end=i + 1))
            i += 1
            continue
        key = _TOML_KEY.match(lines[i])
        last = _value_end(lines, i, key.end()) if key else i
        if current is not None and key:
            current.entries.append(Entry(".".join(_dotted(key.group(1))), i, last))
            current.end = last + 1
        i = last + 1
    return found


def _ini_comment(line: str) -> bool:
    return line.lstrip()[:1] in ("#", ";")


def ini_sections(lines: Sequence[str]) -> dict[str, Section]:
    """Every ``[section]`` of an INI file as pytest's parser (iniconfig) reads it: a value goes on over the
    indented lines after it, blank and comment lines in between included."""
    found: dict[str, Section] = {}
    current: Section | None = None
    for i, line in enumerate(lines):
        if not line.strip() or _ini_comment(line):
            continue
        if line[0] == "[":
            name = re.split(r"[#;]", line)[0].rstrip()
            current = found.setdefault(name[1:-1], Section(header=i, end=i + 1)) if name.endswith("]") else None
            continue
        if current is None:
            continue
        if line[0].isspace():
            if current.entries:
                current.entries[-1].last = i
        else:
            key = line.split("=", 1)[0]
            current.entries.append(Entry((key.split(":", 1)[0] if ":" in key else key).strip(), i, i))
        current.end = i + 1
    return found


def render(syntax: str, key: str, value: Value, nl: str) -> list[str]:
    """``key = value`` in the file's syntax: TOML strings and arrays, INI values with one list item a line."""
    if syntax == "toml":
        shown = json.dumps(value) if isinstance(value, str) else "[" + ", ".join(json.dumps(v) for v in value) + "]"
        return [f"{key} = {shown}{nl}"]
    if isinstance(value, str):
        return [f"{key} = {value}{nl}"]
    return [f"{key} ={nl}", *(f"    {v}{nl}" for v in value)]


def edit(text: str, section: tuple[str, ...] | str, header: str, values: Mapping[str, Value],
         comments: Mapping[str, str]) -> str:
    """``text`` with ``values`` set in ``section`` (a dotted TOML table name as a tuple, or an INI section name):
    an entry already there is replaced where it stands (its comment kept), the others are added with a comment
    line each after the section's last entry; a missing section is appended at the end under ``header``."""
    syntax = "toml" if isinstance(section, tuple) else "ini"
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += nl
    found = toml_sections(lines).get(section) if isinstance(section, tuple) else ini_sections(lines).get(section)
    present = {e.key: e for e in found.entries} if found else {}
    block: list[str] = []
    for key, value in values.items():
        if key not in present:
            block += [f"# {comments[key]}{nl}", *render(syntax, key, value, nl)]
    if found is None:
        lines += ([nl] if lines and lines[-1].strip() else []) + [f"{header}{nl}", *block]
        return "".join(lines)
    lines[found.end:found.end] = block
    for entry in sorted((e for e in found.entries if e.key in values), key=lambda e: -e.first):
        lines[entry.first:entry.last + 1] = render(syntax, entry.key, values[entry.key], nl)
    return "".join(lines)
