"""The state of one ``pytest --chunkeval`` session, in parts with one job each.

:class:`~pytest_chunkeval.run.state.RunState` composes them; items and hooks talk to the part whose job they
need, through its public methods. Each part owns its values: one part reads another, never writes it, and the state
hands values between them.

- :mod:`.context` — one model's options, label and output, fixed: every part of that model's state is built with it;
- :mod:`.catalog` — what the run evaluates: its suites and strategies, found, checked and built once;
- :mod:`.head_side` — this run's own evaluation: the evaluator, its cache folder, and the one method items ask for
  an evaluation through;
- :mod:`.base_side` — what the run compares with: a git ref's evaluation or a stored report, and whether it is
  comparable;
- :mod:`.failures` — what an item gets back (an evaluation, or a failure with the item that reports it in full),
  and the one place the run's failures are kept;
- :mod:`.judgements` — every judgement made once: against the baseline (gates) and against the base (the family);
- :mod:`.ledger` — the accepted-misses records and this run's outcomes against them;
- :mod:`.query_outcome` — what one query's hit or miss means for its item (passes, which xfail, which failure),
  as a value the item maps;
- :mod:`.exchange` — pytest-xdist: what a worker sends and what the controller merges;
- :mod:`.progress` — progress lines for long work.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_chunkeval.run.state import RunState

#: Where a ``--chunkeval`` run keeps its state. Here, in a module that imports nothing of the package, so the
#: plugin's per-test hooks can see "no evaluation in this run" without importing the evaluation's modules.
STATE_KEY: pytest.StashKey[RunState] = pytest.StashKey()
