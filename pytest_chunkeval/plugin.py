"""pytest hooks only. (placeholder; being written)"""
from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("chunkeval", "evaluate chunking strategies for code retrieval")
    group.addoption("--chunkeval", action="store_true", default=False, help="evaluate golden suites")
