"""The chunking engines strategies are built on: strategies under ``strategies/`` configure these; they hold no
corpus knowledge. Not the Chunk type they return (:mod:`~pytest_chunkeval.chunk`), nor the evaluation's chunking step
(:mod:`~pytest_chunkeval.evaluate_chunking`).
"""
