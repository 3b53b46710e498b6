"""Between chunks and rankings: the embedder (sentence-transformers, ONNX, a remote model), the cache store, and the
LanceDB tables that index and search the chunks.

Imports: core, chunking (a chunk's size in the model's tokens).
"""
