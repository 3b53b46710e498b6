"""From a file's text to its chunks: what a strategy is (:mod:`.strategy_base`, :mod:`.contract`), where a run's
strategies come from (:mod:`.strategy_sources`, :mod:`.strategy_files`), the built-in strategies (:mod:`.strategies`,
one file each), the engines they are built on (fixed windows, tree-sitter, Lark, the grammar-definition config) and
the boundary that checks what a strategy returns (:mod:`.boundary`, a worker process for foreign code). The engines
hold no corpus knowledge; the evaluation's step that runs a strategy over a suite is
:mod:`pytest_chunkeval.evaluation.chunk_corpus`.

Imports: core.
"""
