"""The model in use decides what fits: its window and tokenizer, read from its directory without loading torch.

A copy of the bundled model with ``max_seq_length`` 128 stands for "another model": the embedder must report 128
before anything is loaded, so a cold run (which loads the model to embed) and a warm run (which never does) judge
every chunk against the same window, and strategies sized to the window cut to it.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import lancedb  # noqa: F401  (imported once, outside the in-process runs: see tests/conftest.py)
import pytest
import sentence_transformers  # noqa: F401
from project_files import name_suites, write_strategies, write_suite

from pytest_chunkeval.chunking.sizing import read_window
from pytest_chunkeval.core.model_files import default_model_dir
from pytest_chunkeval.retrieval.embed import Embedder


def model_copy(dest: Path, window: int | None = 128, tokenizer_json: bool = True) -> Path:
    """The bundled model directory under ``dest`` (weights linked, not copied) with another window."""
    src = default_model_dir()
    dest.mkdir(parents=True)
    for item in src.iterdir():
        if item.name == "model.safetensors":
            (dest / item.name).symlink_to(item)
        elif item.is_dir():
            shutil.copytree(item, dest / item.name)
        elif item.name != "tokenizer.json" or tokenizer_json:
            shutil.copy2(item, dest / item.name)
    config = dest / "sentence_bert_config.json"
    if window is None:
        config.unlink()
    else:
        config.write_text(json.dumps({**json.loads(config.read_text()), "max_seq_length": window}))
    return dest


def test_window_and_tokenizer_come_from_the_model_directory_without_loading_it(tmp_path: Path) -> None:
    emb = Embedder(str(model_copy(tmp_path / "m128")))
    assert emb.max_tokens == 128 and emb.tokens.window == 128
    assert emb.tokens.count("def f(): return 1") == Embedder().tokens.count("def f(): return 1")
    assert emb._model is None  # nothing was loaded to learn the window
    assert emb.cache_id.endswith("#window=128")  # truncation at 128 makes other vectors
    assert Embedder().max_tokens == 256 and "#window" not in Embedder().cache_id


def test_the_tokens_embedding_reads_count_the_specials_and_stop_at_the_window(tmp_path: Path) -> None:
    """``index.embed_tokens``: what the model reads of each text, as the embedder truncates it at its window."""
    tokens = Embedder(str(model_copy(tmp_path / "m128"))).tokens
    short, long = "def f(): return 1", "x = 1\n" * 200
    counts = [tokens.count(t) - tokens.specials for t in (short, long)]  # as the chunking records them
    assert tokens.specials == 2 and tokens.count(long) > 128
    assert tokens.read(counts) == tokens.count(short) + 128
    assert tokens.read([]) == 0


def test_window_falls_back_like_sentence_transformers(tmp_path: Path) -> None:
    """No sentence_bert_config.json: the smaller of the tokenizer's and the model's maximum, as ST does."""
    folder = model_copy(tmp_path / "m", window=None)
    tok_config = json.loads((folder / "tokenizer_config.json").read_text())
    expected = min(tok_config.get("model_max_length", 10**9),
                   json.loads((folder / "config.json").read_text())["max_position_embeddings"])
    assert read_window(folder) == expected


def test_tokenizer_without_tokenizer_json_is_built_from_the_vocabulary(tmp_path: Path) -> None:
    slow_only = Embedder(str(model_copy(tmp_path / "m", tokenizer_json=False)))
    text = "def getUserById(user_id):\n    return db.query(User).get(user_id)\n"
    assert slow_only.tokens.count(text) == Embedder().tokens.count(text)


STRATEGIES = """
    from pytest_chunkeval import AstChunker, FileLevelChunker, strategy
    from pytest_chunkeval.chunking.strategy_base import WINDOW

    @strategy
    def file_level():
        return FileLevelChunker()

    @strategy
    def ast_window():
        return AstChunker("ast_window", max_chunk_size=WINDOW, size_unit="tokens", min_chunk_size=0)
"""

# ~180 tokens: over a 128-token window, inside 256; so a run judged against the wrong window shows it.
LONG = "".join(f"def handler_{i}(request, response):\n    return response.write(request.body[{i}])\n\n" for i in range(8))
GOLDEN = """
    corpus: corpus
    queries:
      - id: handler
        query: write the request body to the response
        relevant:
          - path: handlers.py
      - id: greeting
        query: say hello
        relevant:
          - path: hello.py
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    name_suites(pytester)
    write_strategies(pytester.path, {"mine.py": STRATEGIES})
    write_suite(pytester.path / "golden" / "tiny", {"handlers.py": LONG, "hello.py": "def hello():\n    print('hello')\n"},
                GOLDEN)
    return pytester


def _window_view(project: pytest.Pytester) -> tuple[int, dict[str, tuple[int, float, bool]], int]:
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    strategies = report["suites"]["golden/tiny/queries.yaml"]["strategies"]
    view = {name: (s["quality"]["window_tokens"], s["quality"]["over_window_share"], s["quality"]["fits_window"])
            for name, s in strategies.items()}
    return report["model"]["max_tokens"], view, report["embedding"]["embedded"]


@pytest.mark.slow
def test_cold_and_warm_runs_judge_by_the_same_window_of_a_non_default_model(project: pytest.Pytester,
                                                                            tmp_path: Path) -> None:
    model = model_copy(tmp_path / "minilm-128")
    args = ("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress", f"--chunkeval-model={model}")
    cold = project.runpytest(*args)
    assert cold.ret == 0, cold.stdout.str()[-3000:]
    window, cold_view, embedded = _window_view(project)
    assert window == 128 and embedded > 0
    assert {w for w, _, _ in cold_view.values()} == {128}
    assert cold_view["file_level"][1] == 0.5  # handlers.py is over 128 tokens (and within 256)
    assert cold_view["ast_window"][1:] == (0.0, True)  # sized to the window in use: nothing truncated, promised

    warm = project.runpytest(*args)
    assert warm.ret == 0, warm.stdout.str()[-3000:]
    warm.stdout.fnmatch_lines(["*embedded 0 texts*from cache*"])
    assert _window_view(project)[:2] == (128, cold_view)
