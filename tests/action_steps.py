"""Running the composite action's ``run:`` steps (action.yml) with bash, in order, as a runner does.

GitHub's runner is not available here, so this does the part of its work the action depends on: inputs with their
defaults, ``${{ }}`` expressions in ``env:``, ``working-directory:`` and ``if:`` (the few forms the action uses,
translated to Python; anything else fails the test that met it), ``$GITHUB_OUTPUT`` read back as the step's
outputs, ``$GITHUB_STEP_SUMMARY`` per step, ``continue-on-error``, and ``shell: bash`` as GitHub runs it
(``bash --noprofile --norc -eo pipefail``). ``uses:`` steps are recorded and skipped.
"""
from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
REFERENCE = re.compile(r"\b(?:github|inputs|runner|steps|env)\.[A-Za-z_][\w.-]*")


def load_action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text())


def evaluate(expression: str, context: Mapping[str, str]) -> Any:
    """A GitHub expression as Python: ``&&``/``||`` are and/or (both return an operand, as in GitHub), references
    are looked up in ``context``, ``format`` and ``always`` are the two functions the action calls."""
    def lookup(match: re.Match[str]) -> str:
        if match.group(0) not in context:
            pytest.fail(f"the test has no value for {match.group(0)} (in `{expression}`)")
        return f"context[{match.group(0)!r}]"

    quoted = re.split(r"('[^']*')", expression)
    code = "".join(part if part.startswith("'") else
                   REFERENCE.sub(lookup, part).replace("&&", " and ").replace("||", " or ").replace("!=", " != ")
                   for part in quoted)
    if re.search(r"[^=!<>]![^=]", code):
        pytest.fail(f"the test does not evaluate `!` in `{expression}`")
    return eval(code, {"__builtins__": {}}, {  # noqa: S307 - the action's own expressions, translated above
        "context": context, "always": lambda: True, "format": lambda f, *a: f.format(*a)})


def expand(value: Any, context: Mapping[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        result = evaluate(match.group(1), context)
        return str(result).lower() if isinstance(result, bool) else str(result)
    return EXPRESSION.sub(one, str(value))


@dataclass
class Ran:
    name: str
    code: int
    stdout: str
    stderr: str
    summary: str


@dataclass
class Run:
    ran: dict[str, Ran] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # uses: steps, and steps whose if: was false
    outputs: dict[str, str] = field(default_factory=dict)  # the action's outputs
    failed: str | None = None  # the step that failed the action


def run_action(workspace: Path, inputs: Mapping[str, str], github: Mapping[str, str], env: Mapping[str, str],
               tmp: Path, *, only: set[str] | None = None) -> Run:
    """Run the action's steps (``only``: these names alone) and return what each did.

    ``github`` is the github context (``event_name``, ``base_ref``, ``job``, ...); ``env`` the process environment
    the runner gives every step (PATH with the Python that setup-python would have set up, GITHUB_* variables).
    """
    action = load_action()
    declared = action["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    context: dict[str, str] = {f"github.{k}": v for k, v in github.items()}
    context["runner.os"] = "Linux"
    for name, spec in declared.items():
        context[f"inputs.{name}"] = inputs[name] if name in inputs else expand(spec.get("default", ""), context)
    result = Run()
    for number, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", step.get("uses", f"step {number}"))
        condition = step.get("if")
        if condition is None:
            applies = result.failed is None
        else:
            applies = bool(evaluate(str(condition).replace("${{", "").replace("}}", ""), context))
            if "always()" not in str(condition) and result.failed is not None:
                applies = False
        if "run" not in step or not applies or (only is not None and name not in only):
            result.skipped.append(name)
            if "id" in step:
                context[f"steps.{step['id']}.outcome"] = "skipped"
            continue
        assert step.get("shell") == "bash", f"{name}: a composite action's run: step names its shell"
        output, summary = tmp / f"output_{number}", tmp / f"summary_{number}"
        output.touch()
        summary.touch()
        script = tmp / f"step_{number}.sh"
        script.write_text(step["run"])
        step_env = {**env, **{k: expand(v, context) for k, v in step.get("env", {}).items()},
                    "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
                    "GITHUB_ACTION_PATH": str(ROOT)}
        cwd = workspace / expand(step.get("working-directory", "."), context)
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd,
                              env=step_env, check=False, capture_output=True, text=True, timeout=1200)
        result.ran[name] = Ran(name, done.returncode, done.stdout, done.stderr, summary.read_text())
        if "id" in step:
            context[f"steps.{step['id']}.outcome"] = "success" if done.returncode == 0 else "failure"
            for line in output.read_text().splitlines():
                key, _, value = line.partition("=")
                context[f"steps.{step['id']}.outputs.{key}"] = value
        if done.returncode != 0 and not step.get("continue-on-error") and result.failed is None:
            result.failed = name
    for name, spec in action.get("outputs", {}).items():
        result.outputs[name] = expand(spec["value"], {**{k: "" for k in REFERENCE.findall(str(spec["value"]))},
                                                      **context})
    return result
