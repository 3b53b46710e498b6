"""The ``pytest --chunkeval`` run: its hooks (:mod:`.hooks`), its test items (:mod:`.items`), its state
(:mod:`.state`, composed of :mod:`.parts`), what a finished run shows and writes (:mod:`.outputs_plugin`), the
strategies as fixtures (:mod:`.fixtures`), pytest-xdist (:mod:`.distributed`), several models (:mod:`.models`), the
accepted-miss records (:mod:`.accepted`), the base ref evaluated in a worktree (:mod:`.base_ref`) and the isolated
run's neutral configuration (:mod:`.isolation`). The plugin module at the package's top registers it.

Imports: core, chunking, retrieval, scoring, evaluation, results, judges, output, settings.
"""
