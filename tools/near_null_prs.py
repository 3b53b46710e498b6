#!/usr/bin/env python3
"""Near-null pull requests, evaluated for real through the action's Evaluate step: how often is the check red?

Why: ``chunkeval calibrate`` simulates pull requests on the per-query numbers of stored reports, through the
decision code of the paired metric tests. A reviewer lives with the whole check instead: every item that can turn it
red (per-query items, size and warning rules, the metric tests) on a real change to a real strategy, evaluated the
way CI evaluates it. Issue 33 showed the gap: a packing limit moved by 1.7 % turned the check red through per-query
items while every statistical test said "ok". This tool measures that rate end to end (Must-show item 3), and
whether a change that really loses is still caught, so that a change of the decision can be measured before and
after on the same repositories, commits and pull requests.

What it does, for each repository given (one set up by ``chunkeval init`` and committed, as a user's is):

1. The base (once, kept): a commit on top of the init commit that adds a second user strategy,
   ``strategies/windows.py`` (the public ``FixedSizeChunker`` under the name ``windows``, with ``SIZE`` and
   ``OVERLAP`` constants), and the accepted-misses record of all strategies as a user records it
   (``chunkeval run --chunkeval-accept-misses``). Tagged ``nullprs-base``; its JSON report (every strategy, every
   query: input for ``chunkeval calibrate``) is kept as ``OUT/REPO/base-report.json``.
2. Pull requests, each one commit on the base (branch ``nullprs/NAME``) that changes ONE parameter of ONE strategy:
   near-null ones (the example strategy's ``max_chunk_size``, the model's window of 256 tokens, by -3..+3 %, two
   harmless blank-line rules in its ``pieces``, the windows' overlap by +-10 % and size by +-2 %) and real-change
   ones (``max_chunk_size`` halved, the windows' size halved).
3. Each pull request is evaluated by the composite action's Evaluate step, its ``run:`` script taken from
   ``action.yml`` and run as a runner runs it (``bash --noprofile --norc -eo pipefail``, ``env:`` from the inputs,
   ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` files), with the user's virtualenv first on ``PATH`` (the install
   steps are skipped: the virtualenv is what they would have installed). Inputs: ``base-ref`` = the parent commit,
   ``pytest-args`` = ``--chunkeval-strategies=<the changed strategy>`` (the baseline always runs), ``suites`` empty
   (the ini's).
4. Per pull request it records the action's ``exit-code`` output, the verdict (JSON report and the first lines of the
   step summary), the failed pytest items (JUnit XML), per suite the changed strategy's comparison (status, paired
   metric deltas, p and adjusted p, MDE, lost and gained query counts, and any other field the report has for it),
   and the wall time. One JSON line per pull request in ``OUT/REPO/results.jsonl``; the step's reports, summary and
   log under ``OUT/REPO/prs/NAME/``.

``summarize OUT`` prints the table of every ``results.jsonl`` under OUT and the summary: the red rate over the
near-null pull requests with 95 % Clopper-Pearson and Wilson intervals, and which real-change pull requests were
red (with whether their gating metrics actually fell).

Re-running with another wheel (the AFTER measurement): install it into the same virtualenv
(``pip install --force-reinstall --no-deps WHEEL``) and run again with a new ``--out``; the base commit and its tag
are reused (its record is not re-made), the pull-request branches are re-made from it, the embedding cache in the
repository's ``.chunkeval`` stays warm. ``--action`` picks the action.yml whose Evaluate step runs (default: the one
of the checkout this tool is in).

    python tools/near_null_prs.py run --venv /work/scratch/uservenv --out /work/scratch/nullprs-before \\
        /work/scratch/repos/rust-lang+log /work/scratch/repos/google+uuid
    python tools/near_null_prs.py summarize /work/scratch/nullprs-before

Needs Python 3.11+ with PyYAML and pytest-chunkeval for itself (the virtualenv's Python has both); git; bash.
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from pytest_chunkeval.commands.calibrate.figures import wilson  # the Wilson interval calibrate reports too

ROOT = Path(__file__).resolve().parents[1]
BASE_TAG = "nullprs-base"
BRANCH_PREFIX = "nullprs/"
EXAMPLE_FILE = "strategies/my_strategy.py"
#: The bundled model's window in tokens: the example strategy packs up to it (``max_chunk_size = "window"``).
WINDOW = 256
WINDOWS_FILE = "strategies/windows.py"
IDENTITY = {"GIT_AUTHOR_NAME": "Near Null", "GIT_AUTHOR_EMAIL": "near-null@example.invalid",
            "GIT_COMMITTER_NAME": "Near Null", "GIT_COMMITTER_EMAIL": "near-null@example.invalid"}

WINDOWS_SOURCE = '''\
# Fixed-size character windows with overlap: the built-in fixed_size chunker under this project's own name and
# sizes (README: "Your own strategies"; FixedSizeChunker is public API).
from __future__ import annotations

from pytest_chunkeval import FixedSizeChunker, strategy

# Window length and the characters each window shares with the previous one.
SIZE = 1000
OVERLAP = 100


@strategy
def windows() -> FixedSizeChunker:
    """SIZE-character windows, OVERLAP shared."""
    return FixedSizeChunker(max_chunk_size=SIZE, overlap=OVERLAP, name="windows")
'''

# -- the pull requests ------------------------------------------------------------------------------------------------


def _replace_once(text: str, old: str, new: str, where: str) -> str:
    if text.count(old) != 1:
        raise SystemExit(f"{where}: expected exactly one {old!r} (found {text.count(old)}): is this what "
                         "`chunkeval init` wrote?")
    return text.replace(old, new)


def set_constant(name: str, value: int) -> Callable[[str, str], str]:
    """Set the one ``NAME = ...`` line (a module constant, or a class attribute at its indentation) to ``value``."""
    def edit(text: str, where: str) -> str:
        match = re.findall(rf"^([ ]*){name} = (.+)$", text, re.MULTILINE)
        if len(match) != 1:
            raise SystemExit(f"{where}: expected one `{name} = ...` line, found {len(match)}")
        indent, old = match[0]
        return _replace_once(text, f"\n{indent}{name} = {old}\n", f"\n{indent}{name} = {value}\n", where)
    return edit


BLANK_LOOP = """\
    for b, e in lines:
        if text[b:e].strip():
            paragraphs[-1].append((b, e))
        elif paragraphs[-1]:
            paragraphs.append([])  # a blank line ends the paragraph
