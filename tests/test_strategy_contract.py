"""The strategy contract: read once when a strategy is built, the same for duck-typed and Strategy subclasses,
bound to the model in use; counters in the base class; declared drops honoured; ``baseline=`` gone."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import pytest_chunkeval
from pytest_chunkeval.chunking.ast.chunker import AstChunker
from pytest_chunkeval.chunking.contract import Registration, resolve, strategy
from pytest_chunkeval.chunking.regex_config.chunker import GrammarChunker
from pytest_chunkeval.chunking.sizing import ModelTokens, default_tokens, text_size
from pytest_chunkeval.chunking.strategy_base import WINDOW, Strategy
from pytest_chunkeval.core.chunk import Chunk, line_starts, span_chunk
from pytest_chunkeval.core.model_files import default_model_dir
from pytest_chunkeval.scoring.quality import check

CONFIG = Path(__file__).parents[1] / "strategies" / "avap_config.json"


class Bare:
    """A duck-typed strategy: a name and chunk(), nothing else."""

    name = "bare"

    def chunk(self, path: str, text: str) -> list[Chunk]:
        return [span_chunk(text, line_starts(text), 0, len(text), path=path, strategy=self.name)]


def small(window: int) -> ModelTokens:
    """The bundled model's tokenizer with a smaller window: a stand-in for another model."""
    return ModelTokens(window, default_model_dir())


def test_duck_typed_strategy_gets_the_defaults() -> None:
    c = resolve(Bare())
    assert (c.name, c.version, c.unavailable, c.extensions, c.max_chunk_size, c.size_unit) == \
        ("bare", "", None, None, None, "chars")
    assert c.lossless and not c.fits_window and c.handles("any.thing") and c.stats() == {}
    assert c.dropped_lines("a.py", "x\n") == set()
    c.reset_stats()  # a no-op, not an AttributeError


def test_extensions_decide_what_a_duck_typed_strategy_handles() -> None:
    class Py(Bare):
        extensions = (".py",)

    c = resolve(Py())
    assert c.handles("A.PY") and not c.handles("a.md")


def test_bad_declarations_fail_when_built() -> None:
    class Chars(Bare):
        max_chunk_size = WINDOW

    class Unit(Bare):
        size_unit = "lines"

    def build(obj: Any) -> None:
        Registration("x", lambda: obj, "here.py:1").build()

    with pytest.raises(ValueError, match="needs size_unit='tokens'"):
        build(Chars())
    with pytest.raises(ValueError, match="size unit must be one of"):
        build(Unit())
    with pytest.raises(TypeError, match=r"strategy 'x' \(here.py:1\) returned object, which has no chunk\(\)"):
        build(object())


def test_a_strategy_without_a_name_takes_the_registered_one() -> None:
    class Anonymous(Strategy):
        def chunk(self, path: str, text: str) -> list[Chunk]:
            return []

    assert Registration("given", Anonymous, "here.py:1").build().name == "given"


def test_window_limit_and_promise_follow_the_model_in_use() -> None:
    s = GrammarChunker(CONFIG, max_chunk_size=WINDOW, size_unit="tokens")
    assert resolve(s).max_chunk_size == 256 and resolve(s).fits_window  # the bundled model by default
    bound = resolve(s).bind(small(128))
    assert bound.max_chunk_size == 128 and bound.fits_window and bound.model is not None and bound.model.window == 128
    fixed = resolve(GrammarChunker(CONFIG, max_chunk_size=256, size_unit="tokens"))
    assert fixed.fits_window and not fixed.bind(small(128)).fits_window  # 256 tokens no longer fit
    chars = resolve(AstChunker(max_chunk_size=100)).bind(small(128))
    assert not chars.fits_window  # a limit in characters promises nothing about tokens


def test_ast_strategy_cuts_to_the_window_of_the_model_it_is_given() -> None:
    code = "class Service:\n" + "".join(f"    def method_{i}(self, argument):\n        return argument * {i}\n\n"
                                        for i in range(8))
    model = small(48)
    opts: dict[str, Any] = dict(max_chunk_size=WINDOW, size_unit="tokens")
    c = resolve(AstChunker("t", preserve_context=True, **opts)).bind(model)
    chunks = c.chunk("m.py", code)
    assert max(text_size(ch.text, "tokens", model) for ch in chunks) <= 48
    default = resolve(AstChunker("t", **opts)).chunk("m.py", code)  # unbound: the bundled model's 256
    assert 48 < max(text_size(ch.text, "tokens") for ch in default) <= 256 and len(default) < len(chunks)
    report = check(c, {"m.py": code}, {"m.py": chunks})
    assert report.window_tokens == 48 and report.over_window == 0 and report.fits_window and not report.over_limit


def test_counters_live_in_the_base_class() -> None:
    class Counting(Strategy):
        stat_keys = ("files", "skipped", "warnings")

        def chunk(self, path: str, text: str) -> list[Chunk]:
            self.count("files")
            self.count("lines", text.count("\n"))
            self.warn(f"{path}:1: looked odd")
            return []

    s = Counting()
    assert s.stats() == {"files": 0, "skipped": 0, "warnings": []}
    c = resolve(s)
    c.chunk("a.py", "x\ny\n")
    assert c.stats() == {"files": 1, "skipped": 0, "warnings": ["a.py:1: looked odd"], "lines": 2}
    c.reset_stats()
    assert c.stats() == {"files": 0, "skipped": 0, "warnings": []}


def test_declared_drops_reach_the_lossless_check() -> None:
    text = "# a comment\nvalue = 1\n"

    class NoComments(Strategy):
        def chunk(self, path: str, text: str) -> list[Chunk]:
            start = text.index("value")
            return [span_chunk(text, line_starts(text), start, len(text), path=path, strategy="n")]

        def dropped_lines(self, path: str, text: str) -> list[int]:
            return [i for i, line in enumerate(text.split("\n"), 1) if line.startswith("#")]

    chunks = NoComments().chunk("m.py", text)
    assert check(resolve(NoComments()), {"m.py": text}, {"m.py": chunks}).uncovered == []
    assert check(resolve(Bare()), {"m.py": text}, {"m.py": chunks}).uncovered == ["m.py:1: # a comment"]


def test_baseline_is_a_setting_not_a_registration_flag() -> None:
    with pytest.raises(TypeError):
        strategy(baseline=True)  # type: ignore[call-arg]
    assert not hasattr(Registration("x", Bare, "here.py:1"), "baseline")


def test_default_tokens_is_the_bundled_model() -> None:
    assert default_tokens().window == 256


def test_no_module_probes_a_strategy_outside_the_contract() -> None:
    """Only contract.py reads a strategy object's attributes; everything else reads its Contract."""
    package = Path(pytest_chunkeval.__file__).parent
    probe = re.compile(r"getattr\((strategy|strat|obj|s)\b")
    offenders = [f"{p.relative_to(package)}:{n}" for p in package.rglob("*.py") if p.name != "contract.py"
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if probe.search(line)]
    assert offenders == []
