"""The token never appears (issue 34, item 2): not in a line of ``chunkeval comment``, not in the job summary, not
in a ``--output`` file, not in the comment it posts, whatever the server answers or the token holds.

Every failure path of the command (and its successes, whose lines quote the server's answers too) runs against the
stand-in of tests/github_stub.py, a real HTTP server on 127.0.0.1, here one that quotes the request's
``Authorization`` header back in its error messages, its non-JSON pages, its redirects, its comments' links and
authors. The token is given as a copy-paste leaves it (a trailing newline, a carriage return, spaces around it), and
every output is searched for it: whole, in any case, and any 8 of its characters in a row.
"""
from __future__ import annotations

import html
import json
import os
import random
import string
import subprocess
import sys
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from github_client import LISTING, FakeClock, comment, report
from github_stub import BOT, FakeGitHub, Recorded, Trickle

from pytest_chunkeval.commands.github.api import Client, GitHubError
from pytest_chunkeval.commands.github.comment import DEFAULT_MARKER
from pytest_chunkeval.commands.github.secret import MASK, Redactor, TokenError, clean_token

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.usefixtures("clock")

#: How a token arrives after a copy-paste: each failure path runs with each.
PASTED = {"newline": "{}\n", "crlf": "{}\r\n", "cr": "{}\r", "spaces": "  {}  ", "tab-and-newline": "\t{}\n",
          "clean": "{}"}


def new_token() -> str:
    """A token shaped like GitHub's (``ghp_`` and 36 letters and digits), new for each test."""
    return "ghp_" + "".join(random.choices(string.ascii_letters + string.digits, k=36))


def traces(token: str, text: str) -> list[str]:
    """Where ``text`` shows ``token``: whole, in any case, or 8 of its characters in a row."""
    low = text.lower()
    pieces = {token.lower()[i:i + 8] for i in range(len(token) - 7)}
    return sorted(p for p in pieces if p in low)


def authorization(request: Recorded) -> str:
    return request.headers.get("Authorization", "")


def echo(template: str) -> Callable[[Recorded], Any]:
    """A JSON error answer whose message quotes the request's Authorization header (``{auth}`` in ``template``)."""
    return lambda r: {"message": template.format(auth=authorization(r)),
                      "documentation_url": f"https://docs.github.test/?auth={authorization(r)}"}


def raw_echo(template: str) -> Callable[[Recorded], bytes]:
    """A page that is not JSON, quoting the request's Authorization header."""
    return lambda r: template.format(auth=authorization(r)).encode()


@dataclass
class Path_:
    """One path through the command: what the server answers, what else is set up, and the exit status."""

    status: int
    arrange: Callable[[FakeGitHub, Path, str], list[str]]  # -> extra arguments of the command
    said: str = ""  # a part of what the command prints (stdout or stderr)
    env: dict[str, str] = field(default_factory=dict)


