"""Golden-suite generators: build a pytest-chunkeval suite from any repository, without writing queries by hand.

Two sources of queries in people's own words, each with a relevance label that needs no judge:

- ``docs``: the first sentence of a documentation comment (docstring, Go doc, JSDoc, ``///``, Javadoc, C# XML);
  relevant = the declaration it documents. The comment is blanked in the corpus copy so retrieval has to come
  from the code, not from the query text echoed next to it.
- ``history``: a focused commit's subject; relevant = the lines ``git blame`` still attributes to that commit.

``python -m pytest_chunkeval golden from-docs SRC OUT`` / ``chunkeval golden from-history REPO OUT --rev REV``.
"""
from __future__ import annotations

from pytest_chunkeval.commands.golden.common import SuiteQuery, write_suite
from pytest_chunkeval.commands.golden.docs import build_from_docs
from pytest_chunkeval.commands.golden.history import build_from_history

__all__ = ["SuiteQuery", "build_from_docs", "build_from_history", "write_suite"]
