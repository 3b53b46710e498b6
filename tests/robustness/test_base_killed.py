"""A --chunkeval-base run killed mid-evaluation (CI's time limit, a cancel: SIGKILL) takes its base subprocess with it,
and the next run removes the temporary folder and worktree it left. Real processes and a real git repository: the
base commit's conftest.py stands for a long base evaluation (it says its pid, then sleeps)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_chunkeval.run.base_ref import remove_stale

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's (prctl)")

HEAD_RUN = textwrap.dedent("""
    import sys
    from pathlib import Path
    from pytest_chunkeval.run.base_ref import BaseRequest, evaluate_base
    repo = Path(sys.argv[1])
    evaluate_base(BaseRequest(root=repo, ref="HEAD", suites=["golden/x/queries.yaml"], cache_dir=repo / ".cache"))
""")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo, check=True,
                          capture_output=True, text=True).stdout


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's reaper may be slow to collect it; a zombie runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_for(condition: Callable[[], bool], seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def test_a_killed_head_run_takes_its_base_along_and_the_next_run_cleans_up(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo, temp, mark = tmp_path / "repo", tmp_path / "tmp", tmp_path / "base.pid"
    (repo / "golden" / "x").mkdir(parents=True)
    temp.mkdir()
    (repo / "golden" / "x" / "queries.yaml").write_text("queries: []\n")
    (repo / "conftest.py").write_text(
        "import os, pathlib, time\n"
        "pathlib.Path(os.environ['BASE_PID_FILE']).write_text(str(os.getpid()))\n"
        "time.sleep(600)\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    env = {**os.environ, "TMPDIR": str(temp), "BASE_PID_FILE": str(mark)}
    head = subprocess.Popen([sys.executable, "-c", HEAD_RUN, str(repo)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    base = 0
    try:
        assert _wait_for(lambda: mark.is_file() and mark.read_text().isdigit()), "the base evaluation never started"
        base = int(mark.read_text())
        head.kill()
        head.wait()
        assert _wait_for(lambda: not _running(base), 30), "the base subprocess outlived its killed head run"
    finally:
        head.kill()
        if base and _running(base):
            os.kill(base, signal.SIGKILL)
    left = list(temp.glob(f"chunkeval-base-{head.pid}-*"))
    assert len(left) == 1 and (left[0] / "tree").is_dir()  # a SIGKILL runs no cleanup: the next run's job
    assert str(left[0] / "tree") in _git(repo, "worktree", "list")
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    mine = temp / f"chunkeval-base-{os.getpid()}-live"  # a run that still lives keeps its folder
    mine.mkdir()
    assert remove_stale(repo) == left
    assert not left[0].exists() and mine.is_dir()
    assert _git(repo, "worktree", "list").count("\n") == 1  # only the repository itself
