"""The state of one ``pytest --chunkeval`` session, composed of parts with one job each (:mod:`.parts`).

Kept apart from the hooks so it can be built and tested without running pytest (and so the hooks stay thin). The
state composes: it builds each part with its model's context and hands values between parts (what an xdist
controller merged, each to the part that owns it), so no part writes another's state.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.run.parts.base_side import BaseSide
from pytest_chunkeval.run.parts.catalog import Catalog
from pytest_chunkeval.run.parts.context import ModelContext, ModelPart
from pytest_chunkeval.run.parts.exchange import WorkerExchange
from pytest_chunkeval.run.parts.head_side import HeadSide
from pytest_chunkeval.run.parts.judgements import Judgements
from pytest_chunkeval.run.parts.ledger import MissLedger

if TYPE_CHECKING:
    from pytest_chunkeval.core.golden import GoldenSuite
    from pytest_chunkeval.output.misses import Drift
    from pytest_chunkeval.output.report import Summary
    from pytest_chunkeval.results.typed import SuiteResult
    from pytest_chunkeval.run.accepted import AcceptedMisses
    from pytest_chunkeval.run.distributed import WorkerResults
    from pytest_chunkeval.settings.options import Options


class RunState(ModelPart):
    """One run (of one model, in a run of several: :meth:`model_states`), as its parts:

    - ``catalog``: the suites and strategies; ``head``: the evaluator; ``base``: what the run compares with;
    - ``judgements``: against the baseline and the base, made once; ``ledger``: the accepted misses;
    - ``exchange``: what pytest-xdist workers send the controller.

    Every part is built with this state's :class:`ModelContext` and keeps it, so no part can be left reading another
    model's options. With one model the session's state is that model's. With several, each model gets a fresh state
    built for it (:meth:`model_states`); the session's state then collects the suites, holds the shared records and
    says what the models found together, and evaluates nothing itself.
    """

    def __init__(self, options: Options, write: Callable[[str], object] = lambda s: sys.stderr.write(s),
                 tty: bool = False, *, suites: dict[Path, GoldenSuite] | None = None,
                 records: dict[Path, AcceptedMisses] | None = None, model_label: str = "",
                 notes: list[str] | None = None) -> None:
        super().__init__(ModelContext(options, model_label, write, tty))
        self.notes: list[str] = [] if notes is None else notes  # said in the header: strategies replacing others
        self._model_states: list[RunState] | None = None  # every model's state, once split
        self.catalog = Catalog(self.context, suites)
        self.head = HeadSide(self.context)
        self.base = BaseSide(self.context, self.catalog, self.head)
        self.judgements = Judgements(self.context, self.catalog, self.head, self.base)
        self.ledger = MissLedger(self.context, self.catalog, self.head, records)
        self.exchange = WorkerExchange(self.context)

    @property
    def write(self) -> Callable[[str], object]:
        return self.context.write

    @property
    def model_label(self) -> str:
        """This state's model's label in a run of several models ("" with one)."""
        return self.context.label

    def model_states(self) -> list[RunState]:
        """One state per model of ``--chunkeval-model`` (this one, with one model): each evaluates, judges against
        its own baseline and records misses as a single-model run of it would (``models``), sharing the loaded suites,
        the records and the notes. Raise ``ValueError`` for a model named twice."""
        if self._model_states is None:
            self._model_states = self._split()
        return self._model_states

    def _split(self) -> list[RunState]:
        """This state alone for one model; else a fresh state per model, the first included, each built with its
        model's options and label."""
        models = self.options.models
        if len(models) == 1:
            return [self]
        from pytest_chunkeval.run.models import model_labels

        return [RunState(replace(self.options, model=model), self.write, self.context.tty, suites=self.catalog.suites,
                         records=self.ledger.records, model_label=label, notes=self.notes)
                for model, label in zip(models, model_labels(models), strict=True)]

    def node_label(self, name: str, mode: str) -> str:
        """An item's strategy label: the row label, with ``@model`` in a run of several models."""
        label = self.catalog.label(name, mode)
        return f"{label}@{self.model_label}" if self.model_label else label

    def check_model(self) -> None:
        """Raise ``pytest.UsageError`` when a model cannot be loaded offline (checked without loading torch)."""
        import pytest

        from pytest_chunkeval.core.model_files import ModelIntegrityError, ModelNotFoundError, check_model
        from pytest_chunkeval.output import usage
        from pytest_chunkeval.retrieval.remote import OPENAI, registered, route_of

        for state in self.model_states():
            if route := route_of(state.options.model):  # served elsewhere: nothing on disk to check
                if route[0] != OPENAI and registered(route[0]) is None:
                    self.catalog.load_strategies()  # the strategies folder's files may register it
                    if registered(route[0]) is None:
                        raise pytest.UsageError(usage.unregistered_embedder(state.options.model, route[0]))
                continue
            try:
                check_model(state.options.model, state.options.allow_download, self.write)
            except (ModelIntegrityError, ModelNotFoundError) as exc:
                raise pytest.UsageError(usage.setting_problem(usage.MODEL, exc)) from None

    def close(self) -> None:
        """Release what the session started (a Ray cluster of --chunkeval-engine ray), for every model."""
        for state in self.model_states():
            state.head.close()

    # -- the summary ----------------------------------------------------------------------------------------------
    def summary(self, run_base: bool = True) -> Summary | None:
        """Every result of this session as one typed value, with its comparisons: what every output renders; None
        when nothing was evaluated.

        ``run_base=False`` (an interrupted session) compares only with a base that was already evaluated.
        """
        if self.exchange.received is not None:
            suites, merged = self._from_workers()
            if not suites:
                return None
            # The controller never starts a base evaluation itself: it compares with what a worker evaluated.
            compare = merged.base_report is not None or self.base.comparing == "report"
            return self._summarize(suites, merged.embedding, merged.model or {}, run_base=compare)
        states = self.model_states()
        if len(states) > 1:
            from pytest_chunkeval.run.models import merge

            parts = [(state.model_label, state._own_summary(run_base)) for state in states]
            found = [(label, summary) for label, summary in parts if summary is not None]
            return merge(found) if found else None
        return self._own_summary(run_base)

    def _from_workers(self) -> tuple[dict[str, SuiteResult], WorkerResults]:
        """An xdist controller: the workers' results merged, each value handed to the part that owns it (the outcomes
        to the ledger, the comparison items to the judgements, the base a worker evaluated to the base side)."""
        suites, merged = self.exchange.merge()
        if suites:
            self.ledger.received(merged.outcomes, (merged.model or {}).get("id"))
            self.judgements.received(merged.compared)
            if merged.base_report is not None:
                self.base.received(merged.base_report, merged.base_info)
        return suites, merged

    def payload(self) -> str | None:
        """This worker's results for the controller, or None when it evaluated nothing."""
        base = self.base.finished() if self.base.comparing == "base" else None
        return self.exchange.payload(self.head, self.ledger.rows(), self.judgements.compared, base)

    def _own_summary(self, run_base: bool) -> Summary | None:
        """This model's results."""
        if not self.head.evaluated:
            return None
        return self._summarize(self.head.results(), self.head.embed_totals(), self.head.model_info(), run_base)

    def _summarize(self, suites: dict[str, SuiteResult], embedding: dict[str, int], model: dict[str, Any],
                   run_base: bool) -> Summary:
        from pytest_chunkeval.output.report import Summary

        o = self.options
        # Judged once, here (what a gate item judged already is reused): every output reads the stored values.
        self.judgements.judge(suites)
        summary = Summary(
            k=o.k, retrieval=o.retrieval, baseline=o.baseline, thresholds=o.thresholds, embedding=embedding,
            model=model, suites=suites, tolerance=o.regression_tolerance, columns=o.columns,
            gated=bool(o.gate_candidates),
        )
        if self.base.comparing and (run_base or self.base.known or self.base.comparing == "report"):
            try:
                base = self.base.suites()
            except Exception:  # already reported by the comparison items, once
                base = None
            if base is not None:
                summary.comparisons, summary.family_size = self.judgements.comparisons(suites, base)
                summary.correction = o.policy.correction
            summary.base = self.base.info()
        return summary

    # -- accepted misses, over every model ------------------------------------------------------------------------
    def record_drift(self) -> list[Drift]:
        """Every row's outcomes against the record that holds them, over every model."""
        return [d for state in self.model_states() for d in state.ledger.drift(state.node_label)]

    def unrecorded_misses(self) -> dict[Path, dict[str, list[str]]]:
        """The unrecorded misses, under settings no record holds yet (a new suite): suite -> row label -> query ids,
        in run order. They did not fail; the summary lists them with the command that records them."""
        out: dict[Path, dict[str, list[str]]] = {}
        if self.options.accept_misses:
            return out
        for state in self.model_states():
            for path, rows in state.ledger.unrecorded(state.node_label).items():
                out.setdefault(path, {}).update(rows)
        return out

    def save_accepted(self) -> list[Path]:
        """Write the accepted-misses files for what ran (only with --chunkeval-accept-misses)."""
        if not self.options.accept_misses or not any(state.ledger.outcomes for state in self.model_states()):
            return []
        for state in self.model_states():  # one section per model (its section names it); records shared
            state.ledger.update_records()
        return self.ledger.save()
