"""What a run compares with: a git ref evaluated here (``--chunkeval-base``) or a stored report
(``--chunkeval-compare``), read once, and whether it was made like this run. Items ask through one method,
:meth:`BaseSide.refusal`, which answers with a value: nothing (there is a base), or the failure that stops every
comparison, kept with the run's other failures (:mod:`.failures`) so one item says it in full."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_chunkeval.core.grid import grid_text
from pytest_chunkeval.run.parts.context import ModelContext, ModelPart

if TYPE_CHECKING:
    from pytest_chunkeval.core.golden import GoldenSuite
    from pytest_chunkeval.results.typed import SuiteResult
    from pytest_chunkeval.run.base_ref import BaseEvaluation, BaseRefError
    from pytest_chunkeval.run.parts.catalog import Catalog
    from pytest_chunkeval.run.parts.failures import Failed
    from pytest_chunkeval.run.parts.head_side import HeadSide
    from pytest_chunkeval.settings.options import Options


#: The scope the base's failure is kept under (one base per run, one report of its failure).
BASE = "base"


class BaseSide(ModelPart):
    """The base of one run: evaluated or read at most once, its refusal (not comparable, not evaluable) remembered
    and said in full by one item."""

    def __init__(self, context: ModelContext, catalog: Catalog, head: HeadSide) -> None:
        super().__init__(context)
        self.catalog = catalog
        self.head = head
        self._evaluation: BaseEvaluation | BaseRefError | None = None  # or the error that stopped it
        self._previous: dict[str, Any] | None = None
        self._suites: dict[str, SuiteResult] | None = None  # suite key -> SuiteResult on the base side
        self._info: dict[str, Any] | None = None
        self._comparable: tuple[str, list[str]] | None = None  # (refusal message or "", fields the base lacks)

    @property
    def comparing(self) -> str | None:
        """'base' with --chunkeval-base, 'report' with --chunkeval-compare, else None."""
        return "base" if self.options.base else "report" if self.options.compare is not None else None

    @property
    def known(self) -> bool:
        """Whether the base was evaluated or received already (an interrupted run compares with nothing else)."""
        return self._evaluation is not None or self._suites is not None

    def db_uri(self) -> str:
        """The base side's own LanceDB location, beside the head's, so neither drops the other's tables as stale."""
        return self.options.db_uri.rstrip("/") + "-base"

    def evaluation(self) -> BaseEvaluation:
        """The git ref's evaluation, run once; raise ``BaseRefError`` (every time) when it could not be made."""
        from pytest_chunkeval.run.base_ref import BaseRefError, BaseRequest, evaluate_base

        if self._evaluation is None:
            o = self.options
            assert o.base
            catalog = self.catalog
            keys = sorted({catalog.suite_key(catalog.suite(p)) for p in catalog.suite_paths()})
            request = BaseRequest(
                root=o.rootdir, ref=o.base, suites=keys, k=o.k, retrieval=o.retrieval, baseline=o.baseline,
                model=o.model, device=o.device, backend=o.backend, cache_dir=self.head.cache_dir(),
                db_uri=self.db_uri(), storage_env=o.storage_options.as_environment(), grid=grid_text(o.grid),
                project=None if o.project is None else self._project_file(), progress=o.progress,
                allow_outside_corpus=o.allow_outside_corpus,
                caps=base_caps(o),
            )
            try:
                self._evaluation = evaluate_base(request, say=self.context.write if o.progress else lambda s: None)
            except BaseRefError as exc:
                self._evaluation = exc
        if isinstance(self._evaluation, BaseRefError):
            raise self._evaluation
        return self._evaluation

    def finished(self) -> BaseEvaluation | None:
        """The git ref's evaluation when one was made and succeeded; never starts one."""
        from pytest_chunkeval.run.base_ref import BaseEvaluation

        return self._evaluation if isinstance(self._evaluation, BaseEvaluation) else None

    def _project_file(self) -> str:
        """An isolated run's configuration file relative to the project's folder ("" when it has none)."""
        from pytest_chunkeval.settings.project import ProjectConfig

        assert self.options.project is not None
        found = ProjectConfig.locate(self.options.project).path
        return found.relative_to(self.options.rootdir).as_posix() if found is not None else ""

    def previous(self) -> dict[str, Any]:
        """The report given to --chunkeval-compare, read once."""
        if self._previous is None:
            from pytest_chunkeval.judges.regression import load_previous

            assert self.options.compare is not None
            self._previous = load_previous(self.options.compare)
        return self._previous

    def check_comparable(self) -> list[str]:
        """Raise ``ValueError`` naming every difference when the base (a git ref's evaluation, evaluated here if it
        was not yet, or a stored report) was not made like this run; else the fields the base does not record."""
        if self._comparable is None:
            from pytest_chunkeval.core.model_files import hub_revision
            from pytest_chunkeval.output.report import run_identity
            from pytest_chunkeval.output.usage import not_comparable
            from pytest_chunkeval.results.comparable import differences, of_report

            report = self.evaluation().report if self.comparing == "base" else self.previous()
            emb = self.head.evaluator().embedder
            ours = run_identity(self.options.k, {"id": emb.model_id, "sha256": emb.digests,
                                                 "revision": hub_revision(emb.model_dir)},
                                self.options.retrieval_modes)
            catalog = self.catalog
            suites = [catalog.suite(p) for p in catalog.suite_paths()]
            head = {catalog.suite_key(s): {"hash": s.corpus.content_hash, "files": s.corpus.file_hashes}
                    for s in suites}
            base = {key: {"hash": e.get("corpus_hash"), "files": e.get("corpus_files")}
                    for key, e in (report.get("suites") or {}).items()}
            found, unchecked = differences(ours, of_report(report), head, base)
            self._comparable = (not_comparable(found, self.options.base, self.options.compare) if found else "",
                                unchecked)
        message, unchecked = self._comparable
        if message:
            raise ValueError(message)
        return unchecked

    def suites(self) -> dict[str, SuiteResult]:
        """Suite key -> SuiteResult of whatever this run compares with (a git ref's evaluation or a stored report)."""
        if self._suites is None:
            self.check_comparable()
            from pytest_chunkeval.results.typed import suites_from_report

            report = self.evaluation().report if self.comparing == "base" else self.previous()
            self._suites = suites_from_report(report)
        return self._suites

    def received(self, report: dict[str, Any], info: dict[str, Any] | None) -> None:
        """An xdist controller: the base a worker evaluated (the controller never evaluates one itself)."""
        from pytest_chunkeval.results.typed import suites_from_report

        self._suites = suites_from_report(report)
        self._info = info

    def info(self) -> dict[str, Any] | None:
        if self._info is not None:
            return self._info
        if self.comparing == "report":
            return {"report": str(self.options.compare)}
        finished = self.finished() if self.comparing == "base" else None
        return finished.info() if finished is not None else None

    def refusal(self, asker: str) -> Failed | None:
        """None when there is a base to compare with (evaluated or read here, once, and made like this run); else
        why not, as the failure every comparison item meets: ``asker``, when the first, reports it in full."""
        from pytest_chunkeval.run.base_ref import BaseRefError

        failures = self.head.failures
        if BASE not in failures:
            try:
                self.suites()
                return None
            except (BaseRefError, ValueError) as exc:
                failures.keep(BASE, "base", exc)
        return failures.asked(BASE, BASE, asker)

    def ranked(self, suite: GoldenSuite, name: str, query_id: str,
               mode: str | None = None) -> tuple[str, int | None] | None:
        """(where the base is, 1-based rank of the query's first relevant chunk or None past the top k) when a base
        is known and scored this very query (same text and relevant items, same retrieval mode: ``mode``, else this
        run's first); None when there is nothing to pair it with."""
        try:
            base = self.suites().get(self.catalog.suite_key(suite))
        except Exception:
            return None
        result = base.find(name, mode or self.options.retrieval_modes[0]) if base is not None else None
        spec = next((q for q in suite.queries if q.id == query_id), None)
        if base is None or result is None or result.skipped or spec is None or query_id not in result.queries:
            return None
        before = base.queries.get(query_id)
        if before is not None and (before.text, before.relevant) != (spec.text, tuple(spec.relevant)):
            return None  # another question or other relevant items there: no comparable rank
        from pytest_chunkeval.output.messages import base_where

        rank = result.queries[query_id].hit_rank(tuple(spec.relevant))
        return base_where(self.options.base, self.options.compare), rank

    def rank(self, suite: GoldenSuite, name: str, query_id: str, mode: str | None = None) -> str | None:
        """'on base main: rank 3' / '…: not in the top 10' (see :meth:`ranked`)."""
        from pytest_chunkeval.output.messages import base_rank

        return base_rank(self.ranked(suite, name, query_id, mode), self.options.k)


def base_caps(o: Options) -> dict[str, int]:
    """The head's size and chunk caps that are not the defaults, as ini keys: the base must read and chunk the same
    files the same way, or every comparison would be of different corpora. The defaults are left out, so a run with
    them gives a base the command it always had (a base from before these settings would warn of an unknown key)."""
    from pytest_chunkeval.core.corpus import MAX_FILE_BYTES
    from pytest_chunkeval.core.vocabulary import MAX_CHUNKS_PER_FILE

    caps = {"chunkeval_max_file_bytes": (o.max_file_bytes, MAX_FILE_BYTES),
            "chunkeval_max_chunks_per_file": (o.max_chunks_per_file, MAX_CHUNKS_PER_FILE)}
    return {ini: value for ini, (value, default) in caps.items() if value != default}
