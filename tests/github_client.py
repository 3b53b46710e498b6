"""The client side of the ``chunkeval comment`` tests: the client's fake clock, a report to post, the command, and
what the stand-in of tests/github_stub.py was asked. tests/test_github_comment.py and tests/test_github_hostile.py
share them (and the fixtures ``clock``, ``github`` and ``actions_env`` of tests/conftest.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from github_stub import PR, REPO, FakeGitHub

from pytest_chunkeval.cli import main
from pytest_chunkeval.commands.github import api

NOW = 1_700_000_000.0  # the fake wall clock's epoch seconds


@dataclass
class FakeClock:
    """The client's time: waits are recorded, never slept; ``tick`` is how far each look at the monotonic clock moves
    it (0: time stands still, so no deadline passes)."""

    tick: float = 0.0
    now: float = 0.0
    waits: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        self.now += self.tick
        return self.now

    def as_clock(self) -> api.Clock:
        return api.Clock(sleep=self.waits.append, wall=lambda: NOW, monotonic=self.monotonic)


REPORT = """\
# pytest-chunkeval report

model `sentence-transformers/all-MiniLM-L6-v2`, hybrid retrieval, k=10; embedded 0 texts, 12 from cache

## golden/avap/queries.yaml

| strategy | NDCG@10 file |
|---|---|
| file_level | 0.71 |
| fixed_size | 0.76 |
"""


def report(tmp_path: Path, text: str = REPORT) -> Path:
    """``text`` as the Markdown report the command posts, in ``tmp_path``."""
    path = tmp_path / "chunkeval-report.md"
    path.write_text(text, encoding="utf-8")
    return path


def comment(*args: str) -> int:
    """``chunkeval comment`` in this process (its clock the fake one where ``clock`` is in use); its exit status."""
    return main(["comment", *args])


def calls(github: FakeGitHub) -> list[str]:
    """The requests as ``METHOD path``, the listing's page number added when there is one."""
    return [f"{r.method} {r.path}" + (f" page {r.query['page'][0]}" if "page" in r.query else "")
            for r in github.requests]


LISTING = f"/repos/{REPO}/issues/{PR}/comments"
