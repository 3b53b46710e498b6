"""The quality/cost frontier of a parameter grid: which points are worth their index, and is the best one better
than today's defaults.

Reads JSON reports (:mod:`.points`), finds per suite and retrieval mode the Pareto-optimal points of quality against
one cost (:mod:`.pareto`), tests the best point against each strategy's default point with the project's paired
randomization test, Holm-adjusted over every point compared with every default (:mod:`.significance`), pools
the suites (:mod:`.pooled`: mean of per-suite means, a sign-flip test stratified by suite) into the panels
(:mod:`.analysis`) that ``chunkeval frontier REPORT...`` and ``--chunkeval-frontier`` render the same way
(:mod:`pytest_chunkeval.output.frontier_tables`, :mod:`pytest_chunkeval.output.frontier_chart`).

Pure functions over report dictionaries: nothing here evaluates, embeds, renders or imports pytest.

Imports: core, scoring, results.
"""