"""

TWO_BLANKS = """\
    blanks = 0  # blank lines in a row
    for b, e in lines:
        if text[b:e].strip():
            paragraphs[-1].append((b, e))
            blanks = 0
        else:
            blanks += 1
            if blanks == 2 and paragraphs[-1]:
                paragraphs.append([])  # two blank lines in a row end the paragraph
"""

COMMENT_BREAK = """\
    for b, e in lines:
        line = text[b:e].strip()
        if line in ("//", "///", "#", "*", "--", ";") and paragraphs[-1]:
            paragraphs.append([(b, e)])  # an empty comment line ends the paragraph too (and starts the next)
        elif line:
            paragraphs[-1].append((b, e))
        elif paragraphs[-1]:
            paragraphs.append([])  # a blank line ends the paragraph
"""


def _method(block: str) -> str:
    """A block of the example's ``pieces`` at a method's indentation (it is a method of the strategy class)."""
    return textwrap.indent(block, "    ")


def replace_block(old: str, new: str) -> Callable[[str, str], str]:
    return lambda text, where: _replace_once(text, old, new, where)


@dataclass(frozen=True)
class PullRequest:
    name: str
    kind: str  # "near-null" (should stay green) | "real-change" (expected to lose: should be red)
    strategy: str  # the strategy it changes: the one evaluated (with the baseline)
    file: str
    edit: Callable[[str, str], str]
    subject: str


def pull_requests() -> list[PullRequest]:
    prs: list[PullRequest] = []
    for pct in (-1, -2, -3, 1, 2, 3):
        value = round(WINDOW * (1 + pct / 100))
        prs.append(PullRequest(f"max-tokens-{value}", "near-null", "blank_lines", EXAMPLE_FILE,
                               set_constant("max_chunk_size", value),
                               f"blank_lines: pack chunks up to {value} tokens ({pct:+d} % of the window)"))
    prs.append(PullRequest("blank-two-lines", "near-null", "blank_lines", EXAMPLE_FILE,
                           replace_block(_method(BLANK_LOOP), _method(TWO_BLANKS)),
                           "blank_lines: a paragraph ends at two blank lines in a row, not one"))
    prs.append(PullRequest("blank-comment-line", "near-null", "blank_lines", EXAMPLE_FILE,
                           replace_block(_method(BLANK_LOOP), _method(COMMENT_BREAK)),
                           "blank_lines: an empty comment line ends a paragraph too"))
    for value in (90, 110):
        prs.append(PullRequest(f"windows-overlap-{value}", "near-null", "windows", WINDOWS_FILE,
                               set_constant("OVERLAP", value),
                               f"windows: {value} characters of overlap ({(value - 100) / 100:+.0%})"))
    for value in (980, 1020):
        prs.append(PullRequest(f"windows-size-{value}", "near-null", "windows", WINDOWS_FILE,
                               set_constant("SIZE", value),
                               f"windows: {value}-character windows ({(value - 1000) / 1000:+.0%})"))
    prs.append(PullRequest(f"max-tokens-{WINDOW // 2}", "real-change", "blank_lines", EXAMPLE_FILE,
                           set_constant("max_chunk_size", WINDOW // 2),
                           f"blank_lines: pack chunks up to {WINDOW // 2} tokens (half the window)"))
    prs.append(PullRequest("windows-size-500", "real-change", "windows", WINDOWS_FILE,
                           set_constant("SIZE", 500), "windows: 500-character windows (halved)"))
    return prs


# -- running things ---------------------------------------------------------------------------------------------------


def user_environment(venv: Path) -> dict[str, str]:
    """The environment of a user who activated ``venv``: nothing of an outer virtualenv, pytest, git hook or this
    project's switches; the virtualenv first on PATH."""
    dropped_prefixes = ("PYTEST_", "_PYTEST", "GIT_", "CHUNKEVAL_", "GITHUB_", "VIRTUAL_ENV")
    dropped = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PWD", "OLDPWD"}
    env = {k: v for k, v in os.environ.items() if k not in dropped and not k.startswith(dropped_prefixes)}
    outer = os.environ.get("VIRTUAL_ENV")
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and not (outer and p.startswith(outer))]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    env["VIRTUAL_ENV"] = str(venv)
    env.setdefault("LANCEDB_LOG", "error")
    return env


