"""Reusable chunking engines. Strategies under ``strategies/`` configure these; they hold no corpus knowledge."""
