"""``--chunkeval-model openai:MODEL`` end to end: a whole evaluation through a local OpenAI-compatible server.

Served the bundled all-MiniLM-L6-v2 (sentence-transformers in the stand-in's thread, from the package's folder:
nothing downloaded), the evaluation through HTTP gives every query the numbers the in-process model gives, within
float32 tolerance; a warm run sends no request; the API key appears in no output or file; a failing server is one
line and stops the run. tests/test_remote_embedder.py tests the client's failure modes one by one.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from embedding_server import Reply, StandIn, serve
from project_files import run

from pytest_chunkeval.core.model_files import default_model_dir

KEY = "sk-e2e-0a1b2c3d4e5f60718293a4b5c6d7e8f9"


def bundled_model_embed(texts: list[str]) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(default_model_dir()), device="cpu", local_files_only=True)
    return np.asarray(model.encode(texts, batch_size=32, normalize_embeddings=True), dtype=np.float32)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with serve(StandIn(embed=bundled_model_embed)) as server:
        yield server


def remote_args(server: StandIn, report: str) -> list[str]:
    return ["-m", "chunkeval", "--chunkeval-model=openai:all-MiniLM-L6-v2", f"--chunkeval-embedder-url={server.url}",
            f"--chunkeval-embedder-tokenizer={default_model_dir()}", f"--chunkeval-report={report}"]


def queries(report: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(key, name): s["queries"] for key, suite in report["suites"].items()
            for name, s in suite["strategies"].items()}


def assert_close(a: Any, b: Any, where: str = "") -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_close(a[k], b[k], f"{where}/{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_close(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        assert a == pytest.approx(b, abs=1e-5), where
    else:
        assert a == b, where


@pytest.mark.slow
def test_through_http_every_query_scores_as_in_process(project: pytest.Pytester, served: StandIn) -> None:
    local = run(project, "-m", "chunkeval", "--chunkeval-report=local.json")
    assert local.ret == 0, local.stdout.str()
    remote = run(project, *remote_args(served, "remote.json"))
    assert remote.ret == 0, remote.stdout.str()
    assert served.requests, "the evaluation went through the server"
    a = json.loads((project.path / "local.json").read_text())
    b = json.loads((project.path / "remote.json").read_text())
    assert b["model"]["id"] == "openai:all-MiniLM-L6-v2" and b["model"]["device"] == served.url
    assert queries(a).keys() == queries(b).keys()
    for key, per_query in queries(a).items():
        assert_close(per_query, queries(b)[key], str(key))
    out = remote.stdout.str() + remote.stderr.str()  # the cost line goes where progress lines go: stderr
    assert "texts to embed" in out and "counted with the model's tokenizer" in out

    sent = len(served.requests)
    warm = run(project, *remote_args(served, "warm.json"))
    assert warm.ret == 0
    assert len(served.requests) == sent, "a warm run sends nothing"
    assert "texts to embed" not in warm.stdout.str() + warm.stderr.str()
    for text in (out, warm.stdout.str(), warm.stderr.str()):
        assert KEY not in text and KEY[:12] not in text
    for path in project.path.rglob("*"):  # report, cache store, tables, logs
        if path.is_file():
            assert KEY[:12].encode() not in path.read_bytes(), path


@pytest.mark.slow
def test_a_refusing_server_is_one_line_and_stops_the_run(project: pytest.Pytester, served: StandIn) -> None:
    served.script = [Reply(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})] * 50
    result = run(project, *remote_args(served, "refused.json"))
    out = result.stdout.str() + result.stderr.str()
    assert result.ret != 0
    assert "the embedding model failed" in out and "the key was refused" in out and "OPENAI_API_KEY" in out
    assert "Traceback" not in out and KEY not in out
    assert len(served.requests) == 1, "the run stopped at the first refusal"


CONFTEST_EMBEDDER = '''
import hashlib
import re

import pytest_chunkeval


@pytest_chunkeval.embedder("inhouse", version="1")
def inhouse(model):
    def embed(texts):
        out = []
        for text in texts:
            row = [0.0] * 32
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                row[int(hashlib.md5(word.encode()).hexdigest(), 16) % 32] += 1.0
            row[-1] += 0.01
            out.append(row)
        with open("inhouse-calls.log", "a") as log:
            log.write(f"{model} {len(texts)}\\n")
        return out
    return embed
'''


@pytest.mark.slow
def test_an_embedder_registered_in_a_conftest_is_a_model(project: pytest.Pytester) -> None:
    project.makeconftest(CONFTEST_EMBEDDER)
    result = run(project, "-m", "chunkeval", "--chunkeval-model=inhouse:words", "--chunkeval-report=inhouse.json")
    assert result.ret == 0, result.stdout.str()
    report = json.loads((project.path / "inhouse.json").read_text())
    assert report["model"]["id"] == "inhouse:words" and report["model"]["tokens"].startswith("estimate")
    assert (project.path / "inhouse-calls.log").read_text().startswith("words ")
    assert "estimate: 4 characters a token" in result.stderr.str()


def test_an_unregistered_route_is_one_usage_error(project: pytest.Pytester) -> None:
    result = run(project, "-m", "chunkeval", "--chunkeval-model=nosuch:words")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "no embedder is registered as 'nosuch'" in err and "Traceback" not in err
