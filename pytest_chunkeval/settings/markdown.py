"""The options reference of ``docs/options.md``, made from the settings table so that the page cannot fall behind it.

The page keeps its prose; only the part between the two markers is made here. ``tests/test_docs.py`` fails when the
page holds anything else there and names the command that rewrites it.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

from pytest_chunkeval.settings.setting import Setting
from pytest_chunkeval.settings.table import GROUPS, SETTINGS

START = "<!-- options:start -->"
END = "<!-- options:end -->"
COMMAND = "python -m pytest_chunkeval.settings --markdown"
PAGE = Path("docs") / "options.md"


def reference() -> str:
    """The options tables, one per group, in the table's order."""
    lines = [f"<!-- Made from pytest_chunkeval/settings/table.py by `{COMMAND}`: change the table there. -->", ""]
    for key, (title, explained) in GROUPS.items():
        lines += [f"### {title}", "", explained, "", "| command line | ini | value | default | what it does |",
                  "|---|---|---|---|---|"]
        lines += [_row(s) for s in SETTINGS if s.group == key]
        lines.append("")
    return "\n".join(lines)


def _row(s: Setting) -> str:
    flag = f"`{s.flag}{f' {s.metavar}' if s.metavar else ''}`" if s.flag else ""
    if s.repeatable:
        flag += " (repeatable)"
    ini = f"`{s.ini}`" if s.ini else ""
    value = s.value_text()
    if s.shown_default is not None or s.kind.switch or s.default in ("", [], None):
        default = _text(s.default_text())
    else:
        default = ", ".join(f"`{v}`" for v in (s.default if isinstance(s.default, list) else [s.default]))
    return f"| {flag} | {ini} | {value} | {default} | {_text(s.help)} |"


def _text(text: str) -> str:
    """Help text as a table cell: a quoted name (``'<strategy>::vs-base'``) as code; elsewhere a ``|`` would end
    the cell and a ``<`` start an HTML tag."""
    parts = re.split(r"('[^' ]+')", text)
    return "".join(f"`{part[1:-1]}`" if i % 2 else part.replace("|", "\\|").replace("<", "&lt;")
                   for i, part in enumerate(parts))


def rewrite(page: str) -> str:
    """``page`` with the part between the markers made anew; ``ValueError`` when it lacks the markers."""
    head, start, rest = page.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"the page has no {START} ... {END} markers to write the options reference between")
    return f"{head}{START}\n{reference()}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_chunkeval.settings", description=__doc__)
    parser.add_argument("--markdown", nargs="?", const=PAGE, type=Path, metavar="PAGE",
                        help=f"rewrite the options reference between the markers of PAGE (default {PAGE})")
    parser.add_argument("--check", action="store_true", help="only say whether PAGE is up to date (exit 1 if not)")
    args = parser.parse_args(argv)
    if args.markdown is None:
        print(reference())
        return 0
    page = args.markdown.read_text(encoding="utf-8")
    made = rewrite(page)
    if made == page:
        print(f"{args.markdown}: up to date")
        return 0
    if args.check:
        print(f"{args.markdown}: the options reference differs from the settings table; run `{COMMAND}`")
        return 1
    args.markdown.write_text(made, encoding="utf-8")
    print(f"{args.markdown}: options reference rewritten")
    return 0
