"""What an embedder can run on and with: backends, devices, batch size. Kept apart from embed.py (numpy, the model
runtimes) so that the settings table, which every pytest run imports, can name them without loading numpy."""
from __future__ import annotations

#: Embedding backends, the default first.
BACKENDS = ("torch", "onnx", "onnx-int8")
#: Devices offered (``cuda:N`` picks one GPU). No "auto": the device is part of the cache key, so it is chosen.
DEVICES = ("cpu", "cuda", "mps")
DEFAULT_BATCH_SIZE = 32


def check_device(device: str) -> bool:
    """Whether ``device`` is one this plugin offers: ``cpu``, ``cuda``, ``cuda:N`` or ``mps``."""
    kind, _, index = device.partition(":")
    return kind in DEVICES and (not index or (kind == "cuda" and index.isdigit()))


def missing_device(device: str, backend: str = "torch") -> str | None:
    """Why this machine cannot embed on ``device`` with ``backend`` (None when it can, and always for cpu).

    Asked once, before any item runs: a device the runtime lacks would otherwise fail every item with a traceback.
    It imports the runtime (torch or onnxruntime), so it is asked only for a device other than cpu."""
    kind, _, index = device.partition(":")
    if kind == "cpu":
        return None
    if backend.startswith("onnx"):
        import onnxruntime

        providers = onnxruntime.get_available_providers()
        if "CUDAExecutionProvider" not in providers:
            return (f"this onnxruntime ({onnxruntime.__version__}) has no CUDA provider (it offers "
                    f"{', '.join(providers)}); use cpu, or onnxruntime-gpu on a machine with a GPU")
        return None
    import torch

    if kind == "cuda":
        if not torch.cuda.is_available():
            return (f"this torch ({torch.__version__}) sees no CUDA device; use cpu, or a CUDA build of torch on a "
                    "machine with a GPU")
        count = torch.cuda.device_count()
        if index and int(index) >= count:
            return f"this machine has {count} CUDA device(s): cuda:0 to cuda:{count - 1}"
        return None
    mps = getattr(torch.backends, "mps", None)
    if mps is None or not mps.is_available():
        return f"this torch ({torch.__version__}) has no MPS device (Apple silicon only); use cpu"
    return None
