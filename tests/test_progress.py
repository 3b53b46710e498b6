"""Progress lines in a CI log (no terminal): each on a line of its own, never glued to pytest's dots; counting only
the texts that are embedded (cache hits are no work); and none at all under ``-q``."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def _log(p: pytest.Pytester, *args: str) -> str:
    """stdout and stderr of one run in one stream, as a CI log holds them.

    Items in their collected order (pytest-randomly, where installed, off): the strategy evaluated second finds the
    texts it shares with the first in the cache, and the lines checked here name which strategy that is."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "--chunkeval", "-p", "no:cacheprovider", "-p", "no:randomly",
                           *args],
                          cwd=p.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return proc.stdout


def test_progress_lines_stand_alone_and_count_only_what_is_embedded(project: pytest.Pytester) -> None:
    cold = _log(project)
    lines = [ln for ln in cold.splitlines() if "[chunkeval]" in ln]
    assert lines, cold
    assert all(ln.startswith("[chunkeval] ") for ln in lines), lines  # never after a row of dots
    # fixed_size's windows of small files equal file_level's whole files: those come from the cache, said so
    assert any(re.fullmatch(r"\[chunkeval\] embedding shop · fixed_size \(2 from cache\): 7 texts", ln)
               for ln in lines), lines

    (project.path / "golden" / "shop" / "corpus" / "extra.py").write_text("def refund(order):\n    return 0\n")
    warm = _log(project)  # only the new file is embedded; the rest comes from the cache, and is said to
    embedding = [ln for ln in warm.splitlines() if ln.startswith("[chunkeval] embedding")]
    assert len(embedding) == 2, embedding  # fixed_size's window of the new file is that very text: nothing to do
    assert embedding[0] == "[chunkeval] embedding shop · file_level (4 from cache): 1 texts"
    assert embedding[1].startswith("[chunkeval] embedding shop · file_level (4 from cache): done in ")

    assert "[chunkeval]" not in _log(project, "-q")


def test_a_ci_log_gets_a_line_with_rate_and_time_left_at_least_every_interval() -> None:
    """No terminal: a start line, then while the work goes on a line whenever ``interval`` seconds have passed since
    the last one (a silent log looks hung), then the end; on a clock the test moves."""
    from pytest_chunkeval.run.parts.progress import LineProgress

    now = [100.0]
    lines: list[str] = []
    advance = LineProgress(lines.append, tty=False, interval=10.0, clock=lambda: now[0])("embedding s · ast", 100)
    for _ in range(9):  # 10 texts every 4 s: 2.5 texts/s
        now[0] += 4.0
        advance(10)
    now[0] += 4.0
    advance(10)
    assert lines == [
        "[chunkeval] embedding s · ast: 100 texts\n",
        "[chunkeval] embedding s · ast: 30/100 (2.5 texts/s, about 28 s left)\n",  # 12 s after the start
        "[chunkeval] embedding s · ast: 60/100 (2.5 texts/s, about 16 s left)\n",  # 12 s after that one
        "[chunkeval] embedding s · ast: 90/100 (2.5 texts/s, about 4 s left)\n",
        "[chunkeval] embedding s · ast: done in 40.0s (2.5 texts/s)\n",
    ]
    shown = []  # a terminal: one line rewritten in place, with the time left too
    now[0] = 0.0
    tty = LineProgress(shown.append, tty=True, clock=lambda: now[0])("q", 300)
    now[0] = 1.0
    tty(2)
    assert shown == ["\r[chunkeval] q: 2/300 (2/s, about 2 min left)"]


def test_the_base_evaluations_progress_reaches_the_log_as_it_goes(project: pytest.Pytester) -> None:
    """--chunkeval-base evaluates the base first, in a subprocess, cold on a first run: its progress lines are passed
    on as they come, marked as the base's (before, the log said nothing until the base was done)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *args], cwd=project.path, check=True, capture_output=True, env=env)
    log = _log(project, "--chunkeval-base=main")
    lines = log.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("[chunkeval] evaluating base main"))
    done = next(i for i, ln in enumerate(lines) if ln.startswith("[chunkeval] base main evaluated in "))
    between = lines[start + 1:done]
    started = [ln for ln in between if re.fullmatch(r"\[chunkeval\] base: embedding shop · \w+( \(\d+ from cache\))?: "
                                                    r"\d+ texts", ln)]
    ended = [ln for ln in between if re.match(r"\[chunkeval\] base: embedding shop · .*: done in [\d.]+s \(", ln)]
    assert started and len(ended) == len(started), between