def git(repo: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, env={**os.environ, **IDENTITY, **(env or {})},
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} in {repo} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    return proc.stdout.strip()


def evaluate_step(action: Path) -> dict[str, Any]:
    """The Evaluate step of the composite action (``id: evaluate``)."""
    spec = yaml.safe_load(action.read_text())
    steps = [s for s in spec["runs"]["steps"] if s.get("id") == "evaluate"]
    if len(steps) != 1 or "run" not in steps[0]:
        raise SystemExit(f"{action}: no `run:` step with id `evaluate`")
    step = dict(steps[0])
    step["inputs"] = spec.get("inputs", {})
    return step


INPUT = re.compile(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}")
EXPRESSION = re.compile(r"\$\{\{.*?\}\}")


def expand_inputs(value: Any, inputs: Mapping[str, str], where: str) -> str:
    """``${{ inputs.NAME }}`` replaced by the input; any other expression is an error (the tool would have to guess
    what a runner gives it)."""
    text = INPUT.sub(lambda m: inputs[m.group(1)], str(value))
    left = EXPRESSION.search(text)
    if left:
        raise SystemExit(f"{where}: an expression this tool does not evaluate: {left.group(0)}")
    return text


@dataclass
class StepRun:
    code: int  # the step's own exit status (0 unless the script itself failed)
    outputs: dict[str, str]
    summary: str
    log: str
    seconds: float


