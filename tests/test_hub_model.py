"""A Hugging Face model by name: read from the local Hugging Face cache, downloaded only when allowed, and recorded
by revision and weights digest in the report and in what a base must share.

There is no internet here, so the download goes through the real ``huggingface_hub`` client to a local stand-in of
the hub (tests/hub_standin.py, via ``HF_ENDPOINT`` in a subprocess, where the client reads it at import). The
refusal without ``chunkeval_allow_download`` is the real code path: the hub client is replaced by one that fails the
test if anything is fetched. The bundled all-MiniLM-L6-v2's files stand for the hub repository's.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import huggingface_hub
import pytest
from fake_model import FakeSentenceModel
from hub_standin import COMMIT, cached_repo, serve
from huggingface_hub import constants as hub_constants
from project_files import run

from pytest_chunkeval.core import model_files
from pytest_chunkeval.core.model_files import (
    PINNED_SHA256,
    ModelIntegrityError,
    ModelNotFoundError,
    check_model,
    default_model_dir,
    hub_revision,
    resolve_model,
)
from pytest_chunkeval.results.comparable import differences, identity, of_report
from pytest_chunkeval.retrieval.embed import Embedder

REPO = "tiny-org/tiny"
WEIGHTS = {"model.safetensors": PINNED_SHA256["model.safetensors"]}
_CHECK = ("import sys; from pytest_chunkeval.core.model_files import check_model, resolve_model, hub_revision, "
          "verify_snapshot; print(check_model(sys.argv[1], sys.argv[2] == 'allow', print)); "
          "d = resolve_model(sys.argv[1])[1]; print('REVISION', hub_revision(d)); print('SHA', verify_snapshot(d))")


@pytest.fixture
def hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty local Hugging Face cache, for this process's hub client; nothing may be fetched from the hub."""
    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setattr(hub_constants, "HF_HUB_CACHE", str(cache))

    def no_fetch(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"something was fetched: {args}")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", no_fetch)
    monkeypatch.setattr(huggingface_hub.HfApi, "model_info", no_fetch)
    model_files.verify_snapshot.cache_clear()
    return cache


