"""The judges: what decides about results (gates, comparisons against a base, a stored report's regressions), above
the results they read and below the renderers that show their decisions. Their decisions travel as plain data
(:mod:`pytest_chunkeval.judged`), which the results carry."""
