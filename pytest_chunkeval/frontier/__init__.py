"""The quality/cost frontier of a parameter grid: which points are worth their index, and is the best one better
than today's defaults.

Reads JSON reports (:mod:`.points`), finds per suite and retrieval mode the Pareto-optimal points of quality against
one cost (:mod:`.pareto`), tests the best point against each strategy's default point with the project's paired
randomization test, Holm-adjusted over every point compared with every default (:mod:`.significance`), pools
the suites (:mod:`.pooled`:
mean of per-suite means, a sign-flip test stratified by suite) and renders tables (:mod:`.render`) and a chart
(:mod:`.chart`). ``chunkeval frontier REPORT...`` (:mod:`.cli`) and ``--chunkeval-frontier`` print the same.

Pure functions over report dictionaries: nothing here evaluates, embeds or imports pytest.
"""
