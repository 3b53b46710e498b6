"""The pull-request comment: its body (the Markdown report, trimmed to fit) and create-or-update by a marker.

One comment per pull request and marker, edited in place on every run, so the conversation holds the latest
verdict once instead of one comment per push. The marker is a hidden HTML comment at the start of the body; two
jobs (two suites, say) keep separate comments with separate markers.

GitHub refuses a comment over 65,536 characters. The report is cut only where a section starts (a ``##`` or ``###``
heading outside a ``<details>`` block and a code fence; a table or a details block never holds one), so every
section shown is whole; a line at the end says how many were left out and links the full report.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_chunkeval.github.api import Client, GitHubError

DEFAULT_MARKER = "<!-- pytest-chunkeval -->"
COMMENT_LIMIT = 65_536  # characters, GitHub's maximum comment body
MARGIN = 1_024  # room for what GitHub counts differently (it counts some characters as more than one)
SECTION = re.compile(r"#{2,3} ")
FENCE = re.compile(r"(```|~~~)")

FORBIDDEN_NOTE = ("**pytest-chunkeval:** the PR comment was not posted: the token cannot write to this pull request "
                  "(a fork's read-only token); the report is in this summary and the artifact.")
RATE_LIMIT_NOTE = ("**pytest-chunkeval:** the PR comment was not posted: GitHub's API rate limit did not clear in "
                   "time; the report is in this summary and the artifact.")


def marker_text(marker: str) -> str:
    """``<!-- x -->`` as given, or bare text wrapped in one; text that would end the HTML comment early is refused."""
    text = marker.strip()
    inner = text[4:-3] if text.startswith("<!--") and text.endswith("-->") else text
    if not inner.strip() or "--" in inner or "\n" in inner:
        raise ValueError(f"a marker is one line of text without '--' (an HTML comment), not {marker!r}")
    return f"<!-- {inner.strip()} -->"


def split_sections(markdown: str) -> list[str]:
    """The report as [preamble, section, ...]: each section from its heading up to the next one's."""
    parts: list[list[str]] = [[]]
    details = 0
    fence: str | None = None
    for line in markdown.splitlines(keepends=True):
        stripped = line.lstrip()
        if fence is None and details == 0 and SECTION.match(line):
            parts.append([])
        parts[-1].append(line)
        opened = FENCE.match(stripped)
        if opened:
            fence = None if fence == opened.group(1) else (fence or opened.group(1))
        elif fence is None:
            details += len(re.findall(r"<details\b", line, re.IGNORECASE))
            details = max(0, details - len(re.findall(r"</details\s*>", line, re.IGNORECASE)))
    return ["".join(p) for p in parts]


@dataclass(frozen=True)
class Body:
    text: str
    sections: int  # sections of the report (headed ones; the preamble is not counted)
    left_out: int


def build_body(markdown: str | None, *, marker: str = DEFAULT_MARKER, link: str | None = None,
               artifact: str = "chunkeval-report", limit: int = COMMENT_LIMIT - MARGIN) -> Body:
    """The comment for a report (None: the run wrote none), at most ``limit`` characters."""
    where = f"[the workflow run]({link})" if link else "the workflow run"
    if markdown is None:
        text = (f"{marker}\n**pytest-chunkeval:** the evaluation wrote no report (set-up or collection failed); "
                f"see the log of {where}.\n")
        return Body(text, 0, 0)
    preamble, *sections = split_sections(markdown.rstrip("\n") + "\n")
    full = f"_Full report: {where}, artifact `{artifact}` (Markdown and JSON)._"

    def footer(left_out: int) -> str:
        if not left_out:
            return f"\n---\n{full}\n"
        return (f"\n---\n_{left_out} of {len(sections)} sections did not fit in a comment "
                f"({COMMENT_LIMIT:,} characters)._ {full}\n")

    head = marker + "\n"
    kept = [preamble]
    for section in sections:
        if len(head) + sum(map(len, kept)) + len(section) + len(footer(len(sections) - len(kept))) > limit:
            break
        kept.append(section)
    left_out = len(sections) - (len(kept) - 1)
    text = head + "".join(kept) + footer(left_out)
    if len(text) > limit:  # the preamble alone does not fit: say so rather than cut it
        kept, left_out = [], len(sections)
        text = head + f"_The report's heading alone is over {limit:,} characters._\n" + footer(left_out)
    return Body(text, len(sections), left_out)


@dataclass(frozen=True)
class Posted:
    action: str  # "created" or "updated"
    url: str


def find_comment(client: Client, repo: str, number: int, marker: str) -> dict[str, Any] | None:
    """The first comment of the pull request whose body starts with the marker (oldest first, every page)."""
    for comment in client.paginate(f"repos/{repo}/issues/{number}/comments?per_page=100"):
        if str(comment.get("body") or "").lstrip().startswith(marker):
            return dict(comment)
    return None


def post(client: Client, repo: str, number: int, body: str, marker: str) -> Posted:
    """Edit the marked comment in place, or create it; raises :class:`GitHubError`."""
    existing = find_comment(client, repo, number, marker)
    if existing is not None:
        resp = client.request("PATCH", f"repos/{repo}/issues/comments/{existing['id']}", {"body": body})
        return Posted("updated", str((resp.data or {}).get("html_url", existing.get("html_url", ""))))
    resp = client.request("POST", f"repos/{repo}/issues/{number}/comments", {"body": body})
    return Posted("created", str((resp.data or {}).get("html_url", "")))


def append_note(summary: Path | None, note: str) -> None:
    """One line in ``$GITHUB_STEP_SUMMARY`` (when the run has one), after what other steps wrote there."""
    if summary is None:
        return
    with summary.open("a", encoding="utf-8") as fh:
        fh.write(f"\n{note}\n")


def not_permitted(err: GitHubError) -> bool:
    """403 or 404 that is not a rate limit: the token may read but not write here (a fork's pull request)."""
    return err.status in (403, 404)

