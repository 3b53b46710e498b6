"""``chunkeval comment`` against a stand-in for GitHub's REST API: a real HTTP server on 127.0.0.1 that keeps a pull
request's comments, pages them as GitHub does (``Link: <...>; rel="next"``) and answers refusals and rate limits
when told to. Every test runs the real command (in-process, or as a process where a traceback would show) over real
HTTP and real files."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pytest_chunkeval.cli import main
from pytest_chunkeval.github.comment import COMMENT_LIMIT, DEFAULT_MARKER, split_sections

ROOT = Path(__file__).resolve().parents[1]
REPO, PR = "octo/widgets", 7
TOKEN = "ghs_test-token-0123456789"


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class FakeGitHub:
    """One repository's pull request ``PR``: its comments, and answers to give before the real ones."""

    url: str = ""
    comments: list[dict[str, Any]] = field(default_factory=list)
    per_page: int = 100  # GitHub's maximum; a test lowers it to get several pages
    queued: list[tuple[int, dict[str, str], dict[str, Any]]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    next_id: int = 1000

    def add(self, body: str) -> dict[str, Any]:
        self.next_id += 1
        comment = {"id": self.next_id, "body": body, "html_url": f"https://github.test/{REPO}/pull/{PR}#c{self.next_id}"}
        self.comments.append(comment)
        return comment

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: Any
               ) -> tuple[int, dict[str, str], Any]:
        if self.queued:
            return self.queued.pop(0)
        listing = f"/repos/{REPO}/issues/{PR}/comments"
        if method == "GET" and path == listing:
            per_page = min(int(query.get("per_page", ["30"])[0]), self.per_page)
            page = int(query.get("page", ["1"])[0])
            items = self.comments[(page - 1) * per_page: page * per_page]
            headers = {}
            if page * per_page < len(self.comments):
                headers["Link"] = (f'<{self.url}{listing}?per_page={per_page}&page={page + 1}>; rel="next", '
                                   f'<{self.url}{listing}?per_page={per_page}&page=99>; rel="last"')
            return 200, headers, items
        if method == "POST" and path == listing:
            return 201, {}, self.add(body["body"])
        match = re.fullmatch(rf"/repos/{REPO}/issues/comments/(\d+)", path)
        if method == "PATCH" and match:
            comment = next((c for c in self.comments if c["id"] == int(match.group(1))), None)
            if comment is None:
                return 404, {}, {"message": "Not Found"}
            comment["body"] = body["body"]
            return 200, {}, comment
        return 404, {}, {"message": "Not Found"}


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    state = FakeGitHub()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            split = urllib.parse.urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            state.requests.append(Recorded(self.command, split.path, urllib.parse.parse_qs(split.query),
                                           dict(self.headers.items()), body))
            status, headers, data = state.answer(self.command, split.path, urllib.parse.parse_qs(split.query), body)
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = _serve

        def log_message(self, format: str, *args: Any) -> None:  # keep the test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def actions_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, github: FakeGitHub) -> Path:
    """The variables a pull_request job gives its steps; returns the step summary file."""
    for key in list(os.environ):
        if key.startswith("GITHUB_"):
            monkeypatch.delenv(key)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": PR}}))
    summary = tmp_path / "step_summary.md"
    summary.write_text("# the evaluation's own summary\n")
    for key, value in {"GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_PATH": str(event), "GITHUB_API_URL": github.url,
                       "GITHUB_SERVER_URL": "https://github.test", "GITHUB_RUN_ID": "4242",
                       "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_TOKEN": TOKEN}.items():
        monkeypatch.setenv(key, value)
    return summary


REPORT = """\
# pytest-chunkeval report

model `sentence-transformers/all-MiniLM-L6-v2`, hybrid retrieval, k=10; embedded 0 texts, 12 from cache

## golden/avap/queries.yaml

| strategy | NDCG@10 file |
|---|---|
| file_level | 0.71 |
| fixed_size | 0.76 |
"""

RUN_URL = f"https://github.test/{REPO}/actions/runs/4242"


def report(tmp_path: Path, text: str = REPORT) -> Path:
    path = tmp_path / "chunkeval-report.md"
    path.write_text(text, encoding="utf-8")
    return path


def comment(*args: str) -> int:
    return main(["comment", *args])


def writes(github: FakeGitHub) -> list[Recorded]:
    return [r for r in github.requests if r.method != "GET"]


