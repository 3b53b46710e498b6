"""The state of one ``pytest --chunkeval`` session: settings, suites, strategies, evaluator, accepted misses.

Kept apart from the hooks so it can be built and tested without running pytest (and so the hooks stay thin).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .accepted import AcceptedMisses, settings_key
from .discovery import discover_suites, load_strategy_modules
from .gates import Thresholds
from .golden import GoldenSuite, load_golden
from .index import RETRIEVAL_MODES
from .strategy import Registration, registry


@dataclass
class Options:
    """Everything configurable, already merged from command line and ini (the command line wins)."""

    rootdir: Path
    golden_patterns: list[str]
    golden_paths: list[Path]
    strategies_dir: Path
    model: str | None = None
    device: str | None = None
    k: int = 10
    retrieval: str = "hybrid"
    db_uri: str = ".chunkeval/lancedb"
    cache_dir: Path = Path(".chunkeval")
    report: Path | None = None
    markdown: Path | None = None
    chart: Path | None = None
    baseline: str = "file_level"
    accept_misses: bool = False
    progress: bool = True
    gate_candidates: list[str] = field(default_factory=list)  # strategy names, or "all"
    thresholds: Thresholds = field(default_factory=Thresholds)
    compare: Path | None = None  # a previous JSON report for the regression items
    regression_tolerance: float = 0.01

    def gated(self, name: str) -> bool:
        return name != self.baseline and (name in self.gate_candidates or "all" in self.gate_candidates)

    def validate(self) -> None:
        if self.compare is not None and not self.compare.is_file():
            raise ValueError(f"--chunkeval-compare: {self.compare} does not exist")
        if self.thresholds.mode not in ("file", "chunk"):
            raise ValueError(f"chunkeval_gate_mode must be file or chunk, got {self.thresholds.mode!r}")
        if self.thresholds.size_measure not in ("bytes", "chunk_count", "text_bytes"):
            raise ValueError(
                f"chunkeval_gate_size_measure must be bytes, chunk_count or text_bytes, got {self.thresholds.size_measure!r}"
            )
        if self.k < 1:
            raise ValueError(f"--chunkeval-k must be at least 1, got {self.k}")
        if self.retrieval not in RETRIEVAL_MODES:
            raise ValueError(f"--chunkeval-retrieval must be one of {', '.join(RETRIEVAL_MODES)}, got {self.retrieval!r}")


class LineProgress:
    """Progress for long work, written to the real terminal even while pytest captures output.

    On a terminal one line is rewritten in place; in a CI log one line at the start and one at the end, so logs stay
    readable.
    """

    def __init__(self, write: Callable[[str], None], tty: bool) -> None:
        self.write = write
        self.tty = tty

    def __call__(self, description: str, total: int) -> Callable[[int], None]:
        start = time.perf_counter()
        state = {"done": 0, "shown": 0.0}
        if total == 0:
            return lambda n: None
        if not self.tty:
            self.write(f"[chunkeval] {description}: {total} texts\n")

        def advance(n: int) -> None:
            state["done"] += n
            now = time.perf_counter()
            finished = state["done"] >= total
            if self.tty and (finished or now - state["shown"] > 0.25):
                state["shown"] = now
                rate = state["done"] / max(now - start, 1e-9)
                self.write(f"\r[chunkeval] {description}: {state['done']}/{total} ({rate:.0f}/s)" + ("\n" if finished else ""))
            elif finished and not self.tty:
                self.write(f"[chunkeval] {description}: done in {now - start:.1f}s\n")

        return advance


@dataclass
class ChunkevalState:
    options: Options
    write: Callable[[str], None] = field(default=lambda s: sys.stderr.write(s))
    tty: bool = False
    suites: dict[Path, GoldenSuite] = field(default_factory=dict)
    strategies: dict[str, Any] = field(default_factory=dict)
    accepted: dict[Path, AcceptedMisses] = field(default_factory=dict)
    outcomes: dict[tuple[Path, str], dict[str, bool]] = field(default_factory=dict)
    report: dict[str, Any] | None = None
    collected_suites: set[Path] = field(default_factory=set)
    _evaluator: Any = None
    _previous: dict[str, Any] | None = None
    _discovered: list[Path] | None = None
    _corpus_dirs: set[Path] | None = None

    # -- discovery ----------------------------------------------------------------------------------------------
    def load_strategies(self) -> dict[str, Registration]:
        """Strategies of this project: the strategies folder, plus any registered from the project's conftests
        (pytest has imported them by the time collection asks)."""
        load_strategy_modules(self.options.strategies_dir)
        return registry([self.options.strategies_dir], conftest_root=self.options.rootdir)

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
            self.suites[key] = load_golden(key)
        return self.suites[key]

    def strategy(self, reg: Registration) -> Any:
        if reg.name not in self.strategies:
            self.strategies[reg.name] = reg.build()
        return self.strategies[reg.name]

    # -- evaluation ---------------------------------------------------------------------------------------------
    def evaluator(self):  # -> Evaluator (imported lazily: it pulls numpy, lancedb helpers)
        if self._evaluator is None:
            from .embed import EmbeddingCache, Embedder
            from .evaluate import Evaluator, Settings
            from .index import IndexStore, RankingCache

            o = self.options
            cache = EmbeddingCache(o.cache_dir / "cache.sqlite")
            embedder = Embedder(o.model, cache=cache, device=o.device)
            settings = Settings(k=o.k, retrieval=o.retrieval, db_uri=o.db_uri, cache_dir=o.cache_dir)
            store = IndexStore(o.db_uri, o.cache_dir / "locks")
            progress = LineProgress(self.write, self.tty) if o.progress else None
            rankings = RankingCache(o.cache_dir / "cache.sqlite")
            self._evaluator = Evaluator(settings, embedder, store, progress, rankings)
        return self._evaluator

    def previous(self) -> dict[str, Any]:
        """The report given to --chunkeval-compare, read once."""
        if self._previous is None:
            from .regression import load_previous

            assert self.options.compare is not None
            self._previous = load_previous(self.options.compare)
        return self._previous

    def suite_key(self, suite: GoldenSuite) -> str:
        """How the JSON report names a suite: its golden path relative to the project root."""
        try:
            return suite.path.resolve().relative_to(self.options.rootdir.resolve()).as_posix()
        except ValueError:
            return suite.path.resolve().as_posix()

    @property
    def settings_key(self) -> str:
        return settings_key(self.evaluator().embedder.model_id, self.options.retrieval, self.options.k)

    def accepted_for(self, suite: GoldenSuite) -> AcceptedMisses:
        key = suite.path.resolve()
        if key not in self.accepted:
            self.accepted[key] = AcceptedMisses.load(suite.path.parent)
        return self.accepted[key]

    def record(self, suite: GoldenSuite, strategy: str, query_id: str, hit: bool) -> None:
        self.outcomes.setdefault((suite.path.resolve(), strategy), {})[query_id] = hit

    def unrecorded_misses(self) -> int:
        """Misses this run that no accepted-misses record covers (each failed its query item)."""
        if self._evaluator is None or self.options.accept_misses:
            return 0
        total = 0
        for (suite_path, strategy), ran in self.outcomes.items():
            accepted = self.accepted_for(self.suites[suite_path]).ids(self.settings_key, strategy)
            total += sum(1 for q, hit in ran.items() if not hit and q not in accepted)
        return total

    def save_accepted(self) -> list[Path]:
        """Write the accepted-misses files for what ran (only with --chunkeval-accept-misses)."""
        written: list[Path] = []
        if not self.options.accept_misses or self._evaluator is None:
            return written
        for (suite_path, strategy), ran in sorted(self.outcomes.items()):
            record = self.accepted_for(self.suites[suite_path])
            record.update(self.settings_key, strategy, ran)
        for record in self.accepted.values():
            if record.dirty:
                record.save()
                written.append(record.path)
        return written
