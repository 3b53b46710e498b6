"""The files ``chunkeval init`` writes from its templates (package data, so an installed wheel has them).

The example strategy is copied as it is: it is a working module that the project's own tests import and lint,
so what a user gets is what was tested. The workflow is a template with three placeholders filled in here.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from importlib import resources

from pytest_chunkeval.commands.github import ACTION_REF

#: The reusable GitHub action the workflow calls (defined once, with the action's own code); ``chunkeval init
#: --action REF`` overrides it.
ACTION = ACTION_REF
STRATEGY_TEMPLATE = "my_strategy.py"
WORKFLOW_TEMPLATE = "chunkeval.yml"
STRATEGY_FILE = "my_strategy.py"
WORKFLOW_FILE = ".github/workflows/chunkeval.yml"


def template(name: str) -> str:
    return (resources.files("pytest_chunkeval.commands.init") / "templates" / name).read_text(encoding="utf-8")


def action_ref(ref: str) -> str:
    """``--action``: a full ``owner/repo@ref`` or local ``./path`` as given; a bare ref (``v1``, a commit) pins the
    default action at it."""
    if "@" in ref or ref.startswith(("./", "docker://")):
        return ref
    return f"{ACTION.split('@', 1)[0]}@{ref}"


def workflow(action: str, suites: Sequence[str], branch: str) -> str:
    """The workflow file's text: ``suites`` one a line in the action's ``suites`` input."""
    lines = "\n".join(f"            {s}" for s in suites)
    listed = branch if re.fullmatch(r"[A-Za-z0-9._/-]+", branch) else json.dumps(branch)
    return (template(WORKFLOW_TEMPLATE).replace("[__BRANCH__]", f"[{listed}]").replace("__BRANCH__", branch)
            .replace("__ACTION__", action).replace("__SUITES__", lines))


def strategy_module() -> str:
    return template(STRATEGY_TEMPLATE)
