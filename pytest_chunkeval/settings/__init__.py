"""Every setting declared once (:mod:`.table`), what a setting is (:mod:`.setting`), the settings as pytest flags
and ini entries (:mod:`.flags`, imported by every pytest run, so light), read and checked into the typed Options
(:mod:`.options`), the project's pytest configuration file found as pytest would (:mod:`.project`), and the docs'
options reference made from the table (:mod:`.markdown`; ``python -m pytest_chunkeval.settings --markdown``).

Imports: core, chunking, retrieval, scoring, judges (the defaults and checks of what each setting configures).
"""

from __future__ import annotations

from pytest_chunkeval.settings.setting import Invalid, Setting
from pytest_chunkeval.settings.table import GROUPS, SETTING, SETTINGS

__all__ = ["GROUPS", "SETTING", "SETTINGS", "Invalid", "Setting"]
