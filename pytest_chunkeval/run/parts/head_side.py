"""This run's own evaluation: the evaluator (embedder, index store, caches, engine), built on first use, and the one
method items ask for an evaluation through, :meth:`HeadSide.evaluation`, which answers with a value (an evaluation or
a failure, :mod:`.failures`) and keeps every failure in one place."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.run.parts.context import ModelContext, ModelPart
from pytest_chunkeval.run.parts.failures import Evaluated, Failed, Failures
from pytest_chunkeval.run.parts.progress import LineProgress

if TYPE_CHECKING:
    from pytest_chunkeval.chunking.contract import Contract, Registration
    from pytest_chunkeval.core.golden import GoldenSuite
    from pytest_chunkeval.evaluation.evaluate import BuildFailed, Evaluator
    from pytest_chunkeval.results.typed import SuiteResult
    from pytest_chunkeval.retrieval.remote import Remote

#: The first file of a cache folder this plugin creates, as pytest's own ``.pytest_cache`` has: the folder ignores
#: itself, so a repository whose ``.gitignore`` does not list it (another team's, after ``pip install``) never commits
#: the embedding cache, the LanceDB tables or the locks.
CACHE_GITIGNORE = "# Created by pytest-chunkeval automatically.\n*\n"

#: (golden file, registration name, retrieval mode): one evaluation of the run.
EvalKey = tuple[Path, str, str]


class HeadSide(ModelPart):
    """The evaluator of one run (of one model), imported and built only when an item first evaluates: it pulls
    numpy and the LanceDB helpers. It holds the run's :class:`~.failures.Failures` too (the base side keeps the
    base's there), since every failure an item meets is met through it."""

    def __init__(self, context: ModelContext) -> None:
        super().__init__(context)
        self._evaluator: Evaluator | None = None
        self.failures = Failures()  # every failed evaluation (and the base's), with the item that reports it

    def cache_dir(self) -> Path:
        """The cache folder (``chunkeval_cache_dir``), created on first use with a ``.gitignore`` that ignores all of
        it. Only a folder created here gets one: a folder the user named that exists already (the project's root,
        say) is left as it is."""
        path = self.options.cache_dir
        if not path.is_dir():
            path.mkdir(parents=True, exist_ok=True)
            (path / ".gitignore").write_text(CACHE_GITIGNORE, encoding="utf-8")
        return path

    def evaluator(self) -> Evaluator:
        if self._evaluator is None:
            from pytest_chunkeval.evaluation.build_facts import BuildFactsCache
            from pytest_chunkeval.evaluation.evaluate import EvalConfig, Evaluator
            from pytest_chunkeval.retrieval.cache_store import EmbeddingCache
            from pytest_chunkeval.retrieval.embed import Embedder
            from pytest_chunkeval.retrieval.index import IndexStore, RankingCache

            o = self.options
            cache_dir = self.cache_dir()
            cache = EmbeddingCache(cache_dir / "cache.sqlite")
            embedder = Embedder(o.model, cache=cache, device=o.device, batch_size=o.batch_size, backend=o.backend,
                                onnx_dir=cache_dir / "onnx", remote=self.remote(),
                                notice=lambda line: self.context.write(f"[chunkeval] {line}\n"))
            config = EvalConfig(k=o.k, retrieval=o.retrieval_modes[0], chunk_timeout=o.chunk_timeout,
                                strategy_memory=o.strategy_memory, max_chunks=o.max_chunks_per_file)
            store = IndexStore(o.db_uri, cache_dir / "locks", storage=o.storage_options)
            progress = LineProgress(self.context.write, self.context.tty) if o.progress else None
            rankings = RankingCache(cache_dir / "cache.sqlite")
            facts = BuildFactsCache(cache_dir / "cache.sqlite")
            engine = None
            if o.engine == "ray":  # imports nothing yet: Ray starts when the first strategy is chunked
                from pytest_chunkeval.evaluation.ray_engine import RayEngine

                engine = RayEngine(address=o.ray_address)
            self._evaluator = Evaluator(config, embedder, store, progress, rankings, facts=facts, engine=engine)
        return self._evaluator

    def remote(self) -> Remote | None:
        """The remote embedder ``--chunkeval-model ROUTE:MODEL`` names (None for a local model)."""
        from pytest_chunkeval.retrieval.remote import OPENAI, RemoteSettings, make_remote, route_of

        o = self.options
        route = route_of(o.model)
        if route is None or o.model is None:
            return None
        make = make_remote
        if route[0] == OPENAI:
            from pytest_chunkeval.retrieval.openai_http import openai_remote as make
        return make(o.model, RemoteSettings(
            url=o.embedder_url, key_env=o.embedder_key_env, dimensions=o.embedder_dimensions,
            concurrency=o.embedder_concurrency, timeout=o.embedder_timeout, retries=o.embedder_retries,
            tokenizer=o.embedder_tokenizer, window=o.embedder_window, price=o.embed_price, budget=o.embed_budget))

    @property
    def evaluated(self) -> bool:
        """Whether anything was evaluated (an xdist controller, or a run whose items were all deselected: no)."""
        return self._evaluator is not None and bool(self._evaluator.runs)

    def evaluation(self, suite: GoldenSuite, reg: Registration, mode: str, contract: Contract | BuildFailed,
                   asker: str | None = None) -> Evaluated | Failed:
        """``reg`` on ``suite`` searched with ``mode``: evaluated once (``contract``: the built strategy, or why it
        could not be built), or how it failed. ``asker`` is the item that asks: the first item to meet a failure
        reports it in full; a judgement (no asker) never claims one."""
        path = suite.path.resolve()
        key: EvalKey = (path, reg.name, mode)
        if key not in self.failures and (path, reg.name) not in self.failures:
            try:
                if not isinstance(contract, BaseException):
                    return Evaluated(self.evaluator().run(suite, reg, contract, mode))
                self._keep(suite, reg.name, mode, contract)
            except Exception as exc:
                self._keep(suite, reg.name, mode, exc)
        scope = key if key in self.failures else (path, reg.name)
        return self.failures.asked(scope, (path, reg.name) if self.failures.cause(scope) == "build" else key, asker)

    def _keep(self, suite: GoldenSuite, name: str, mode: str, exc: Exception) -> None:
        """A failed evaluation, kept: a build that made no index fails every mode (each mode's row says
        "failed"); a failure before the index was built is every mode's too (no mode builds it again); a failed
        search is its mode's alone."""
        from pytest_chunkeval.evaluation.evaluate import BuildFailed
        from pytest_chunkeval.retrieval.remote import EmbedderError

        path = suite.path.resolve()
        if isinstance(exc, BuildFailed):
            for each in self.options.retrieval_modes:
                self.evaluator().fail(suite, name, each, str(exc))
            self.failures.keep((path, name), "build", exc)
            return
        built = self._evaluator is not None and self._evaluator.built(suite, name)
        self.failures.keep((path, name, mode) if built else (path, name),
                           "model" if isinstance(exc, EmbedderError) else "error", exc)

    def close(self) -> None:
        """Release what the evaluation started (a Ray cluster of --chunkeval-engine ray)."""
        engine = getattr(self._evaluator, "engine", None)
        if engine is not None:
            engine.close()
        remote = self._evaluator.embedder.remote if self._evaluator is not None else None
        if remote is not None:
            remote.close()

    def results(self) -> dict[str, SuiteResult]:
        """Suite key -> this run's results, in report order ({} when nothing was evaluated)."""
        from pytest_chunkeval.results.ordering import collect

        if self._evaluator is None:
            return {}
        o = self.options
        return collect(self._evaluator.runs.values(), o.rootdir, o.baseline, o.retrieval_modes)

    def model_info(self) -> dict[str, Any]:
        emb = self.evaluator().embedder
        if emb.remote is not None:  # where it is served (never the key), and how its tokens were counted
            return {"id": emb.model_id, "sha256": {}, "max_tokens": emb.max_tokens, "backend": "remote",
                    "device": emb.remote.where, "tokens": emb.tokens.name}
        from pytest_chunkeval.core.model_files import hub_revision

        return {"id": emb.model_id, "revision": hub_revision(emb.model_dir), "sha256": emb.digests,
                "max_tokens": emb.max_tokens, "backend": emb.backend,
                "device": emb.device}

    def embed_totals(self) -> dict[str, int]:
        ev = self.evaluator()
        totals = {"embedded": ev.query_embed.embedded, "cached": ev.query_embed.cached}
        # Retrieval modes share one embedding of a (suite, strategy): counted once, however many modes searched it.
        shared = {(run.suite.path.resolve(), run.name): run for run in ev.runs.values()}
        for run in shared.values():
            totals["embedded"] += run.embed.embedded
            totals["cached"] += run.embed.cached
        return totals
