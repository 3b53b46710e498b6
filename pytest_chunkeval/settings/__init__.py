"""Every setting declared once (``table.py``), what a setting is (``setting.py``) and the docs' options reference made
from them (``markdown.py``; ``python -m pytest_chunkeval.settings --markdown`` rewrites ``docs/options.md``)."""
from __future__ import annotations

from pytest_chunkeval.settings.setting import Invalid, Setting
from pytest_chunkeval.settings.table import GROUPS, SETTING, SETTINGS

__all__ = ["GROUPS", "SETTING", "SETTINGS", "Invalid", "Setting"]
