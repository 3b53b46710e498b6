"""``chunkeval comment`` against a stand-in for GitHub's REST API (tests/github_stub.py: a real HTTP server on
127.0.0.1). Every test runs the real command (in-process, or as a process where a traceback would show) over real
HTTP and real files; in-process, the client's clock is a fake one (the ``clock`` fixture, tests/conftest.py), so no test sleeps.
tests/test_github_hostile.py holds the hostile servers and comments."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from github_client import LISTING, NOW, FakeClock, calls, comment, report
from github_stub import PR, REPO, TOKEN, FakeGitHub, Recorded

from pytest_chunkeval.commands.github.comment import COMMENT_LIMIT, DEFAULT_MARKER, split_sections

ROOT = Path(__file__).resolve().parents[1]
RUN_URL = f"https://github.test/{REPO}/actions/runs/4242"

pytestmark = pytest.mark.usefixtures("clock")  # in-process, the client's clock is the fake one


def writes(github: FakeGitHub) -> list[Recorded]:
    return [r for r in github.requests if r.method != "GET"]


def test_creates_the_comment_when_none_is_marked(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    github.add("LGTM", author="reviewer")  # a reviewer's comment: not ours, left alone
    github.add("> " + DEFAULT_MARKER + " quoted in a reply", author="reviewer")
    assert comment("--markdown", str(report(tmp_path))) == 0
    # Who the token writes as, the comments, the post, and the comments again (an overlapping run's duplicate).
    assert calls(github) == ["GET /user", f"GET {LISTING}", f"POST {LISTING}", f"GET {LISTING}"]
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
        github.add(f"discussion {n}", author="reviewer")
    ours = github.add(DEFAULT_MARKER + "\nthe previous run's report")
    github.add("a later reply", author="reviewer")
    assert comment("--markdown", str(report(tmp_path))) == 0
    # Every page is read: a duplicate of ours (or someone else's marked comment) may be on any of them.
    assert [c for c in calls(github) if c.startswith("GET")] == [
        "GET /user", f"GET {LISTING}", f"GET {LISTING} page 2", f"GET {LISTING} page 3"]
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
    assert calls(github) == ["GET /user", f"GET {LISTING}", f"POST {LISTING}"] and github.comments == []


def test_other_errors_name_the_status_and_endpoint(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    github.queued = [(500, {}, {"message": "Server Error"})]
    assert comment("--markdown", str(report(tmp_path))) == 1
    err = capsys.readouterr().err
    assert f"GET /repos/{REPO}/issues/{PR}/comments: HTTP 500 (Server Error)" in err
    assert actions_env.read_text() == "# the evaluation's own summary\n"


def test_a_rate_limit_is_waited_out_then_the_comment_is_posted(tmp_path: Path, github: FakeGitHub,
                                                               actions_env: Path, clock: FakeClock) -> None:
    github.queued = [(403, {"Retry-After": "1"}, {"message": "You have exceeded a secondary rate limit"}),
                     (429, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(NOW) + 3)}, {})]
    assert comment("--markdown", str(report(tmp_path)), "--max-wait", "5") == 0
    assert clock.waits == [1.0, 3.0]  # as asked: Retry-After, then until the reset
    assert calls(github)[1:5] == [f"GET {LISTING}"] * 3 + [f"POST {LISTING}"] and len(github.comments) == 1


def test_a_rate_limit_that_outlasts_the_wait_exits_3_with_a_note(tmp_path: Path, github: FakeGitHub,
                                                                 actions_env: Path, clock: FakeClock,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    github.queued = [(429, {"Retry-After": "3600"}, {"message": "slow down"})]
    assert comment("--markdown", str(report(tmp_path)), "--max-wait", "2") == 3
    assert clock.waits == []  # an hour's wait is not started
    assert "still rate-limited" in capsys.readouterr().err and calls(github) == ["GET /user", f"GET {LISTING}"]
    assert "rate limit did not clear in time" in actions_env.read_text()

    github.queued = [(403, {"Retry-After": "0"}, {})] * 3  # the retries are bounded too: 1 + 2
    assert comment("--markdown", str(report(tmp_path)), "--max-wait", "2") == 3
    assert calls(github)[2:] == ["GET /user"] + [f"GET {LISTING}"] * 3 and clock.waits == [0.0, 0.0]


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
    assert "refusing to follow a link off 127.0.0.1" in capsys.readouterr().err
    assert calls(github) == ["GET /user", f"GET {LISTING}"]


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
