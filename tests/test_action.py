"""The composite action (action.yml) another repository adds as one step: its metadata is valid and closed (every
input it uses is declared and every declared one used), its scripts never interpolate text a pull request chooses,
and its ``run:`` steps, executed with bash as a runner would (tests/action_steps.py), build the right pytest and pip
commands, keep pytest's exit status for the last step, and post the comment through a stand-in GitHub API."""
from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from action_steps import ROOT, Run, load_action, run_action
from github_stub import PR, REPO, TOKEN, FakeGitHub, serve
from project_files import PROJECT_CORPUS, PROJECT_GOLDEN, PROJECT_STRATEGIES, write_strategies, write_suite

INPUT_REF = re.compile(r"\binputs\.([A-Za-z_][\w-]*)")
FIXED_ARGS = ["--chunkeval-markdown=chunkeval-report.md",
              "--chunkeval-report=chunkeval-report.json", "--chunkeval-step-summary", "--chunkeval-annotations",
              "--junitxml=chunkeval-junit.xml"]
REPORT = "# pytest-chunkeval report\n\nmodel `m`, hybrid retrieval, k=10\n\n## golden/x/queries.yaml\n\n| a | b |\n|---|---|\n"


def steps() -> list[dict[str, Any]]:
    return list(load_action()["runs"]["steps"])


def step(name: str) -> dict[str, Any]:
    return next(s for s in steps() if s.get("name") == name or str(s.get("uses", "")).startswith(name))


def test_every_input_used_is_declared_and_every_declared_one_used() -> None:
    action = load_action()
    declared = set(action["inputs"])
    used = set(INPUT_REF.findall(yaml.safe_dump(action["runs"]))) | set(INPUT_REF.findall(yaml.safe_dump(action["outputs"])))
    assert used == declared, f"used, not declared: {used - declared}; declared, never used: {declared - used}"
    for name, spec in action["inputs"].items():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", name), f"{name}: inputs are kebab-case"
        assert spec.get("description", "").strip() and isinstance(spec.get("default"), str), name
    outputs = action["outputs"]
    assert {"exit-code", "markdown"} <= set(outputs)
    written = set(re.findall(r'echo "([\w-]+)=', step("Evaluate")["run"]))
    for name, spec in outputs.items():
        assert re.fullmatch(r"\$\{\{ steps\.evaluate\.outputs\.([\w-]+) \}\}", spec["value"]), name
        assert spec["value"].split(".")[-1].rstrip(" }") in written, f"{name}: the evaluate step never writes it"


def test_scripts_take_inputs_and_refs_through_env_only() -> None:
    for s in steps():
        if "run" in s:
            assert "${{" not in s["run"], f"{s.get('name')}: ${{{{ }}}} inside run: is script injection"
            assert s.get("shell") == "bash"
    evaluate = step("Evaluate")
    assert evaluate["env"]["BASE_REF"] == "${{ inputs.base-ref }}"
    base_default = load_action()["inputs"]["base-ref"]["default"]
    assert "github.base_ref" in base_default and "github.event_name == 'pull_request'" in base_default


def test_steps_restore_evaluate_save_upload_comment_then_fail() -> None:
    order = [s.get("name") or s["uses"].split("@")[0] for s in steps()]
    assert order == ["actions/setup-python", "Install torch and pytest-chunkeval", "Restore embedding cache", "Evaluate",
                     "Save embedding cache", "Upload reports", "Comment on the pull request",
                     "Fail when the evaluation failed"]
    assert step("actions/setup-python")["with"] == {"python-version": "${{ inputs.python-version }}"}
    restore, save = step("Restore embedding cache"), step("Save embedding cache")
    assert restore["uses"] == "actions/cache/restore@v4" and save["uses"] == "actions/cache/save@v4"
    assert restore["with"]["path"] == save["with"]["path"] == "${{ inputs.working-directory }}/.chunkeval"
    key = restore["with"]["key"]
    assert save["with"]["key"] == key and "github.run_id" in key and "github.run_attempt" in key
    assert all(key.startswith(prefix) for prefix in restore["with"]["restore-keys"].splitlines())
    upload = step("Upload reports")
    assert upload["uses"] == "actions/upload-artifact@v4" and upload["with"]["name"] == "${{ inputs.artifact-name }}"
    assert {Path(p).name for p in upload["with"]["path"].split()} >= {"chunkeval-report.md", "chunkeval-report.json",
                                                                      "chunkeval-report.png", "chunkeval-junit.xml"}
    for s in (save, upload):
        assert s["if"] == "always()"
    comment = step("Comment on the pull request")
    assert "github.event_name == 'pull_request'" in comment["if"] and "inputs.comment == 'true'" in comment["if"]
    assert comment["continue-on-error"] is True and comment["env"]["GITHUB_TOKEN"] == "${{ inputs.github-token }}"
    assert load_action()["inputs"]["github-token"]["default"] == "${{ github.token }}"
    assert "fetch-depth: 0" in load_action()["description"].replace("fetch-depth 0", "fetch-depth: 0")