def _check_in_subprocess(endpoint: str, cache: Path, allow: bool) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(cache), "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
    for offline in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # either one keeps huggingface_hub offline; an
        env.pop(offline, None)  # in-process model load earlier in this session may have set them
    return subprocess.run([sys.executable, "-c", _CHECK, REPO, "allow" if allow else "refuse"], env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_name_not_on_disk_is_refused_naming_how_to_allow_the_download(hub_cache: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="--chunkeval-allow-download .ini: chunkeval_allow_download = true."):
        check_model("some-org/not-downloaded")
    assert not any(hub_cache.iterdir())  # nothing fetched, nothing written


def test_without_permission_the_run_stops_with_one_usage_error(project: pytest.Pytester, hub_cache: Path) -> None:
    result = run(project, "--chunkeval-model=some-org/not-downloaded")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--chunkeval-model / ini chunkeval_model: 'some-org/not-downloaded' is neither*"
                                 "add --chunkeval-allow-download*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_the_download_runs_once_through_the_hub_client_and_skips_other_frameworks(tmp_path: Path) -> None:
    served = tmp_path / "served"
    shutil.copytree(default_model_dir(), served, symlinks=True)
    (served / "onnx").mkdir()
    (served / "onnx" / "model.onnx").write_bytes(b"an export sentence-transformers does not read here")
    (served / "pytorch_model.bin").write_bytes(b"the same weights, pickled")
    cache = tmp_path / "hub"
    with serve(REPO, served) as (endpoint, requested):
        refused = _check_in_subprocess(endpoint, cache, allow=False)
        assert refused.returncode != 0 and "add --chunkeval-allow-download" in refused.stderr
        assert requested == []  # refused before anything asked the hub
        first = _check_in_subprocess(endpoint, cache, allow=True)
        assert first.returncode == 0, first.stderr[-2000:]
        fetched = [r for r in requested if r.startswith("GET") and "/resolve/" in r]
    assert f"downloading {REPO} into the Hugging Face cache" in first.stdout
    assert f"REVISION {COMMIT}" in first.stdout and f"SHA {WEIGHTS}" in first.stdout
    assert any(r.endswith("/model.safetensors") for r in fetched)
    assert not any(r.endswith(("model.onnx", "pytorch_model.bin")) for r in fetched)
    # The server is gone: a second run finds the snapshot in the cache and fetches nothing.
    again = _check_in_subprocess(endpoint, cache, allow=True)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "downloading" not in again.stdout and f"REVISION {COMMIT}" in again.stdout


def test_a_cached_snapshot_resolves_to_its_revision_and_weights(hub_cache: Path) -> None:
    snapshot = cached_repo(hub_cache, REPO, default_model_dir())
    assert check_model(REPO) == REPO
    assert resolve_model(REPO) == (REPO, snapshot)
    assert hub_revision(snapshot) == COMMIT and hub_revision(default_model_dir()) == ""
    emb = Embedder(REPO)
    assert emb.model_id == REPO and emb.digests == WEIGHTS and emb.max_tokens == 256


def test_the_window_of_a_hub_model_is_read_from_its_snapshot(hub_cache: Path, tmp_path: Path) -> None:
    """The window drives the truncation column and the size checks: a hub model's comes from its own config."""
    served = tmp_path / "served"
    shutil.copytree(default_model_dir(), served, ignore=shutil.ignore_patterns("model.safetensors"))
    (served / "model.safetensors").symlink_to(default_model_dir() / "model.safetensors")
    config = served / "sentence_bert_config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "max_seq_length": 128}))
    cached_repo(hub_cache, REPO, served)
    emb = Embedder(REPO)
    assert emb.max_tokens == 128 and emb.tokens.window == 128
    assert "#window=128" in emb.cache_id  # vectors truncated at another window are never served from the cache


def test_a_download_whose_weights_are_not_what_the_hub_published_is_refused(hub_cache: Path) -> None:
    cached_repo(hub_cache, REPO, default_model_dir(), weights_blob="f" * 64)
    with pytest.raises(ModelIntegrityError, match=f"sha256 {WEIGHTS['model.safetensors']} does not match the "
                                                  f"{'f' * 64} the hub published"):
        check_model(REPO)


def test_revision_is_part_of_what_a_base_must_share() -> None:
    def ident(revision: str) -> dict[str, object]:
        return identity(10, REPO, WEIGHTS, ("hybrid",), (), (), revision)

    found, unchecked = differences(ident(COMMIT), of_report({"comparable": ident("f" * 40)}), {}, {})
    assert found == [f"model revision (hub commit): base {'f' * 40}, head {COMMIT}"] and unchecked == []
    # Older reports: digests without a revision mean a model that has none; neither means it is unknown.
    assert of_report({"model": {"id": "m", "sha256": WEIGHTS}})["model_revision"] == ""
    assert of_report({"model": {"id": REPO, "sha256": {}}})["model_revision"] is None


def test_the_report_records_revision_and_digest_and_a_base_of_another_revision_is_refused(
        project: pytest.Pytester, hub_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeSentenceModel()  # the vectors do not matter here, what the report records about the model does
    monkeypatch.setattr(Embedder, "model", lambda self: fake)
    cached_repo(hub_cache, REPO, default_model_dir())
    first = run(project, f"--chunkeval-model={REPO}")
    assert first.ret == 0, first.stdout.str()[-3000:]
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    assert report["model"]["id"] == REPO and report["model"]["revision"] == COMMIT
    assert report["model"]["sha256"] == WEIGHTS
    assert report["comparable"]["model_revision"] == COMMIT and report["comparable"]["model_sha256"] == WEIGHTS
    stored = project.path / "base.json"
    stored.write_text(json.dumps(report))

    newer = "f" * 40
    cached_repo(hub_cache, REPO, default_model_dir(), commit=newer)  # main now names another commit, same weights
    second = run(project, f"--chunkeval-model={REPO}", f"--chunkeval-compare={stored}")
    assert second.ret == pytest.ExitCode.USAGE_ERROR
    second.stderr.fnmatch_lines([f"*model revision (hub commit): base {COMMIT}, head {newer}*"])
