"""``chunkeval comment`` against a hostile or broken API and hostile comments (issue 28), on the stand-in of
tests/github_stub.py (a real HTTP server on 127.0.0.1) with the fake clock of tests/github_client.py: the token
never leaves the API's host, only our own comment is edited, overlapping runs leave one comment, and an answer that
is not what was asked for, a secondary rate limit, a looping next-page link or a trickling server each end in one
clear message and the documented exit status, never a traceback, a hang or a wrong "not permitted"."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from github_client import LISTING, FakeClock, calls, comment, report
from github_stub import BOT, REPO, TOKEN, FakeGitHub, Recorded, Trickle, serve

from pytest_chunkeval.commands.github.comment import DEFAULT_MARKER

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.usefixtures("clock")


# -- 1. the token stays on the API's host ------------------------------------------------------------------------


@pytest.mark.parametrize("elsewhere", [True, False])
def test_a_redirect_is_an_error_naming_its_host_and_the_token_goes_nowhere(
        tmp_path: Path, github: FakeGitHub, actions_env: Path, capsys: pytest.CaptureFixture[str],
        elsewhere: bool) -> None:
    """A 307 keeps the method and urllib's default opener sent the Authorization header along, to any host."""
    with serve() as thief:
        target = f"http://localhost:{thief.url.rsplit(':', 1)[1]}" if elsewhere else github.url
        github.queued = [(307, {"Location": f"{target}/steal?token=please"}, {})]
        assert comment("--markdown", str(report(tmp_path))) == 1
    err = capsys.readouterr().err
    host = target.removeprefix("http://")
    assert f"GET {LISTING}: HTTP 307 (redirected to {host}; not followed" in err
    assert TOKEN not in err and "steal" not in err
    assert thief.requests == [] and calls(github) == ["GET /user", f"GET {LISTING}"]  # no second request anywhere


# -- 2. only our own comment is ours -----------------------------------------------------------------------------