# --- the run: steps, executed ------------------------------------------------------------------------------------

def fake_python(bin_dir: Path) -> None:
    """``python`` that records its arguments (one JSON line each) and exits with $FAKE_EXIT, writing $FAKE_REPORT as
    the Markdown report when set (and $FAKE_JSON, else a JSON report with a verdict, as the JSON report);
    ``python -c`` (the action's word splitting and report check) runs the real interpreter."""
    script = bin_dir / "python"
    script.write_text(f"""#!{sys.executable}
import json, os, sys
if sys.argv[1:2] == ["-c"]:
    os.execv({sys.executable!r}, [{sys.executable!r}, *sys.argv[1:]])
with open(os.environ["CALLS"], "a") as fh:
    fh.write(json.dumps(sys.argv[1:]) + "\\n")
if os.environ.get("FAKE_REPORT"):
    open("chunkeval-report.md", "w").write(os.environ["FAKE_REPORT"])
    open("chunkeval-report.json", "w").write(os.environ.get("FAKE_JSON", '{{"verdict": {{"status": "PASS"}}}}'))
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    shim = bin_dir / "chunkeval"  # the console script pip would install, on this checkout's package
    shim.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m pytest_chunkeval "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def runner(tmp_path: Path) -> dict[str, Any]:
    """A workspace, a PATH with the fake python, and the environment a pull_request job's steps get."""
    bin_dir, workspace = tmp_path / "bin", tmp_path / "workspace"
    bin_dir.mkdir()
    workspace.mkdir()
    fake_python(bin_dir)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": PR}}))
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "CALLS": str(tmp_path / "calls"),
           "GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_PATH": str(event), "GITHUB_SERVER_URL": "https://github.test",
           "GITHUB_RUN_ID": "99", "LANG": "C.UTF-8"}
    return {"tmp": tmp_path, "workspace": workspace, "env": env}


def calls(runner: dict[str, Any]) -> list[list[str]]:
    path = Path(runner["env"]["CALLS"])
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


PULL_REQUEST = {"event_name": "pull_request", "base_ref": "main", "token": TOKEN}
PUSH = {"event_name": "push", "base_ref": "", "token": TOKEN}


def run(runner: dict[str, Any], inputs: dict[str, str], github: dict[str, str], only: set[str],
        **env: str) -> Run:
    scratch = runner["tmp"] / f"steps{len(list(runner['tmp'].glob('steps*')))}"
    scratch.mkdir()
    return run_action(runner["workspace"], inputs, github, {**runner["env"], **env}, scratch, only=only)


def test_install_step_installs_torch_alone_then_this_checkout(runner: dict[str, Any]) -> None:
    install = {"Install torch and pytest-chunkeval"}
    run(runner, {"extras": "peers, onnx"}, PUSH, install)
    action = load_action()["inputs"]
    assert calls(runner) == [
        ["-m", "pip", "install", "--no-deps", action["torch"]["default"], "--extra-index-url",
         action["torch-index"]["default"]],
        ["-m", "pip", "install", f"{ROOT}[peers,onnx]"],
    ]
    Path(runner["env"]["CALLS"]).unlink()
    run(runner, {"torch-index": ""}, PUSH, install)  # no extra index: PyPI alone
    assert calls(runner) == [["-m", "pip", "install", "--no-deps", "torch==2.13.0"], ["-m", "pip", "install", str(ROOT)]]
    Path(runner["env"]["CALLS"]).unlink()
    run(runner, {"torch": ""}, PUSH, install)  # torch already there
    assert calls(runner) == [["-m", "pip", "install", str(ROOT)]]