def test_creates_the_comment_when_none_is_marked(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    github.add("LGTM")  # a reviewer's comment: not ours, left alone
    github.add("> " + DEFAULT_MARKER + " quoted in a reply")
    assert comment("--markdown", str(report(tmp_path))) == 0
    (post,) = writes(github)
    assert post.method == "POST" and post.path == f"/repos/{REPO}/issues/{PR}/comments"
    body = post.body["body"]
    assert body.startswith(DEFAULT_MARKER + "\n# pytest-chunkeval report") and "| fixed_size | 0.76 |" in body
    assert f"[the workflow run]({RUN_URL})" in body.splitlines()[-1]
    assert [c["body"] for c in github.comments[:2]] == ["LGTM", "> " + DEFAULT_MARKER + " quoted in a reply"]
    assert "created https://github.test/" in capsys.readouterr().out
    assert actions_env.read_text() == "# the evaluation's own summary\n"  # posted: no note


def test_updates_the_marked_comment_in_place_on_a_later_page(tmp_path: Path, github: FakeGitHub,
                                                             actions_env: Path) -> None:
    github.per_page = 2
    for n in range(3):
        github.add(f"discussion {n}")
    ours = github.add(DEFAULT_MARKER + "\nthe previous run's report")
    github.add("a later reply")
    assert comment("--markdown", str(report(tmp_path))) == 0
    pages = [r.query.get("page", ["1"])[0] for r in github.requests if r.method == "GET"]
    assert pages == ["1", "2"]  # stopped at the page that holds it
    (patch,) = writes(github)
    assert patch.method == "PATCH" and patch.path == f"/repos/{REPO}/issues/comments/{ours['id']}"
    assert len(github.comments) == 5 and "| fixed_size | 0.76 |" in ours["body"]

    # Another marker is another comment: the first job's is not touched.
    assert comment("--markdown", str(report(tmp_path)), "--marker", "pytest-chunkeval: pystdlib") == 0
    created = writes(github)[-1]
    assert created.method == "POST" and created.body["body"].startswith("<!-- pytest-chunkeval: pystdlib -->\n")
    assert len(github.comments) == 6


def big_report(sections: int = 60) -> str:
    """Sections of ~3,000 characters, each with a table and a details block that holds a `## ` line of its own."""
    parts = ["# pytest-chunkeval report\n\nmodel `m`, hybrid retrieval, k=10\n"]
    for n in range(sections):
        rows = "".join(f"| s{n}_{r} | {'0.5' * 20} |\n" for r in range(30))
        details = "<details>\n<summary>lost queries</summary>\n\n## inside details\n\n" + "- q\n" * 50 + "</details>\n"
        parts.append(f"## suite {n}\n\n| strategy | NDCG |\n|---|---|\n{rows}\n{details}")
    return "\n".join(parts)


def test_a_report_over_the_limit_is_cut_between_whole_sections(tmp_path: Path, github: FakeGitHub,
                                                              actions_env: Path) -> None:
    text = big_report()
    assert len(text) > 2 * COMMENT_LIMIT
    assert comment("--markdown", str(report(tmp_path, text))) == 0
    body = writes(github)[0].body["body"]
    assert len(body) < COMMENT_LIMIT
    content, footer = body.rsplit("\n---\n", 1)
    sections = split_sections(text)
    kept = split_sections(content.removeprefix(DEFAULT_MARKER + "\n"))
    assert len(sections) == 61 and 1 < len(kept) < len(sections)
    assert kept == sections[:len(kept)]  # whole sections, in order, each intact (tables and details closed)
    assert content.count("<details>") == content.count("</details>") == len(kept) - 1
    assert f"_{len(sections) - len(kept)} of 60 sections did not fit in a comment" in footer
    assert f"[the workflow run]({RUN_URL})" in footer and "`chunkeval-report`" in footer


def test_sections_split_only_at_headings_outside_details_and_code() -> None:
    text = "# r\n\n## a\n\n<details>\n\n## in details\n</details>\n\n```\n## in code\n```\n### b\n|x|\n"
    assert split_sections(text) == ["# r\n\n", "## a\n\n<details>\n\n## in details\n</details>\n\n```\n## in code\n```\n",
                                    "### b\n|x|\n"]


@pytest.mark.parametrize("status", [403, 404])
def test_a_token_that_cannot_write_leaves_a_note_and_exits_0(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                             status: int) -> None:
    """A pull request from a fork runs with a read-only token: listing works, posting is refused."""
    github.queued = [(200, {}, []), (status, {}, {"message": "Resource not accessible by integration"})]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "pytest_chunkeval", "comment", "--markdown",
                             str(report(tmp_path))], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    output = result.stdout + result.stderr
    assert "Traceback" not in output and len(output.strip().splitlines()) == 1
    assert f"HTTP {status}" in output and f"/repos/{REPO}/issues/{PR}/comments" in output
    assert "the token cannot write" in output
    summary = actions_env.read_text()
    assert summary.startswith("# the evaluation's own summary\n")
    assert "the PR comment was not posted: the token cannot write to this pull request (a fork's read-only token)" \
        in summary
    assert [r.method for r in github.requests] == ["GET", "POST"] and github.comments == []


