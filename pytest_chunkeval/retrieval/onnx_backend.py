"""The ONNX Runtime embedding backend: the same weights, exported once on this machine, run without torch's kernels.

Why not sentence-transformers' own ``backend="onnx"``: it loads through ``optimum.onnxruntime``, and the only
release of ``optimum-onnx`` (0.1.0) pins ``transformers<4.58`` and fails to import against the transformers 5
that sentence-transformers 6 needs (``cannot import name 'get_parameter_dtype'``). So the export is torch's own
(``torch.onnx.export``, the TorchScript exporter, which needs the ``onnx`` package) and the run is ONNX Runtime
with the model's own tokenizer file and the pooling its ``modules.json`` declares: what sentence-transformers'
``Transformer -> Pooling(mean) -> Normalize`` computes, checked against torch by a test (cosine > 0.999).

``onnx-int8`` is that export with its weights quantized to int8 by ONNX Runtime's own ``quantize_dynamic``
(QInt8 weights with one scale per output channel, activations quantized per batch at run time), made here from
the fp32 export and kept beside it as ``model.int8.onnx``: same inputs, same pooling, faster matrix products on
CPUs with int8 instructions, vectors a little further from torch's (``tests/test_embed_backends.py`` bounds how
far; docs/scale-out.md has what it costs in NDCG@10).

Nothing is downloaded: the export reads the local safetensors and writes ``model.onnx`` into a cache folder
(``.chunkeval/onnx/<weights digest>/`` by default), never into the model's package. Exports are keyed by the
weights digest, so a changed model is exported again, and written under a file lock and renamed into place, so
two pytest-xdist workers never read a half-written file.
"""
from __future__ import annotations

import importlib.util
import json
import logging
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: The ONNX opset of the export: 17 covers BERT-style encoders and every ONNX Runtime release since 1.14.
OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
#: ONNX Runtime's provider for each device this plugin offers; mps has none.
PROVIDERS = {"cpu": "CPUExecutionProvider", "cuda": "CUDAExecutionProvider"}


class OnnxUnavailable(RuntimeError):
    """The ONNX backend cannot run here: the extra is not installed, the device has no provider, or the model's
    pooling is one this backend does not reproduce."""


def missing_packages() -> list[str]:
    """The packages of the ``onnx`` extra that are not installed (found without importing them)."""
    return [name for name in ("onnxruntime", "onnx") if importlib.util.find_spec(name) is None]


def _modules(model_dir: Path) -> list[dict[str, Any]]:
    path = model_dir / "modules.json"
    if not path.is_file():  # a plain transformers folder: sentence-transformers adds mean pooling
        return [{"type": "sentence_transformers.models.Transformer", "path": ""},
                {"type": "sentence_transformers.models.Pooling", "path": ""}]
    return list(json.loads(path.read_text(encoding="utf-8")))


def pipeline(model_dir: Path) -> tuple[Path, bool]:
    """(folder of the transformer's weights, whether vectors are normalised) for a mean-pooled model; raise
    :class:`OnnxUnavailable` for any other module chain, rather than compute different vectors silently."""
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in _modules(model_dir)]
    if kinds[:2] != ["Transformer", "Pooling"] or any(k != "Normalize" for k in kinds[2:]):
        raise OnnxUnavailable(f"{model_dir}: the ONNX backend runs Transformer -> Pooling(mean) [-> Normalize] "
                              f"models; this one is {' -> '.join(kinds)}")
    modules = _modules(model_dir)
    pooling = model_dir / str(modules[1].get("path") or "") / "config.json"
    if pooling.is_file():
        config = json.loads(pooling.read_text(encoding="utf-8"))
        modes = [k for k, v in config.items() if k.startswith("pooling_mode_") and v is True]
        if modes != ["pooling_mode_mean_tokens"]:
            raise OnnxUnavailable(f"{pooling}: the ONNX backend reproduces mean pooling only, not {modes}")
    return model_dir / str(modules[0].get("path") or ""), "Normalize" in kinds


def export(model_dir: Path, target: Path) -> Path:
    """``target/model.onnx`` exported from the local weights in ``model_dir`` (done once; later calls find it)."""
    onnx_file = target / "model.onnx"
    if onnx_file.is_file():
        return onnx_file
    if missing := missing_packages():
        raise OnnxUnavailable(f"the ONNX backend needs {', '.join(missing)}: pip install 'pytest-chunkeval[onnx]'")
    from filelock import FileLock

    target.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target / "export.lock")):
        if onnx_file.is_file():  # another process exported it while we waited
            return onnx_file
        _export(pipeline(model_dir)[0], onnx_file)
    return onnx_file