def test_evaluate_step_builds_the_command_and_keeps_pytest_status(runner: dict[str, Any]) -> None:
    """The base branch's name, the suites and pytest-args reach pytest as words; none of them runs as code."""
    hostile = {**PULL_REQUEST, "base_ref": "main;touch${IFS}pwned"}
    inputs = {"suites": "golden/a/queries.yaml\n  golden/b/queries.jsonl",
              "pytest-args": "--chunkeval-chart=c.png -k 'ast or fixed_size' $(touch pwned) `touch pwned`"}
    result = run(runner, inputs, hostile, {"Evaluate"}, FAKE_EXIT="1")
    assert result.ran["Evaluate"].code == 0, result.ran["Evaluate"].stderr  # the status is kept, not acted on
    (pytest_call,) = calls(runner)
    assert pytest_call == ["-m", "pytest_chunkeval", "run", *FIXED_ARGS, "--chunkeval-base=origin/main;touch${IFS}pwned",
                           "--chunkeval-golden=golden/a/queries.yaml", "--chunkeval-golden=golden/b/queries.jsonl",
                           "--chunkeval-chart=c.png", "-k", "ast or fixed_size", "$(touch", "pwned)", "`touch",
                           "pwned`"]
    assert not list(runner["workspace"].rglob("pwned"))
    assert result.outputs == {"exit-code": "1", "markdown": f"{runner['workspace']}/chunkeval-report.md",
                              "json": f"{runner['workspace']}/chunkeval-report.json"}
    assert "the evaluation wrote no report" in result.ran["Evaluate"].summary


def test_an_evaluation_that_exits_0_without_a_verdict_fails_the_action(runner: dict[str, Any]) -> None:
    """A process that ended before judging (a strategy's os._exit(0), say) exits 0 with no report: not a pass."""
    result = run(runner, {}, PUSH, {"Evaluate", "Fail when the evaluation failed"})
    evaluate = result.ran["Evaluate"]
    assert evaluate.code == 0 and result.outputs["exit-code"] == "1"
    assert "::error title=pytest-chunkeval::the evaluation exited 0 but wrote no report with a verdict" in evaluate.stdout
    assert result.failed == "Fail when the evaluation failed"
    judged = run(runner, {}, PUSH, {"Evaluate"}, FAKE_REPORT=REPORT)
    assert judged.outputs["exit-code"] == "0" and "::error" not in judged.ran["Evaluate"].stdout
    unjudged = run(runner, {}, PUSH, {"Evaluate"}, FAKE_REPORT=REPORT, FAKE_JSON='{"suites": {}}')  # no verdict in it
    assert unjudged.outputs["exit-code"] == "1"


@pytest.mark.parametrize(("github", "base_ref", "expected"), [
    (PUSH, None, []),  # no pull request: nothing to compare with
    (PULL_REQUEST, "none", []),  # turned off
    (PUSH, "origin/release", ["--chunkeval-base=origin/release"]),
])
def test_the_base_is_the_pull_requests_unless_told(runner: dict[str, Any], github: dict[str, str],
                                                   base_ref: str | None, expected: list[str]) -> None:
    inputs = {} if base_ref is None else {"base-ref": base_ref}
    run(runner, inputs, github, {"Evaluate"}, FAKE_REPORT=REPORT)
    assert calls(runner) == [["-m", "pytest_chunkeval", "run", *FIXED_ARGS, *expected]]


@pytest.fixture
def api(runner: dict[str, Any]) -> Iterator[FakeGitHub]:
    with serve() as state:
        runner["env"]["GITHUB_API_URL"] = state.url
        yield state


AFTER = {"Evaluate", "Comment on the pull request", "Fail when the evaluation failed"}


def test_a_failed_evaluation_is_commented_then_fails_the_action(runner: dict[str, Any], api: FakeGitHub) -> None:
    result = run(runner, {}, PULL_REQUEST, AFTER, FAKE_EXIT="1", FAKE_REPORT=REPORT)
    assert result.ran["Comment on the pull request"].code == 0, result.ran["Comment on the pull request"].stderr
    (posted,) = api.comments
    assert posted["body"].startswith("<!-- pytest-chunkeval -->\n# pytest-chunkeval report")
    assert f"[the workflow run](https://github.test/{REPO}/actions/runs/99)" in posted["body"]
    # Who the token writes as, the comments, the post, the comments again (an overlapping run's duplicate).
    assert [f"{r.method} {r.path}" for r in api.requests] == [
        "GET /user", f"GET /repos/{REPO}/issues/{PR}/comments", f"POST /repos/{REPO}/issues/{PR}/comments",
        f"GET /repos/{REPO}/issues/{PR}/comments"]
    assert [r.headers["Authorization"] for r in api.requests] == [f"Bearer {TOKEN}"] * 4
    assert result.ran["Fail when the evaluation failed"].code == 1 and result.failed == "Fail when the evaluation failed"

    again = run(runner, {"comment-marker": "suite b"}, PULL_REQUEST, AFTER, FAKE_REPORT=REPORT)
    assert again.failed is None and len(api.comments) == 2 and api.comments[1]["body"].startswith("<!-- suite b -->")


