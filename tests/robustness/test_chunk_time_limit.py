"""A chunker that never returns (a ``while True``, a grammar config's catastrophic regex) meets the per-file time
limit: the file falls back to fixed windows with a reason naming the limit, and the run goes on. The timer is left
as it was found."""
from __future__ import annotations

import json
import signal
import threading
from pathlib import Path

import pytest

from pytest_chunkeval.chunking.boundary import chunk_file
from pytest_chunkeval.chunking.contract import resolve
from pytest_chunkeval.chunking.regex_config.chunker import GrammarChunker
from pytest_chunkeval.chunking.strategy_base import Strategy
from pytest_chunkeval.chunking.time_limit import time_limit, usable
from pytest_chunkeval.core.chunk import Chunk

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="the limit needs SIGALRM (not Windows)")

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 0.3
TEXT = "def f():\n    return 1\n"


class Forever(Strategy):
    name = "forever"

    def chunk(self, path: str, text: str) -> list[Chunk]:
        while True:
            pass


class Stubborn(Strategy):
    """Swallows everything its loop raises, as a careless ``except BaseException`` would: the alarm rings again."""
    name = "stubborn"

    def chunk(self, path: str, text: str) -> list[Chunk]:
        swallowed = 0
        while swallowed < 2:
            try:
                while True:
                    pass
            except BaseException:  # noqa: B036 - the point of the test
                swallowed += 1
        while True:
            pass


@pytest.mark.parametrize("strategy", [Forever(), Stubborn()], ids=["while-true", "swallows-the-alarm"])
def test_a_chunker_that_never_returns_falls_back_naming_the_limit(strategy: Strategy) -> None:
    fallbacks: list[str] = []
    timed_out: list[str] = []
    before = signal.getsignal(signal.SIGALRM)
    chunks = chunk_file(resolve(strategy), strategy.name, "a.py", TEXT, fallbacks, LIMIT, timed_out)
    assert fallbacks == ["a.py: chunking ran past the 0.3 s limit (--chunkeval-chunk-timeout / ini "
                         "chunkeval_chunk_timeout)"]
    assert timed_out == ["a.py"]
    assert [(c.start_line, c.end_line, c.strategy) for c in chunks] == [(1, 2, strategy.name)]  # fixed windows
    assert signal.getsignal(signal.SIGALRM) is before and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_catastrophic_regex_in_a_grammar_config_falls_back(tmp_path: Path) -> None:
    config = json.loads((ROOT / "tests" / "data" / "avap_fixture" / "avap_config.json").read_text())
    config["blocks"][0]["open"] = r"^(\s*a+)+$"
    path = tmp_path / "evil_config.json"
    path.write_text(json.dumps(config))
    strategy = resolve(GrammarChunker(path, name="grammar_definition"))
    fallbacks: list[str] = []
    line = "a" * 40 + "!"  # 41 characters: 2**40 ways to fail
    chunk_file(strategy, "grammar_definition", "x.avap", f"{line}\n", fallbacks, LIMIT)
    assert fallbacks == ["x.avap: chunking ran past the 0.3 s limit (--chunkeval-chunk-timeout / ini "
                         "chunkeval_chunk_timeout)"]


def test_a_quick_chunker_and_no_limit_are_untouched() -> None:
    strategy = resolve(Forever())
    fallbacks: list[str] = []
    ok = resolve(type("Quick", (Strategy,), {"name": "quick", "chunk": lambda self, path, text: [
        Chunk(text=text, path=path, start_line=1, end_line=2, start_byte=0, end_byte=len(text), strategy="quick")]})())
    assert len(chunk_file(ok, "quick", "a.py", TEXT, fallbacks, LIMIT)) == 1 and fallbacks == []
    with time_limit(None), time_limit(0):
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no limit: no timer
    assert strategy.name == "forever"


def test_someone_elses_timer_and_other_threads_are_left_alone() -> None:
    signal.setitimer(signal.ITIMER_REAL, 100)
    try:
        assert not usable()
        with time_limit(LIMIT):
            assert 99 < signal.getitimer(signal.ITIMER_REAL)[0] <= 100  # theirs, not replaced by ours
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    seen: list[bool] = []
    worker = threading.Thread(target=lambda: seen.append(usable()))
    worker.start()
    worker.join()
    assert seen == [False] and usable()
