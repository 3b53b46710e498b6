"""A report's results as frontier points: one per (suite, retrieval mode, strategy or grid point).

**The default quality metric is line-projected NDCG@k** (``lines:ndcg@10``). A frontier compares points of very
different granularity (500-character windows against whole files), so the metric must not favour one size by
construction: file mode rewards giant chunks (one file-sized chunk finds the file), chunk mode punishes splitting (a
function cut in three is three relevant chunks to find), while line mode judges the retrieved *lines*, so covering the
relevant lines pays and swallowing a whole file around them costs (docs/metrics.md, "Line mode"). Budget recall is line
mode too, but answers a narrower question (what fits one generator's context of B tokens) and depends on the B chosen;
``--metric lines:budget_recall@512`` asks for it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Any

from pytest_chunkeval.core.grid import parse_label
from pytest_chunkeval.core.vocabulary import DEFAULT_K, LINES, NDCG, metric_key, mode_metric, split_mode_metric
from pytest_chunkeval.results.typed import report_modes

#: The cost axes: what a point's ``index`` entry says it costs. bytes: the index on disk; chunks: rows (vectors);
#: embed_tokens: the tokens the model reads to embed all its texts (``index.embed_tokens``), whatever the cache held.
#: Not the seconds embedding took when the index was built (``index.cost``): those are 0.0 for a point whose texts
#: another point embedded first, and differ with the machine and its load, so they rank points by run order.
COSTS = ("bytes", "chunks", "embed_tokens")
COST_LABELS = {"bytes": "index KB", "chunks": "chunks", "embed_tokens": "embed tokens"}

#: suite key -> query id -> the quality of one query
PerQuery = Mapping[str, Mapping[str, float]]


def default_metric(k: int = DEFAULT_K) -> str:
    """``lines:ndcg@10``: line-projected NDCG at the report's k (see the module doc for why)."""
    return mode_metric(LINES, metric_key(NDCG, k))


@dataclass(frozen=True)
class Point:
    """One strategy or grid point on one suite (or pooled over several) under one retrieval mode."""

    suite: str
    mode: str
    label: str  # the point's name without the retrieval mode: ``fixed_size[size=500,overlap=0]``
    family: str  # the strategy: ``fixed_size``
    params: Mapping[str, Any]
    default: bool  # today's default of its strategy (the plain strategy, or the point at the factory's defaults)
    costs: Mapping[str, float]  # every axis of COSTS the report records
    per_query: PerQuery = field(default_factory=dict)  # suite -> query id -> quality
    #: The report it comes from, when several reports hold its label on the same suite (:func:`report_points`): its
    #: label then ends in `` (REPORT)``; empty otherwise.
    report: str = ""

    @property
    def quality(self) -> float:
        """The mean over suites of each suite's mean over queries (one suite: the plain mean)."""
        means = [sum(qs.values()) / len(qs) for qs in self.per_query.values() if qs]
        return sum(means) / len(means) if means else 0.0

    @property
    def queries(self) -> int:
        return sum(len(qs) for qs in self.per_query.values())


def parse_metric(text: str) -> tuple[str, str]:
    """``lines:ndcg@10`` -> ``("lines", "ndcg@10")``; ``ValueError`` for anything else."""
    try:
        parsed = split_mode_metric(text)
    except ValueError:
        parsed = None
    if parsed is None:
        raise ValueError(f"{text!r} is not MODE:METRIC@CUTOFF (e.g. {default_metric()}, lines:budget_recall@512)")
    mode, metric, cutoff = parsed
    return mode, metric_key(metric, cutoff)


def _identity(entry: Mapping[str, Any], key: str) -> tuple[str, str, dict[str, Any]]:
    """(label, family, params): the report's own fields, else read from a grid label (a report from before they were
    recorded)."""
    label = str(entry.get("strategy") or key)
    if entry.get("family"):
        return label, str(entry["family"]), dict(entry.get("params") or {})
    parsed = parse_label(label)
    if parsed is None:
        return label, label, {}
    family, point = parsed
    return label, family, dict(point)


def _costs(entry: Mapping[str, Any]) -> dict[str, float]:
    """The point's costs; ``embed_tokens`` only when the report records it (older reports do not: no number is
    better than a made-up one)."""
    index = entry.get("index") or {}
    out = {"bytes": float(index.get("bytes", 0)), "chunks": float(index.get("chunk_count", 0))}
    if "embed_tokens" in index:
        out["embed_tokens"] = float(index["embed_tokens"])
    return out


def _mark_defaults(raw: list[tuple[str, str, dict[str, Any], dict[str, Any]]]) -> set[str]:
    """Labels that are today's default of their strategy: every plain strategy, and for a strategy run only as grid
    points, the point whose values are the factory's defaults (``defaults``, recorded by the report)."""
    plain = {family for label, family, params, _ in raw if not params}
    out = {label for label, _, params, _ in raw if not params}
    for label, family, params, defaults in raw:
        if params and family not in plain and all(k in defaults and defaults[k] == v for k, v in params.items()):
            out.add(label)
    return out


