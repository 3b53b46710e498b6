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
