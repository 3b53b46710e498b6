"""``python -m pytest_chunkeval.settings --markdown [PATH]``: rewrite the options reference of docs/options.md."""
from __future__ import annotations

import sys

from pytest_chunkeval.settings.markdown import main

sys.exit(main())
