"""One strategy on one suite: chunk (:mod:`.chunk_corpus`), index, search, score (:mod:`.evaluate`), and what an
index's build computed kept for the next run (:mod:`.build_facts`, keyed by :mod:`.fingerprint`). Plain functions and
objects: nothing here knows pytest. :mod:`.ray_engine` runs the same steps as Ray Data pipelines.

Imports: core, chunking, retrieval, scoring.
"""
