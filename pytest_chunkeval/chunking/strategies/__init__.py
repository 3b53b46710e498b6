"""The strategies that come with the package, one file each, registered through the ``pytest_chunkeval.strategies``
entry-point group (see ``pyproject.toml``), so ``pip install pytest-chunkeval`` alone gives a project something to
evaluate, and another package can ship strategies the same way.

Each module holds one plain factory function (no ``@strategy``: the entry point is the registration) that imports
its engine when called, so loading the entry points costs nothing a run without ``--chunkeval`` would notice.
A project's own strategy files add to these and may replace one by name
(:mod:`pytest_chunkeval.chunking.strategy_sources`).
"""