def run_evaluate(action: Path, repo: Path, inputs: Mapping[str, str], env: Mapping[str, str], scratch: Path,
                 timeout: float) -> StepRun:
    step = evaluate_step(action)
    declared: dict[str, Any] = step["inputs"]
    unknown = set(inputs) - set(declared)
    if unknown:
        raise SystemExit(f"inputs the action does not declare: {sorted(unknown)}")
    values = {name: inputs[name] if name in inputs else str(spec.get("default", "")) for name, spec in declared.items()}
    for name, value in values.items():
        if EXPRESSION.search(value) and name not in inputs:
            values[name] = ""  # a default computed from the github context: unused by the step's env, or given
    scratch.mkdir(parents=True, exist_ok=True)
    output, summary, script = scratch / "github_output", scratch / "step_summary.md", scratch / "evaluate.sh"
    output.write_text("")
    summary.write_text("")
    script.write_text(step["run"])
    step_env = {**env, **{k: expand_inputs(v, values, f"env.{k}") for k, v in (step.get("env") or {}).items()},
                "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_ACTIONS": "true"}
    cwd = repo / expand_inputs(step.get("working-directory", "."), values, "working-directory")
    start = time.perf_counter()
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd, env=step_env,
                          capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    outputs = dict(line.partition("=")[::2] for line in output.read_text().splitlines() if "=" in line)
    return StepRun(done.returncode, outputs, summary.read_text(), done.stdout + done.stderr, seconds)


# -- the base -----------------------------------------------------------------------------------------------------


