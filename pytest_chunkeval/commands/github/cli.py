"""``chunkeval comment``: post (or update) the Markdown report as a pull-request comment.

Exit status: 0 posted, dry run, or not permitted (a 403/404: a fork's pull request gets a read-only token; the
evaluation's own result must not turn red over a comment it could never post); 1 any other API or network error
(a redirect, an answer that is not the JSON asked for, no full answer within ``--timeout``); 2 a usage error (no
repository, pull request or token); 3 still rate-limited after the bounded retries (secondary limits included).
Both "not posted" outcomes leave a note in ``$GITHUB_STEP_SUMMARY`` so the reviewer knows where the report is
instead. The token is read from ``GITHUB_TOKEN`` only: a flag would put it in the process list and in shell history.
It is stripped of the white space around it (a copy-paste's newline), refused (exit 2, in a line that does not show
it) when it still holds a control character, and never shown: every line, note and body the command writes goes
through :class:`Say`, which takes it out (:mod:`.secret`).

Only a comment that starts with the marker **and** was written by the identity the token acts as (``--author``;
by default ``GET /user``'s login, or ``github-actions[bot]`` for the workflow's token) is edited: anyone may post a
comment that starts with the marker, and the summary names such comments instead of touching them.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_chunkeval.commands.github.api import Client, GitHubError, RateLimited
from pytest_chunkeval.commands.github.comment import (
    DEFAULT_MARKER,
    FORBIDDEN_NOTE,
    RATE_LIMIT_NOTE,
    Posted,
    append_note,
    build_body,
    foreign_note,
    marker_text,
    not_permitted,
    post,
    token_author,
)
from pytest_chunkeval.commands.github.secret import Redactor, TokenError, clean_token
from pytest_chunkeval.output.escape import log_text

EXIT_API_ERROR = 1
EXIT_USAGE = 2
EXIT_RATE_LIMITED = 3
DEFAULT_API_URL = "https://api.github.com"
MAX_SECONDS = 24 * 3600.0  # --timeout and --max-wait: a day is past any job's time limit


def add_parser(top: Any) -> None:
    """``chunkeval comment`` under the top-level command's subparsers."""
    sub = top.add_parser(
        "comment", help="post or update the Markdown report as a pull-request comment",
        description="Post the Markdown report as one pull-request comment, edited in place on later runs. "
                    "The token comes from the GITHUB_TOKEN environment variable. Exit 0: posted, dry run, or not "
                    "permitted (403/404, e.g. a fork's read-only token); 1: other API error; 2: usage; 3: still "
                    "rate-limited after the retries.")
    sub.set_defaults(handler=run)
    sub.add_argument("--markdown", type=Path, default=Path("chunkeval-report.md"),
                     help="the report (--chunkeval-markdown); when missing, the comment says no report was written "
                          "(%(default)s)")
    sub.add_argument("--marker", default=DEFAULT_MARKER,
                     help="hidden HTML comment that identifies this comment; give each job its own to keep "
                          "separate comments (%(default)s)")
    sub.add_argument("--link", help="URL of the full report (default: this workflow run, from GITHUB_SERVER_URL, "
                                    "GITHUB_REPOSITORY and GITHUB_RUN_ID)")
    sub.add_argument("--artifact", default="chunkeval-report",
                     help="artifact name the footer points to (%(default)s)")
    sub.add_argument("--repo", help="OWNER/NAME (default: GITHUB_REPOSITORY)")
    sub.add_argument("--pr", type=int, help="pull request number (default: pull_request.number of GITHUB_EVENT_PATH)")
    sub.add_argument("--api-url", help=f"REST API base (default: GITHUB_API_URL, else {DEFAULT_API_URL})")
    sub.add_argument("--author",
                     help="login whose marked comment is ours to edit (default: the token's own, from GET /user; "
                          "github-actions[bot] for the workflow's GITHUB_TOKEN, which cannot read /user)")
    sub.add_argument("--max-wait", type=float, default=120.0,
                     help="seconds a rate limit may hold the command, all retries together (%(default)s)")
    sub.add_argument("--timeout", type=float, default=30.0,
                     help="seconds one request may take, from connecting to the last byte of the answer "
                          "(%(default)s)")
    sub.add_argument("--dry-run", action="store_true", help="print the body instead of posting it; no API call")
    sub.add_argument("--output", type=Path, help="write the body to this file instead of posting it (a dry run)")


