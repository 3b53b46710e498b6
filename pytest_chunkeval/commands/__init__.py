"""The ``chunkeval`` command's areas, one module or folder each: ``run`` (:mod:`.run`), ``golden`` (:mod:`.golden`),
``init`` (:mod:`.init`), ``comment`` (:mod:`.github`), ``calibrate`` (:mod:`.calibrate`), ``frontier``
(:mod:`.frontier`) and ``python -m pytest_chunkeval.verify`` (:mod:`.verify`). The top-level ``cli`` dispatches.

Imports: core, chunking, scoring, results, judges, frontier, output, settings, run.
"""