def test_other_errors_name_the_status_and_endpoint(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    github.queued = [(500, {}, {"message": "Server Error"})]
    assert comment("--markdown", str(report(tmp_path))) == 1
    err = capsys.readouterr().err
    assert f"GET /repos/{REPO}/issues/{PR}/comments: HTTP 500 (Server Error)" in err
    assert actions_env.read_text() == "# the evaluation's own summary\n"


def test_a_rate_limit_is_waited_out_then_the_comment_is_posted(tmp_path: Path, github: FakeGitHub,
                                                               actions_env: Path) -> None:
    github.queued = [(403, {"Retry-After": "1"}, {"message": "You have exceeded a secondary rate limit"}),
                     (429, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()))}, {})]
    started = time.monotonic()
    assert comment("--markdown", str(report(tmp_path)), "--max-wait", "5") == 0
    assert time.monotonic() - started >= 1.0  # it waited as asked
    assert [r.method for r in github.requests] == ["GET", "GET", "GET", "POST"] and len(github.comments) == 1


def test_a_rate_limit_that_outlasts_the_wait_exits_3_with_a_note(tmp_path: Path, github: FakeGitHub,
                                                                 actions_env: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    github.queued = [(429, {"Retry-After": "3600"}, {"message": "slow down"})]
    started = time.monotonic()
    assert comment("--markdown", str(report(tmp_path)), "--max-wait", "2") == 3
    assert time.monotonic() - started < 2  # an hour's wait is not started
    assert "still rate-limited" in capsys.readouterr().err and len(github.requests) == 1
    assert "rate limit did not clear in time" in actions_env.read_text()

    github.queued = [(403, {"Retry-After": "0"}, {})] * 3  # the retries are bounded too: 1 + 2
    assert comment("--markdown", str(report(tmp_path)), "--max-wait", "2") == 3
    assert len(github.requests) == 1 + 3


def test_the_token_goes_in_a_header_and_never_in_the_output(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert comment("--markdown", str(report(tmp_path))) == 0
    github.queued = [(500, {}, {"message": "boom"})]
    assert comment("--markdown", str(report(tmp_path))) == 1
    assert all(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in github.requests)
    assert not [r for r in github.requests if TOKEN in r.path + json.dumps(r.query) + json.dumps(r.body)]
    out = capsys.readouterr()
    assert TOKEN not in out.out + out.err + actions_env.read_text()
    with pytest.raises(SystemExit):
        comment("--token", TOKEN)  # there is no such flag


def test_a_next_page_off_the_api_host_is_not_followed(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    github.queued = [(200, {"Link": '<http://elsewhere.test/steal?page=2>; rel="next"'}, [])]
    assert comment("--markdown", str(report(tmp_path))) == 1
    assert "refusing to follow a link off 127.0.0.1" in capsys.readouterr().err and len(github.requests) == 1


def test_dry_run_writes_the_body_and_calls_no_api(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "body.md"
    assert comment("--markdown", str(report(tmp_path)), "--output", str(out), "--link", "https://x.test/r") == 0
    body = out.read_text()
    assert body.startswith(DEFAULT_MARKER + "\n# pytest-chunkeval report") and "[the workflow run](https://x.test/r)" in body
    assert f"wrote the body (1 of 1 sections, {len(body):,} characters) to {out}" in capsys.readouterr().out
    assert comment("--markdown", str(report(tmp_path)), "--dry-run") == 0
    assert capsys.readouterr().out.startswith(DEFAULT_MARKER)
    assert github.requests == []


def test_without_a_report_the_comment_says_so(tmp_path: Path, github: FakeGitHub, actions_env: Path) -> None:
    """A run that failed before writing a report replaces the last run's verdict instead of leaving it standing."""
    github.add(DEFAULT_MARKER + "\nan old, green report")
    assert comment("--markdown", str(tmp_path / "missing.md")) == 0
    assert "the evaluation wrote no report" in github.comments[0]["body"] and RUN_URL in github.comments[0]["body"]


@pytest.mark.parametrize("missing", ["GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH"])
def test_what_it_needs_to_post_is_named(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                        missing: str) -> None:
    monkeypatch.delenv(missing)
    assert comment("--markdown", str(report(tmp_path))) == 2
    assert capsys.readouterr().err.startswith("chunkeval comment: needs ") and github.requests == []
    flags = {"GITHUB_TOKEN": [], "GITHUB_REPOSITORY": ["--repo", REPO], "GITHUB_EVENT_PATH": ["--pr", str(PR)]}
    if flags[missing]:
        assert comment("--markdown", str(report(tmp_path)), *flags[missing]) == 0 and len(github.comments) == 1