def run_link(env: Mapping[str, str]) -> str | None:
    """The workflow run's page, where the job summary and the report artifact are."""
    parts = [env.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")]
    return f"{parts[0].rstrip('/')}/{parts[1]}/actions/runs/{parts[2]}" if all(parts) else None


def event_pr_number(env: Mapping[str, str]) -> int | None:
    """``pull_request.number`` of the event file: a positive integer, else None (a file that cannot be read, is
    not JSON, is nested past the parser, or holds 1.5, ``true`` or ``1e400`` there)."""
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
        number = event["pull_request"]["number"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    return number if isinstance(number, int) and not isinstance(number, bool) and number > 0 else None


def _summary_path(env: Mapping[str, str]) -> Path | None:
    return Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None


class Say:
    """Everything the command shows or writes goes through here, and so through the token's redactor: its lines on
    stdout and stderr (each on one line, ``log_text``), the notes it adds to the job summary, and the body it
    prints, writes or posts. Whatever an answer, an exception or the report quotes, the token is not in it."""

    def __init__(self, redact: Redactor) -> None:
        self.redact = redact

    def out(self, message: str) -> None:
        print(f"chunkeval comment: {log_text(self.redact(message))}")

    def fail(self, message: str, code: int) -> int:
        print(f"chunkeval comment: {log_text(self.redact(message))}", file=sys.stderr)
        return code

    def body(self, text: str) -> str:
        """The comment's text, as it is printed, written or posted."""
        return self.redact(text)

    def note(self, summary: Path | None, note: str) -> None:
        """A note in the job summary; one that cannot be written is a line on stderr (the exit status stays)."""
        try:
            append_note(summary, self.redact(note))
        except OSError as exc:
            self.fail(f"could not add a note to the job summary {summary}: {exc.strerror or exc}", 0)


def _usage(args: argparse.Namespace, env: Mapping[str, str]) -> str | None:
    """What is wrong with the numbers and the URL given, or None."""
    for flag, value, low in (("--timeout", args.timeout, 0.0), ("--max-wait", args.max_wait, 0.0)):
        if not (math.isfinite(value) and (value > low if flag == "--timeout" else value >= low)
                and value <= MAX_SECONDS):
            what = "more than 0" if flag == "--timeout" else "at least 0"
            return f"{flag} must be a number of seconds, {what} and at most {MAX_SECONDS:g}, not {value!r}"
    if args.pr is not None and args.pr < 1:
        return f"--pr must be a pull request number (1 or more), not {args.pr}"
    api_url = args.api_url or env.get("GITHUB_API_URL") or DEFAULT_API_URL
    where = "--api-url" if args.api_url else "GITHUB_API_URL" if env.get("GITHUB_API_URL") else "the API URL"
    parts = urllib.parse.urlsplit(api_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"{where} must be an http(s) URL such as {DEFAULT_API_URL}, not {api_url!r}"
    return None


def run(args: argparse.Namespace, argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    say = Say(Redactor.of(env.get("GITHUB_TOKEN", "")))
    problem = _usage(args, env)
    if problem:
        return say.fail(problem, EXIT_USAGE)
    try:
        marker = marker_text(args.marker)
    except ValueError as exc:
        return say.fail(str(exc), EXIT_USAGE)
    try:
        markdown: str | None = args.markdown.read_text(encoding="utf-8")
    except FileNotFoundError:
        markdown = None
        say.fail(f"{args.markdown} not found; the comment says the evaluation wrote no report", 0)
    except (OSError, UnicodeDecodeError) as exc:
        return say.fail(f"cannot read {args.markdown}: {exc}", EXIT_USAGE)
    body = build_body(markdown, marker=marker, link=args.link or run_link(env), artifact=args.artifact)
    text = say.body(body.text)
    shown = f"{body.sections - body.left_out} of {body.sections} sections, {len(text):,} characters"

    if args.output is not None:
        try:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(text, encoding="utf-8")
        except OSError as exc:
            return say.fail(f"cannot write the body to {args.output}: {exc.strerror or exc}", EXIT_USAGE)
        say.out(f"wrote the body ({shown}) to {args.output}; nothing posted")
        return 0
    if args.dry_run:
        sys.stdout.write(text)
        return 0
    return _post(args, env, say, text, shown, marker)


def _post(args: argparse.Namespace, env: Mapping[str, str], say: Say, text: str, shown: str, marker: str) -> int:
    repo = args.repo or env.get("GITHUB_REPOSITORY")
    number = args.pr or event_pr_number(env)
    try:
        token = clean_token(env.get("GITHUB_TOKEN", ""))
    except TokenError as exc:
        return say.fail(str(exc), EXIT_USAGE)
    missing = [what for what, value in (("a repository (--repo or GITHUB_REPOSITORY)", repo),
                                         ("a pull request number (--pr or a pull_request event)", number),
                                         ("a token (the GITHUB_TOKEN environment variable)", token)) if not value]
    if missing:
        return say.fail("needs " + " and ".join(missing), EXIT_USAGE)
    assert repo is not None and number is not None
    client = Client(args.api_url or env.get("GITHUB_API_URL") or DEFAULT_API_URL, token, max_wait=args.max_wait,
                    timeout=args.timeout)
    try:
        author = args.author or token_author(client)
        posted = post(client, repo, number, text, marker, author)
    except RateLimited as exc:
        say.note(_summary_path(env), RATE_LIMIT_NOTE)
        return say.fail(f"not posted, still rate-limited: {exc}", EXIT_RATE_LIMITED)
    except GitHubError as exc:
        if not_permitted(exc):
            say.note(_summary_path(env), FORBIDDEN_NOTE)
            say.out(f"not posted: the token cannot write to {repo}#{number} ({exc}); the report is in the job "
                    "summary and the artifact")
            return 0
        return say.fail(f"not posted: {exc}", EXIT_API_ERROR)
    _say_posted(say, posted, author, f"{repo}#{number}", shown, _summary_path(env))
    return 0


def _say_posted(say: Say, posted: Posted, author: str, where: str, shown: str, summary: Path | None) -> None:
    removed = f"; removed {posted.removed} duplicate{'s' if posted.removed != 1 else ''}" if posted.removed else ""
    say.out(f"{posted.action} {posted.url or f'the comment on {where}'} ({shown}){removed}")
    if posted.foreign:
        others = ", ".join(f"{f.author} {f.url}".strip() for f in posted.foreign)
        say.out(f"left alone {len(posted.foreign)} comment(s) with this marker not written by {author}: {others}")
        say.note(summary, foreign_note(posted.foreign, author))