def test_comment_author_names_whose_marked_comment_is_edited(runner: dict[str, Any], api: FakeGitHub) -> None:
    """An app's token cannot read /user: comment-author says who it writes as; anyone else's marked comment stays."""
    ours = api.add("<!-- pytest-chunkeval -->\nthe last run's", author="our-app[bot]")
    theirs = api.add("<!-- pytest-chunkeval -->\nlooks like a report", author="mallory")
    result = run(runner, {"comment-author": "our-app[bot]"}, PULL_REQUEST, AFTER, FAKE_REPORT=REPORT)
    assert result.ran["Comment on the pull request"].code == 0, result.ran["Comment on the pull request"].stderr
    assert ours["body"].startswith("<!-- pytest-chunkeval -->\n# pytest-chunkeval report")
    assert theirs["body"].endswith("looks like a report") and len(api.comments) == 2
    assert "/user" not in [r.path for r in api.requests]
    assert "`mallory`" in result.ran["Comment on the pull request"].summary


def test_the_comment_is_skipped_off_pull_requests_and_when_turned_off(runner: dict[str, Any], api: FakeGitHub) -> None:
    for inputs, github in (({}, PUSH), ({"comment": "false"}, PULL_REQUEST)):
        result = run(runner, inputs, github, AFTER, FAKE_REPORT=REPORT)
        assert "Comment on the pull request" in result.skipped and result.failed is None
    assert api.requests == []


def test_a_comment_that_fails_does_not_fail_a_passing_evaluation(runner: dict[str, Any], api: FakeGitHub) -> None:
    api.queued = [(500, {}, {"message": "Server Error"})]
    result = run(runner, {}, PULL_REQUEST, AFTER, FAKE_REPORT=REPORT)
    comment = result.ran["Comment on the pull request"]
    assert comment.code == 1 and "HTTP 500" in comment.stderr and TOKEN not in comment.stdout + comment.stderr
    assert result.failed is None and result.ran["Fail when the evaluation failed"].code == 0


# --- the whole action on a small project with a base branch (real pytest, real model) -----------------------------

@pytest.mark.slow
def test_the_action_evaluates_a_pull_request_and_comments(tmp_path: Path) -> None:
    """Every run: step but the install (this environment is already installed), in order, on a git repository whose
    pull request makes one strategy worse: the vs-base item fails, the comment shows the comparison, the outputs
    point at the reports, and the last step fails with pytest's exit status."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[tool.pytest.ini_options]\nchunkeval_golden = ["golden/*/queries.yaml"]\n')
    write_strategies(repo, PROJECT_STRATEGIES)
    write_suite(repo / "golden" / "shop", PROJECT_CORPUS, PROJECT_GOLDEN)
    git_env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@t"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=git_env)

    git("init", "-q", "-b", "main")
    git("add", ".")
    git("commit", "-q", "-m", "base")
    git("update-ref", "refs/remotes/origin/main", "HEAD")  # what a fetch-depth 0 checkout has
    git("checkout", "-q", "-b", "smaller-windows")
    fixed = repo / "strategies" / "fixed_size.py"
    fixed.write_text(fixed.read_text().replace("max_chunk_size=120, overlap=20", "max_chunk_size=30, overlap=5"))
    git("commit", "-qam", "smaller windows")

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "chunkeval"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m pytest_chunkeval "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": PR}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_", "RUNNER_"))}
    env.update(PATH=f"{bin_dir}:{Path(sys.executable).parent}:{env.get('PATH', '/usr/bin:/bin')}",
               PYTHONPATH=str(ROOT), LANCEDB_LOG="error", GITHUB_REPOSITORY=REPO, GITHUB_EVENT_PATH=str(event),
               GITHUB_SERVER_URL="https://github.test", GITHUB_RUN_ID="5", GITHUB_ACTIONS="true", CI="true")
    inputs = {"pytest-args": "-o chunkeval_regression_alpha=off --chunkeval-no-progress -p no:cacheprovider"}
    scratch = tmp_path / "steps"
    scratch.mkdir()
    with serve() as api:
        env["GITHUB_API_URL"] = api.url
        result = run_action(repo, inputs, PULL_REQUEST, env, scratch,
                            only={s["name"] for s in steps() if "run" in s} - {"Install torch and pytest-chunkeval"})

    evaluate = result.ran["Evaluate"]
    assert evaluate.code == 0, evaluate.stdout[-4000:] + evaluate.stderr[-2000:]
    assert result.outputs["exit-code"] == "1", evaluate.stdout[-4000:]
    assert "golden/shop/queries.yaml::fixed_size::vs-base FAILED" in evaluate.stdout or \
        "FAILED golden/shop/queries.yaml::fixed_size::vs-base" in evaluate.stdout
    markdown = Path(result.outputs["markdown"])
    assert markdown == repo / "chunkeval-report.md" and Path(result.outputs["json"]).is_file()
    assert "## Head vs base: golden/shop/queries.yaml" in evaluate.summary  # --chunkeval-step-summary
    (posted,) = api.comments
    assert posted["body"].startswith("<!-- pytest-chunkeval -->\n" + markdown.read_text().splitlines()[0])
    assert "## Head vs base: golden/shop/queries.yaml" in posted["body"] and "| fixed_size |" in posted["body"]
    assert result.failed == "Fail when the evaluation failed" and result.ran[result.failed].code == 1
    assert (repo / "chunkeval-junit.xml").is_file()


# --- the README's instructions -------------------------------------------------------------------------------------

def section(path: Path, heading: str) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def readme_section() -> str:
    """The README's user path: the workflow snippet, what the action does, forks."""
    return section(ROOT / "README.md", "Gating a pull request")


