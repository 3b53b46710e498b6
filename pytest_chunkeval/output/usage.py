"""What a run says when its settings cannot be run as they are: no suite, no strategy, a name that exists nowhere, a
model no embedder serves, a flag without the run it needs, the outputs blocked, a strategy conftest that does not
import, a base made unlike this run. pytest shows each as a usage error before any item runs (or, on a pytest-xdist
worker, the comparison items say the base's); the run decides when, these functions only say it.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_chunkeval.output.escape import log_text

#: How each setting a problem names is written: its flag and its ini key, as the settings table declares them.
STRATEGIES = "--chunkeval-strategies / ini chunkeval_strategies"
GRID = "--chunkeval-grid / ini chunkeval_grid"
BASELINE = "--chunkeval-baseline / ini chunkeval_baseline"
GATE = "--chunkeval-gate / ini chunkeval_gate_candidates"
MODEL = "--chunkeval-model / ini chunkeval_model"


def no_golden_suite(patterns: Sequence[str], rootdir: Path) -> str:
    """Nothing to evaluate: where the run looked and how to make a suite."""
    where = ", ".join(patterns) or "(no patterns)"
    return (f"--chunkeval found no golden suite: looked for {where} under {rootdir} (ini chunkeval_golden). "
            "Make one with `chunkeval init` (suites, settings and a CI workflow for this repository) or "
            "`chunkeval golden from-docs SRC golden/NAME`, or name one with --chunkeval-golden=PATH")


def no_strategy(strategies_dir: Path) -> str:
    """Nothing to evaluate with: every place a strategy could come from, and that none did."""
    return ("--chunkeval found no strategy: none is registered by an installed package (entry-point group "
            f"pytest_chunkeval.strategies), the ini's chunkeval_grammar / chunkeval_grammar_config, or "
            f"{strategies_dir} (ini chunkeval_strategies_dir); reinstall pytest-chunkeval or add a strategy file")


def on_request(names: Sequence[str]) -> str:
    """A note: strategies that run only when named."""
    return (f"run on request, not in this run: {', '.join(names)} (name them, or --chunkeval-strategies=all "
            "for every strategy)")


def strategies_are_folders(folders: Sequence[str]) -> str:
    """The strategies setting given a folder, as the folder of strategy files is given elsewhere."""
    return (f"{STRATEGIES} names the strategies to run, and {', '.join(folders)} is a folder: name the folder of "
            "strategy files with ini chunkeval_strategies_dir")


def setting_problem(setting: str, problem: object) -> str:
    """``problem`` (a text, or the error that says it) prefixed by the ``setting`` it is in (:data:`GRID`, say)."""
    return f"{setting}: {problem}"


def unknown_baseline(baseline: str, known: str, points: Sequence[str]) -> str:
    """A baseline that is no strategy (``known``: the strategies that are) nor grid point."""
    return (f"{BASELINE}: unknown strategy {baseline!r}; {known}"
            + (f"; grid points: {', '.join(points)}" if points else ""))


def unknown_gate_candidates(unknown: Sequence[str], known: str) -> str:
    return f"{GATE}: unknown strategy {', '.join(map(repr, unknown))}; {known} (or all)"


def not_comparable(found: Sequence[str], base: str | None, compare: Path | None) -> str:
    """The base (the git ref ``base``, else the stored report ``compare``) made unlike this run: each difference
    ``found``, a suite or a file that differs, named on one line."""
    what = f"--chunkeval-base {base}" if base else f"--chunkeval-compare {compare}"
    return (f"{what} was not made like this run, so no number of it is compared with this run's "
            "(evaluate both sides with the same settings and corpus):\n"
            + "\n".join(f"  {log_text(d)}" for d in found))


def unregistered_embedder(model: str | None, route: str) -> str:
    """A model served through a ``route`` no embedder registers, and where one is registered from."""
    return (f"{MODEL}: {model}: no embedder is registered as {route!r} (@pytest_chunkeval.embedder({route!r}) in a "
            "conftest.py or a strategies-folder file, or an entry point in group pytest_chunkeval.embedders)")


def clean_without_evaluation() -> str:
    """--chunkeval-clean in a run that evaluates nothing: it has no index to clean."""
    return "--chunkeval-clean cleans the index before an evaluation: add --chunkeval"


def outputs_blocked(plugin: str) -> str:
    """The outputs' ``plugin`` blocked with ``-p no:``: the run would have no verdict, and could exit 0."""
    return (f"-p no:{plugin}: a --chunkeval run's outputs decide its verdict and exit status; they cannot be turned "
            "off (leave out the output flags instead)")


def strategy_conftest_failed(error: ImportError) -> str:
    """A conftest that defines strategies that ``chunkeval run`` could not import."""
    return f"{error} (chunkeval run imports the conftests that define strategies: those that use pytest_chunkeval)"
