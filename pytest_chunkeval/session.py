"""The state of one ``pytest --chunkeval`` session: settings, suites, strategies, evaluator, accepted misses.

Kept apart from the hooks so it can be built and tested without running pytest (and so the hooks stay thin).
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.accepted import AcceptedMisses, settings_key
from pytest_chunkeval.discovery import discover_suites
from pytest_chunkeval.golden import GoldenSuite, load_golden
from pytest_chunkeval.grid import grid_text
from pytest_chunkeval.options import Options
from pytest_chunkeval.strategy import Registration

if TYPE_CHECKING:
    from pytest_chunkeval.sources import StrategySet
    from pytest_chunkeval.verdict import FailureKind

#: The first file of a cache folder this plugin creates, as pytest's own ``.pytest_cache`` has: the folder ignores
#: itself, so a repository whose ``.gitignore`` does not list it (another team's, after ``pip install``) never commits
#: the embedding cache, the LanceDB tables or the locks.
CACHE_GITIGNORE = "# Created by pytest-chunkeval automatically.\n*\n"


class LineProgress:
    """Progress for long work, written to the real terminal even while pytest captures output.

    On a terminal one line is rewritten in place; in a CI log a line at the start, one after each batch that ends
    ``interval`` seconds or more after the last line (done/total, rate, time left: a log that says nothing for
    minutes looks hung; 7.5 s plus a batch of ~1 s keeps the gaps under 10 s) and one at the end.
    """

    def __init__(self, write: Callable[[str], object], tty: bool, interval: float = 7.5,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.write = write
        self.tty = tty
        self.interval = interval
        self.clock = clock

    def __call__(self, description: str, total: int) -> Callable[[int], None]:
        start = self.clock()
        state = {"done": 0, "shown": start}
        if total == 0:
            return lambda n: None
        if not self.tty:
            self.write(f"[chunkeval] {description}: {total} texts\n")

        def advance(n: int) -> None:
            state["done"] += n
            now = self.clock()
            done = int(state["done"])
            finished = done >= total
            rate = done / max(now - start, 1e-9)
            if self.tty and (finished or now - state["shown"] > 0.25):
                state["shown"] = now
                left = "" if finished else f", {_left(total - done, rate)}"
                self.write(f"\r[chunkeval] {description}: {done}/{total} ({rate:.0f}/s{left})"
                           + ("\n" if finished else ""))
            elif finished and not self.tty:
                self.write(f"[chunkeval] {description}: done in {now - start:.1f}s ({rate:.1f} texts/s)\n")
            elif not self.tty and now - state["shown"] >= self.interval:
                state["shown"] = now
                self.write(f"[chunkeval] {description}: {done}/{total} ({rate:.1f} texts/s, "
                           f"{_left(total - done, rate)})\n")

        return advance


def _left(todo: int, rate: float) -> str:
    seconds = todo / rate if rate > 0 else float("inf")
    if seconds == float("inf"):
        return "time left unknown"
    return f"about {seconds / 60:.0f} min left" if seconds >= 90 else f"about {seconds:.0f} s left"


@dataclass
class ChunkevalState:
    options: Options
    write: Callable[[str], object] = field(default=lambda s: sys.stderr.write(s))
    tty: bool = False
    suites: dict[Path, GoldenSuite] = field(default_factory=dict)
    strategies: dict[str, Any] = field(default_factory=dict)
    accepted: dict[Path, AcceptedMisses] = field(default_factory=dict)
    families: dict[str, str] = field(default_factory=dict)  # grid point label -> its strategy (accepted misses)
    outcomes: dict[tuple[Path, str, str], dict[str, bool]] = field(default_factory=dict)  # (suite, strategy, mode)
    report: dict[str, Any] | None = None
    summary_value: Any = None  # report.Summary of the finished session
    frontier_text: str = ""  # --chunkeval-frontier: the frontier of the finished run, printed after the summary
    write_errors: list[str] = field(default_factory=list)  # one line per output file that could not be written
    collected_suites: set[Path] = field(default_factory=set)
    _evaluator: Any = None
    _previous: dict[str, Any] | None = None
    _base: Any = None  # base_ref.BaseEvaluation, or the BaseRefError that stopped it
    _base_suites: dict[str, Any] | None = None  # suite key -> results.SuiteResult on the base side
    # (suite key, row label) of every comparison item this run runs: the family whose tests can fail it
    compared: set[tuple[str, str]] = field(default_factory=set)
    _compared_runs: list[tuple[GoldenSuite, Registration, str]] = field(default_factory=list)
    _family: tuple[dict[str, Any], int] | None = None  # (suite key -> SuiteComparison, family size)
    # (suite key, row label) -> scoring.judged.AgainstBaseline: judged by a gate item, read again by the summary
    _judged: dict[tuple[str, str], Any] = field(default_factory=dict)
    _comparable: tuple[str, list[str]] | None = None  # (refusal message or "", fields the base does not record)
    failed_evaluations: dict[tuple[Path, str, str], str] = field(default_factory=dict)  # -> item that reported it
    _base_failure_item: str | None = None  # the item that reported a failed base evaluation in full
    # (nodeid, golden file, first line, kind) of every failed evaluation item
    failed_items: list[tuple[str, str, str, FailureKind]] = field(default_factory=list)
    _discovered: list[Path] | None = None
    _workers: list[Any] | None = None  # distributed.WorkerResults received by an xdist controller
    _model_id: str | None = None  # the workers' model, on an xdist controller (it runs no evaluator)
    _base_info: dict[str, Any] | None = None
    _corpus_dirs: set[Path] | None = None
    _packaged: list[Registration] | None = None
    notes: list[str] = field(default_factory=list)  # said in the header: strategies that replace others
    # --chunkeval-model A,B: this state's model's label ("" with one model) and every model's state, this one first
    model_label: str = ""
    _model_states: list[ChunkevalState] | None = None

    # -- discovery ----------------------------------------------------------------------------------------------
    def strategy_set(self) -> StrategySet:
        """Every strategy this project can run: the packages' (built-ins), the ini's grammars, the project's own
        files and conftests (pytest has imported those by the time collection asks), later replacing earlier."""
        from pytest_chunkeval.sources import load, packaged

        o = self.options
        if self._packaged is None:
            self._packaged = packaged()
        return load(o.strategies_dir, o.grammars, o.grammar_configs, root=o.rootdir, conftest_root=o.rootdir,
                    shipped=self._packaged)

    def load_strategies(self) -> dict[str, Registration]:
        """The strategies this run evaluates: those selected (``--chunkeval-strategies``; all by default) and the
        baseline."""
        return self.strategy_set().select(self.options.strategy_names, self.options.baseline, self.options.grid)

    def check_setup(self) -> list[str]:
        """Raise ``ValueError`` for a run that would evaluate nothing or name what does not exist, with where it
        looked and how to fix it; else the notes to print (replaced strategies)."""
        o = self.options
        if not self.suite_paths():
            where = ", ".join(o.golden_patterns) or "(no patterns)"
            raise ValueError(
                f"--chunkeval found no golden suite: looked for {where} under {o.rootdir} (ini chunkeval_golden). "
                "Make one with `chunkeval init` (suites, settings and a CI workflow for this repository) or "
                "`chunkeval golden from-docs SRC golden/NAME`, or name one with --chunkeval-golden=PATH"
            )
        found = self.strategy_set()
        if not found.available:
            raise ValueError(
                "--chunkeval found no strategy: none is registered by an installed package (entry-point group "
                f"pytest_chunkeval.strategies), the ini's chunkeval_grammar / chunkeval_grammar_config, or "
                f"{o.strategies_dir} (ini chunkeval_strategies_dir); reinstall pytest-chunkeval or add a strategy file"
            )
        problems = []
        folders = [n for n in o.strategy_names if n not in found.available and (o.rootdir / n).is_dir()]
        if folders:  # the setting's name before it selected strategies by name
            problems.append(f"--chunkeval-strategies / ini chunkeval_strategies names the strategies to run, and "
                            f"{', '.join(folders)} is a folder: name the folder of strategy files with ini "
                            "chunkeval_strategies_dir")
        else:
            try:
                found.select(o.strategy_names, "", {})
            except ValueError as exc:
                problems.append(f"--chunkeval-strategies / ini chunkeval_strategies: {exc}")
        selected = not problems
        try:
            names = found.labels(o.grid)
        except ValueError as exc:
            raise ValueError(f"--chunkeval-grid / ini chunkeval_grid: {exc}") from None
        if o.baseline not in names:
            points = [n for n in names if n not in found.available]
            problems.append(f"--chunkeval-baseline / ini chunkeval_baseline: unknown strategy {o.baseline!r}; "
                            f"{found.known()}" + (f"; grid points: {', '.join(points)}" if points else ""))
        elif selected:
            try:
                found.select(o.strategy_names, o.baseline, o.grid)
            except ValueError as exc:
                problems.append(f"--chunkeval-baseline / ini chunkeval_baseline: {exc}")
        unknown = [n for n in o.gate_candidates if n != "all" and n not in names]
        if unknown:
            problems.append(f"--chunkeval-gate / ini chunkeval_gate_candidates: unknown strategy "
                            f"{', '.join(map(repr, unknown))}; {found.known()} (or all)")
        if problems:
            raise ValueError("\n".join(problems))
        later = found.left_for_request(o.strategy_names, o.grid)
        extra = [f"run on request, not in this run: {', '.join(later)} (name them, or --chunkeval-strategies=all "
                 "for every strategy)"] if later else []
        return [*found.notes, *extra]

    def model_states(self) -> list[ChunkevalState]:
        """One state per model of ``--chunkeval-model`` (this one for the first): each evaluates, judges against
        its own baseline and records misses as a single-model run of it would (``models``). Raise ``ValueError``
        for a model named twice."""
        if self._model_states is None:
            models = self.options.models
            if len(models) == 1:
                self._model_states = [self]
                return self._model_states
            from pytest_chunkeval.models import model_labels

            labels = model_labels(models)
            self.options, self.model_label = replace(self.options, model=models[0]), labels[0]
            self._model_states = [self] + [
                ChunkevalState(replace(self.options, model=model), write=self.write, tty=self.tty, suites=self.suites,
                               accepted=self.accepted, model_label=label, notes=self.notes)
                for model, label in zip(models[1:], labels[1:], strict=True)]
            for other in self._model_states[1:]:
                other._model_states = self._model_states
        return self._model_states

    def node_label(self, name: str, mode: str) -> str:
        """An item's strategy label: the row label, with ``@model`` in a run of several models."""
        label = self.label(name, mode)
        return f"{label}@{self.model_label}" if self.model_label else label

    def suite_paths(self) -> list[Path]:
        """The suites to evaluate: those named by --chunkeval-golden, else every suite the ini patterns find."""
        explicit = [p.resolve() for p in self.options.golden_paths]
        return explicit or self.discovered()

    def discovered(self) -> list[Path]:
        if self._discovered is None:
            self._discovered = discover_suites(self.options.rootdir, self.options.golden_patterns)
        return self._discovered

    def corpus_dirs(self) -> set[Path]:
        """Corpus folders of every known suite: data, never to be collected as tests."""
        if self._corpus_dirs is None:
            self._corpus_dirs = set()
            for path in {*self.discovered(), *(p.resolve() for p in self.options.golden_paths)}:
                try:
                    self._corpus_dirs.add(self.suite(path).corpus_dir)
                except Exception:  # reported when the suite itself is collected
                    self._corpus_dirs.add(path.parent / "corpus")
        return self._corpus_dirs

    def suite(self, path: Path) -> GoldenSuite:
        key = path.resolve()
        if key not in self.suites:
            self.suites[key] = load_golden(key, root=self.options.rootdir, outside=self.options.allow_outside_corpus)
        return self.suites[key]

    def strategy(self, reg: Registration) -> Any:
        if reg.name not in self.strategies:
            self.strategies[reg.name] = reg.build()
        return self.strategies[reg.name]

    # -- evaluation ---------------------------------------------------------------------------------------------
    def cache_dir(self) -> Path:
        """The cache folder (``chunkeval_cache_dir``), created on first use with a ``.gitignore`` that ignores all of
        it. Only a folder created here gets one: a folder the user named that exists already (the project's root,
        say) is left as it is."""
        path = self.options.cache_dir
        if not path.is_dir():
            path.mkdir(parents=True, exist_ok=True)
            (path / ".gitignore").write_text(CACHE_GITIGNORE, encoding="utf-8")
        return path

    def evaluator(self):  # -> Evaluator (imported lazily: it pulls numpy, lancedb helpers)
        if self._evaluator is None:
            from pytest_chunkeval.evaluate import Evaluator, Settings
            from pytest_chunkeval.retrieval.embed import Embedder, EmbeddingCache
            from pytest_chunkeval.retrieval.index import IndexStore, RankingCache

            o = self.options
            cache_dir = self.cache_dir()
            cache = EmbeddingCache(cache_dir / "cache.sqlite")
            embedder = Embedder(o.model, cache=cache, device=o.device, batch_size=o.batch_size, backend=o.backend,
                                onnx_dir=cache_dir / "onnx")
            settings = Settings(k=o.k, retrieval=o.retrieval_modes[0], chunk_timeout=o.chunk_timeout)
            store = IndexStore(o.db_uri, cache_dir / "locks", storage=o.storage_options)
            progress = LineProgress(self.write, self.tty) if o.progress else None
            rankings = RankingCache(cache_dir / "cache.sqlite")
            from pytest_chunkeval.run_cache import FactsCache

            facts = FactsCache(cache_dir / "cache.sqlite")
            engine = None
            if o.engine == "ray":  # imports nothing yet: Ray starts when the first strategy is chunked
                from pytest_chunkeval.retrieval.ray_engine import RayEngine

                engine = RayEngine(address=o.ray_address)
            self._evaluator = Evaluator(settings, embedder, store, progress, rankings, facts=facts, engine=engine)
        return self._evaluator

    def close(self) -> None:
        """Release what the session started (a Ray cluster of --chunkeval-engine ray), for every model."""
        for state in self.model_states():
            engine = getattr(state._evaluator, "engine", None)
            if engine is not None:
                engine.close()

    def check_model(self) -> None:
        """Raise ``pytest.UsageError`` when a model cannot be loaded offline (checked without loading torch)."""
        import pytest

        from pytest_chunkeval.retrieval.model_files import ModelIntegrityError, ModelNotFoundError, check_model

        for state in self.model_states():
            try:
                check_model(state.options.model)
            except (ModelIntegrityError, ModelNotFoundError) as exc:
                raise pytest.UsageError(f"--chunkeval-model / ini chunkeval_model: {exc}") from None

    def previous(self) -> dict[str, Any]:
        """The report given to --chunkeval-compare, read once."""
        if self._previous is None:
            from pytest_chunkeval.scoring.regression import load_previous

            assert self.options.compare is not None
            self._previous = load_previous(self.options.compare)
        return self._previous

    def suite_key(self, suite: GoldenSuite) -> str:
        """How the JSON report names a suite: its golden path relative to the project root."""
        from pytest_chunkeval.results import suite_key

        return suite_key(suite.path, self.options.rootdir)

    # -- head against base ----------------------------------------------------------------------------------------
    @property
    def comparing(self) -> str | None:
        """'base' with --chunkeval-base, 'report' with --chunkeval-compare, else None."""
        return "base" if self.options.base else "report" if self.options.compare is not None else None

    def base_db_uri(self) -> str:
        """The base side's own LanceDB location, beside the head's, so neither drops the other's tables as stale."""
        return self.options.db_uri.rstrip("/") + "-base"

    def base_evaluation(self):  # -> base_ref.BaseEvaluation; raises BaseRefError (once, remembered)
        from pytest_chunkeval.base_ref import BaseRefError, BaseRequest, evaluate_base

        if self._base is None:
            o = self.options
            assert o.base
            keys = sorted({self.suite_key(self.suite(p)) for p in self.suite_paths()})
            request = BaseRequest(
                root=o.rootdir, ref=o.base, suites=keys, k=o.k, retrieval=o.retrieval, baseline=o.baseline,
                model=o.model, device=o.device, backend=o.backend, cache_dir=self.cache_dir(),
                db_uri=self.base_db_uri(), storage_env=o.storage_options.as_environment(), grid=grid_text(o.grid),
                project=None if o.project is None else self._project_file(), progress=o.progress,
                allow_outside_corpus=o.allow_outside_corpus,
            )
            try:
                self._base = evaluate_base(request, say=self.write if o.progress else lambda s: None)
            except BaseRefError as exc:
                self._base = exc
        if isinstance(self._base, BaseRefError):
            raise self._base
        return self._base

    def _project_file(self) -> str:
        """An isolated run's configuration file relative to the project's folder ("" when it has none)."""
        from pytest_chunkeval.project import ProjectConfig

        assert self.options.project is not None
        found = ProjectConfig.locate(self.options.project).path
        return found.relative_to(self.options.rootdir).as_posix() if found is not None else ""

    def check_comparable(self) -> list[str]:
        """Raise ``ValueError`` naming every difference when the base (a git ref's evaluation, evaluated here if it
        was not yet, or a stored report) was not made like this run; else the fields the base does not record."""
        if self._comparable is None:
            from pytest_chunkeval.comparable import differences, of_report
            from pytest_chunkeval.output.report import run_identity

            report = self.base_evaluation().report if self.comparing == "base" else self.previous()
            emb = self.evaluator().embedder
            ours = run_identity(self.options.k, {"id": emb.model_id, "sha256": emb.digests},
                                self.options.retrieval_modes)
            suites = [self.suite(p) for p in self.suite_paths()]
            head = {self.suite_key(s): {"hash": s.corpus.content_hash, "files": s.corpus.file_hashes} for s in suites}
            base = {key: {"hash": e.get("corpus_hash"), "files": e.get("corpus_files")}
                    for key, e in (report.get("suites") or {}).items()}
            found, unchecked = differences(ours, of_report(report), head, base)
            what = (f"--chunkeval-base {self.options.base}" if self.comparing == "base"
                    else f"--chunkeval-compare {self.options.compare}")
            self._comparable = (
                f"{what} was not made like this run, so no number of it is compared with this run's "
                "(evaluate both sides with the same settings and corpus):\n" + "\n".join(f"  {d}" for d in found)
                if found else "", unchecked)
        message, unchecked = self._comparable
        if message:
            raise ValueError(message)
        return unchecked

    def base_suites(self) -> dict[str, Any]:
        """Suite key -> SuiteResult of whatever this run compares with (a git ref's evaluation or a stored report)."""
        if self._base_suites is None:
            self.check_comparable()
            from pytest_chunkeval.results import suites_from_report

            report = self.base_evaluation().report if self.comparing == "base" else self.previous()
            self._base_suites = suites_from_report(report)
        return self._base_suites

    def base_info(self) -> dict[str, Any] | None:
        if self._base_info is not None:
            return self._base_info
        if self.comparing == "report":
            return {"report": str(self.options.compare)}
        if self.comparing == "base" and self._base is not None and not isinstance(self._base, Exception):
            return self._base.info()
        return None

    def summary(self, run_base: bool = True):  # -> report.Summary, or None when nothing was evaluated
        """Every result of this session as one typed value, with its comparisons: what every output renders.

        ``run_base=False`` (an interrupted session) compares only with a base that was already evaluated.
        """
        if self._workers is not None:
            return self._merged_summary(run_base)
        states = self.model_states()
        if len(states) > 1:
            from pytest_chunkeval.models import merge

            parts = [(state.model_label, state._own_summary(run_base)) for state in states]
            found = [(label, summary) for label, summary in parts if summary is not None]
            return merge(found) if found else None
        return self._own_summary(run_base)

    def _own_summary(self, run_base: bool):  # -> report.Summary | None: this model's results
        from pytest_chunkeval.ordering import collect

        ev = self._evaluator
        if ev is None or not ev.runs:
            return None
        suites = collect(ev.runs.values(), self.options.rootdir, self.options.baseline, self.options.retrieval_modes)
        return self._summarize(suites, self._embed_totals(), self._model_info(), run_base)

    def _embed_totals(self) -> dict[str, int]:
        ev = self._evaluator
        totals = {"embedded": ev.query_embed.embedded, "cached": ev.query_embed.cached}
        # Retrieval modes share one embedding of a (suite, strategy): counted once, however many modes searched it.
        shared = {(run.suite.path.resolve(), run.name): run for run in ev.runs.values()}
        for run in shared.values():
            totals["embedded"] += run.embed.embedded
            totals["cached"] += run.embed.cached
        return totals

    def _model_info(self) -> dict[str, Any]:
        emb = self._evaluator.embedder
        return {"id": emb.model_id, "sha256": emb.digests, "max_tokens": emb.max_tokens, "backend": emb.backend,
                "device": emb.device}

    def _summarize(self, suites: dict[str, Any], embedding: dict[str, int], model: dict[str, Any], run_base: bool):
        from pytest_chunkeval.output.report import Summary
        from pytest_chunkeval.scoring.against_baseline import judge_suites
        from pytest_chunkeval.scoring.comparison import compare_suite

        o = self.options
        # Judged once, here (what a gate item judged already is reused): every output reads the stored values.
        judge_suites(suites, o.baseline, o.k, o.thresholds, known=self._judged)
        summary = Summary(
            k=o.k, retrieval=o.retrieval, baseline=o.baseline, thresholds=o.thresholds, embedding=embedding,
            model=model, suites=suites, tolerance=o.regression_tolerance, columns=o.columns,
            gated=bool(o.gate_candidates),
        )
        if self.comparing and (run_base or self._base is not None or self._base_suites is not None
                               or self.comparing == "report"):
            try:
                base = self.base_suites()
            except Exception:  # already reported by the comparison items, once
                base = None
            if base is not None:
                family, summary.family_size = self.family(suites)
                summary.correction = o.policy.correction
                # Comparisons outside the family (their items deselected) are shown, never judged.
                summary.comparisons = {key: compare_suite(base.get(key), head, o.policy)
                                       for key, head in suites.items()}
                for key, judged in family.items():
                    summary.comparisons[key].strategies.update(judged.strategies)
                self._drop_unselected(summary.comparisons)
            summary.base = self.base_info()
        return summary

    def against_baseline(self, suite: GoldenSuite, run: Any, base: Any):  # -> scoring.judged.AgainstBaseline
        """``run`` (a StrategyRun) against ``base``, the baseline's run searched the same way: judged once per
        (suite, row label) and kept, so the gate items and every output read the same value."""
        from pytest_chunkeval.results import StrategyResult
        from pytest_chunkeval.scoring.against_baseline import against

        key = (self.suite_key(suite), self.label(run.name, run.mode))
        if key not in self._judged:
            o = self.options
            result, baseline = (StrategyResult.from_run(r, key[0], self.label(r.name, r.mode)) for r in (run, base))
            self._judged[key] = against(result, baseline, o.baseline, o.k, o.thresholds)
        return self._judged[key]

    def _drop_unselected(self, comparisons: dict[str, Any]) -> None:
        """A strategy the base evaluated and head did not is "removed" only when head has no such strategy: one
        left out by --chunkeval-strategies or -k was not removed, and is not listed at all."""
        try:
            known = set(self.strategy_set().available)
        except Exception:  # an xdist controller that cannot load the strategies: show every row
            return
        for suite in comparisons.values():
            for label in [n for n, c in suite.strategies.items() if c.status == "removed"]:
                if label.split("[", 1)[0] in known:
                    del suite.strategies[label]

    def family(self, heads: dict[str, Any] | None = None) -> tuple[dict[str, Any], int]:
        """Every comparison this run's items make, decided once as one family (p adjusted across it): the items,
        the summary and the report read the same objects. ``heads`` (suite key -> SuiteResult) when the results are
        already collected (an xdist controller, which runs no item); else the compared strategies are evaluated."""
        if self._family is None:
            from pytest_chunkeval.scoring.comparison import compare_run

            if heads is None:
                by_suite: dict[Path, tuple[GoldenSuite, dict[str, Any]]] = {}
                for suite, reg, mode in self._compared_runs:
                    run = self.evaluator().run(suite, reg, self.strategy(reg), mode)
                    by_suite.setdefault(suite.path.resolve(), (suite, {}))[1][self.label(reg.name, mode)] = run
                heads = {self.suite_key(suite): self.head_suite(suite, runs) for suite, runs in by_suite.values()}
            wanted = {key: head for key, head in heads.items() if any(k == key for k, _ in self.compared)}
            for key, head in wanted.items():
                head_labels = {label for k, label in self.compared if k == key}
                wanted[key] = replace(head, strategies={n: r for n, r in head.strategies.items() if n in head_labels})
            base = self.base_suites()
            self._family = compare_run({key: base.get(key) for key in wanted}, wanted, self.options.policy)
        return self._family

    def compare_item(self, suite: GoldenSuite, reg: Registration, mode: str) -> None:
        """Collection: a comparison item of (suite, strategy, mode) will run, so it belongs to the family."""
        self.compared.add((self.suite_key(suite), self.label(reg.name, mode)))
        self._compared_runs.append((suite, reg, mode))

    # -- pytest-xdist: workers send results, the controller writes ------------------------------------------------
    def worker_results(self) -> str | None:
        """This worker's results for the controller (see ``distributed``), or None when it evaluated nothing."""
        from pytest_chunkeval.distributed import WorkerResults
        from pytest_chunkeval.ordering import collect

        ev = self._evaluator
        if ev is None or not ev.runs:
            return None
        suites = collect(ev.runs.values(), self.options.rootdir, self.options.baseline, self.options.retrieval_modes)
        part = WorkerResults(
            suites={key: suite.to_entry() for key, suite in suites.items()}, embedding=self._embed_totals(),
            model=self._model_info(),
            outcomes=[(str(path), name, q, hit, mode, self.families.get(name, ""))
                      for (path, name, mode), ran in self.outcomes.items() for q, hit in ran.items()],
            compared=[list(pair) for pair in sorted(self.compared)],
        )
        if self.comparing == "base" and self._base is not None and not isinstance(self._base, Exception):
            part.base_report, part.base_info = self._base.report, self._base.info()
        return part.dumps()

    def add_worker_results(self, text: str) -> None:
        from pytest_chunkeval.distributed import WorkerResults

        if self._workers is None:
            self._workers = []
        self._workers.append(WorkerResults.loads(text))

    def _merged_summary(self, run_base: bool):
        from pytest_chunkeval.distributed import merge
        from pytest_chunkeval.results import suites_from_report

        suites, merged = merge(self._workers or [], self.options.baseline, self.options.retrieval_modes)
        if not suites:
            return None
        for path, name, query, hit, *mode_family in merged.outcomes:
            self.suite(Path(path))  # the controller loads the golden files for the accepted-miss records
            self.record(self.suites[Path(path).resolve()], name, query, hit, *mode_family)
        self.compared.update((str(key), str(label)) for key, label in merged.compared)
        if merged.model:
            self._model_id = merged.model.get("id")
        if merged.base_report is not None:
            self._base_suites = suites_from_report(merged.base_report)
            self._base_info = merged.base_info
        # The controller never starts a base evaluation itself: it compares with what a worker already evaluated.
        compare = merged.base_report is not None or self.comparing == "report"
        return self._summarize(suites, merged.embedding, merged.model or {}, run_base=compare)

    def label(self, name: str, mode: str) -> str:
        """The row label of ``name`` searched with ``mode`` in this run (results.row_label)."""
        from pytest_chunkeval.results import row_label

        return row_label(name, mode, self.options.multi_mode)

    def head_suite(self, suite: GoldenSuite, runs: dict[str, Any]):  # -> results.SuiteResult
        """``runs``: row label -> StrategyRun."""
        from pytest_chunkeval.results import StrategyResult, SuiteResult, suite_key

        key = self.suite_key(suite)
        head = SuiteResult.from_suite(key, suite, suite_key(suite.corpus_dir, self.options.rootdir))
        head.strategies = {label: StrategyResult.from_run(run, key, label) for label, run in runs.items()}
        return head

    def comparison(self, suite: GoldenSuite, name: str, run: Any):  # -> comparison.StrategyComparison
        """``name`` searched with ``run.mode`` against the same strategy and mode on the base side, as the family
        decided it."""
        label = self.label(name, run.mode or self.options.retrieval_modes[0])
        return self.family()[0][self.suite_key(suite)].strategies[label]

    def base_rank(self, suite: GoldenSuite, name: str, query_id: str, mode: str | None = None) -> str | None:
        """'on base main: rank 3' / '…: not in the top 10', when a base is known and scored this query (with the
        same retrieval mode: ``mode``, else this run's first)."""
        try:
            base = self.base_suites().get(self.suite_key(suite))
        except Exception:
            return None
        result = base.find(name, mode or self.options.retrieval_modes[0]) if base is not None else None
        spec = next((q for q in suite.queries if q.id == query_id), None)
        if base is None or result is None or result.skipped or spec is None or query_id not in result.queries:
            return None
        before = base.queries.get(query_id)
        if before is not None and (before.text, before.relevant) != (spec.text, tuple(spec.relevant)):
            return None  # another question or other relevant items there: no comparable rank
        rank = result.queries[query_id].hit_rank(tuple(spec.relevant))
        where = f"on base {self.options.base}" if self.comparing == "base" else f"in {self.options.compare}"
        return f"{where}: rank {rank}" if rank is not None else f"{where}: not in the top {self.options.k}"

    @property
    def settings_key(self) -> str:
        """The accepted-misses section of this run's (first) retrieval mode."""
        return self.settings_key_for(self.options.retrieval_modes[0])

    def settings_key_for(self, mode: str) -> str:
        """The accepted-misses section of one retrieval mode: a run of several modes reads and writes one section
        each, exactly those single-mode runs of each would, so records stay valid either way."""
        model = self._model_id or self.evaluator().embedder.model_id
        return settings_key(model, mode, self.options.k)

    def accepted_for(self, suite: GoldenSuite) -> AcceptedMisses:
        key = suite.path.resolve()
        if key not in self.accepted:
            self.accepted[key] = AcceptedMisses.load(suite.path.parent)
        return self.accepted[key]

    def record(self, suite: GoldenSuite, strategy: str, query_id: str, hit: bool, mode: str | None = None,
               family: str = "") -> None:
        mode = mode or self.options.retrieval_modes[0]
        self.outcomes.setdefault((suite.path.resolve(), strategy, mode), {})[query_id] = hit
        if family and family != strategy:
            self.families[strategy] = family

    def unrecorded_misses(self) -> int:
        """Misses this run that a record holds against and does not list (each failed its query item)."""
        if self is self.model_states()[0] and len(self.model_states()) > 1:
            return self._unrecorded() + sum(state.unrecorded_misses() for state in self.model_states()[1:])
        return self._unrecorded()

    def _unrecorded(self) -> int:
        if not self.outcomes or self.options.accept_misses:
            return 0
        total = 0
        for (suite_path, strategy, mode), ran in self.outcomes.items():
            if strategy in self.families and not self.options.gate_grid:
                continue  # a grid point's misses are measurements (xfailed), not failures to record
            record, settings = self.accepted_for(self.suites[suite_path]), self.settings_key_for(mode)
            if record.holds(settings):
                accepted, _ = record.accepted(settings, strategy, self.families.get(strategy, ""))
                total += sum(1 for q, hit in ran.items() if not hit and q not in accepted)
        return total

    def unheld_misses(self) -> dict[Path, dict[str, list[str]]]:
        """Misses under settings no record holds yet (a new suite): suite -> row label -> query ids, in run order.
        They did not fail; the summary lists them with the command that records them."""
        out: dict[Path, dict[str, list[str]]] = {}
        if self.options.accept_misses:
            return out
        for state in self.model_states():
            for (suite_path, strategy, mode), ran in state.outcomes.items():
                if not state.accepted_for(state.suites[suite_path]).holds(state.settings_key_for(mode)):
                    missed = [q for q, hit in ran.items() if not hit]
                    if missed:
                        out.setdefault(suite_path, {})[state.node_label(strategy, mode)] = missed
        return out

    def save_accepted(self) -> list[Path]:
        """Write the accepted-misses files for what ran (only with --chunkeval-accept-misses)."""
        written: list[Path] = []
        if not self.options.accept_misses or not any(state.outcomes for state in self.model_states()):
            return written
        for state in self.model_states():  # one section per model (its settings key names it); records shared
            for (suite_path, strategy, mode), ran in sorted(state.outcomes.items()):
                record = state.accepted_for(state.suites[suite_path])
                record.update(state.settings_key_for(mode), strategy, ran, keep_empty=strategy in state.families)
        for record in self.accepted.values():
            if record.dirty:
                record.save()
                written.append(record.path)
        return written
