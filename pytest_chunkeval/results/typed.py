"""The typed results boundary: what one evaluation produced, independent of how it was produced or stored.

Evaluation (:mod:`evaluate`) fills :class:`StrategyRun` objects full of live state (the strategy, every chunk's text,
timers). Everything downstream — gates, the comparison with a base commit or a stored report, the tables, the
Markdown, the JSON — reads a :class:`StrategyResult` instead, built either from a run (:meth:`StrategyResult.from_run`)
or from a JSON report entry (:meth:`StrategyResult.from_entry`). So a stored report and the current run are judged by
the same code, and no renderer needs the evaluator.

A result belongs to (suite, strategy, retrieval mode). A run with one mode keys a suite's results by the strategy's
name, as reports always have; a run with several (``--chunkeval-retrieval vector,hybrid``) keys them by
:func:`row_label` (``ast[vector]``), the same label its test ids carry. Whoever compares two results (the baseline,
the base side) looks the partner up by name *and* mode (:meth:`SuiteResult.find`), so no number is ever set against
one searched another way.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.core.ranking import Ranked, Relevant
from pytest_chunkeval.core.vocabulary import SIZE_MEASURE
from pytest_chunkeval.results.comparable import suite_digest
from pytest_chunkeval.results.decisions import AgainstBaseline, GateResult, VsBaseline
from pytest_chunkeval.scoring.metrics import chunk_grade
from pytest_chunkeval.scoring.quality import ParseErrors, parse_errors

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_chunkeval.core.golden import GoldenSuite
    from pytest_chunkeval.evaluation.evaluate import StrategyRun

PerQuery = dict[str, dict[str, dict[str, float]]]  # query id -> mode -> metric -> value


def row_label(name: str, mode: str, multi: bool) -> str:
    """How ids, report keys and table rows name a strategy under a retrieval mode: the bare name with one mode (so
    existing ids, accepted-miss records and reports stay valid), ``name[mode]`` with several (``-k vector``)."""
    return f"{name}[{mode}]" if multi else name


def report_modes(report: Mapping[str, Any]) -> tuple[str, ...]:
    """The retrieval modes a JSON report was evaluated with (``retrieval`` is one mode or a comma list)."""
    return tuple(m for m in str(report.get("retrieval") or "").split(",") if m)


@dataclass(frozen=True)
class Interval:
    mean: float
    ci_low: float
    ci_high: float
    n: int

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Interval:
        return cls(float(d["mean"]), float(d["ci_low"]), float(d["ci_high"]), int(d.get("n", 0)))

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high, "n": self.n}


@dataclass(frozen=True)
class ChunkSpan:
    id: str
    path: str
    start_line: int
    end_line: int
    kind: str = "code"

    @property
    def label(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line} {self.kind}"


RankedChunk = Ranked  # a retrieved chunk with its score, exactly as the evaluation ranked it


@dataclass(frozen=True)
class QuerySpec:
    """A golden query as the run saw it: two runs judge a query alike only when text and relevance are equal."""

    id: str
    text: str
    relevant: tuple[Relevant, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.text,
            "relevant": [
                {"path": r.path, **({"lines": list(r.lines)} if r.lines else {}), "grade": r.grade}
                for r in self.relevant
            ],
        }

    @classmethod
    def from_dict(cls, qid: str, d: Mapping[str, Any]) -> QuerySpec:
        rel = tuple(
            Relevant(r["path"], tuple(r["lines"]) if r.get("lines") else None, int(r.get("grade", 1)))
            for r in d.get("relevant", [])
        )
        return cls(qid, str(d.get("query", "")), rel)


@dataclass(frozen=True)
class QueryResult:
    id: str
    hit: bool
    ranking: tuple[RankedChunk, ...]
    metrics: Mapping[str, Mapping[str, float]]
    tokens: tuple[int, ...] = ()  # tokens of each ranked chunk's text, for budget recall

    def token_counts(self) -> tuple[int | None, ...]:
        """One count per ranked chunk (None throughout for a report written before counts were kept)."""
        return self.tokens if len(self.tokens) == len(self.ranking) else (None,) * len(self.ranking)

    def hit_rank(self, relevant: tuple[Relevant, ...]) -> int | None:
        """1-based rank of the first retrieved chunk that overlaps a relevant item (the query item's criterion)."""
        for i, r in enumerate(self.ranking, 1):
            if chunk_grade(r.path, r.start_line, r.end_line, relevant):
                return i
        return None


@dataclass(frozen=True)
class IndexInfo:
    table: str = ""
    fingerprint: str = ""
    reused: bool = False
    bytes: int = 0
    chunk_count: int = 0
    text_bytes: int = 0
    chunk_seconds: float = 0.0
    build_seconds: float = 0.0
    embedded: int = 0
    cached: int = 0
    digest: str = ""  # sha256 of every chunk's position and text: equal digests mean identical chunks
    bytes_measure: str = ""  # what ``bytes`` counts (vocabulary.SIZE_MEASURE); older reports leave it empty
    # What building this index cost when it was built, also on a warm run that reused it (chunk_seconds and
    # build_seconds above are this run's own): chunk_seconds, embed_seconds, build_seconds. Empty in older reports.
    cost: dict[str, float] = field(default_factory=dict)
    chunks_cached: bool = False  # this run read the chunks from the facts cache instead of chunking
    # Tokens the model reads to embed every text of the index (each chunk's tokens with the model's specials, cut at
    # its window), cached or not: an embedding cost that does not depend on what the cache held. 0 in older reports.
    embed_tokens: int = 0

    def measure(self, name: str) -> float:
        return float(getattr(self, name))

    @classmethod
    def from_run(cls, run: StrategyRun) -> IndexInfo:
        """The report's view of a run's index: its build facts (sizes, cost, chunks) and this run's own table,
        times and embedding counts. The one place these are copied from the run."""
        facts = run.facts
        return cls(
            table=run.table, fingerprint=run.fingerprint, reused=run.reused, bytes=facts.index_bytes,
            chunk_count=len(facts.chunks), text_bytes=facts.text_bytes, chunk_seconds=round(run.chunk_seconds, 4),
            build_seconds=round(run.build_seconds, 4), embedded=run.embed.embedded, cached=run.embed.cached,
            digest=chunks_digest(facts.chunks), bytes_measure=SIZE_MEASURE, cost=dict(facts.cost),
            chunks_cached=run.facts_cached, embed_tokens=run.embed_tokens,
        )


def chunks_digest(chunks: Any) -> str:
    h = hashlib.sha256()
    for cid, c in chunks:
        h.update(f"{cid}\0{c.path}\0{c.start_line}\0{c.end_line}\0{c.kind}\0".encode())
        h.update(c.text.encode("utf-8") + b"\0")
    return h.hexdigest()


@dataclass
class StrategyResult:
    """One strategy on one suite: what every judge and renderer reads."""

    suite: str
    name: str
    skipped: str | None = None
    failed: str | None = None  # it could not be built: why (no numbers; its items failed)
    files: int = 0
    chunks: tuple[ChunkSpan, ...] = ()
    index: IndexInfo = field(default_factory=IndexInfo)
    means: dict[str, dict[str, float]] = field(default_factory=dict)  # mode -> metric -> mean over queries
    intervals: dict[str, dict[str, Interval]] = field(default_factory=dict)
    queries: dict[str, QueryResult] = field(default_factory=dict)
    quality: dict[str, Any] = field(default_factory=dict)
    strategy_stats: dict[str, Any] = field(default_factory=dict)
    fallbacks: tuple[str, ...] = ()
    mode: str = ""  # the retrieval mode searched with ("" only for an old report entry that does not say)
    label: str = ""  # the key of this result in its suite (row_label); the name when left empty
    # Against the baseline of the same mode (gates, paired statistics): judged once for the run
    # (judges.against_baseline.judge_suites); None until then, and for a result with no numbers.
    against: AgainstBaseline | None = None
    # A grid point's strategy (``fixed_size``), its values, and the values the strategy's factory takes when called
    # without them: which point is "today's default" (the frontier, ``pytest_chunkeval.frontier``). Empty otherwise.
    family: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.label = self.label or self.name

    @property
    def evaluated(self) -> bool:
        """Whether there are numbers to read: neither skipped (nothing to do here) nor failed to build."""
        return not (self.skipped or self.failed)

    @property
    def vs_baseline(self) -> VsBaseline:
        """The stored paired statistics against the baseline (empty when not judged, or for the baseline)."""
        return self.against.vs if self.against is not None else {}

    @property
    def gates(self) -> tuple[GateResult, ...]:
        """The stored gate outcomes against the baseline (empty when not judged, or for the baseline)."""
        return (self.against.gates or ()) if self.against is not None else ()

    @property
    def warnings(self) -> list[str]:
        return [str(w) for w in (self.strategy_stats.get("warnings") or [])]

    @property
    def parse_errors(self) -> ParseErrors:
        """Where the strategy's grammar could not parse this suite's files (its stats, read once here)."""
        return parse_errors(self.strategy_stats, self.files)

    @property
    def misses(self) -> int:
        return sum(1 for q in self.queries.values() if not q.hit)

    def per_query(self) -> PerQuery:
        return {qid: {m: dict(v) for m, v in q.metrics.items()} for qid, q in self.queries.items()}

    def chunks_of(self, path: str) -> list[ChunkSpan]:
        return [c for c in self.chunks if c.path == path]

    # -- construction ----------------------------------------------------------------------------------------
    @classmethod
    def from_run(cls, run: StrategyRun, suite_key: str, label: str = "") -> StrategyResult:
        if run.skipped or run.failed:
            return cls(suite_key, run.name, skipped=run.skipped, failed=run.failed, mode=run.mode, label=label)
        intervals = {
            mode: {m: Interval.from_dict(s) for m, s in metrics.items()} for mode, metrics in run.aggregate.items()
        }
        queries = {
            qid: QueryResult(qid, o.hit, tuple(o.ranking), o.metrics, tuple(o.tokens))
            for qid, o in run.outcomes.items()
        }
        facts = run.facts
        return cls(
            suite=suite_key, name=run.name, files=facts.files_handled,
            chunks=tuple(ChunkSpan(cid, c.path, c.start_line, c.end_line, c.kind) for cid, c in facts.chunks),
            index=IndexInfo.from_run(run),
            means={mode: {m: iv.mean for m, iv in ms.items()} for mode, ms in intervals.items()},
            intervals=intervals, queries=queries, quality=facts.quality.as_dict() if facts.quality else {},
            strategy_stats=dict(facts.strategy_stats), fallbacks=tuple(facts.fallbacks), mode=run.mode, label=label,
            family=run.family, params=dict(run.params), defaults=dict(run.defaults),
        )

    @classmethod
    def from_entry(cls, suite_key: str, name: str, entry: Mapping[str, Any], mode: str = "") -> StrategyResult:
        """From a JSON report entry keyed ``name`` (its label); tolerant of older reports that lack newer fields.
        ``mode`` is the report's retrieval mode, for entries written before each said its own."""
        label, name, mode = name, str(entry.get("strategy") or name), str(entry.get("retrieval") or mode)
        if entry.get("skipped") or entry.get("failed"):
            return cls(suite_key, name, skipped=entry.get("skipped") or None, failed=entry.get("failed") or None,
                       mode=mode, label=label)
        known = IndexInfo.__dataclass_fields__
        index = IndexInfo(**{k: v for k, v in (entry.get("index") or {}).items() if k in known})
        intervals = {
            mode: {m: Interval.from_dict(s) for m, s in metrics.items()}
            for mode, metrics in (entry.get("intervals") or {}).items()
        }
        queries = {
            str(qid): QueryResult(
                str(qid), bool(q.get("hit")),
                tuple(RankedChunk(r["chunk_id"], r["path"], int(r["start_line"]), int(r["end_line"]), float(r["score"]))
                      for r in q.get("ranking", [])),
                q.get("metrics", {}),
                tuple(int(r["tokens"]) for r in q.get("ranking", []) if "tokens" in r),
            )
            for qid, q in (entry.get("queries") or {}).items()
        }
        return cls(
            suite=suite_key, name=name, files=int(entry.get("files", 0)),
            chunks=tuple(ChunkSpan(c["id"], c["path"], int(c["start_line"]), int(c["end_line"]), c.get("kind", "code"))
                         for c in entry.get("chunks", [])),
            index=index, means={mode: dict(v) for mode, v in (entry.get("aggregate") or {}).items()},
            intervals=intervals, queries=queries, quality=dict(entry.get("quality") or {}),
            strategy_stats=dict(entry.get("strategy_stats") or {}), fallbacks=tuple(entry.get("fallbacks") or ()),
            mode=mode, label=label, against=AgainstBaseline.from_entry(entry), family=str(entry.get("family") or ""),
            params=dict(entry.get("params") or {}), defaults=dict(entry.get("defaults") or {}),
        )

    def to_entry(self) -> dict[str, Any]:
        """The JSON report entry (``aggregate`` = means, ``intervals`` = means with their bootstrap interval)."""
        who = {"strategy": self.name, "retrieval": self.mode}
        if self.skipped:
            return {"skipped": self.skipped, **who}
        if self.failed:
            return {"skipped": None, "failed": self.failed, **who}
        return {
            "skipped": None,
            **who,
            "files": self.files,
            "chunks": [
                {"id": c.id, "path": c.path, "start_line": c.start_line, "end_line": c.end_line, "kind": c.kind}
                for c in self.chunks
            ],
            "index": {name: getattr(self.index, name) for name in IndexInfo.__dataclass_fields__},
            "aggregate": self.means,
            "quality": self.quality,
            "strategy_stats": self.strategy_stats,
            "fallbacks": list(self.fallbacks),
            "intervals": {mode: {m: iv.as_dict() for m, iv in ms.items()} for mode, ms in self.intervals.items()},
            "queries": {
                qid: {
                    "hit": q.hit,
                    "ranking": [
                        {"chunk_id": r.chunk_id, "path": r.path, "start_line": r.start_line, "end_line": r.end_line,
                         "score": r.score, **({"tokens": n} if n is not None else {})}
                        for r, n in zip(q.ranking, q.token_counts(), strict=True)
                    ],
                    "metrics": q.metrics,
                }
                for qid, q in self.queries.items()
            },
            **(self.against.report_fields() if self.against is not None else {}),
            **({"family": self.family, "params": self.params, "defaults": self.defaults} if self.family else {}),
        }


@dataclass
class SuiteResult:
    """One golden suite: its inputs as the run saw them, and every strategy's result on it."""

    key: str  # the golden file relative to the project root: how reports and comparisons name a suite
    name: str
    corpus: str
    files: int
    skipped_files: dict[str, str]
    queries: dict[str, QuerySpec]
    strategies: dict[str, StrategyResult] = field(default_factory=dict)
    file_lines: dict[str, int] = field(default_factory=dict)  # files relevant as a whole: their line counts
    corpus_hash: str = ""  # the corpus's content hash ("" in a report from before it was recorded)
    corpus_files: dict[str, str] = field(default_factory=dict)  # path -> short sha256 of the file
    phrasing: str = "sentence"  # how the queries are worded ("keyword": chunkeval golden keywords)
    model: str = ""  # the model's label in a run of several (--chunkeval-model A,B; models.py), else ""

    @property
    def content_digest(self) -> str:
        """Which suite this is by content, not path (``comparable.suite_digest``): the frontier keeps suites apart
        by it."""
        return suite_digest(self.corpus_hash, {qid: q.as_dict() for qid, q in self.queries.items()})

    @property
    def heading(self) -> str:
        """How tables and Markdown name the suite: its key, and the phrasing when it is not the default sentence,
        so a keyword suite's rows read as keyword rows next to the sentence suite over the same corpus."""
        return self.key if self.phrasing == "sentence" else f"{self.key} ({self.phrasing} queries)"

    def find(self, name: str, mode: str) -> StrategyResult | None:
        """``name`` searched with ``mode``: the partner a comparison may pair with (never another mode's result).
        An entry that does not say its mode (an old report) matches any: it was the report's only mode."""
        return next((s for s in self.strategies.values() if s.name == name and s.mode in (mode, "")), None)

    @classmethod
    def from_suite(cls, key: str, suite: GoldenSuite, corpus_key: str) -> SuiteResult:
        return cls(
            key, suite.name, corpus_key, len(suite.corpus.files), dict(suite.corpus.skipped),
            {q.id: QuerySpec(q.id, q.text, tuple(q.relevant)) for q in suite.queries}, file_lines=suite.file_lines(),
            corpus_hash=suite.corpus.content_hash, corpus_files=dict(suite.corpus.file_hashes),
            phrasing=suite.phrasing,
        )

    @classmethod
    def from_entry(cls, key: str, entry: Mapping[str, Any], mode: str = "") -> SuiteResult:
        specs = entry.get("query_set") or {}
        suite = cls(
            key, str(entry.get("name", "")), str(entry.get("corpus", "")), int(entry.get("files", 0)),
            dict(entry.get("skipped_files") or {}), {str(q): QuerySpec.from_dict(str(q), d) for q, d in specs.items()},
            file_lines={str(p): int(n) for p, n in (entry.get("file_lines") or {}).items()},
            corpus_hash=str(entry.get("corpus_hash") or ""),
            corpus_files={str(p): str(h) for p, h in (entry.get("corpus_files") or {}).items()},
            phrasing=str(entry.get("phrasing") or "sentence"),
        )
        suite.strategies = {
            name: StrategyResult.from_entry(key, name, s, mode) for name, s in (entry.get("strategies") or {}).items()
        }
        return suite

    def to_entry(self) -> dict[str, Any]:
        return {
            "golden": self.key,
            "name": self.name,
            "corpus": self.corpus,
            "files": self.files,
            "skipped_files": self.skipped_files,
            "queries": len(self.queries),
            "query_set": {qid: q.as_dict() for qid, q in self.queries.items()},
            "file_lines": self.file_lines,
            "corpus_hash": self.corpus_hash,
            "content_digest": self.content_digest,
            "corpus_files": self.corpus_files,
            "strategies": {name: s.to_entry() for name, s in self.strategies.items()},
            **({"phrasing": self.phrasing} if self.phrasing != "sentence" else {}),
            **({"model": self.model} if self.model else {}),
        }


def suites_from_report(report: Mapping[str, Any]) -> dict[str, SuiteResult]:
    modes = report_modes(report)
    mode = modes[0] if len(modes) == 1 else ""  # a single-mode report's entries were all searched with it
    return {key: SuiteResult.from_entry(key, entry, mode) for key, entry in (report.get("suites") or {}).items()}


def suite_key(path: Path, root: Path) -> str:
    """How reports name a suite: its golden file relative to the project root (absolute when outside it)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()