def quantize(onnx_file: Path) -> Path:
    """``model.int8.onnx`` beside the fp32 export ``onnx_file``: its weights quantized to int8 (done once).

    Per channel: with one scale per weight matrix (the default) all-MiniLM-L6-v2's vectors come out at cosine
    0.93 to torch's on code, with one per output channel at 0.99, at the same speed. ``quantize_dynamic`` is
    deterministic (each scale comes from its weights' min and max; nothing is sampled), so two machines with one
    ONNX Runtime release make the same file. Written under the export's lock and renamed into place, as the export
    is."""
    int8_file = onnx_file.with_name("model.int8.onnx")
    if int8_file.is_file():
        return int8_file
    from filelock import FileLock

    with FileLock(str(onnx_file.parent / "export.lock")):
        if int8_file.is_file():
            return int8_file
        from onnxruntime.quantization import QuantType, quantize_dynamic

        partial = int8_file.with_name(f"{int8_file.name}.{os.getpid()}.part")
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)  # it advises "pre-processing" (shape inference) on the root logger, every time
        try:
            quantize_dynamic(str(onnx_file), str(partial), weight_type=QuantType.QInt8, per_channel=True)
        finally:
            root.setLevel(level)
        partial.replace(int8_file)
    return int8_file


def _export(weights_dir: Path, onnx_file: Path) -> None:
    import torch
    from transformers import AutoModel

    class _Encoder(torch.nn.Module):
        """The transformer with positional inputs and one output: what the TorchScript exporter traces."""

        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    model = AutoModel.from_pretrained(str(weights_dir), local_files_only=True).eval()
    # A padded example (a zero in the mask, two lengths) so that nothing traced depends on "no padding".
    ids = torch.tensor([[101, 2000, 2001, 2002, 102], [101, 2003, 102, 0, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    partial = onnx_file.with_name(f"{onnx_file.name}.{os.getpid()}.part")
    # The tracer warns about Python conditions it freezes; in BERT's forward they are "is there padding past the
    # mask" and "causal without a mask", false for every input here (the mask always spans the sequence and is
    # always given), and the deprecation of the TorchScript exporter itself. Checked by the torch comparison test.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Encoder(model), (ids, mask, torch.zeros_like(ids)), str(partial), dynamo=False,
                          input_names=list(INPUTS), output_names=["last_hidden_state"], opset_version=OPSET,
                          dynamic_axes={n: {0: "batch", 1: "sequence"} for n in (*INPUTS, "last_hidden_state")})
    partial.replace(onnx_file)


class OnnxEncoder:
    """Encodes like ``SentenceTransformer.encode`` (the arguments the embedder passes), with ONNX Runtime.

    Tokenizes with the model's ``tokenizer.json`` (truncated at :attr:`max_seq_length`, padded to the longest in
    the batch), mean-pools the last hidden state over the attention mask, and normalises when the model does.
    """

    def __init__(self, model_dir: Path, onnx_file: Path, window: int, device: str = "cpu") -> None:
        import onnxruntime as ort

        from pytest_chunkeval.chunking.sizing import load_tokenizer

        kind = device.split(":", 1)[0]
        provider = PROVIDERS.get(kind)
        if provider is None or provider not in ort.get_available_providers():
            raise OnnxUnavailable(f"ONNX Runtime here has no provider for device {device!r} "
                                  f"(available: {', '.join(ort.get_available_providers())})")
        from tokenizers import Tokenizer

        weights_dir, self.normalize = pipeline(model_dir)
        # A copy: load_tokenizer's object is shared by token counting, which must never truncate or pad. The pad
        # id does not matter (padded positions are masked in attention and in the pooling).
        self._tokenizer = Tokenizer.from_str(load_tokenizer(weights_dir).to_str())
        self._tokenizer.enable_padding(pad_id=self._tokenizer.token_to_id("[PAD]") or 0)
        self.max_seq_length = window
        options: list[dict[str, Any]] = [{"device_id": int(device.split(":", 1)[1])} if ":" in device else {}]
        self._session = ort.InferenceSession(str(onnx_file), providers=[provider], provider_options=options)
        self._inputs = {i.name for i in self._session.get_inputs()}

    def _batch(self, texts: Sequence[str]) -> np.ndarray:
        self._tokenizer.enable_truncation(max_length=self.max_seq_length)  # the embedder may set the window later
        enc = self._tokenizer.encode_batch(list(texts))
        feeds = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                 "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
                 "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}
        hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        mask = feeds["attention_mask"][..., None].astype(np.float32)
        return (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)

    def encode(self, texts: Sequence[str], batch_size: int = 32, normalize_embeddings: bool = False,
               convert_to_numpy: bool = True, show_progress_bar: bool = False) -> np.ndarray:
        parts = [self._batch(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
        vecs = np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)
        if self.normalize or normalize_embeddings:
            vecs = vecs / np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None)
        return vecs.astype(np.float32)
