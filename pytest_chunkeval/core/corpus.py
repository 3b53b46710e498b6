"""Reading a suite's corpus: the text files under one folder, with stable relative paths and a content hash.

Files that cannot be read as UTF-8 text are not silently dropped: they are listed in ``skipped`` with the reason,
and the report shows the count.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

_BINARY_SNIFF = 8192

#: Files larger than this many bytes are not read (0: no limit). Code search engines skip such files too (minified
#: bundles, generated tables, data dumps): one 50 MB line is a single chunk or 50,000 windows, and tokenizing it for
#: the embedder takes gigabytes. 1 MiB holds any hand-written source file.
MAX_FILE_BYTES = 1 << 20
#: How a skipped file's reason names the setting, so a user knows what to raise.
MAX_FILE_SETTING = "--chunkeval-max-file-bytes / ini chunkeval_max_file_bytes"


@dataclass
class Corpus:
    root: Path
    files: dict[str, str]  # posix path relative to root -> text
    skipped: dict[str, str] = field(default_factory=dict)  # path -> reason

    @cached_property
    def content_hash(self) -> str:
        """Hash of every path and its bytes: an index built from this corpus is reusable exactly while it holds."""
        h = hashlib.sha256()
        for path in sorted(self.files):
            h.update(path.encode("utf-8") + b"\0")
            h.update(hashlib.sha256(self.files[path].encode("utf-8")).digest())
        return h.hexdigest()

    @cached_property
    def file_hashes(self) -> dict[str, str]:
        """Each file's sha256 (first 16 hex digits): what a report records so that two runs on different corpora are
        told apart, with the files that differ named."""
        return {p: hashlib.sha256(self.files[p].encode("utf-8")).hexdigest()[:16] for p in sorted(self.files)}

    @cached_property
    def line_counts(self) -> dict[str, int]:
        return {p: t.count("\n") + (0 if t.endswith("\n") or not t else 1) for p, t in self.files.items()}

    @property
    def total_bytes(self) -> int:
        return sum(len(t.encode("utf-8")) for t in self.files.values())


def _link_problem(path: Path, real_root: Path) -> str | None:
    """Why a symbolic link under the corpus is not read (None: it is a link to a file inside the corpus).

    A corpus is what the golden file points at; a link out of it (``host.txt -> /etc/hostname``) would index and
    score text that is not part of the suite, and differ from machine to machine. A link to a folder is not
    followed either way: inside the corpus its files are read under their real paths already.
    """
    try:
        target = path.resolve()
    except (RuntimeError, OSError) as exc:  # a link to itself, or a ring of links: resolving never ends
        return f"symbolic link loop (not followed): {exc}"
    if not target.is_relative_to(real_root):
        return f"symbolic link to {target}, outside the corpus (not followed)"
    if not target.exists():
        return f"broken symbolic link to {target}"
    if target.is_dir():
        return (f"symbolic link to the folder {target.relative_to(real_root).as_posix() or '.'}"
                " of the corpus (not followed)")
    return None


def too_big(size: int, max_bytes: int) -> str | None:
    """Why a file of ``size`` bytes is not read (None when it is): over ``max_bytes`` (0: no limit)."""
    if max_bytes and size > max_bytes:
        return f"{size:,} bytes, over the {max_bytes:,}-byte limit ({MAX_FILE_SETTING})"
    return None


def read_corpus(root: Path, max_bytes: int = MAX_FILE_BYTES) -> Corpus:
    """Every non-hidden regular file under ``root``, decoded as UTF-8 (BOM stripped, newlines kept as written).

    Symbolic links are read only when they point at a file inside ``root``; any other is listed in ``skipped``. A
    file over ``max_bytes`` (0: no limit) is listed there too, judged by its size before it is read: the memory a run
    takes then grows with the number of files, never with the largest one.
    """
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: corpus folder does not exist")
    real_root = root.resolve()
    files: dict[str, str] = {}
    skipped: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        key = rel.as_posix()
        link = _link_problem(path, real_root) if path.is_symlink() else None
        if link is not None:
            skipped[key] = link
            continue
        if not path.is_file():
            continue
        if (big := too_big(path.stat().st_size, max_bytes)) is not None:
            skipped[key] = big
            continue
        data = path.read_bytes()
        if b"\0" in data[:_BINARY_SNIFF]:
            skipped[key] = "binary file"
            continue
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            skipped[key] = f"not UTF-8 ({exc.reason} at byte {exc.start})"
            continue
        files[key] = text
    return Corpus(root=root, files=files, skipped=skipped)
