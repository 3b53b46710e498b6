"""Pagebound fulfilment worker: consumes order events and moves orders to shipped."""

__version__ = "3.2.0"
