"""Embedding, the cache store, and the LanceDB index: everything between chunks and rankings."""
