"""Evaluate the golden suites as they are at another git ref (a pull request's base), with that commit's own code.

The base side must run the base commit's strategies, grammar, config *and* package, or a change to the engine would
be compared with itself. So it runs in a temporary ``git worktree`` of the base commit, as a ``pytest --chunkeval``
subprocess whose ``PYTHONPATH`` puts the worktree's package first, writing a JSON report that the head side reads.
It shares the embedding cache, so chunks that did not change cost nothing; it gets its own LanceDB folder, so the two
sides never drop each other's tables as stale.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_chunkeval.core.vocabulary import DEFAULT_K, DEFAULT_RETRIEVAL
from pytest_chunkeval.results.report_file import ReportError, read_report
from pytest_chunkeval.settings.git_ref import BaseRefError, git, resolve_commit


@dataclass
class BaseRequest:
    root: Path  # the project root on the head side (where the ini file is)
    ref: str
    suites: list[str]  # suite keys: golden files relative to root (or absolute, for suites outside the project)
    k: int = DEFAULT_K
    retrieval: str = DEFAULT_RETRIEVAL
    baseline: str = "file_level"
    model: str | None = None
    device: str | None = None
    backend: str = "torch"  # passed on only when not the default, so a base before the option still runs
    # The head's parameter grid (ini and command line, as STRATEGY.PARAM=V,V lines): the base evaluates the same
    # points, so each point compares with itself. Passed on only when there is one, as the backend is.
    grid: list[str] = field(default_factory=list)
    cache_dir: Path = Path(".chunkeval")
    db_uri: str = ".chunkeval/lancedb-base"
    # The head's storage options as environment variables (LanceDB reads both spellings): they reach the base's
    # pytest without appearing on its command line, and work with a base commit that predates the ini setting.
    storage_env: dict[str, str] = field(default_factory=dict)
    # An isolated head run (chunkeval run): the project's configuration file relative to ``root`` ("" without
    # one). The base is evaluated isolated too, from that file in the worktree: its test setup stays out as well.
    project: str | None = None
    progress: bool = False  # the base's progress lines forwarded to the head's log as they come
    allow_outside_corpus: bool = False  # the head's --chunkeval-allow-outside-corpus, for the same suites
    # The head's caps when not the defaults (None), so the base reads and chunks the same files the same way.
    caps: dict[str, int] = field(default_factory=dict)


@dataclass
class BaseEvaluation:
    ref: str
    commit: str
    report: dict[str, Any]
    missing_suites: list[str] = field(default_factory=list)  # head suites that do not exist at the base commit
    seconds: float = 0.0

    @property
    def embedded(self) -> int:
        return int((self.report.get("embedding") or {}).get("embedded", 0))

    def info(self) -> dict[str, Any]:
        emb = self.report.get("embedding") or {}
        return {"ref": self.ref, "commit": self.commit, "seconds": round(self.seconds, 1),
                "embedded": emb.get("embedded", 0), "cached": emb.get("cached", 0),
                "missing_suites": self.missing_suites}


#: Temporary folders of base evaluations: ``chunkeval-base-<pid of the head run>-<random>``. The pid says whether
#: the run that made one still lives; a folder whose run is gone was left by a killed run and is removed.
TEMP_PREFIX = "chunkeval-base-"

#: Runs pytest as ``python -m pytest`` does, after asking Linux to kill this process when its parent (the head run)
#: dies: a head killed by CI's time limit or a cancel (SIGKILL included, which no handler sees) must not leave the
#: base evaluation running on with parent 1. Inline, not a module of this package: the base's PYTHONPATH puts the
#: base commit's own package first, which may predate any module added here. Elsewhere (macOS, Windows) prctl is
#: missing and the base ends with the head only when the head ends normally or by Ctrl-C.
_CHILD = """\
import ctypes, os, runpy, signal, sys
parent = int(sys.argv.pop(1))
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except (AttributeError, OSError):
    pass
if os.getppid() != parent:  # the head died before the line above: nobody is waiting for this evaluation
    sys.exit(1)
sys.argv[0] = "pytest"
runpy.run_module("pytest", run_name="__main__", alter_sys=True)
"""


def _start(req: BaseRequest, base_root: Path) -> list[str]:
    """pytest's command line up to the settings: the project's own configuration, or an isolated run's."""
    quiet = [] if req.progress else ["-q", "--chunkeval-no-progress"]  # -q turns progress off too
    start = [sys.executable, "-c", _CHILD, str(os.getpid()), *quiet, "-p", "no:cacheprovider"]
    if req.project is None:
        return [*start, "--rootdir", str(base_root), "--chunkeval", "-m", "chunkeval"]
    from pytest_chunkeval.run.isolation import pytest_args
    from pytest_chunkeval.settings.project import ConfigError, ProjectConfig

    target = base_root / req.project if req.project and (base_root / req.project).is_file() else base_root
    try:
        return [*start, *pytest_args(ProjectConfig.locate(target), [], rootdir=base_root)]
    except ConfigError as exc:
        raise BaseRefError(f"--chunkeval-base {req.ref}: {exc}") from None


