"""Writing a small chunkeval project into a folder: the ini naming its suites, its strategies, its golden suites.

The end-to-end tests each bring their own strategies, corpus and questions; one writer keeps the layout the plugin
expects (``strategies/<module>.py``, ``golden/<suite>/queries.yaml`` beside ``corpus/``) in one place.
"""
from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

#: A two-file shop (password hashing, order totals): the corpus of the end-to-end tests that only need two
#: files a query can tell apart.
SHOP_CORPUS = {
    "auth.py": '''
        import hashlib


        def hash_password(password: str, salt: str) -> str:
            return hashlib.sha256((salt + password).encode()).hexdigest()
    ''',
    "orders.py": '''
        def order_total(order, discount: float = 0.0) -> float:
            subtotal = sum(item["price"] * item["qty"] for item in order.items)
            return round(subtotal * (1 - discount), 2)
    ''',
}


def name_suites(pytester: pytest.Pytester, pattern: str = "golden/*/queries.yaml") -> None:
    """The project's ini names its suites: ``chunkeval_golden`` is ``pattern``."""
    set_ini(pytester.path, "chunkeval_golden", f'["{pattern}"]', f"\n    {pattern}")


def write_strategies(root: Path, modules: Mapping[str, str]) -> None:
    """``root/strategies/<name>`` for each module's source (dedented), and the project's ini selects the strategies
    they define (with those selected before): each test measures its own strategies, not the built-ins every
    project also gets."""
    folder = root / "strategies"
    folder.mkdir(exist_ok=True)
    names = selected(root)
    for name, body in modules.items():
        source = textwrap.dedent(body)
        (folder / name).write_text(source)
        names += [explicit or fn for explicit, fn in
                  re.findall(r"@strategy(?:\(name=[\"']([^\"']+)[\"']\))?\s*\ndef (\w+)", source)]
    chosen = ",".join(dict.fromkeys(names))
    set_ini(root, "chunkeval_strategies", f'"{chosen}"', chosen)


def selected(root: Path) -> list[str]:
    """The strategies the project's ini selects (``chunkeval_strategies``), as written by :func:`write_strategies`."""
    for path in (root / "pytest.ini", root / "pyproject.toml", root / "tox.ini"):
        if path.is_file():
            found = re.search(r"^chunkeval_strategies = \"?([^\"\n]*)", path.read_text(), re.MULTILINE)
            return [n for n in found[1].split(",") if n] if found else []
    return []


def set_ini(root: Path, key: str, toml_value: str, ini_value: str) -> None:
    """Set ``key`` in the ini file pytest reads for the project (``pytest.ini``, a ``pyproject.toml`` with a pytest
    table, a ``tox.ini`` with one - ``pytester.makeini`` writes that - in pytest's order; else ``pyproject.toml``,
    created when missing), replacing an earlier value of it and keeping every other line."""
    candidates = [(root / "pytest.ini", "[pytest]"), (root / "pyproject.toml", "[tool.pytest.ini_options]"),
                  (root / "tox.ini", "[pytest]")]
    path, header = next(((f, h) for f, h in candidates if f.is_file() and (f.name == "pytest.ini" or h in f.read_text())),
                        candidates[1])
    value = toml_value if path.suffix == ".toml" else ini_value
    lines = path.read_text().splitlines() if path.is_file() else []
    if header not in lines:
        lines += [header]
    kept: list[str] = []
    skipping = False
    for line in lines:
        if skipping and line.startswith((" ", "\t")):
            continue  # a continuation line of the value being replaced
        skipping = line.split("=", 1)[0].strip() == key
        if not skipping:
            kept.append(line)
    kept.insert(kept.index(header) + 1, f"{key} = {value}")
    path.write_text("\n".join(kept) + "\n")


def write_suite(folder: Path, corpus: Mapping[str, str], golden: str) -> Path:
    """``folder/corpus/<file>`` for each corpus text and ``folder/queries.yaml`` (all dedented); the corpus folder."""
    files = folder / "corpus"
    files.mkdir(parents=True)
    for name, body in corpus.items():
        (files / name).write_text(textwrap.dedent(body).lstrip("\n"))
    (folder / "queries.yaml").write_text(textwrap.dedent(golden))
    return files
