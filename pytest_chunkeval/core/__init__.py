"""The words and values every layer shares, and the inputs read as they are written: the vocabulary (metric names,
default k, relevance and retrieval modes), rankings, the Chunk type, parameter grids, golden suites, corpus files,
YAML read safely, secrets redacted, the default model's files. Nothing here knows chunking, search or pytest.

Imports: nothing of the package.
"""
