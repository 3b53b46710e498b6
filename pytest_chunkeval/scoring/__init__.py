"""Metrics, statistics, gates, comparisons and quality checks: pure functions over results."""
