"""``chunkeval run [PYTEST ARGS...]``: evaluate the project's golden suites, independently of its test setup.

``pytest --chunkeval`` runs inside the project's own pytest configuration: its addopts, warning filters, conftests
and plugins apply, and in most repositories one of them stops an evaluation before it starts (a conftest importing
the project, ``--cov`` without pytest-cov, ``filterwarnings = error``). This command runs pytest with the
project's ``chunkeval_*`` settings and nothing else of its configuration (:mod:`pytest_chunkeval.run.isolation`);
every pytest and pytest-chunkeval option still works after it (``-k``, ``-x``, ``--chunkeval-base=main``).
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_chunkeval.run.isolation import environment, pytest_args
from pytest_chunkeval.settings.project import ConfigError, ProjectConfig

HELP = "evaluate the golden suites with pytest, independently of the project's own test setup"
DESCRIPTION = f"""usage: chunkeval run [PYTEST ARGS...]

chunkeval run: {HELP}.

Runs `pytest --chunkeval` on the suites of the project in the current folder with only the chunkeval_* settings of
its pytest configuration file; its addopts, filterwarnings, xfail_strict, other settings, conftests (except those
that define strategies) and installed plugins are left out. Any pytest or pytest-chunkeval option may follow, e.g.
  chunkeval run -k fixed_size
  chunkeval run --chunkeval-accept-misses
  chunkeval run --chunkeval-base=main --chunkeval-markdown=pr.md
pytest's own help, with every --chunkeval option, follows.
"""
#: pytest's usage-error exit status, for a configuration file that cannot be read.
USAGE_ERROR = 4


def add_parser(subparsers: Any) -> None:
    """Listed in ``chunkeval --help``; its arguments are pytest's, passed on untouched (see :func:`main`)."""
    subparsers.add_parser("run", help=HELP, add_help=False)


def main(argv: Sequence[str], cwd: Path | None = None) -> int:
    args = list(argv)
    try:
        project = ProjectConfig.locate(cwd or Path.cwd())
    except ConfigError as exc:
        print(f"chunkeval run: {exc}", file=sys.stderr)
        return USAGE_ERROR
    if any(a in ("-h", "--help") for a in args):
        print(DESCRIPTION, flush=True)
    cmd = [sys.executable, "-m", "pytest", *pytest_args(project, args)]
    env = environment(os.environ)
    env.setdefault("LANCEDB_LOG", "error")  # LanceDB's own log lines are noise in an evaluation's output
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execve(sys.executable, cmd, env)  # pytest's exit status, signals and terminal are the user's directly
    return subprocess.call(cmd, env=env)  # pragma: no cover - Windows