def test_the_readme_names_the_action_as_the_package_does() -> None:
    """The owner is a placeholder defined once (ACTION_REF): every mention in the README and docs/ follows it."""
    from pytest_chunkeval.commands.github import ACTION_REF

    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        named = re.findall(r"uses: ([\w.-]+/pytest-chunkeval@[\w.-]+)", path.read_text(encoding="utf-8"))
        assert set(named) <= {ACTION_REF}, f"{path.relative_to(ROOT)} names {set(named)}; ACTION_REF is {ACTION_REF}"
        assert named or path.name != "README.md", "the README shows the action's workflow"


@pytest.mark.parametrize("where", ["README.md", "docs/pull-requests.md"])
def test_the_documented_workflow_is_minimal_and_complete(where: str) -> None:
    text = readme_section() if where == "README.md" else section(ROOT / where, "The GitHub Action")
    # Both show the file `chunkeval init` writes, its comments included (tests/test_init.py checks it).
    assert len(text.strip().splitlines()) <= (60 if where == "README.md" else 70)
    flow = yaml.safe_load(text.split("```yaml\n", 1)[1].split("```", 1)[0])
    (job,) = flow["jobs"].values()
    assert job.get("permissions", flow.get("permissions")) == {"contents": "read", "pull-requests": "write"}
    # One run per pull request: overlapping runs would race to create the comment (issue 28).
    concurrency = flow["concurrency"]
    assert "github.event.pull_request.number" in (concurrency if isinstance(concurrency, str) else concurrency["group"])
    checkout, ours = job["steps"]
    assert checkout["uses"].startswith("actions/checkout@") and checkout["with"]["fetch-depth"] == 0
    assert set(ours.get("with", {})) <= set(load_action()["inputs"])
    assert "fork" in text and "read-only" in text


def test_the_docs_list_every_input_of_the_action() -> None:
    """The README links to this table instead of repeating it."""
    text = section(ROOT / "docs" / "pull-requests.md", "The GitHub Action")
    table = set(re.findall(r"^\| `([\w-]+)`(?:, `([\w-]+)`)? \|", text, re.MULTILINE))
    assert {name for row in table for name in row if name} == set(load_action()["inputs"])
    assert "](docs/pull-requests.md#the-github-action)" in readme_section()


def test_pytest_args_that_are_not_shell_words_fail_the_step_before_pytest(runner: dict[str, Any]) -> None:
    result = run(runner, {"pytest-args": "-k 'unclosed"}, PULL_REQUEST, AFTER)
    evaluate = result.ran["Evaluate"]
    assert evaluate.code == 1 and "pytest-args cannot be split into words: No closing quotation" in evaluate.stderr
    assert "Traceback" not in evaluate.stderr and calls(runner) == []
    assert result.failed == "Evaluate" and {"Comment on the pull request", "Fail when the evaluation failed"} <= set(result.skipped)
