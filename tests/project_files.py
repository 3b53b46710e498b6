"""Writing a small chunkeval project into a folder: the ini naming its suites, its strategies, its golden suites.

The end-to-end tests each bring their own strategies, corpus and questions; one writer keeps the layout the plugin
expects (``strategies/<module>.py``, ``golden/<suite>/queries.yaml`` beside ``corpus/``) in one place. The projects
and corpora that several test modules share live here too (and the fixtures that write them in tests/conftest.py),
so that no test module imports from another.
"""
from __future__ import annotations

import os
import re
import subprocess
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


#: The question about :data:`SHOP_CORPUS` that tests needing one query ask (other tests ask their own, over the
#: same corpus).
SHOP_GOLDEN = """
    corpus: corpus
    queries:
      - id: password-hash
        query: How are user passwords hashed with a salt?
        relevant:
          - path: auth.py
"""

#: The ``project`` fixture's two strategies (tests/conftest.py): a file per chunk and small overlapping windows.
PROJECT_STRATEGIES = {
    "file_level.py": """
        from pytest_chunkeval import FileLevelChunker, strategy

        @strategy
        def file_level():
            return FileLevelChunker()
    """,
    "fixed_size.py": """
        from pytest_chunkeval import FixedSizeChunker, strategy

        @strategy
        def fixed_size():
            return FixedSizeChunker(max_chunk_size=120, overlap=20)
    """,
}

#: The ``project`` fixture's corpus: the shop of :data:`SHOP_CORPUS` grown to four files (a README, a dataclass, a
#: second function in each module), for the end-to-end tests whose assertions count files, name a line of
#: ``auth.py`` past the first function, or mark relevant line spans.
PROJECT_CORPUS = {
    "auth.py": '''
        import hashlib


        def hash_password(password: str, salt: str) -> str:
            return hashlib.sha256((salt + password).encode()).hexdigest()


        def check_password(password: str, salt: str, digest: str) -> bool:
            return hash_password(password, salt) == digest
    ''',
    "orders.py": '''
        from dataclasses import dataclass


        @dataclass
        class Order:
            id: int
            items: list


        def order_total(order: Order, discount: float = 0.0) -> float:
            subtotal = sum(item["price"] * item["qty"] for item in order.items)
            return round(subtotal * (1 - discount), 2)


        def cancel_order(order: Order) -> None:
            order.items.clear()
    ''',
    "README.md": '''
        # Shop
        A tiny shop: accounts with salted password hashes, orders with discounts.
    ''',
}

#: The ``project`` fixture's questions about :data:`PROJECT_CORPUS`, with the line spans that answer them.
PROJECT_GOLDEN = """
    corpus: corpus
    queries:
      - id: password-hash
        query: How are user passwords hashed with a salt?
        relevant:
          - path: auth.py
            lines: [4, 5]
      - id: order-total
        query: compute the total price of an order after a discount
        relevant:
          - path: orders.py
            lines: [10, 12]
"""

#: The ``grid_project`` fixture's strategies: ``file_level`` and a 2x2 grid of windows (tests/test_grid_plugin.py).
GRID_STRATEGIES = {
    "strategies.py": """
        from pytest_chunkeval import FileLevelChunker, FixedSizeChunker, strategy

        @strategy
        def file_level():
            return FileLevelChunker()

        @strategy(params={"size": [60, 4000], "overlap": [0, 20]})
        def windows(size, overlap):
            return FixedSizeChunker(max_chunk_size=size, overlap=overlap)
    """,
}


def write_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """The ``project`` fixture's project: :data:`PROJECT_STRATEGIES` on one suite, ``golden/shop``."""
    name_suites(pytester)
    write_strategies(pytester.path, PROJECT_STRATEGIES)
    corpus = write_suite(pytester.path / "golden" / "shop", PROJECT_CORPUS, PROJECT_GOLDEN)
    # A corpus file that looks like a test must never be collected as one.
    (corpus / "test_looks_like_a_test.py").write_text("def test_boom():\n    raise SystemExit('collected corpus')\n")
    return pytester


def write_grid_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """The ``grid_project`` fixture's project (without its fake model): :data:`GRID_STRATEGIES` on the shop."""
    name_suites(pytester)
    write_strategies(pytester.path, GRID_STRATEGIES)
    set_ini(pytester.path, "chunkeval_strategies", '"file_level,windows"', "file_level,windows")
    write_suite(pytester.path / "golden" / "shop", SHOP_CORPUS, SHOP_GOLDEN)
    return pytester


def run(p: pytest.Pytester, *args: str) -> pytest.RunResult:
    """An in-process chunkeval run without pytest's cache and without progress lines (which would interleave)."""
    return p.runpytest("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress", *args)


def run_vector(p: pytest.Pytester, *args: str) -> pytest.RunResult:
    """:func:`run` in one retrieval mode, so item ids carry no ``[mode]`` part (what the grid tests name)."""
    return run(p, "--chunkeval-retrieval=vector", *args)


def git(p: pytest.Pytester, *args: str) -> str:
    """git in the project's folder, as a committer named ``t`` whatever this machine's git config says."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=p.path, check=True, capture_output=True, text=True, env=env).stdout


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
