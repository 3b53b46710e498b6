"""``python -m pytest_chunkeval ...``: the same command line as the ``chunkeval`` console script."""
from __future__ import annotations

import sys

from pytest_chunkeval.cli import main

if __name__ == "__main__":
    sys.exit(main())
