"""Embedding backends (torch, onnx, onnx-int8), devices and batch size: vectors of one never serve another, settings are
checked at configure time, and the ONNX backend computes what sentence-transformers computes.

The fast tests use ``FakeSentenceModel`` (a stand-in that counts calls; it proves cache keying, never a vector).
The slow ones load the real all-MiniLM-L6-v2 through both backends and compare the vectors.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fake_model import FakeSentenceModel  # the same small named fake

from pytest_chunkeval.evaluation.fingerprint import index_fingerprint
from pytest_chunkeval.retrieval.cache_store import EmbeddingCache
from pytest_chunkeval.retrieval.devices import check_device
from pytest_chunkeval.retrieval.embed import Embedder
from pytest_chunkeval.retrieval.onnx_backend import OnnxUnavailable, export, missing_packages, pipeline


def fake_embedder(tmp_path: Path, **settings: object) -> tuple[Embedder, FakeSentenceModel]:
    model_dir = tmp_path / "model"
    model_dir.mkdir(exist_ok=True)
    (model_dir / "model.safetensors").write_bytes(b"weights")
    fake = FakeSentenceModel()
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    emb = Embedder(str(model_dir), cache=cache, **settings)  # type: ignore[arg-type]
    emb._model = fake
    return emb, fake


def test_cache_keys_differ_by_backend_and_device_and_torch_on_cpu_keeps_its_key(tmp_path: Path) -> None:
    keys = {
        (backend, device): fake_embedder(tmp_path, backend=backend, device=device)[0].cache_id
        for backend in ("torch", "onnx") for device in ("cpu", "cuda", "cuda:1", "mps")
    }
    plain = keys[("torch", "cpu")]
    assert "#" not in plain.split("@", 1)[1]  # the key caches were written under before backends existed
    assert keys[("onnx", "cpu")] == plain + "#backend=onnx"
    assert fake_embedder(tmp_path, backend="onnx-int8")[0].cache_id == plain + "#backend=onnx-int8"
    assert keys[("torch", "cuda")] == plain + "#device=cuda" == keys[("torch", "cuda:1")]  # same kernels
    assert len({keys[(b, d)] for b in ("torch", "onnx") for d in ("cpu", "cuda", "mps")}) == 6
    # The batch size changes no vector beyond float rounding (docs/scale-out.md) and is not in the key.
    assert fake_embedder(tmp_path, batch_size=1)[0].cache_id == plain
    # Each key names its own index tables too: a backend switch rebuilds them instead of mixing vectors.
    assert index_fingerprint("corpus", "strategy", plain) != index_fingerprint("corpus", "strategy", keys[("onnx", "cpu")])


def test_vectors_cached_by_one_backend_are_not_served_to_another(tmp_path: Path) -> None:
    torch_emb, torch_model = fake_embedder(tmp_path)
    _, counts = torch_emb.encode(["a", "bb"])
    assert (counts.embedded, counts.cached) == (2, 0)
    onnx_emb, onnx_model = fake_embedder(tmp_path, backend="onnx")
    _, counts = onnx_emb.encode(["a", "bb"])
    assert (counts.embedded, counts.cached) == (2, 0) and onnx_model.seen == ["bb", "a"]  # longest first
    again, _ = fake_embedder(tmp_path)
    _, counts = again.encode(["a", "bb"])
    assert (counts.embedded, counts.cached) == (0, 2) and torch_model.seen == ["bb", "a"]


def test_batch_size_sets_the_batches_the_model_sees(tmp_path: Path) -> None:
    emb, fake = fake_embedder(tmp_path, batch_size=2)
    calls: list[int] = []
    encode = fake.encode
    fake.encode = lambda texts, **kw: (calls.append(len(texts)), encode(texts, **kw))[1]  # type: ignore[method-assign]
    emb.encode(["a", "bb", "ccc", "dddd", "eeeee"])
    assert calls == [2, 2, 1]


@pytest.mark.parametrize(("device", "ok"), [("cpu", True), ("cuda", True), ("cuda:0", True), ("mps", True),
                                            ("auto", False), ("cuda:x", False), ("mps:0", False), ("", False)])
def test_devices_offered(device: str, ok: bool) -> None:
    assert check_device(device) is ok


# A wrong embedder setting is one usage error: its cases are in tests/test_options.py with every other setting's.
def test_embedder_settings_from_ini_and_command_line(pytester: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_chunkeval.retrieval import devices
    from pytest_chunkeval.settings.options import read_options

    monkeypatch.setattr(devices, "missing_device", lambda *a: None)  # as on a machine with two GPUs (test_options)

    pytester.makeini("[pytest]\nchunkeval_batch_size = 8\nchunkeval_device = cuda:1\n")
    config = pytester.parseconfig("--chunkeval-batch-size=4")
    options = read_options(config)
    assert (options.batch_size, options.device, options.backend) == (4, "cuda:1", "torch")


def _model_dir(tmp_path: Path, modules: list[str], pooling: dict[str, bool]) -> Path:
    folder = tmp_path / "m"
    (folder / "1_Pooling").mkdir(parents=True)
    entries = [{"idx": i, "name": str(i), "path": "" if i == 0 else f"{i}_{kind}",
                "type": f"sentence_transformers.models.{kind}"} for i, kind in enumerate(modules)]
    (folder / "modules.json").write_text(json.dumps(entries))
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 4, **pooling}))
    return folder


def test_onnx_backend_reproduces_mean_pooling_only(tmp_path: Path) -> None:
    mean = {"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}
    normalized = _model_dir(tmp_path / "a", ["Transformer", "Pooling", "Normalize"], mean)
    assert pipeline(normalized) == (normalized, True)
    assert pipeline(_model_dir(tmp_path / "b", ["Transformer", "Pooling"], mean))[1] is False
    with pytest.raises(OnnxUnavailable, match=r"mean pooling only, not \['pooling_mode_cls_token'\]"):
        pipeline(_model_dir(tmp_path / "c", ["Transformer", "Pooling"], {"pooling_mode_cls_token": True}))
    with pytest.raises(OnnxUnavailable, match="Transformer -> Pooling -> Dense"):
        pipeline(_model_dir(tmp_path / "d", ["Transformer", "Pooling", "Dense"], mean))


# -- the real model through both backends --------------------------------------------------------------------

needs_onnx = pytest.mark.skipif(bool(missing_packages()),
                                reason=f"the onnx extra is not installed (missing {', '.join(missing_packages())}): "
                                       "pip install -e '.[onnx]'")


def _code_texts() -> list[str]:
    """Real code of several lengths: short ones, ones past the 256-token window (truncation), one empty-ish."""
    import inspect

    import pytest_chunkeval.retrieval.onnx_backend as source

    text = inspect.getsource(source)
    return [text[i : i + n] for i, n in ((0, 40), (500, 300), (1200, 1000), (2400, 3000), (5000, 120))] + [" x "]


@pytest.mark.slow
@needs_onnx
def test_onnx_vectors_match_torch_vectors(tmp_path: Path) -> None:
    texts = _code_texts()
    torch_vecs, _ = Embedder(batch_size=4).encode(texts)
    onnx_emb = Embedder(backend="onnx", batch_size=4, onnx_dir=tmp_path / "onnx")
    onnx_vecs, counts = onnx_emb.encode(texts)
    assert counts.embedded == len(texts) and onnx_vecs.shape == torch_vecs.shape == (len(texts), 384)
    cosine = (onnx_vecs * torch_vecs).sum(axis=1)
    assert cosine.min() > 0.999, cosine
    assert np.allclose(np.linalg.norm(onnx_vecs, axis=1), 1.0, atol=1e-5)
    # The export lives in the cache folder given, one per weights digest, and is reused, not redone.
    exported = list((tmp_path / "onnx").glob("*/model.onnx"))
    assert len(exported) == 1 and not list((tmp_path / "onnx").glob("*/*.part"))
    stamp = exported[0].stat().st_mtime_ns
    assert export(onnx_emb.files_dir(), exported[0].parent) == exported[0]
    assert exported[0].stat().st_mtime_ns == stamp
    one_at_a_time, _ = Embedder(backend="onnx", batch_size=1, onnx_dir=tmp_path / "onnx").encode(texts)
    # Batching pads; padding is masked, so a batch of one gives the same vectors up to float32 rounding.
    assert np.abs(one_at_a_time - onnx_vecs).max() < 1e-5


@pytest.mark.slow
@needs_onnx
def test_int8_vectors_stay_close_to_torch_vectors(tmp_path: Path) -> None:
    """onnx-int8 trades exactness for speed: its vectors are not torch's to float rounding, only close. Measured on
    200 fixed_size chunks of the bundled corpora (tools/backend_compare.py): cosine to torch's min 0.98, mean 0.99;
    with one scale per weight matrix instead of per channel it was 0.93, which this bound would catch."""
    texts = _code_texts()
    torch_vecs, _ = Embedder(batch_size=4).encode(texts)
    int8 = Embedder(backend="onnx-int8", batch_size=4, onnx_dir=tmp_path / "onnx")
    int8_vecs, counts = int8.encode(texts)
    assert counts.embedded == len(texts) and int8_vecs.shape == torch_vecs.shape
    cosine = (int8_vecs * torch_vecs).sum(axis=1)
    assert cosine.min() > 0.975, cosine
    assert np.allclose(np.linalg.norm(int8_vecs, axis=1), 1.0, atol=1e-5)
    # Made from the fp32 export, beside it, once: the quantized file is reused, and no partial file is left.
    folder = next((tmp_path / "onnx").iterdir())
    assert sorted(p.name for p in folder.glob("*.onnx")) == ["model.int8.onnx", "model.onnx"]
    assert not list(folder.glob("*.part"))
    stamp = (folder / "model.int8.onnx").stat().st_mtime_ns
    again, _ = Embedder(backend="onnx-int8", batch_size=4, onnx_dir=tmp_path / "onnx").encode(texts)
    assert (folder / "model.int8.onnx").stat().st_mtime_ns == stamp
    assert np.array_equal(again, int8_vecs)  # deterministic: the same file, the same vectors
