"""Metrics, statistics and quality checks: pure functions of rankings, relevance and chunks (the judges that decide
with them are in :mod:`pytest_chunkeval.judges`)."""