def suite_points(key: str, suite: Mapping[str, Any], modes: tuple[str, ...], metric: str) -> list[Point]:
    """Every scored entry of one report suite as points (entries without ``metric`` are left out)."""
    eval_mode, name = parse_metric(metric)
    by_mode: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for row, entry in (suite.get("strategies") or {}).items():
        if entry.get("skipped") or entry.get("failed"):
            continue
        mode = str(entry.get("retrieval") or (modes[0] if len(modes) == 1 else ""))
        by_mode.setdefault(mode, []).append((row, entry))
    out: list[Point] = []
    for mode, entries in by_mode.items():
        raw = [(*_identity(e, row), dict(e.get("defaults") or {})) for row, e in entries]
        defaults = _mark_defaults(raw)
        for (_row, entry), (label, family, params, _) in zip(entries, raw, strict=True):
            queries = {str(q): float(v["metrics"][eval_mode][name]) for q, v in (entry.get("queries") or {}).items()
                       if name in (v.get("metrics") or {}).get(eval_mode, {})}
            if not queries:
                continue
            out.append(Point(key, mode, label, family, params, label in defaults, _costs(entry), {key: queries}))
    return out


def report_tags(names: Sequence[str]) -> list[str]:
    """Short, unique names of reports for point labels: the file name (``head.json``), with as many parent folders as
    tell two of the same name apart (``base/report.json``, ``head/report.json``), and the report's place in the list
    for one given twice (``r.json #2``)."""
    parts = [PurePath(n).parts or (n,) for n in names]
    depth = [1] * len(names)

    def tag(i: int) -> str:
        return str(PurePath(*parts[i][-depth[i]:]))

    while True:
        groups: dict[str, list[int]] = {}
        for i in range(len(names)):
            groups.setdefault(tag(i), []).append(i)
        grow = [i for same in groups.values() if len(same) > 1 for i in same if depth[i] < len(parts[i])]
        if not grow:
            break
        for i in grow:
            depth[i] += 1
    tags = [tag(i) for i in range(len(names))]
    return [f"{t} #{i + 1}" if tags.count(t) > 1 else t for i, t in enumerate(tags)]


def _same(a: Point, b: Point) -> bool:
    return dict(a.per_query) == dict(b.per_query) and dict(a.costs) == dict(b.costs)


def _keep_apart(found: list[list[Point]], tags: Sequence[str]) -> tuple[list[Point], list[str]]:
    """Every point of every report (``found``: per report). A label that two reports hold on the same suite and
    mode with different values (a base's report and a pull request's, say) is named by its report in each report
    that holds it, on every suite, so both points stay and pool with their own report's points. The same point in
    two reports (equal per-query values and costs: one report read twice) is shown once."""
    held: dict[tuple[str, str, str], list[tuple[int, Point]]] = {}
    for i, points in enumerate(found):
        for p in points:
            held.setdefault((p.suite, p.mode, p.label), []).append((i, p))
    shared = {label for (_, _, label), where in held.items() if any(not _same(where[0][1], p) for _, p in where)}
    notes = []
    for label in sorted(shared):
        holders = [i for i, points in enumerate(found) if any(p.label == label for p in points)]
        notes.append(f"{label} is in {len(holders)} reports on the same suite; each is kept, named by its report: "
                     + ", ".join(f"{label} ({tags[i]})" for i in holders))
    out = []
    for i, points in enumerate(found):
        for p in points:
            if p.label in shared:
                out.append(replace(p, label=f"{p.label} ({tags[i]})", report=tags[i]))
            elif held[(p.suite, p.mode, p.label)][0][0] == i:
                out.append(p)  # the first of equal points
    for (suite, mode, label), where in held.items():
        if label not in shared and len(where) > 1:
            notes.append(f"{suite}: {label} ({mode}) is the same point in {', '.join(tags[i] for i, _ in where)}: "
                         "shown once")
    return out, notes


def report_points(reports: Sequence[Mapping[str, Any]], metric: str | None = None,
                  names: Sequence[str] | None = None) -> tuple[list[Point], list[str]]:
    """Every point of every report, and notes. Suites are told apart by content (:mod:`.suites`): a key two reports
    share names one suite when their contents are equal and one suite per content otherwise. A strategy or grid point
    that two reports hold on the same suite is kept twice, each labelled by its report (:func:`report_tags`).
    ``names`` name the reports in labels, notes and errors; ``metric`` defaults to :func:`default_metric` at the
    first report's k."""
    from pytest_chunkeval.frontier.suites import suite_names

    names = names or [f"report {i + 1}" for i in range(len(reports))]
    shown, notes = suite_names(reports, names)
    found: list[list[Point]] = []
    for i, report in enumerate(reports):
        metric = metric or default_metric(int(report.get("k", DEFAULT_K)))
        found.append([p for key, suite in (report.get("suites") or {}).items()
                      for p in suite_points(shown[(i, key)], suite, report_modes(report), metric)])
    points, kept = _keep_apart(found, report_tags(names))
    return points, notes + kept
