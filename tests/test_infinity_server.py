"""A real OpenAI-compatible server: infinity (infinity-emb) serving the bundled all-MiniLM-L6-v2 from its package
folder (nothing downloaded), started here on a local port. Through it, ``--chunkeval-model openai:...`` embeds what
the in-process model embeds (cosine 1 within float32 rounding) and the evaluation scores every query the same.

infinity lives in a virtualenv of its own (``make infinity``: .venv/infinity; it pins older transformers and numpy
than this package uses), and ``make test`` installs it first. Without it the tests skip, except in CI (``CI`` set),
where a missing server is a failure: CI must never pass by skipping them. ``CHUNKEVAL_INFINITY`` names another
``infinity_emb`` executable.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from project_files import run

from pytest_chunkeval.core.model_files import default_model_dir
from pytest_chunkeval.retrieval.embed import Embedder
from pytest_chunkeval.retrieval.openai_http import openai_remote
from pytest_chunkeval.retrieval.remote import RemoteSettings

ROOT = Path(__file__).resolve().parents[1]
SERVED = "all-MiniLM-L6-v2"
STARTUP = 240.0  # seconds: torch and the model load on a busy 2-core machine


def executable() -> Path | None:
    named = os.environ.get("CHUNKEVAL_INFINITY")
    path = Path(named) if named else ROOT / ".venv" / "infinity" / "bin" / "infinity_emb"
    return path if path.is_file() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def infinity(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The /v1 URL of an infinity server started for this module, stopped after it."""
    exe = executable()
    if exe is None:
        why = "infinity is not installed: `make infinity` installs it in .venv/infinity"
        if os.environ.get("CI"):
            pytest.fail(f"{why}; CI's `make test` must install it")
        pytest.skip(why)
    port = free_port()
    log = tmp_path_factory.mktemp("infinity") / "server.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "DO_NOT_TRACK": "1",
           "INFINITY_ANONYMOUS_USAGE_STATS": "0"}
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(exe), "v2", "--model-id", str(default_model_dir()), "--served-model-name", SERVED, "--host",
             "127.0.0.1", "--port", str(port), "--url-prefix", "/v1", "--engine", "torch", "--device", "cpu"],
            stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP
        while True:
            if proc.poll() is not None:
                pytest.fail(f"infinity exited ({proc.returncode}):\n{log.read_text(errors='replace')[-3000:]}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"infinity did not answer within {STARTUP:g} s:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_infinity_embeds_what_the_in_process_model_embeds(infinity: str) -> None:
    texts = ["def add(a, b):\n    return a + b", "How are user passwords hashed with a salt?", "x" * 3000, "é ü 日本"]
    local, _ = Embedder(cache=None).encode(texts)
    remote = openai_remote(f"openai:{SERVED}", RemoteSettings(url=infinity, tokenizer=default_model_dir()))
    served, _ = Embedder(f"openai:{SERVED}", cache=None, remote=remote).encode(texts)
    remote.close()
    assert served.shape == local.shape
    np.testing.assert_allclose((served * local).sum(axis=1), 1.0, atol=1e-5)


@pytest.mark.slow
def test_the_evaluation_through_infinity_equals_the_in_process_one(project: pytest.Pytester, infinity: str) -> None:
    local = run(project, "-m", "chunkeval", "--chunkeval-report=local.json")
    assert local.ret == 0, local.stdout.str()
    served = run(project, "-m", "chunkeval", f"--chunkeval-model=openai:{SERVED}", f"--chunkeval-embedder-url={infinity}",
                 f"--chunkeval-embedder-tokenizer={default_model_dir()}", "--chunkeval-report=served.json")
    assert served.ret == 0, served.stdout.str()
    a = json.loads((project.path / "local.json").read_text())
    b = json.loads((project.path / "served.json").read_text())
    assert b["model"]["id"] == f"openai:{SERVED}" and b["model"]["device"] == infinity
    for key, suite in a["suites"].items():
        for name, strategy in suite["strategies"].items():
            theirs = b["suites"][key]["strategies"][name]["queries"]
            assert strategy["queries"].keys() == theirs.keys()
            for qid, query in strategy["queries"].items():
                for mode, metrics in query["metrics"].items():
                    for metric, value in metrics.items():
                        assert theirs[qid]["metrics"][mode][metric] == pytest.approx(value, abs=1e-5), (
                            key, name, qid, mode, metric)
