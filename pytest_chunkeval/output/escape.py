"""Text a golden file or a corpus chose (file names, query ids, query text, chunker warnings that quote them),
made inert wherever it is shown.

A file name may hold a newline. Printed as it is, the line after it is a line of its own: in a GitHub Actions log a
line that starts with ``::`` is a workflow command (``::error …::``, ``::add-mask::``), and in Markdown a line that
starts with ``## `` is a heading, so a corpus file could write a fake ``## Verdict: ✅ PASS`` into the report, or an
``<img>`` that loads from anywhere. Every renderer passes such text through one of these:

* :func:`log_text` for the terminal and the log: control characters shown as escapes (``\\n``), never acted on;
* :func:`command_data` and :func:`command_property` for a workflow command's message and its properties, as
  GitHub's toolkit escapes them (``%``, ``\\r``, ``\\n``; and ``:``, ``,`` in properties);
* :func:`md_text` for running Markdown text and :func:`md_code` for a code span: no line break, no HTML, no
  Markdown syntax (``*``, ``_``, ``[``, a table's ``|`` …) taken from the text.
"""
from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_MD_SPECIAL = re.compile(r"([\\`*_\[\]~<>&])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def log_text(text: str) -> str:
    """``text`` on one line, its control characters as visible escapes (``\\n``, ``\\x1b``)."""
    return _CONTROL.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}"
                                   if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}"), text)


def command_data(text: str) -> str:
    """A workflow command's message (after ``::``): GitHub decodes ``%25``, ``%0D`` and ``%0A``."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command_property(text: str) -> str:
    """A workflow command's property value (``file=…,title=…``): also ``:`` and ``,``, which end one."""
    return command_data(text).replace(":", "%3A").replace(",", "%2C")


def md_text(text: str) -> str:
    """``text`` as it reads, inside running Markdown (a list item, a table cell, a ``<summary>``). A table's ``|`` is
    left to the table's renderer, which escapes it in every cell."""
    return _MD_SPECIAL.sub(lambda m: _ENTITIES.get(m.group(1), "\\" + m.group(1)), log_text(text))


def md_cell(text: str) -> str:
    """A table cell: on one line, no HTML, and a ``|`` that does not end the cell. Markdown emphasis is left as the
    cell wrote it (the tables' own cells are names and numbers; a path's underscores must not turn into ``\\_``)."""
    return "".join(_ENTITIES.get(c, c) for c in log_text(text)).replace("|", "\\|")


def md_code(text: str) -> str:
    """``text`` as a code span, on one line, whatever backticks it holds (in a table, the renderer escapes ``|``)."""
    one_line = log_text(text)
    longest = max((len(run) for run in re.findall(r"`+", one_line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if one_line.startswith("`") or one_line.endswith("`") or not one_line.strip() else ""
    return f"{fence}{pad}{one_line}{pad}{fence}"
