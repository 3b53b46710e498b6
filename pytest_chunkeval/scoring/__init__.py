"""Metrics, statistics and quality checks: pure functions of rankings, relevance and chunks. The judges that decide
with them are in :mod:`pytest_chunkeval.judges`.

Imports: core, chunking, retrieval (the types of what they score: a strategy's declared sizes, a search hit).
"""
