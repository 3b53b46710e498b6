"""Text a golden file, a corpus, a strategy or a base chose (suite folders, file names, query ids and text, strategy
names, chunker warnings, base refs), made inert wherever it is shown: the one escaping layer of every output.

A file name may hold a newline. Printed as it is, the line after it is a line of its own: in a GitHub Actions log a
line that starts with ``::`` is a workflow command (``::error …::``, ``::add-mask::``), and in Markdown a line that
starts with ``## `` is a heading, so a corpus file could write a fake ``## Verdict: ✅ PASS`` into the report, or an
``<img>`` that loads from anywhere. A raw ESC or BEL moves a terminal's cursor or recolours the log. Each
destination has its function here, and every renderer passes such text through the one of where it goes:

* :func:`log_text` for one name in the terminal or the log: control characters shown as escapes (``\\n``,
  ``\\x1b``), never acted on; :func:`log_lines` for a whole block a renderer wrote (each line so, and no line that
  a runner would read as a workflow command);
* :func:`node_id` for a part of a pytest node id (pytest prints ids in ``-v``, failure headers, JUnit XML);
* :func:`command_data` and :func:`command_property` for a workflow command's message and its properties, as
  GitHub's toolkit escapes them (``%``, ``\\r``, ``\\n``; and ``:``, ``,`` in properties);
* :func:`md_text` for running Markdown text (a heading, a list item), :func:`md_cell` for a table
  cell and :func:`md_code` for a code span: no line break, no HTML, no heading, link, image or table syntax taken
  from the text; :func:`html_text` for text inside an HTML block (a ``<summary>``), where Markdown is not read, so
  its escapes would show as backslashes.

JUnit XML and the JSON report need nothing of their own: pytest writes node ids (made with :func:`node_id`) and the
items' messages (escaped as the log's) into the XML escaped as XML, and ``json.dumps`` escapes every string.
"""
from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# The characters that start Markdown inline syntax wherever they stand: emphasis, code, links and images, HTML
# and entities, strikethrough, table cells (in a cell a link is broken at its "](" alone, and "_" and "*" are kept:
# names read as written). What starts a block (a heading's "#", a list's "-", "1.", an indent) counts only at the
# start of running text, where _BLOCK_START escapes it (a cell starts no block).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]~<>&|])")
_CELL_SPECIAL = re.compile(r"([\\`~<>&|])")
_LINK_MIDDLE = re.compile(r"\](?=[(\[])")  # "](" or "][": a cell's "[0.70–0.90]" stays as written, no link
_BLOCK_START = re.compile(r"^([ \t]*)(\d*)([#+\-=.)])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_COMMAND_START = re.compile(r"^(\s*):")  # the runner reads a line as a command when, stripped, it starts "::"


def _visible(char: str) -> str:
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def log_text(text: str) -> str:
    """``text`` on one line, its control characters as visible escapes (``\\n``, ``\\x1b``, ``\\u2028``)."""
    return _CONTROL.sub(lambda m: _visible(m.group()), text)


def log_lines(text: str) -> str:
    """A block a renderer wrote, line by line: each line's control characters as escapes, and a line that would
    start a workflow command (``::`` after white space) with its first ``:`` as ``\\x3a`` - whatever a name put in
    it, the block holds the lines its renderer meant and no more."""
    return "\n".join(_COMMAND_START.sub(r"\1\\x3a", log_text(line)) for line in text.split("\n"))


def node_id(text: str) -> str:
    """A name as one part of a pytest node id: on one line, and no ``::`` that would read as a part boundary."""
    return log_text(text).replace("::", ":\\x3a")


def command_data(text: str) -> str:
    """A workflow command's message (after ``::``): GitHub decodes ``%25``, ``%0D`` and ``%0A``. Other control
    characters (ESC, BEL) are shown as escapes, never written to the log."""
    return _CONTROL.sub(lambda m: m.group() if m.group() in "\r\n" else _visible(m.group()), text) \
        .replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command_property(text: str) -> str:
    """A workflow command's property value (``file=…,title=…``): also ``:`` and ``,``, which end one."""
    return command_data(text).replace(":", "%3A").replace(",", "%2C")


def _md(pattern: re.Pattern[str], text: str) -> str:
    inline = pattern.sub(lambda m: _ENTITIES.get(m.group(1), "\\" + m.group(1)), log_text(text))
    # Bare URLs are links on GitHub ("https://…", "www.…"): an escaped ":" or "." is not one.
    return inline.replace("://", "\\://").replace("www.", "www\\.")


def md_text(text: str) -> str:
    """``text`` as it reads, inside running Markdown (a heading, a list item): one line, every character that could
    start Markdown or HTML syntax escaped."""
    inline = _md(_MD_SPECIAL, text)
    return _BLOCK_START.sub(lambda m: "&#32;" * len(m.group(1)) + m.group(2) + "\\" + m.group(3), inline, count=1)


def html_text(text: str) -> str:
    """``text`` inside an HTML block (``<summary>…</summary>``): one line, and no tag or entity of its own. GitHub
    reads no Markdown there, so a ``\\_`` would show as written: only ``&``, ``<`` and ``>`` are escaped."""
    return "".join(_ENTITIES.get(char, char) for char in log_text(text))


def md_cell(text: str) -> str:
    """A table cell: on one line, no HTML, link or code span, and a ``|`` (or a ``\\`` before one) that does not end
    the cell. Emphasis characters are left as the cell wrote them (``fixed_size`` reads as written; emphasis
    cannot leave its cell)."""
    return _LINK_MIDDLE.sub(r"\\]", _md(_CELL_SPECIAL, text))


def md_code(text: str) -> str:
    """``text`` as a code span, on one line, whatever backticks it holds (in a table, the renderer escapes ``|``)."""
    one_line = log_text(text)
    longest = max((len(run) for run in re.findall(r"`+", one_line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if one_line.startswith("`") or one_line.endswith("`") or not one_line.strip() else ""
    return f"{fence}{pad}{one_line}{pad}{fence}"

