"""What decides about results: the gates against the baseline, the comparison with a base or a stored report, and
the run's verdict. Their decisions travel as plain data (:mod:`pytest_chunkeval.results.decisions`), which the results
carry; :mod:`.judged_run` is the judged run every renderer reads.

Imports: core, scoring, results.
"""