def ensure_base(repo: Path, env: Mapping[str, str], out: Path, timeout: float) -> str:
    """The base commit (tag ``nullprs-base``), made once: windows.py and the misses of every strategy recorded.
    Also writes ``out/base-report.json`` (a plain evaluation of the base) when it is not there."""
    tags = git(repo, "tag", "--list", BASE_TAG)
    if tags:
        base = git(repo, "rev-parse", f"{BASE_TAG}^{{commit}}")
        git(repo, "checkout", "--quiet", "--force", "--detach", base)
    else:
        if git(repo, "status", "--porcelain", "--untracked-files=no"):
            raise SystemExit(f"{repo}: uncommitted changes; commit what `chunkeval init` wrote first")
        tracked = git(repo, "ls-files", EXAMPLE_FILE)
        if not tracked:
            raise SystemExit(f"{repo}: {EXAMPLE_FILE} is not committed: run `chunkeval init` and commit it")
        (repo / WINDOWS_FILE).write_text(WINDOWS_SOURCE)
        report = out / "base-report.json"
        out.mkdir(parents=True, exist_ok=True)
        say(f"{repo.name}: recording the base (every strategy, accepted misses) ...")
        proc = subprocess.run(["chunkeval", "run", "--chunkeval-accept-misses", f"--chunkeval-report={report}"],
                              cwd=repo, env=dict(env), capture_output=True, text=True, timeout=timeout)
        (out / "base-record.log").write_text(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            raise SystemExit(f"{repo}: recording the base exited {proc.returncode}; see {out / 'base-record.log'}")
        git(repo, "add", WINDOWS_FILE, *git(repo, "ls-files", "--others", "--exclude-standard", "--",
                                              "*accepted_misses.yaml").splitlines(),
            *git(repo, "ls-files", "--modified", "--", "*accepted_misses.yaml").splitlines())
        git(repo, "commit", "--quiet", "-m", "Add a windows strategy and record the accepted misses")
        base = git(repo, "rev-parse", "HEAD")
        git(repo, "tag", BASE_TAG, base)
    report = out / "base-report.json"
    if not report.is_file():
        out.mkdir(parents=True, exist_ok=True)
        say(f"{repo.name}: evaluating the base for its report ...")
        proc = subprocess.run(["chunkeval", "run", f"--chunkeval-report={report}"], cwd=repo, env=dict(env),
                              capture_output=True, text=True, timeout=timeout)
        (out / "base-report.log").write_text(proc.stdout + proc.stderr)
        if not report.is_file():
            raise SystemExit(f"{repo}: the base evaluation wrote no report; see {out / 'base-report.log'}")
    return base


# -- one pull request ---------------------------------------------------------------------------------------------

HEAVY = {"lost", "gained", "files_rechunked", "metrics", "problems"}


def comparison_of(report: Mapping[str, Any], strategy: str) -> dict[str, Any]:
    """Per suite: the changed strategy's comparison, its lists as counts, every other field as the report has it
    (so fields a later decision adds are kept without this tool knowing them)."""
    out: dict[str, Any] = {}
    for key, suite in (report.get("suites") or {}).items():
        cmp = ((suite.get("comparison") or {}).get("strategies") or {})
        entry = cmp.get(strategy)
        if entry is None:
            continue
        row = {k: v for k, v in entry.items() if k not in HEAVY}
        row["lost"] = len(entry.get("lost") or [])
        row["gained"] = len(entry.get("gained") or [])
        row["lost_ids"] = [c["id"] for c in entry.get("lost") or []]
        row["gained_ids"] = [c["id"] for c in entry.get("gained") or []]
        row["files_rechunked"] = len(entry.get("files_rechunked") or [])
        row["problems"] = entry.get("problems") or []
        row["metrics"] = [{k: m.get(k) for k in ("mode", "metric", "base", "head", "delta", "p_value", "p_adjusted",
                                                 "regressed", "gating", "fell", "mde")}
                          for m in entry.get("metrics") or []]
        out[key] = row
    return out


def failed_items(junit: Path) -> list[str]:
    if not junit.is_file():
        return []
    failed = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(f"{case.get('classname', '')}::{case.get('name', '')}")
    return failed


def package_fingerprint(venv: Path) -> str:
    """Which build of pytest-chunkeval the virtualenv holds: the version and a hash of its RECORD (every file's
    hash), so that results of two wheels are never mixed up."""
    records = sorted(venv.glob("lib/python*/site-packages/pytest_chunkeval-*.dist-info/RECORD"))
    if not records:
        return "?"
    digest = hashlib.sha256(records[0].read_bytes()).hexdigest()[:12]
    return f"{records[0].parent.name.removeprefix('pytest_chunkeval-').removesuffix('.dist-info')}+{digest}"


def run_pr(repo: Path, base: str, pr: PullRequest, env: Mapping[str, str], action: Path, out: Path,
           timeout: float) -> dict[str, Any]:
    branch = BRANCH_PREFIX + pr.name
    git(repo, "checkout", "--quiet", "--force", "-B", branch, base)
    path = repo / pr.file
    path.write_text(pr.edit(path.read_text(), f"{repo.name}:{pr.file}"))
    git(repo, "commit", "--quiet", "-am", pr.subject)
    head = git(repo, "rev-parse", "HEAD")
    folder = out / "prs" / pr.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    inputs = {"base-ref": base, "pytest-args": f"--chunkeval-strategies={pr.strategy}", "suites": "",
              "working-directory": "."}
    written = ("chunkeval-report.json", "chunkeval-report.md", "chunkeval-junit.xml", "chunkeval-report.png")
    for name in written:
        (repo / name).unlink(missing_ok=True)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        step = run_evaluate(action, repo, inputs, env, folder, timeout)
    finally:
        for name in written:
            if (repo / name).is_file():
                shutil.move(str(repo / name), folder / name)
        git(repo, "checkout", "--quiet", "--force", "--detach", base)
    (folder / "step.log").write_text(step.log)
    report_path = folder / "chunkeval-report.json"
    report = json.loads(report_path.read_text()) if report_path.is_file() else {}
    verdict = report.get("verdict") or {}
    verdict_lines = [line for line in step.log.splitlines() if line.startswith("VERDICT")]
    return {
        "repository": repo.name, "pr": pr.name, "kind": pr.kind, "strategy": pr.strategy, "subject": pr.subject,
        "base": base, "head": head,
        "exit_code": step.outputs.get("exit-code"), "step_code": step.code,
        "verdict_line": verdict_lines[-1] if verdict_lines else None,
        "verdict": {"passed": verdict.get("passed"), "headline": verdict.get("headline"),
                    "reasons": [{"title": r.get("title"), "count": len(r.get("lines") or []),
                                 "lines": (r.get("lines") or [])[:8]} for r in verdict.get("reasons") or []],
                    "notes": verdict.get("notes") or []},
        "family": report.get("family"),
        "summary_head": step.summary.strip().splitlines()[:6],
        "failed_items": failed_items(folder / "chunkeval-junit.xml"),
        "suites": comparison_of(report, pr.strategy),
        "seconds": round(step.seconds, 1), "started": started,
        "package": package_fingerprint(Path(env["VIRTUAL_ENV"])), "action": str(action),
    }


# -- the table and the summary -------------------------------------------------------------------------------------


def binom_cdf(k: int, n: int, p: float) -> float:
    if p <= 0:
        return 1.0
    if p >= 1:
        return 1.0 if k >= n else 0.0
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact binomial interval, by bisection on the binomial distribution (no SciPy needed)."""
    a = (1 - level) / 2

    def solve(f: Callable[[float], float]) -> float:  # f increasing in p, root in [0, 1]
        lo, hi = 0.0, 1.0
        for _ in range(100):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2
    lower = 0.0 if k == 0 else solve(lambda p: (1 - a) - binom_cdf(k - 1, n, p))
    upper = 1.0 if k == n else solve(lambda p: a - binom_cdf(k, n, p))
    return lower, upper


def red(row: Mapping[str, Any]) -> bool:
    return str(row.get("exit_code")) != "0"


def gating_deltas(row: Mapping[str, Any]) -> str:
    parts = []
    for key, cmp in row["suites"].items():
        suite = key.split("/")[-2] if "/" in key else key
        for m in cmp["metrics"]:
            if m.get("gating"):
                adj = m.get("p_adjusted")
                parts.append(f"{suite}:{m['metric']}/{m['mode']} {m['delta']:+.3f} p={m['p_value']:.2f}"
                             + (f"/{adj:.2f}" if adj is not None else ""))
    return "; ".join(parts)


def reasons_text(row: Mapping[str, Any]) -> str:
    return "; ".join(f"{r['title']} ({r['count']})" for r in row["verdict"]["reasons"]) or "-"


def table(rows: Iterable[Mapping[str, Any]]) -> str:
    lines = ["| repository | pull request | kind | exit | lost/gained | sign p | gating deltas (p / adjusted p) "
             "| paired/rules red | reasons | s |",
             "|---|---|---|---:|---|---:|---|---|---|---:|"]
    for row in rows:
        lg = ", ".join(f"{k.split('/')[-2] if '/' in k else k} -{c['lost']}/+{c['gained']}"
                       for k, c in row["suites"].items())
        lines.append(f"| {row['repository']} | {row['pr']} | {row['kind']} | {row['exit_code']} | {lg} | "
                     f"{sign_p(row):.3f} | {gating_deltas(row)} | {'yes' if rules_red(row) else 'no'} | "
                     f"{reasons_text(row)} | {row['seconds']:.0f} |")
    return "\n".join(lines)


def sign_p(row: Mapping[str, Any]) -> float:
    """One-sided exact sign test of the changed strategy's lost against gained queries, pooled over its suites:
    P(at least this many of the discordant queries are losses | no change). Not a decision of the check: a
    reference for a paired hit test, read beside what the check decided."""
    lost = sum(c["lost"] for c in row["suites"].values())
    gained = sum(c["gained"] for c in row["suites"].values())
    return 1.0 - binom_cdf(lost - 1, lost + gained, 0.5) if lost else 1.0


def rules_red(row: Mapping[str, Any]) -> bool:
    """Red by the report's comparison alone: a gating metric regressed (paired test past tolerance, adjusted), the
    index grew past the limit, or new warnings, in some suite; what the per-query items add is left out."""
    return any(any(m.get("regressed") for m in c["metrics"]) or (c.get("index") or {}).get("regressed")
               or c.get("verdict") == "worse" for c in row["suites"].values())


def fell(row: Mapping[str, Any]) -> bool:
    """Did any gating metric of the changed strategy fall past 0.01 (the default tolerance) on some suite?"""
    return any(m.get("gating") and m["delta"] < -0.01 for c in row["suites"].values() for m in c["metrics"])


def summary(rows: Sequence[Mapping[str, Any]]) -> str:
    near = [r for r in rows if r["kind"] == "near-null"]
    k, n = sum(red(r) for r in near), len(near)
    out = []
    if n:
        cp, wi = clopper_pearson(k, n), wilson(k, n)
        out.append(f"near-null pull requests: {k} of {n} red = {k / n:.1%} (95 % Clopper-Pearson "
                   f"{cp[0]:.1%}-{cp[1]:.1%}; Wilson {wi[0]:.1%}-{wi[1]:.1%}); goal <= 5 %")
        by_repo: dict[str, list[Mapping[str, Any]]] = {}
        for r in near:
            by_repo.setdefault(r["repository"], []).append(r)
        out.append("  by repository: " + ", ".join(f"{repo} {sum(red(r) for r in rs)}/{len(rs)}"
                                                  for repo, rs in by_repo.items()))
        kinds: dict[str, int] = {}
        for r in near:
            for reason in r["verdict"]["reasons"]:
                kinds[reason["title"]] = kinds.get(reason["title"], 0) + 1
        out.append(f"  red by the paired metric tests and the index/warning rules alone: "
                   f"{sum(rules_red(r) for r in near)} of {n}")
        if kinds:
            ranked = sorted(kinds.items(), key=lambda x: -x[1])
            out.append("  red for: " + "; ".join(f"{t} ({c} PRs)" for t, c in ranked))
    real = [r for r in rows if r["kind"] == "real-change"]
    if real:
        out.append(f"real-change pull requests: {sum(red(r) for r in real)} of {len(real)} red; by the paired "
                   f"metric tests and the index/warning rules alone: {sum(rules_red(r) for r in real)}")
        for r in real:
            out.append(f"  {r['repository']} {r['pr']}: {'RED' if red(r) else 'green'} (exit {r['exit_code']}); "
                       f"a gating metric fell past 0.01: {'yes' if fell(r) else 'no'}; paired/rules red: "
                       f"{'yes' if rules_red(r) else 'no'}; sign p {sign_p(r):.3f}; {reasons_text(r)}")
    times = sorted(r["seconds"] for r in rows)
    if times:
        out.append(f"wall time per pull request: median {times[len(times) // 2]:.0f} s, max {times[-1]:.0f} s, "
                   f"total {sum(times) / 60:.1f} min over {len(times)}")
    return "\n".join(out)


def load_rows(out: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(out.glob("*/results.jsonl")):
        rows.extend(json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return rows


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- the command ----------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def repository_lock(repo: Path) -> Iterator[None]:
    """One run at a time per repository: the pull requests are checked out in the repository's own working tree,
    so a second run there (another wheel's, at the same time) would evaluate the first run's files and delete its
    reports. Waits for the other run (an exclusive ``flock`` on ``.git/near_null_prs.lock``, released when a run
    ends, however it ends)."""
    lock_path = Path(git(repo, "rev-parse", "--absolute-git-dir")) / "near_null_prs.lock"
    with lock_path.open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"{repo.name}: another near_null_prs run is using it ({lock_path}); waiting for it to end ...")
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cmd_run(args: argparse.Namespace) -> int:
    venv = args.venv.resolve()
    if not (venv / "bin" / "chunkeval").is_file():
        raise SystemExit(f"{venv}: no bin/chunkeval (install the wheel into it first)")
    env = user_environment(venv)
    action = args.action.resolve()
    evaluate_step(action)  # fails early on an action without the step
    chosen = pull_requests()
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {p.name for p in chosen}
        if unknown:
            raise SystemExit(f"--only: unknown pull requests {sorted(unknown)}")
        chosen = [p for p in chosen if p.name in wanted]
    for repo in args.repos:
        with repository_lock(repo.resolve()):
            run_repository(repo.resolve(), args, env, action, chosen)
    rows = load_rows(args.out.resolve())
    text = table(rows) + "\n\n" + summary(rows)
    (args.out.resolve() / "summary.md").write_text(text + "\n")
    print(text)
    return 0


def run_repository(repo: Path, args: argparse.Namespace, env: Mapping[str, str], action: Path,
                   chosen: Sequence[PullRequest]) -> None:
    out = args.out.resolve() / repo.name
    out.mkdir(parents=True, exist_ok=True)
    base = ensure_base(repo, env, out, args.timeout)
    results = out / "results.jsonl"
    done = {json.loads(line)["pr"] for line in results.read_text().splitlines()} if results.is_file() else set()
    for pr in chosen:
        if pr.name in done and not args.again:
            say(f"{repo.name} {pr.name}: already in {results} (--again to redo)")
            continue
        say(f"{repo.name} {pr.name} ({pr.kind}) ...")
        row = run_pr(repo, base, pr, env, action, out, args.timeout)
        rows: list[dict[str, Any]] = ([json.loads(line) for line in results.read_text().splitlines()]
                                      if results.is_file() else [])
        rows = [r for r in rows if r["pr"] != pr.name] + [row]
        results.write_text("".join(json.dumps(r) + "\n" for r in rows))
        say(f"  exit {row['exit_code']} in {row['seconds']:.0f} s: {reasons_text(row)}")


def cmd_summarize(args: argparse.Namespace) -> int:
    rows = load_rows(args.out.resolve())
    if not rows:
        raise SystemExit(f"no results.jsonl under {args.out}")
    print(table(rows) + "\n\n" + summary(rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="See the module docstring (this file) for what each step does and why.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="make the pull requests and evaluate each through the action's Evaluate step")
    run.add_argument("repos", nargs="+", type=Path, help="repositories set up by `chunkeval init`, init committed")
    run.add_argument("--venv", type=Path, required=True, help="the user's virtualenv with pytest-chunkeval installed")
    run.add_argument("--out", type=Path, required=True, help="results folder (one subfolder per repository)")
    run.add_argument("--action", type=Path, default=ROOT / "action.yml",
                     help="the action.yml whose Evaluate step runs (default: %(default)s)")
    run.add_argument("--only", help="comma-separated pull-request names (default: all: "
                                    + ", ".join(p.name for p in pull_requests()) + ")")
    run.add_argument("--again", action="store_true", help="redo pull requests already in the results")
    run.add_argument("--timeout", type=float, default=1800, help="seconds per evaluation (default: %(default)s)")
    run.set_defaults(func=cmd_run)
    summ = sub.add_parser("summarize", help="the table and the red rate of the results under OUT")
    summ.add_argument("out", type=Path)
    summ.set_defaults(func=cmd_summarize)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