def _listing(answer: Any, status: int = 200, headers: dict[str, str] | None = None) -> Callable[..., list[str]]:
    def arrange(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
        github.queued = [(status, headers or {}, answer)]
        return []
    return arrange


def _user(answer: Any, status: int) -> Callable[..., list[str]]:
    def arrange(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
        github.user = (status, answer)
        return []
    return arrange


def _post_refused(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
    github.queued = [(200, {}, []), (422, {}, echo("Validation Failed for {auth}: body is too long"))]
    return []


def _rate_limited(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
    github.queued = [(403, {}, echo("You have exceeded a secondary rate limit ({auth})"))] * 3
    return []


def _redirect_to_token_host(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
    github.queued = [(307, {"Location": f"http://{token}.evil.test/steal?auth={token}"}, {})]
    return []


def _cut_in_the_token(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
    """A page whose first 80 characters (what the message quotes) end inside the token."""
    github.queued = [(200, {}, raw_echo("<html>" + "x" * 60 + " {auth} </html>"))]
    return []


def _posted_with_token_in_answers(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
    """A success whose answers hold the token: the created comment's link, and another marked comment's author."""
    github.add(DEFAULT_MARKER + "\nmine, says he", author=f"{token}-bot")
    github.comments[-1]["html_url"] = f"https://github.test/{token}/c1"
    created = {"id": 9000, "body": DEFAULT_MARKER, "user": {"login": BOT}, "html_url": f"https://github.test/{token}"}
    github.queued = [(200, {}, list(github.comments)), (201, {}, created), (200, {}, [*github.comments, created])]
    return []


def _summary_is_a_folder(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
    github.queued = [(403, {}, echo("Resource not accessible by integration ({auth})"))]
    return []


def _report_holds_the_token(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
    """The report itself quotes the token (a query text, a file): the comment must not publish it."""
    report(tmp, f"# pytest-chunkeval report\n\nan env dump: GITHUB_TOKEN={token}\n")
    return []


def _output(where: str) -> Callable[..., list[str]]:
    def arrange(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
        report(tmp, f"# pytest-chunkeval report\n\nAuthorization: Bearer {token}\n")
        (tmp / "a-folder").mkdir(exist_ok=True)
        return ["--output", str(tmp / where)]
    return arrange


def _args(*args: str) -> Callable[..., list[str]]:
    return lambda github, tmp, token: list(args)


def _closed_port(github: FakeGitHub, tmp: Path, token: str) -> list[str]:
    return ["--api-url", "http://127.0.0.1:9"]


PATHS = {
    # the API refuses, quoting the request
    "user-500-quotes-the-header": Path_(1, _user(echo("boom for {auth}"), 500), "GET /user: HTTP 500 (boom for Bearer ***)"),
    "user-401-quotes-the-header": Path_(1, _user(lambda r: {"message": f"Bad credentials {authorization(r)}"}, 401),
                                        "GET /user: HTTP 401 (Bad credentials Bearer ***)"),
    "listing-422-quotes-the-header": Path_(1, _listing(echo("Validation Failed for {auth}"), 422),
                                           f"GET {LISTING}: HTTP 422 (Validation Failed for Bearer ***)"),
    "listing-500-page-quotes-the-header": Path_(1, _listing(raw_echo("Internal error; request had {auth}"), 500),
                                                "HTTP 500 (Internal error; request had Bearer ***)"),
    "post-422-quotes-the-header": Path_(1, _post_refused, f"POST {LISTING}: HTTP 422 (Validation Failed for "),
    "not-json-200-quotes-the-header": Path_(1, _listing(raw_echo("<html>you sent {auth}</html>")),
                                            "HTTP 200 (the answer is not JSON: '<html>you sent Bearer ***</html>')"),
    "not-json-200-cut-inside-the-token": Path_(1, _cut_in_the_token, "the answer is not JSON"),
    "wrong-shape": Path_(1, _listing(echo("{auth}")), "expected a JSON list, got dict"),
    "forbidden-403-quotes-the-header": Path_(0, _listing(echo("Resource not accessible ({auth})"), 403),
                                             "not posted: the token cannot write to"),
    "not-found-404-quotes-the-header": Path_(0, _listing(echo("Not Found: {auth}"), 404), "cannot write to"),
    "rate-limited-quotes-the-header": Path_(3, _rate_limited, "still rate-limited"),
    "redirect-to-a-host-named-by-the-token": Path_(1, _redirect_to_token_host, "redirected to ***.evil.test"),
    "trickle-past-the-deadline": Path_(1, _listing(Trickle(size=200, every=0.01)), "no answer (no complete answer"),
    "no-server": Path_(1, _closed_port, "GET /user: no answer"),
    # answers that succeed but quote the token
    "posted-answers-quote-the-token": Path_(0, _posted_with_token_in_answers, "created https://github.test/***"),
    "report-holds-the-token": Path_(0, _report_holds_the_token, "created"),
    # the command's own failures
    "summary-is-a-folder": Path_(0, _summary_is_a_folder, "could not add a note to the job summary"),
    "output-a-folder": Path_(2, _output("a-folder"), "cannot write the body to"),
    "output-in-a-missing-folder": Path_(0, _output("missing/deeper/body.md"), "wrote the body"),
    "markdown-a-folder": Path_(2, lambda g, tmp, t: ["--markdown", str(tmp)], "cannot read"),
    "marker-bad": Path_(2, _args("--marker", "a -- b"), "a marker is one line of text"),
    "no-repository": Path_(2, _args(), "needs a repository", env={"GITHUB_REPOSITORY": ""}),
    "api-url-not-a-url": Path_(2, _args("--api-url", "notaurl"), "--api-url must be an http(s) URL"),
    "timeout-inf": Path_(2, _args("--timeout", "inf"), "--timeout must be a number of seconds"),
    "dry-run": Path_(0, lambda g, tmp, t: [*_report_holds_the_token(g, tmp, t), "--dry-run"], "an env dump"),
}


@pytest.mark.parametrize("pasted", PASTED.values(), ids=PASTED.keys())
@pytest.mark.parametrize("name", PATHS)
def test_no_output_of_any_path_shows_the_token(tmp_path: Path, github: FakeGitHub, actions_env: Path,
                                              clock: FakeClock, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str], name: str, pasted: str) -> None:
    case = PATHS[name]
    token = new_token()
    monkeypatch.setenv("GITHUB_TOKEN", pasted.format(token))
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    if name == "summary-is-a-folder":
        actions_env.unlink()
        actions_env.mkdir()
    markdown = report(tmp_path)
    extra = case.arrange(github, tmp_path, token)
    args = ["--markdown", str(markdown), *extra] if "--markdown" not in extra else extra
    if name == "trickle-past-the-deadline":  # each look at the clock a second: 5 s are over after a few bytes
        clock.tick = 1.0
        args += ["--timeout", "5"]

    assert comment(*args) == case.status
    out, err = capsys.readouterr()
    assert case.said in out + err
    outputs = {"stdout": out, "stderr": err, "sent": "\n".join(json.dumps(r.body) for r in github.requests)}
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.name not in ("chunkeval-report.md", "event.json"):  # the report is the input
            outputs[str(path.relative_to(tmp_path))] = path.read_text(encoding="utf-8")
    if name.startswith("output-") and case.status == 0:
        assert "body.md" in " ".join(outputs) and MASK in outputs["missing/deeper/body.md"]
    found = {where: traces(token, text) for where, text in outputs.items() if traces(token, text)}
    assert found == {}, f"the token is in {found}"
    # and it was sent, stripped, to the API's host only (where a request was made at all)
    assert all(authorization(r) == f"Bearer {token}" for r in github.requests)


@pytest.mark.parametrize("inside", ["\x01", "\x08", "\x1b[31m", "\x7f", " ", "\u2028", "\u00e9", "\n"])
def test_a_token_holding_another_control_character_is_refused_in_one_line_that_does_not_show_it(
        tmp_path: Path, github: FakeGitHub, actions_env: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], inside: str) -> None:
    token = new_token()
    monkeypatch.setenv("GITHUB_TOKEN", f"{token[:20]}{inside}{token[20:]}\n")
    assert comment("--markdown", str(report(tmp_path))) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("chunkeval comment: the token (GITHUB_TOKEN) holds a character that no token has (a "
                                 "control character, a space inside it, or a character outside printable ASCII): set "
                                 "it again as GitHub shows it\n")
    assert github.requests == []  # nothing sent
    assert traces(token, err + actions_env.read_text()) == []


def test_a_process_that_fails_shows_no_traceback_and_no_token(tmp_path: Path, github: FakeGitHub,
                                                              actions_env: Path) -> None:
    """The issue's own case, as a process: the token with a trailing newline (it used to reach the header and come
    back in ``Invalid header value b'Bearer ghp_…\\n'``) and a server that quotes it in a 422."""
    token = new_token()
    github.queued = [(422, {}, echo("Validation Failed for {auth}"))]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_TOKEN": token + "\n"}
    result = subprocess.run([sys.executable, "-m", "pytest_chunkeval", "comment", "--markdown", str(report(tmp_path))],
                            capture_output=True, text=True, env=env, cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr == f"chunkeval comment: not posted: GET {LISTING}: HTTP 422 (Validation Failed for Bearer ***)\n"
    assert traces(token, result.stdout + result.stderr + actions_env.read_text()) == []


# -- the pieces ---------------------------------------------------------------------------------------------------


def test_the_client_strips_the_token_and_never_shows_it() -> None:
    token = new_token()
    client = Client("https://api.github.test", f" {token}\r\n")
    assert client.token == token and token not in repr(client)
    with pytest.raises(TokenError) as info:
        Client("https://api.github.test", token + "\x00")
    assert traces(token, str(info.value)) == []


@pytest.mark.parametrize("quoted", [
    "{t}", "Bearer {t}", "token {t}", "b'Bearer {t}\\n'", "{T}", "{lower}.evil.test", "{url}", "{html}", "{js}",
    "Bearer {t12}", "token {t5}", "…{middle}…", '{{"message": "Validation Failed for Bearer {t}"}}',
])
def test_the_redactor_takes_out_every_form_of_the_token(quoted: str) -> None:
    token = "ghp_Ab/Cd+Ef&Gh\"Ij'Kl<Mn>Op0123456789QRS"
    text = quoted.format(t=token, T=token.upper(), lower=token.lower(), url=urllib.parse.quote(token, safe=""),
                         html=html.escape(token), js=json.dumps(token)[1:-1], t12=token[:12], t5=token[:5],
                         middle=token[7:21])
    redacted = Redactor.of(token + "\n")(f"before {text} after")
    assert redacted.startswith("before ") and redacted.endswith(" after") and MASK in redacted
    assert traces(token, redacted) == [] and traces(token.upper(), redacted) == []


def test_the_redactor_leaves_other_text_alone() -> None:
    redact = Redactor.of(new_token())
    text = "the token is refused; bearer tokens expire; HTTP 422 (Validation Failed) \x01"
    assert redact(text) == text and Redactor.of("")(text) == text


@pytest.mark.parametrize(("raw", "clean"), [("abc\n", "abc"), ("\r\n abc \t", "abc"), ("", "")])
def test_clean_token(raw: str, clean: str) -> None:
    assert clean_token(raw) == clean


def test_an_exception_quoting_the_token_is_redacted_before_it_is_cut(github: FakeGitHub) -> None:
    """The quote is cut at 80 characters: a cut inside the token would leave its start, which no later look knows."""
    token = new_token()
    github.queued = [(200, {}, raw_echo("x" * 70 + "{auth}"))]
    client = Client(github.url, token)
    with pytest.raises(GitHubError) as info:
        client.request("GET", LISTING)
    assert traces(token, str(info.value)) == [] and "Bearer ***" in str(info.value)
