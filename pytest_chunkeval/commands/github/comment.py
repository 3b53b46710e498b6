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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_chunkeval.commands.github.api import Client, GitHubError, RateLimited
from pytest_chunkeval.output.escape import md_code

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
    full = f"_Full report: {where}, artifact {md_code(artifact)} (Markdown and JSON)._"

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


WORKFLOW_BOT = "github-actions[bot]"  # the author of a comment the workflow's own GITHUB_TOKEN writes


@dataclass(frozen=True)
class Foreign:
    """A comment that starts with the marker but was written by someone else: never edited, never deleted."""

    author: str
    url: str


@dataclass(frozen=True)
class Posted:
    action: str  # "created" or "updated"
    url: str
    removed: int = 0  # our own duplicates deleted (an overlapping run's, or leftovers of one)
    foreign: tuple[Foreign, ...] = ()


def token_author(client: Client) -> str:
    """The login the token acts as: ``GET /user`` names a personal token's user; the workflow's token (an app
    installation's) may not read it (403) and writes as :data:`WORKFLOW_BOT`."""
    try:
        resp = client.request("GET", "user")
    except RateLimited:
        raise
    except GitHubError as err:
        if err.status in (403, 404):
            return WORKFLOW_BOT
        raise
    login = resp.data.get("login") if isinstance(resp.data, dict) else None
    if not isinstance(login, str) or not login.strip():
        raise GitHubError("GET", "/user", resp.status, "the answer names no login")
    return login


def _author(comment: dict[str, Any]) -> str:
    user = comment.get("user")
    return str(user.get("login") or "") if isinstance(user, dict) else ""


def _comments(client: Client, path: str) -> Iterator[dict[str, Any]]:
    for comment in client.paginate(path):
        if not isinstance(comment, dict) or not isinstance(comment.get("id"), int):
            raise GitHubError("GET", "/" + path.split("?")[0], 200, "a listed comment is not an object with an id")
        yield comment


def marked(client: Client, repo: str, number: int, marker: str, author: str
           ) -> tuple[list[dict[str, Any]], list[Foreign]]:
    """The pull request's comments that start with the marker: ours (written by ``author``; logins compare without
    case, as GitHub's do), oldest first, and the others'."""
    ours: list[dict[str, Any]] = []
    foreign: list[Foreign] = []
    for comment in _comments(client, f"repos/{repo}/issues/{number}/comments?per_page=100"):
        if not str(comment.get("body") or "").lstrip().startswith(marker):
            continue
        if _author(comment).lower() == author.lower():
            ours.append(comment)
        else:
            foreign.append(Foreign(_author(comment) or "(unknown)", str(comment.get("html_url") or "")))
    return sorted(ours, key=lambda c: int(c["id"])), foreign


def post(client: Client, repo: str, number: int, body: str, marker: str, author: str = WORKFLOW_BOT) -> Posted:
    """Edit our marked comment in place, or create it; then delete our other marked comments, keeping the newest
    (two runs that both found none both created one). Raises :class:`GitHubError`."""
    ours, foreign = marked(client, repo, number, marker, author)
    if ours:
        *stale, newest = ours
        resp = client.request("PATCH", f"repos/{repo}/issues/comments/{newest['id']}", {"body": body})
        url = _field(resp.data, "html_url") or str(newest.get("html_url", ""))
        return Posted("updated", url, _delete(client, repo, stale), tuple(foreign))
    resp = client.request("POST", f"repos/{repo}/issues/{number}/comments", {"body": body})
    created = resp.data if isinstance(resp.data, dict) and isinstance(resp.data.get("id"), int) else None
    # Another run may have created one between our listing and our post: list again, keep the newest.
    again, _ = marked(client, repo, number, marker, author)
    if created is not None and all(c["id"] != created["id"] for c in again):
        again = sorted([*again, created], key=lambda c: int(c["id"]))  # not listed yet: it is ours all the same
    *stale, newest = again or [created or {}]
    url = str(newest.get("html_url") or _field(created, "html_url"))
    return Posted("created", url, _delete(client, repo, stale), tuple(foreign))


def _delete(client: Client, repo: str, comments: list[dict[str, Any]]) -> int:
    """Delete these comments of ours; one already gone (the other run deleted it) is no error."""
    removed = 0
    for comment in comments:
        try:
            client.request("DELETE", f"repos/{repo}/issues/comments/{comment['id']}")
        except GitHubError as err:
            if err.status != 404 or isinstance(err, RateLimited):
                raise
            continue
        removed += 1
    return removed


def _field(data: Any, key: str) -> str:
    return str(data.get(key) or "") if isinstance(data, dict) else ""


def foreign_note(foreign: tuple[Foreign, ...], author: str) -> str:
    """The job summary's line about marked comments someone else wrote (a reviewer, or someone imitating the
    report): left alone, named, so nobody reads theirs as this run's."""
    named = ", ".join(f"{md_code(f.author)}" + (f" ([comment]({_url(f.url)}))" if _url(f.url) else "")
                      for f in foreign)
    return (f"**pytest-chunkeval:** comments on this pull request that start with this job's marker but were not "
            f"written by {md_code(author)} were left alone ({len(foreign)}: {named}); this run's report is the "
            f"comment by {md_code(author)}.")


def _url(url: str) -> str:
    """A link target from the API's answer, only when it is a plain https URL (anything else is not linked)."""
    return url if re.fullmatch(r"https://[^\s()<>]+", url) else ""


def append_note(summary: Path | None, note: str) -> None:
    """One line in ``$GITHUB_STEP_SUMMARY`` (when the run has one), after what other steps wrote there."""
    if summary is None:
        return
    with summary.open("a", encoding="utf-8") as fh:
        fh.write(f"\n{note}\n")


def not_permitted(err: GitHubError) -> bool:
    """403 or 404 that is not a rate limit: the token may read but not write here (a fork's pull request)."""
    return err.status in (403, 404)

