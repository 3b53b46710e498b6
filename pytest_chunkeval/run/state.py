"""The state of one ``pytest --chunkeval`` session, composed of parts with one job each (:mod:`run_state`).

Kept apart from the hooks so it can be built and tested without running pytest (and so the hooks stay thin).
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.run.parts.base_side import BaseSide
from pytest_chunkeval.run.parts.catalog import Catalog
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
    from pytest_chunkeval.settings.options import Options


class RunState:
    """One run (of one model, in a run of several: :meth:`model_states`), as its parts:

    - ``catalog``: the suites and strategies; ``head``: the evaluator; ``base``: what the run compares with;
    - ``judgements``: against the baseline and the base, made once; ``ledger``: the accepted misses;
    - ``exchange``: what pytest-xdist workers send the controller.
    """

    def __init__(self, options: Options, write: Callable[[str], object] = lambda s: sys.stderr.write(s),
                 tty: bool = False, *, suites: dict[Path, GoldenSuite] | None = None,
                 records: dict[Path, AcceptedMisses] | None = None, model_label: str = "",
                 notes: list[str] | None = None) -> None:
        self.options = options
        self.write = write
        self.tty = tty
        self.notes: list[str] = [] if notes is None else notes  # said in the header: strategies replacing others
        # --chunkeval-model A,B: this state's model's label ("" with one model) and every model's state, this first
        self.model_label = model_label
        self._model_states: list[RunState] | None = None
        self.catalog = Catalog(options, suites)
        self.head = HeadSide(options, write, tty)
        self.base = BaseSide(options, self.catalog, self.head)
        self.judgements = Judgements(options, self.catalog, self.head, self.base)
        self.ledger = MissLedger(options, self.catalog, self._model_id, records)
        self.exchange = WorkerExchange(self.catalog, self.head, self.base, self.judgements, self.ledger)

    def _model_id(self) -> str:
        return self.exchange.model_id or self.head.evaluator().embedder.model_id

    def _use(self, options: Options) -> None:
        """Run with ``options`` (the first model's, in a run of several), in every part."""
        self.options = options
        for part in (self.catalog, self.head, self.base, self.judgements, self.ledger):
            part.options = options

    def model_states(self) -> list[RunState]:
        """One state per model of ``--chunkeval-model`` (this one for the first): each evaluates, judges against
        its own baseline and records misses as a single-model run of it would (``models``). Raise ``ValueError``
        for a model named twice."""
        if self._model_states is None:
            models = self.options.models
            if len(models) == 1:
                self._model_states = [self]
                return self._model_states
            from pytest_chunkeval.run.models import model_labels

            labels = model_labels(models)
            self._use(replace(self.options, model=models[0]))
            self.model_label = labels[0]
            self._model_states = [self] + [
                RunState(replace(self.options, model=model), write=self.write, tty=self.tty,
                               suites=self.catalog.suites, records=self.ledger.records, model_label=label,
                               notes=self.notes)
                for model, label in zip(models[1:], labels[1:], strict=True)]
            for other in self._model_states[1:]:
                other._model_states = self._model_states
        return self._model_states

    def node_label(self, name: str, mode: str) -> str:
        """An item's strategy label: the row label, with ``@model`` in a run of several models."""
        label = self.catalog.label(name, mode)
        return f"{label}@{self.model_label}" if self.model_label else label

    def check_model(self) -> None:
        """Raise ``pytest.UsageError`` when a model cannot be loaded offline (checked without loading torch)."""
        import pytest

        from pytest_chunkeval.core.model_files import ModelIntegrityError, ModelNotFoundError, check_model
        from pytest_chunkeval.retrieval.remote import OPENAI, registered, route_of

        for state in self.model_states():
            if route := route_of(state.options.model):  # served elsewhere: nothing on disk to check
                if route[0] != OPENAI and registered(route[0]) is None:
                    self.catalog.load_strategies()  # the strategies folder's files may register it
                    if registered(route[0]) is None:
                        raise pytest.UsageError(
                            f"--chunkeval-model / ini chunkeval_model: {state.options.model}: no embedder is "
                            f"registered as {route[0]!r} (@pytest_chunkeval.embedder({route[0]!r}) in a conftest.py "
                            "or a strategies-folder file, or an entry point in group pytest_chunkeval.embedders)")
                continue
            try:
                check_model(state.options.model, state.options.allow_download, self.write)
            except (ModelIntegrityError, ModelNotFoundError) as exc:
                raise pytest.UsageError(f"--chunkeval-model / ini chunkeval_model: {exc}") from None

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
            suites, merged = self.exchange.merge()
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

    def unheld_misses(self) -> dict[Path, dict[str, list[str]]]:
        """Misses under settings no record holds yet (a new suite): suite -> row label -> query ids, in run order.
        They did not fail; the summary lists them with the command that records them."""
        out: dict[Path, dict[str, list[str]]] = {}
        if self.options.accept_misses:
            return out
        for state in self.model_states():
            for path, rows in state.ledger.unheld(state.node_label).items():
                out.setdefault(path, {}).update(rows)
        return out

    def save_accepted(self) -> list[Path]:
        """Write the accepted-misses files for what ran (only with --chunkeval-accept-misses)."""
        if not self.options.accept_misses or not any(state.ledger.outcomes for state in self.model_states()):
            return []
        for state in self.model_states():  # one section per model (its section names it); records shared
            state.ledger.update_records()
        from pytest_chunkeval.run.accepted import PYTEST_COMMAND, RUN_COMMAND

        for record in self.ledger.records.values():  # the header names the command this run was started with
            record.command = RUN_COMMAND if self.options.project is not None else PYTEST_COMMAND
        return self.ledger.save()
