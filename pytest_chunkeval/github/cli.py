"""``chunkeval comment``: post (or update) the Markdown report as a pull-request comment.

Exit status: 0 posted, dry run, or not permitted (a 403/404: a fork's pull request gets a read-only token; the
evaluation's own result must not turn red over a comment it could never post); 1 any other API or network error
(a redirect, an answer that is not the JSON asked for, no full answer within ``--timeout``); 2 a usage error (no
repository, pull request or token); 3 still rate-limited after the bounded retries (secondary limits included).
Both "not posted" outcomes leave a note in ``$GITHUB_STEP_SUMMARY`` so the reviewer knows where the report is
instead. The token is read from ``GITHUB_TOKEN`` only: a flag would put it in the process list and in shell history.

Only a comment that starts with the marker **and** was written by the identity the token acts as (``--author``;
by default ``GET /user``'s login, or ``github-actions[bot]`` for the workflow's token) is edited: anyone may post a
comment that starts with the marker, and the summary names such comments instead of touching them.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_chunkeval.github.api import Client, GitHubError, RateLimited
from pytest_chunkeval.github.comment import (
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
from pytest_chunkeval.output.escape import log_text

EXIT_API_ERROR = 1
EXIT_USAGE = 2
EXIT_RATE_LIMITED = 3
DEFAULT_API_URL = "https://api.github.com"


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
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
        return int(event["pull_request"]["number"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _summary_path(env: Mapping[str, str]) -> Path | None:
    return Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None


def _fail(message: str, code: int) -> int:
    print(f"chunkeval comment: {log_text(message)}", file=sys.stderr)
    return code


def run(args: argparse.Namespace, argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    try:
        marker = marker_text(args.marker)
    except ValueError as exc:
        return _fail(str(exc), EXIT_USAGE)
    try:
        markdown: str | None = args.markdown.read_text(encoding="utf-8")
    except FileNotFoundError:
        markdown = None
        print(f"chunkeval comment: {args.markdown} not found; the comment says the evaluation wrote no report",
              file=sys.stderr)
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {args.markdown}: {exc}", EXIT_USAGE)
    body = build_body(markdown, marker=marker, link=args.link or run_link(env), artifact=args.artifact)
    shown = f"{body.sections - body.left_out} of {body.sections} sections, {len(body.text):,} characters"

    if args.output is not None:
        args.output.write_text(body.text, encoding="utf-8")
        print(f"chunkeval comment: wrote the body ({shown}) to {args.output}; nothing posted")
        return 0
    if args.dry_run:
        sys.stdout.write(body.text)
        return 0

    repo = args.repo or env.get("GITHUB_REPOSITORY")
    number = args.pr or event_pr_number(env)
    token = env.get("GITHUB_TOKEN", "")
    missing = [what for what, value in (("a repository (--repo or GITHUB_REPOSITORY)", repo),
                                         ("a pull request number (--pr or a pull_request event)", number),
                                         ("a token (the GITHUB_TOKEN environment variable)", token)) if not value]
    if missing:
        return _fail("needs " + " and ".join(missing), EXIT_USAGE)
    assert repo is not None and number is not None
    client = Client(args.api_url or env.get("GITHUB_API_URL") or DEFAULT_API_URL, token, max_wait=args.max_wait,
                    timeout=args.timeout)
    try:
        author = args.author or token_author(client)
        posted = post(client, repo, number, body.text, marker, author)
    except RateLimited as exc:
        append_note(_summary_path(env), RATE_LIMIT_NOTE)
        return _fail(f"not posted, still rate-limited: {exc}", EXIT_RATE_LIMITED)
    except GitHubError as exc:
        if not_permitted(exc):
            append_note(_summary_path(env), FORBIDDEN_NOTE)
            print(f"chunkeval comment: not posted: the token cannot write to {repo}#{number} "
                  f"({log_text(str(exc))}); the report is in the job summary and the artifact")
            return 0
        return _fail(f"not posted: {exc}", EXIT_API_ERROR)
    _say_posted(posted, author, f"{repo}#{number}", shown, _summary_path(env))
    return 0


def _say_posted(posted: Posted, author: str, where: str, shown: str, summary: Path | None) -> None:
    removed = f"; removed {posted.removed} duplicate{'s' if posted.removed != 1 else ''}" if posted.removed else ""
    print(f"chunkeval comment: {posted.action} {log_text(posted.url) or f'the comment on {where}'} ({shown})"
          f"{removed}")
    if posted.foreign:
        others = ", ".join(log_text(f"{f.author} {f.url}".strip()) for f in posted.foreign)
        print(f"chunkeval comment: left alone {len(posted.foreign)} comment(s) with this marker not written by "
              f"{log_text(author)}: {others}")
        append_note(summary, foreign_note(posted.foreign, author))