def _command(req: BaseRequest, base_root: Path, suites: list[str], report: Path) -> list[str]:
    cmd = [
        *_start(req, base_root),
        f"--chunkeval-report={report}", f"--chunkeval-db={req.db_uri}", f"--chunkeval-k={req.k}",
        f"--chunkeval-retrieval={req.retrieval}", f"--chunkeval-baseline={req.baseline}",
        "-o", f"chunkeval_cache_dir={req.cache_dir}",
        "-o", "chunkeval_base=",  # the base's own ini must not ask for a base of its own
    ]
    if req.allow_outside_corpus:  # an ini key, not the flag: a base from before the setting only warns of it
        cmd += ["-o", "chunkeval_allow_outside_corpus=true"]
    for ini, value in sorted(req.caps.items()):  # ini keys too: a base from before them only warns
        cmd += ["-o", f"{ini}={value}"]
    if req.model:
        model = Path(req.model).expanduser()
        cmd.append(f"--chunkeval-model={(req.root / model) if (req.root / model).exists() else req.model}")
    if req.device:
        cmd.append(f"--chunkeval-device={req.device}")
    if req.backend != "torch":
        cmd.append(f"--chunkeval-backend={req.backend}")
    cmd += [f"--chunkeval-grid={line}" for line in req.grid]
    return [*cmd, *suites]


def evaluate_base(req: BaseRequest, say: Callable[[str], object] = lambda s: None) -> BaseEvaluation:
    """Check out ``req.ref`` in a temporary worktree, evaluate the same suites there, return its report.

    The worktree is removed afterwards whatever happens; the subprocess's log is kept in the cache folder when it
    fails, and its tail is in the error.
    """
    commit = resolve_commit(req.root, req.ref)
    top = Path(git(req.root, "rev-parse", "--show-toplevel").stdout.strip()).resolve()
    remove_stale(top)
    start = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
    tree = tmp / "tree"
    try:
        added = git(top, "worktree", "add", "--detach", "--quiet", str(tree), commit)
        if added.returncode != 0:
            raise BaseRefError(f"--chunkeval-base {req.ref}: git worktree add failed: {added.stderr.strip()}")
        base_root = tree / req.root.resolve().relative_to(top)
        suites: list[str] = []
        missing: list[str] = []  # suites the pull request adds: they have no base
        for key in req.suites:
            path = Path(key) if Path(key).is_absolute() else base_root / key
            if path.is_file():
                suites.append(str(path))
            else:
                missing.append(key)
        report_path = tmp / "base-report.json"
        if not suites:
            return BaseEvaluation(req.ref, commit, {"suites": {}}, missing, time.perf_counter() - start)
        say(f"[chunkeval] evaluating base {req.ref} ({commit[:10]}) in a temporary worktree: {len(suites)} suite(s)\n")
        env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(base_root), env.get("PYTHONPATH", "")) if p)
        env.setdefault("LANCEDB_LOG", "error")
        env.update(req.storage_env)
        if req.project is not None:
            from pytest_chunkeval.run.isolation import environment

            env = environment(env)
        from pytest_chunkeval.retrieval.storage import StorageOptions

        scrub = StorageOptions(req.storage_env).scrub  # the log, the error and the progress lines may quote them
        returncode, output = _run_streaming(_command(req, base_root, suites, report_path), base_root, env,
                                            lambda line: say(f"[chunkeval] base: {scrub(line)[len(PROGRESS):]}"))
        output = scrub(output)
        # 0: all passed, 1: some items failed (misses on base are normal); anything else means no usable report.
        if returncode not in (0, 1) or not report_path.is_file():
            req.cache_dir.mkdir(parents=True, exist_ok=True)
            log = req.cache_dir / f"base-{commit[:10]}.log"
            log.write_text(output, "utf-8")
            tail = "\n".join(output.strip().splitlines()[-25:])
            raise BaseRefError(
                f"--chunkeval-base {req.ref} ({commit[:10]}): the base evaluation exited {returncode} without a "
                f"report; full log: {log}\n{tail}"
            )
        try:  # the checked reader (strict JSON, the report's shape, numbers in range), as --chunkeval-compare's
            report = read_report(report_path)
        except ReportError as exc:
            raise BaseRefError(f"--chunkeval-base {req.ref} ({commit[:10]}): its evaluation wrote a report this "
                               f"version cannot read: {exc}") from None
        result = BaseEvaluation(req.ref, commit, report, missing, time.perf_counter() - start)
        say(f"[chunkeval] base {req.ref} evaluated in {result.seconds:.0f}s, embedded {result.embedded} texts\n")
        return result
    finally:
        git(top, "worktree", "remove", "--force", str(tree))
        shutil.rmtree(tmp, ignore_errors=True)
        git(top, "worktree", "prune")


#: How the base's progress lines start (its own LineProgress): forwarded to the head's log as they come.
PROGRESS = "[chunkeval] "


def _run_streaming(cmd: list[str], cwd: Path, env: dict[str, str],
                   progress: Callable[[str], object]) -> tuple[int, str]:
    """Run the base evaluation, passing its progress lines on as they come (a CI log that says nothing while the
    base embeds for minutes looks hung); its exit status and whole output."""
    lines: list[str] = []
    with subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace") as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith(PROGRESS):
                progress(line)
    return proc.returncode, "".join(lines)


def remove_stale(top: Path) -> list[Path]:
    """Remove what killed base evaluations left: their temporary folders (with the worktree inside) whose run is
    gone, and this repository's records of worktrees that no longer exist (``git worktree prune``). A folder of a
    run that still lives, or of another user, is left alone. Returns the folders removed."""
    removed: list[Path] = []
    for folder in sorted(Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*")):
        pid = folder.name[len(TEMP_PREFIX):].split("-", 1)[0]
        if not folder.is_dir() or not pid.isdigit() or _alive(int(pid)):
            continue
        git(top, "worktree", "remove", "--force", str(folder / "tree"))  # fails harmlessly for another repository's
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
    git(top, "worktree", "prune")
    return removed


def _alive(pid: int) -> bool:
    if os.name == "nt":  # os.kill(pid, 0) there sends CTRL_C_EVENT: never guess, leave the folder
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
