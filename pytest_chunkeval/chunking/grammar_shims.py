"""Hand the installed tree-sitter grammar wheels to tree-sitter-language-pack, so chonkie's CodeChunker runs offline.

Why this exists: chonkie's ``CodeChunker`` (1.7) does no parsing of its own. It calls tree-sitter-language-pack's
``process()``, and the pack (1.x) loads each grammar from ``libtree_sitter_<lang>.so`` in its cache directory, which
it fills by downloading from its release manifest - at first use, and for every grammar at once when CodeChunker is
built with 19 or fewer cached. Offline nothing downloads, and CodeChunker takes no parser or language object, so the
cache directory is the only way in. The grammar wheels this project already installs (tree-sitter-python, -go, ...)
hold compiled grammars but export only a Python entry point (``PyInit__binding``), which the pack cannot ``dlsym``.
A three-line C shim per language exports ``tree_sitter_<lang>()`` returning the wheel's ``TSLanguage`` pointer, and
the pack loads it like a grammar it downloaded. So the peer parses with the very grammars ``ast`` parses with.

The shims live in a private temporary directory per process (pytest-xdist workers never share one), removed at
exit, and the pack is configured to use it, so a user's own pack cache is neither read nor written. Building a shim
needs a C compiler (``$CC``, else ``cc``): :func:`missing_piece` names what is absent instead.
"""
from __future__ import annotations

import atexit
import ctypes
import functools
import importlib
import importlib.util
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pytest_chunkeval.chunking.ast.languages import LANGUAGES

PACK = "tree_sitter_language_pack"
_SHIM_C = """static const void *language_ptr;
void chunkeval_set_language(const void *p) {{ language_ptr = p; }}
const void *tree_sitter_{name}(void) {{ return language_ptr; }}
"""


@functools.lru_cache(maxsize=1)
def wheel_grammars() -> dict[str, tuple[str, str]]:
    """Pack language name -> (grammar wheel module, function) for every installed wheel the pack also names.

    The names are those of :data:`LANGUAGES` (``ast``'s table; its ``jsx`` is the pack's ``javascript``), plus C#,
    whose wheel is installed but which ``ast`` does not chunk. Cached: asked once per file.
    """
    table = {spec.name: (spec.module, spec.function) for spec in LANGUAGES.values() if spec.name != "jsx"}
    table["csharp"] = ("tree_sitter_c_sharp", "language")
    return {name: mf for name, mf in table.items() if importlib.util.find_spec(mf[0]) is not None}


def compiler() -> list[str] | None:
    """The C compiler command (``$CC`` split like a shell would, else ``cc`` or ``gcc`` on PATH), or None."""
    env = os.environ.get("CC", "").strip()
    if env:
        return shlex.split(env)
    found = shutil.which("cc") or shutil.which("gcc")
    return [found] if found else None


def missing_piece() -> str | None:
    """What is absent for the pack to load the wheels' grammars (None: nothing). Cheap: imports and PATH only."""
    if importlib.util.find_spec(PACK) is None:
        return f"{PACK} not installed (chonkie's CodeChunker parses through it: pip install 'chonkie[code]')"
    if not wheel_grammars():
        return "no tree-sitter grammar wheel installed (pip install tree-sitter-python, ...)"
    if compiler() is None:
        return ("no C compiler (cc; or set CC) to build the shims that hand the installed grammar wheels to "
                f"{PACK}; without them it would download its grammars")
    return None


def _capsule_pointer(capsule: Any) -> int:
    """The ``TSLanguage *`` inside a grammar wheel's ``language()`` capsule."""
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    pointer = api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))
    if not pointer:
        raise RuntimeError("the grammar wheel returned an empty language capsule")
    return int(pointer)


class GrammarShims:
    """This process's shim directory; :meth:`ensure` makes one language loadable by the pack (thread-safe)."""

    def __init__(self) -> None:
        self._base: Path | None = None
        self._libs: Path | None = None
        self._loaded: dict[str, ctypes.CDLL] = {}  # kept alive: the pack calls into these libraries
        self._lock = threading.Lock()

    def libs_dir(self) -> Path:
        """Configure the pack to a fresh private cache and return its library folder (once per process)."""
        if self._libs is None:
            pack = importlib.import_module(PACK)
            base = Path(tempfile.mkdtemp(prefix="chunkeval-grammars-"))
            atexit.register(shutil.rmtree, base, True)
            pack.configure(pack.PackConfig(cache_dir=str(base)))
            self._base, self._libs = base, Path(pack.cache_dir())
            self._libs.mkdir(parents=True, exist_ok=True)
        return self._libs

    def ensure(self, language: str) -> None:
        """Build and load the shim for ``language`` unless done; raises ``KeyError`` when no wheel provides it."""
        with self._lock:
            if language in self._loaded:
                return
            module, function = wheel_grammars()[language]
            cc = compiler()
            if cc is None:
                raise RuntimeError(missing_piece() or "no C compiler")
            libs = self.libs_dir()
            assert self._base is not None
            source = self._base / f"shim_{language}.c"
            source.write_text(_SHIM_C.format(name=language), encoding="utf-8")
            lib = libs / f"libtree_sitter_{language}.so"
            built = subprocess.run([*cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(source)],
                                   capture_output=True, text=True, timeout=120)
            if built.returncode != 0:
                raise RuntimeError(f"building the {language} grammar shim failed: {built.stderr.strip()[-300:]}")
            handle = ctypes.CDLL(str(lib))
            handle.chunkeval_set_language.argtypes = [ctypes.c_void_p]
            grammar = getattr(importlib.import_module(module), function)()
            handle.chunkeval_set_language(_capsule_pointer(grammar))
            self._loaded[language] = handle

    def loaded(self) -> list[str]:
        return sorted(self._loaded)


SHIMS = GrammarShims()


@contextmanager
def no_bulk_download() -> Iterator[None]:
    """While CodeChunker is built: its ``download_all()`` (called when 19 or fewer grammars are cached, to fetch
    all 300-odd) becomes a no-op. Every language the adapter asks for is already loadable through a shim; this only
    stops a network call for grammars nobody uses here."""
    pack: Any = importlib.import_module(PACK)  # a module object whose attribute is patched below
    original = pack.download_all
    pack.download_all = lambda: 0
    try:
        yield
    finally:
        pack.download_all = original
