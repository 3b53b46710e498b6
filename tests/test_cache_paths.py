"""A cache or index folder the run cannot use is one usage error before any item runs (issue 34, item 5): a file
where the folder belongs (or above it), a place nothing can be written in (``/proc``, ``/sys``), a device, a link to
nowhere, or a full disk. It used to be a traceback in every item (~200 KB of log) and no report."""
from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_chunkeval.settings import options

CACHE = "ini chunkeval_cache_dir"
DB = "--chunkeval-db / ini chunkeval_db"
LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, /sys and /dev/full are Linux's")


def _run(pytester: pytest.Pytester, *args: str) -> tuple[int, str]:
    (pytester.path / "strategies").mkdir(exist_ok=True)
    # A strategy module that cannot import: the folders are checked with the settings, before anything is loaded.
    (pytester.path / "strategies" / "broken.py").write_text("raise RuntimeError('not reached')\n")
    (pytester.path / "a-file").write_text("not a folder\n")
    (pytester.path / "nowhere").symlink_to(pytester.path / "gone")
    result = pytester.runpytest("--chunkeval", "-p", "no:cacheprovider", *args)
    return result.ret, result.stdout.str() + result.stderr.str()


CASES = [
    pytest.param("cache-a-file", ["-o", "chunkeval_cache_dir=a-file"],
                 f"{CACHE} must be a folder this run can write in: {{root}}/a-file is a file, not a folder"),
    pytest.param("cache-under-a-file", ["-o", "chunkeval_cache_dir=a-file/cache"],
                 f"{CACHE} must be a folder this run can write in: {{root}}/a-file is a file, not a folder"),
    pytest.param("cache-a-link-to-nowhere", ["-o", "chunkeval_cache_dir=nowhere"],
                 f"{CACHE} must be a folder this run can write in: {{root}}/nowhere is a symbolic link that leads "
                 "nowhere"),
    pytest.param("cache-proc", ["-o", "chunkeval_cache_dir=/proc"],
                 f"{CACHE} must be a folder this run can write in: cannot write in /proc (No such file or directory)",
                 marks=LINUX),
    pytest.param("cache-in-proc", ["-o", "chunkeval_cache_dir=/proc/chunkeval"],
                 f"{CACHE} must be a folder this run can write in: cannot write in /proc (No such file or directory)",
                 marks=LINUX),
    pytest.param("cache-in-sys", ["-o", "chunkeval_cache_dir=/sys/chunkeval"],
                 f"{CACHE} must be a folder this run can write in: cannot write in /sys (Permission denied)",
                 marks=LINUX),
    pytest.param("cache-a-device", ["-o", "chunkeval_cache_dir=/dev/full"],
                 f"{CACHE} must be a folder this run can write in: /dev/full is not a folder", marks=LINUX),
    pytest.param("db-a-file", ["--chunkeval-db=a-file"],
                 f"{DB} must be a folder this run can write in: {{root}}/a-file is a file, not a folder"),
    pytest.param("db-file-uri-under-a-file", ["--chunkeval-db=file://{root}/a-file/lancedb"],
                 f"{DB} must be a folder this run can write in: {{root}}/a-file is a file, not a folder"),
    pytest.param("db-in-proc", ["-o", "chunkeval_db=/proc/lancedb"],
                 f"{DB} must be a folder this run can write in: cannot write in /proc (No such file or directory)",
                 marks=LINUX),
]


@pytest.mark.parametrize(("name", "args", "message"), CASES, ids=[c.values[0] for c in CASES])
def test_an_unusable_folder_is_one_usage_error_before_any_item(pytester: pytest.Pytester, name: str,
                                                               args: list[str], message: str) -> None:
    root = str(pytester.path)
    ret, output = _run(pytester, *(a.format(root=root) for a in args))
    assert ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in output.splitlines() if line.startswith("ERROR:")] == [
        f"ERROR: {message.format(root=root)}"]
    assert "Traceback" not in output and "INTERNALERROR" not in output and "not reached" not in output
    assert not list(pytester.path.rglob(".chunkeval-probe-*"))  # the probe is gone


def test_an_unwritable_folder(pytester: pytest.Pytester) -> None:
    """Without write permission (root writes anywhere: then it is a folder like any other)."""
    locked = pytester.path / "locked"
    locked.mkdir(mode=0o555)
    try:
        ret, output = _run(pytester, "-o", f"chunkeval_cache_dir={locked}/cache")
    finally:
        locked.chmod(0o755)
    if os.geteuid() == 0:
        assert "chunkeval_cache_dir" not in output  # root may
    else:
        assert ret == pytest.ExitCode.USAGE_ERROR and "Traceback" not in output
        assert f"ERROR: {CACHE} must be a folder this run can write in: cannot write in {locked} (Permission " \
               "denied)" in output


def test_a_full_disk_is_said_up_front(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe's write refused as a full disk refuses it (the real thing: test_a_real_full_disk)."""
    def full(folder: Path) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder))

    monkeypatch.setattr(options, "_probe", full)
    ret, output = _run(pytester)
    assert ret == pytest.ExitCode.USAGE_ERROR and "Traceback" not in output
    assert f"ERROR: {CACHE} must be a folder this run can write in: cannot write in {pytester.path} (No space left " \
           "on device)" in output


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 KiB tmpfs, filled: where the machine lets this process mount one (Linux, as root), else skipped."""
    mount = tmp_path / "full"
    mount.mkdir()
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", str(mount)], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        with contextlib.suppress(OSError):  # as much as fits
            (mount / "fill").write_bytes(b"\0" * 16384)
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_real_full_disk(full_disk: Path) -> None:
    assert options.unusable_folder(full_disk / "cache") == f"cannot write in {full_disk} (No space left on device)"


def test_an_object_store_is_not_probed_and_a_usable_folder_is_untouched(tmp_path: Path) -> None:
    assert options.local_folder("s3://bucket/lancedb") is None and options.local_folder("db://x") is None
    assert options.local_folder(f"file://{tmp_path}") == tmp_path
    assert options.unusable_folder(tmp_path / "not" / "yet") is None
    assert list(tmp_path.iterdir()) == []  # nothing made, nothing left
