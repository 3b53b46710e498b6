"""The shared words are spelled once: metric keys, labels and the default k come from pytest_chunkeval/core/vocabulary.py,
and settings are read from Options, not from pytest's config, outside the settings package.

A module that builds ``f"ndcg@{k}"`` itself drifts from the reports the moment the key's form changes; a second
``10`` for the cutoff disagrees with the settings table when its default changes. These checks read the package's
source (ast, so comments and docstrings do not count).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pytest_chunkeval.core import vocabulary
from pytest_chunkeval.core.vocabulary import DEFAULT_K, label, metric_key

PACKAGE = Path(vocabulary.__file__).resolve().parent
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "vocabulary.py")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _hand_built_keys(path: Path) -> list[str]:
    """f-strings of the form ``<metric>@{...}`` and string literals like ``"ndcg@10"`` (outside docstrings)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found = []
    words = ("ndcg@", "recall@", "mrr@", "NDCG@", "R@", "MRR@", "Recall@")
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for part, nxt in zip(node.values, node.values[1:], strict=False):
                if (isinstance(part, ast.Constant) and isinstance(part.value, str) and isinstance(nxt, ast.FormattedValue)
                        and part.value.endswith(words)):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: f-string builds {part.value!r}{{...}}")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
              and any(node.value == metric_key(m, DEFAULT_K) for m in vocabulary.RANK_METRICS)):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: literal {node.value!r}")
    return found


def test_no_module_spells_a_metric_key_by_hand() -> None:
    found = [line for path in MODULES for line in _hand_built_keys(path)]
    assert not found, "ask pytest_chunkeval.core.vocabulary (metric_key, label, budget_key):\n" + "\n".join(found)


def test_only_the_settings_read_pytest_s_options() -> None:
    """plugin.py, fixtures and the rest read Options; getoption/getini live in flags.py (one setting's value, read
    from the table's declaration) and settings/ only."""
    readers = []
    for path in MODULES:
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "settings" or rel.name == "flags.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("getoption", "getini"):
                readers.append(f"{rel}:{node.lineno}: .{node.attr}")
    assert not readers, "read the setting from Options instead:\n" + "\n".join(readers)


@pytest.mark.parametrize(("metric", "key", "shown"), [("ndcg", "ndcg@10", "NDCG@10"), ("recall", "recall@10", "R@10"),
                                                      ("mrr", "mrr@10", "MRR@10")])
def test_keys_and_labels_are_made_in_one_place(metric: str, key: str, shown: str) -> None:
    assert metric_key(metric, 10) == key and label(metric, 10) == shown
