"""A local stand-in for the Hugging Face Hub: the few endpoints ``snapshot_download`` calls, serving one folder.

There is no internet on the machines that run these tests, so the download path (``chunkeval_allow_download``) is
exercised against this server through ``HF_ENDPOINT``: the real ``huggingface_hub`` client, its cache layout and its
symlinks, with the repository's files served from a local folder. It answers repository info, the recursive tree
listing and ``resolve`` (HEAD and GET) for one repository at one commit, and records every path asked for.
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _files(folder: Path) -> dict[str, Path]:
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}


def _entry(name: str, path: Path) -> dict[str, object]:
    data = path.read_bytes()
    entry: dict[str, object] = {"type": "file", "path": name, "size": len(data),
                                "oid": hashlib.sha1(data).hexdigest()}
    if name.endswith((".safetensors", ".bin")):  # the hub keeps weights in LFS, whose oid is the sha256
        entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 130}
    return entry


@contextmanager
def serve(repo: str, folder: Path) -> Iterator[tuple[str, list[str]]]:
    """Serve ``folder`` as hub repository ``repo`` at :data:`COMMIT`; yields (endpoint URL, paths requested)."""
    files = _files(folder)
    entries = {name: _entry(name, path) for name, path in files.items()}
    requested: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet: the test reads ``requested``
            pass

        def _answer(self, body: bytes, headers: dict[str, str], status: int = 200) -> None:
            self.send_response(status)
            for key, value in {"Content-Length": str(len(body)), **headers}.items():
                self.send_header(key, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self) -> None:  # noqa: N802 (http.server's name)
            self.do_GET()

        def do_GET(self) -> None:  # noqa: N802
            path = unquote(urlparse(self.path).path)
            requested.append(f"{self.command} {path}")
            json_type = {"Content-Type": "application/json"}
            if path in (f"/api/models/{repo}", f"/api/models/{repo}/revision/main"):
                info = {"id": repo, "sha": COMMIT, "siblings": [{"rfilename": n} for n in files]}
                return self._answer(json.dumps(info).encode(), json_type)
            if path.startswith(f"/api/models/{repo}/tree/{COMMIT}"):
                return self._answer(json.dumps(list(entries.values())).encode(), json_type)
            for revision in (COMMIT, "main"):
                prefix = f"/{repo}/resolve/{revision}/"
                if path.startswith(prefix) and path[len(prefix):] in files:
                    name = path[len(prefix):]
                    lfs = entries[name].get("lfs")
                    etag = lfs["oid"] if isinstance(lfs, dict) else entries[name]["oid"]
                    body = files[name].read_bytes()
                    return self._answer(body, {"X-Repo-Commit": COMMIT, "ETag": f'"{etag}"',
                                               "Content-Type": "application/octet-stream"})
            return self._answer(b'{"error": "not found"}', {**json_type, "X-Error-Code": "RepoNotFound"}, 404)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requested
    finally:
        server.shutdown()
        server.server_close()


def cached_repo(cache: Path, repo: str, folder: Path, commit: str = COMMIT, weights_blob: str | None = None) -> Path:
    """``folder`` laid out as ``huggingface_hub`` leaves a download in ``cache`` (blobs, a snapshot of symlinks named
    by ``commit``, ``refs/main``), as if the stand-in had served it; returns the snapshot. ``weights_blob`` names
    the weights' blob (by default its sha256, as the hub names an LFS file's blob): another name stands for a
    download whose bytes are not what the hub published."""
    root = cache / f"models--{repo.replace('/', '--')}"
    snapshot = root / "snapshots" / commit
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    (root / "refs").mkdir(exist_ok=True)
    (root / "refs" / "main").write_text(commit)
    for name, path in _files(folder).items():
        entry = _entry(name, path)
        lfs = entry.get("lfs")
        blob_name = str(lfs["oid"] if isinstance(lfs, dict) else entry["oid"])
        if isinstance(lfs, dict) and weights_blob is not None:
            blob_name = weights_blob
        blob = root / "blobs" / blob_name
        if not blob.exists():
            blob.symlink_to(path.resolve())  # the bytes stay where they are: the bundled weights are 90 MB
        link = snapshot / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(Path("../" * (name.count("/") + 2)) / "blobs" / blob_name)
    return snapshot
