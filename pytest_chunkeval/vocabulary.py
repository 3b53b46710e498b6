"""Words every module shares, at the bottom of the package's import graph (it imports nothing from the package).

A placeholder holding the default rank cutoff only: the settings table needs it, and the module that gathers the
package's shared words (metric names, modes, budgets) lands beside it in another change.
"""
from __future__ import annotations

#: The ranking cutoff when none is configured (the ADR's protocol: the top 10 chunks of each query).
DEFAULT_K = 10