def test_a_marked_comment_by_someone_else_is_left_alone_and_named_in_the_summary(
        tmp_path: Path, github: FakeGitHub, actions_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = github.add(DEFAULT_MARKER + "\n## Verdict: ✅ PASS", author="mallory")
    assert comment("--markdown", str(report(tmp_path))) == 0
    assert fake["body"] == DEFAULT_MARKER + "\n## Verdict: ✅ PASS" and fake in github.comments  # not edited
    (post,) = writes_of(github)
    assert post.method == "POST" and github.comments[-1]["user"] == {"login": BOT}
    summary = actions_env.read_text()
    assert "were not written by `github-actions[bot]` were left alone (1: `mallory` ([comment](" in summary
    assert f"{fake['html_url']}))" in summary
    assert "left alone 1 comment(s) with this marker not written by github-actions[bot]: mallory" in \
        capsys.readouterr().out

    # The next run edits ours, and still leaves mallory's alone.
    assert comment("--markdown", str(report(tmp_path))) == 0
    assert [r.method for r in writes_of(github)] == ["POST", "PATCH"] and len(github.comments) == 2


def test_the_author_is_the_tokens_own_or_given(tmp_path: Path, github: FakeGitHub, actions_env: Path) -> None:
    """A personal token names its user at /user; --author (the action's comment-author) overrides both."""
    bots = github.add(DEFAULT_MARKER + "\nby the workflow's token")
    github.user = (200, {"login": "OctoCat"})
    mine = github.add(DEFAULT_MARKER + "\nby my token", author="octocat")  # logins compare without case
    assert comment("--markdown", str(report(tmp_path))) == 0
    assert "| fixed_size | 0.76 |" in mine["body"] and bots["body"].endswith("workflow's token")
    assert comment("--markdown", str(report(tmp_path)), "--author", BOT) == 0
    assert "| fixed_size | 0.76 |" in bots["body"]
    assert [c.split(" ")[1] for c in calls(github)].count("/user") == 1  # given, it is not asked


def test_a_user_endpoint_that_fails_otherwise_is_an_error(tmp_path: Path, github: FakeGitHub,
                                                         actions_env: Path) -> None:
    github.user = (500, {"message": "boom"})
    assert comment("--markdown", str(report(tmp_path))) == 1 and writes_of(github) == []


# -- 3. overlapping runs leave one comment -----------------------------------------------------------------------


def test_a_comment_an_overlapping_run_created_meanwhile_is_removed(tmp_path: Path, github: FakeGitHub,
                                                                  actions_env: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    other = github.add(DEFAULT_MARKER + "\nthe other run's report")
    github.queued = [(200, {}, [])]  # our listing came before the other run posted
    assert comment("--markdown", str(report(tmp_path))) == 0
    (ours,) = github.comments
    assert ours["id"] > other["id"] and "| fixed_size | 0.76 |" in ours["body"]
    assert calls(github)[-1] == f"DELETE /repos/{REPO}/issues/comments/{other['id']}"
    assert "; removed 1 duplicate" in capsys.readouterr().out


def test_duplicates_left_by_earlier_runs_are_removed_keeping_the_newest(tmp_path: Path, github: FakeGitHub,
                                                                       actions_env: Path) -> None:
    older, newer = (github.add(DEFAULT_MARKER + f"\nrun {n}") for n in (1, 2))
    github.queued = []
    assert comment("--markdown", str(report(tmp_path))) == 0
    assert github.comments == [newer] and "| fixed_size | 0.76 |" in newer["body"]
    assert f"DELETE /repos/{REPO}/issues/comments/{older['id']}" in calls(github)


def test_a_duplicate_already_deleted_by_the_other_run_is_no_error(tmp_path: Path, github: FakeGitHub,
                                                                 actions_env: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    other = github.add(DEFAULT_MARKER + "\nthe other run's report")
    created = {"id": 5000, "body": DEFAULT_MARKER, "user": {"login": BOT}, "html_url": "https://github.test/c5000"}
    # The listing before the post, the post, the listing after it; then the other run has deleted its own already.
    github.queued = [(200, {}, []), (201, {}, created), (200, {}, [other, created]), (404, {}, {"message": "Not Found"})]
    assert comment("--markdown", str(report(tmp_path))) == 0
    assert calls(github)[-1] == f"DELETE /repos/{REPO}/issues/comments/{other['id']}"
    assert capsys.readouterr().out.startswith("chunkeval comment: created https://github.test/c5000 (1 of 1 sections")


# -- 9. answers that are not what was asked for ------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "said"), [
    (b"<html>Service Unavailable</html>", "HTTP 200 (the answer is not JSON: '<html>Service Unavailable</html>')"),
    ({"message": "a dict where a list belongs"}, "HTTP 200 (expected a JSON list, got dict)"),
    (["not a comment"], "HTTP 200 (a listed comment is not an object with an id)"),
])
def test_an_answer_that_is_not_the_json_asked_for_is_one_message_and_exit_1(tmp_path: Path, github: FakeGitHub,
                                                                            actions_env: Path,
                                                                            answer: object, said: str) -> None:
    github.queued = [(200, {}, answer)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "pytest_chunkeval", "comment", "--markdown",
                             str(report(tmp_path))], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip() == f"chunkeval comment: not posted: GET {LISTING}: {said}"


def test_a_secondary_rate_limit_is_waited_out_not_taken_for_a_forks_token(
        tmp_path: Path, github: FakeGitHub, actions_env: Path, clock: FakeClock,
        capsys: pytest.CaptureFixture[str]) -> None:
    """GitHub sends some secondary limits as a 403 with no rate header at all: wait a minute, as it documents."""
    limited = (403, {}, {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."})
    github.queued = [limited]
    assert comment("--markdown", str(report(tmp_path))) == 0
    assert clock.waits == [60.0] and len(github.comments) == 1 and "fork" not in actions_env.read_text()

    github.queued = [limited] * 3  # bounded: 1 + 2 tries, 120 s in all
    assert comment("--markdown", str(report(tmp_path))) == 3
    assert clock.waits == [60.0, 60.0, 60.0]
    assert "still rate-limited" in capsys.readouterr().err
    assert "rate limit did not clear in time" in actions_env.read_text() and "fork" not in actions_env.read_text()


def test_a_next_page_link_to_itself_stops_at_once(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    itself = (200, {"Link": f'<{github.url}{LISTING}?per_page=100>; rel="next"'}, [])
    github.queued = [itself] * 150
    assert comment("--markdown", str(report(tmp_path))) == 1
    assert "the next-page link points to a page already read; stopped" in capsys.readouterr().err
    assert calls(github) == ["GET /user", f"GET {LISTING}"]


def test_endless_next_pages_stop_at_the_cap(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    github.queued = [(200, {"Link": f'<{github.url}{LISTING}?per_page=100&page={n + 2}>; rel="next"'}, [])
                     for n in range(150)]
    assert comment("--markdown", str(report(tmp_path))) == 1
    assert "more than 100 pages; stopped" in capsys.readouterr().err
    assert len(calls(github)) == 1 + 100 and writes_of(github) == []


def test_a_trickling_server_is_given_one_deadline_per_request(tmp_path: Path, github: FakeGitHub,
                                                             actions_env: Path, clock: FakeClock,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A byte at a time keeps every single read under any socket timeout; the deadline counts them all. The fake
    monotonic clock moves a second per look, so the 5 s are over after a handful of bytes, without waiting."""
    clock.tick = 1.0
    github.queued = [(200, {}, Trickle(size=5_000))]
    assert comment("--markdown", str(report(tmp_path)), "--timeout", "5") == 1
    err = capsys.readouterr().err
    assert f"GET {LISTING}: no answer (no complete answer within 5s" in err and "Traceback" not in err


def writes_of(github: FakeGitHub) -> list[Recorded]:
    return [r for r in github.requests if r.method != "GET"]


# -- 10. the command's own inputs: one message, never a traceback (issue 34) ------------------------------------

NESTED = "[" * 200_000 + "]" * 200_000


@pytest.mark.parametrize(("args", "event", "said"), [
    (["--output", "{tmp}"], None, "cannot write the body to {tmp}: Is a directory"),
    (["--timeout", "inf"], None, "--timeout must be a number of seconds, more than 0 and at most 86400, not inf"),
    (["--timeout", "nan"], None, "--timeout must be a number of seconds, more than 0 and at most 86400, not nan"),
    (["--timeout", "0"], None, "--timeout must be a number of seconds, more than 0 and at most 86400, not 0.0"),
    (["--max-wait", "-1"], None, "--max-wait must be a number of seconds, at least 0 and at most 86400, not -1.0"),
    (["--max-wait", "1e400"], None, "--max-wait must be a number of seconds, at least 0 and at most 86400, not inf"),
    (["--pr", "0"], None, "--pr must be a pull request number (1 or more), not 0"),
    (["--api-url", "notaurl"], None, "--api-url must be an http(s) URL such as https://api.github.com, not 'notaurl'"),
    (["--api-url", "file:///etc"], None, "--api-url must be an http(s) URL"),
    ([], NESTED, "needs a pull request number (--pr or a pull_request event)"),
    ([], '{"pull_request": {"number": 1e400}}', "needs a pull request number"),
    ([], '{"pull_request": {"number": 1.5}}', "needs a pull request number"),
    ([], '{"pull_request": {"number": true}}', "needs a pull request number"),
    ([], '{"pull_request": {"number": -7}}', "needs a pull request number"),
], ids=["output-a-folder", "timeout-inf", "timeout-nan", "timeout-0", "max-wait-negative", "max-wait-1e400", "pr-0",
        "api-url-notaurl", "api-url-file", "event-nested", "event-1e400", "event-1.5", "event-true", "event-negative"])
def test_a_bad_input_of_the_command_is_one_message_and_exit_2(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str], args: list[str],
                                                              event: str | None, said: str) -> None:
    if event is not None:
        (tmp_path / "event.json").write_text(event)
    args = [a.format(tmp=tmp_path) for a in args]
    assert comment("--markdown", str(report(tmp_path)), *args) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("chunkeval comment: " + said.format(tmp=tmp_path))
    assert github.requests == []


def test_an_output_in_a_missing_folder_is_written_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "not" / "yet" / "body.md"
    assert comment("--markdown", str(report(tmp_path)), "--output", str(target)) == 0
    assert target.read_text().startswith(DEFAULT_MARKER) and "nothing posted" in capsys.readouterr().out


def test_a_job_summary_that_cannot_be_written_is_one_line_and_the_status_stays(
        tmp_path: Path, github: FakeGitHub, actions_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    actions_env.unlink()
    actions_env.mkdir()  # GITHUB_STEP_SUMMARY a folder
    github.queued = [(403, {}, {"message": "Resource not accessible by integration"})]
    assert comment("--markdown", str(report(tmp_path))) == 0
    out, err = capsys.readouterr()
    assert "not posted: the token cannot write to" in out
    assert err == f"chunkeval comment: could not add a note to the job summary {actions_env}: Is a directory\n"
