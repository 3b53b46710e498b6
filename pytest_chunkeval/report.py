"""The evaluation's outputs: the JSON report anyone can recompute from, and the summary tables people read.

The JSON keeps every ranking and every chunk's span so each number can be recomputed independently
(``python -m pytest_chunkeval.verify REPORT``). Paths inside a suite are relative to its corpus.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .evaluate import Evaluator, StrategyRun
from .gates import Thresholds, evaluate_gates
from .stats import compare_paired

REPORT_VERSION = 1


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def _git_commit(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def machine_info() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.machine(),
        "cpus": os.cpu_count(),
    }


def run_query_metrics(run: StrategyRun) -> dict[str, dict[str, dict[str, float]]]:
    return {qid: o.metrics for qid, o in run.outcomes.items()}


def baseline_comparison(run: StrategyRun, base: StrategyRun | None) -> dict[str, dict[str, dict[str, float]]]:
    """Per mode and metric: difference of means to the baseline, relative change, paired randomization p-value."""
    if base is None or base is run:
        return {}
    out: dict[str, dict[str, dict[str, float]]] = {}
    for mode, metric, mean_a, mean_b, p in compare_paired(run_query_metrics(run), run_query_metrics(base)):
        out.setdefault(mode, {})[metric] = {
            "delta": mean_a - mean_b,
            "relative": (mean_a - mean_b) / mean_b if mean_b else float("inf") if mean_a > 0 else 0.0,
            "p_value": p,
        }
    return out


def summary_entry(run: StrategyRun) -> dict[str, Any]:
    """The part of a strategy's entry that gates read: index measures and aggregate means."""
    return {
        "index": {
            "table": run.table,
            "fingerprint": run.fingerprint,
            "reused": run.reused,
            "bytes": run.index_bytes,
            "chunk_count": len(run.chunks),
            "text_bytes": run.text_bytes,
            "chunk_seconds": round(run.chunk_seconds, 4),
            "build_seconds": round(run.build_seconds, 4),
            "embedded": run.embed.embedded,
            "cached": run.embed.cached,
        },
        "aggregate": {mode: {m: s["mean"] for m, s in metrics.items()} for mode, metrics in run.aggregate.items()},
    }


def strategy_entry(run: StrategyRun, base: StrategyRun | None) -> dict[str, Any]:
    if run.skipped:
        return {"skipped": run.skipped}
    return {
        "skipped": None,
        "files": run.files_handled,
        "chunks": [
            {"id": cid, "path": c.path, "start_line": c.start_line, "end_line": c.end_line, "kind": c.kind}
            for cid, c in run.chunks
        ],
        **summary_entry(run),
        "quality": run.quality.as_dict() if run.quality else {},
        "strategy_stats": run.strategy_stats,
        "fallbacks": run.fallbacks,
        "intervals": run.aggregate,
        "vs_baseline": baseline_comparison(run, base),
        "queries": {
            qid: {
                "hit": o.hit,
                "ranking": [
                    {"chunk_id": r.chunk_id, "path": r.path, "start_line": r.start_line, "end_line": r.end_line, "score": r.score}
                    for r in o.ranking
                ],
                "metrics": o.metrics,
            }
            for qid, o in run.outcomes.items()
        },
    }


def gate_entries(entry: dict[str, Any], base: dict[str, Any] | None, k: int, thresholds: Thresholds) -> list[dict[str, Any]]:
    if base is None or entry is base or entry.get("skipped") or base.get("skipped"):
        return []
    return [asdict(g) for g in evaluate_gates(entry, base, k, thresholds)]


def build_report(evaluator: Evaluator, root: Path, baseline: str, thresholds: Thresholds | None = None) -> dict[str, Any]:
    suites: dict[str, Any] = {}
    # Baseline first, then by name: the table reads top-down as "the baseline, and everything against it".
    order = sorted(evaluator.runs.items(), key=lambda kv: (str(kv[0][0]), kv[0][1] != baseline, kv[0][1]))
    for (suite_path, name), run in order:
        key = _rel(suite_path, root)
        entry = suites.setdefault(
            key,
            {
                "golden": key,
                "name": run.suite.name,
                "corpus": _rel(run.suite.corpus_dir, root),
                "files": len(run.suite.corpus.files),
                "skipped_files": run.suite.corpus.skipped,
                "queries": len(run.suite.queries),
                "strategies": {},
            },
        )
        base = evaluator.runs.get((suite_path, baseline))
        entry["strategies"][name] = strategy_entry(run, base)
    thresholds = thresholds or Thresholds()
    for entry in suites.values():
        base_entry = entry["strategies"].get(baseline)
        for name, s in entry["strategies"].items():
            if not s.get("skipped") and name != baseline:
                s["gates"] = gate_entries(s, base_entry, evaluator.settings.k, thresholds)
    emb = evaluator.embedder
    totals = {"embedded": evaluator.query_embed.embedded, "cached": evaluator.query_embed.cached}
    for run in evaluator.runs.values():
        totals["embedded"] += run.embed.embedded
        totals["cached"] += run.embed.cached
    return {
        "version": REPORT_VERSION,
        "k": evaluator.settings.k,
        "retrieval": evaluator.settings.retrieval,
        "baseline": baseline,
        "gate_thresholds": asdict(thresholds),
        "model": {"id": emb.model_id, "sha256": emb.digests, "max_tokens": emb.max_tokens},
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "root": str(root.resolve()),
        "commit": _git_commit(root),
        "machine": machine_info(),
        "embedding": totals,
        "suites": suites,
    }


def write_json(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(report, indent=1, sort_keys=False), "utf-8")
    tmp.replace(path)


# -- human-readable tables -----------------------------------------------------------------------------------------


def _fmt_ci(interval: dict[str, float]) -> str:
    return f"{interval['mean']:.3f} [{interval['ci_low']:.2f}–{interval['ci_high']:.2f}]"


def _notes(entry: dict[str, Any]) -> str:
    parts: list[str] = []
    stats = entry.get("strategy_stats") or {}
    for key, value in stats.items():
        # Zero counters and repeats of the table's own columns are noise; what is left is worth reading.
        if key in ("files", "chunks") or isinstance(value, bool) or not value:
            continue
        if isinstance(value, (int, float, str)):
            parts.append(f"{key}={value}")
        elif isinstance(value, list):
            parts.append(f"{key}={len(value)}")
    if entry.get("fallbacks"):
        parts.append(f"fallback files={len(entry['fallbacks'])}")
    return ", ".join(parts)


def _gates_cell(gates: list[dict[str, Any]]) -> str:
    if not gates:
        return "—"
    failed = [g["name"].split("-")[0 if g["name"] != "index-size" else 1] for g in gates if not g["passed"]]
    return "pass" if not failed else "fail: " + ",".join(failed)


def _warning_lines(suite: dict[str, Any], limit: int = 5) -> list[str]:
    """What went wrong but did not stop the run: skipped corpus files, fallbacks, strategy warnings."""
    lines = [f"skipped corpus file {p}: {why}" for p, why in sorted(suite.get("skipped_files", {}).items())]
    lines += [f"{name}: skipped: {s['skipped']}" for name, s in suite["strategies"].items() if s.get("skipped")]
    for name, s in suite["strategies"].items():
        notes = [*(f"fallback: {f}" for f in s.get("fallbacks", [])), *((s.get("strategy_stats") or {}).get("warnings") or [])]
        lines += [f"{name}: {n}" for n in notes[:limit]]
        if len(notes) > limit:
            lines.append(f"{name}: … and {len(notes) - limit} more (see the JSON report)")
    return lines


def summary_tables(report: dict[str, Any], width: int = 160) -> str:
    """Per suite: a retrieval table and a chunks/index table, rendered as plain text with rich."""
    from io import StringIO

    from rich import box
    from rich.console import Console
    from rich.table import Table

    buf = StringIO()
    console = Console(file=buf, width=max(width, 170), color_system=None, force_terminal=False, soft_wrap=False)
    k = report["k"]
    nd, rc, mr = f"ndcg@{k}", f"recall@{k}", f"mrr@{k}"
    baseline = report["baseline"]
    for key, suite in report["suites"].items():
        title = f"{key} — {suite['files']} files, {suite['queries']} queries, {report['retrieval']} retrieval, k={k}"
        t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        t.add_column("strategy", no_wrap=True)
        for label in (f"NDCG@{k} file [95% CI]", f"R@{k} file", f"MRR@{k} file", f"NDCG@{k} chunk", f"R@{k} chunk", f"MRR@{k} chunk"):
            t.add_column(label, justify="right", no_wrap=True)
        t.add_column(f"ΔNDCG vs {baseline} (p)", justify="right", no_wrap=True)
        t.add_column("misses", justify="right")
        t.add_column("gates", no_wrap=True)
        c = Table(title=f"{key} — chunks and index", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for label in ("strategy", "files", "chunks", f">{report['model']['max_tokens']} tok", "tiny", "lossless", "index KB", "Δsize", "build s", "embedded", "cached"):
            c.add_column(label, justify="left" if label == "strategy" else "right", no_wrap=True)
        c.add_column("notes", overflow="fold")
        base_bytes = (suite["strategies"].get(baseline) or {}).get("index", {}).get("bytes")
        for name, s in suite["strategies"].items():
            if s.get("skipped"):
                continue  # listed under the tables, where the reason has room
            iv, agg = s["intervals"], s["aggregate"]
            vs = s.get("vs_baseline", {}).get("file", {}).get(nd)
            delta = f"{vs['relative']:+.1%} (p={vs['p_value']:.3f})" if vs and vs["relative"] != float("inf") else ("—" if name == baseline else "")
            misses = sum(1 for q in s["queries"].values() if not q["hit"])
            t.add_row(
                name, _fmt_ci(iv["file"][nd]), f"{agg['file'][rc]:.3f}", f"{agg['file'][mr]:.3f}",
                f"{agg['chunk'][nd]:.3f}", f"{agg['chunk'][rc]:.3f}", f"{agg['chunk'][mr]:.3f}", delta, str(misses),
                _gates_cell(s.get("gates") or []),
            )
            q, idx = s["quality"], s["index"]
            lossless = ("yes" if q["uncovered_lines"] == 0 else f"no ({q['line_coverage']:.1%})") if q["claims_lossless"] else "n/a"
            dsize = f"{idx['bytes'] / base_bytes - 1:+.0%}" if base_bytes and name != baseline else "—"
            c.add_row(
                name, str(s["files"]), str(idx["chunk_count"]), f"{q['over_window_share']:.0%}", f"{q['tiny_share']:.0%}",
                lossless, f"{idx['bytes'] / 1024:.0f}", dsize, f"{idx['build_seconds']:.1f}", str(idx["embedded"]),
                "reused index" if idx["reused"] else str(idx["cached"]), _notes(s),
            )
        console.print(t)
        console.print(c)
        for line in _warning_lines(suite):
            console.print(line, highlight=False, markup=False)
        console.print()
    emb = report["embedding"]
    console.print(f"embedded {emb['embedded']} texts, {emb['cached']} from cache (model {report['model']['id']})")
    return buf.getvalue()


def markdown(report: dict[str, Any]) -> str:
    """The same numbers as the terminal tables, as Markdown for a PR comment or a CI job summary."""
    k = report["k"]
    nd, rc, mr = f"ndcg@{k}", f"recall@{k}", f"mrr@{k}"
    lines = ["# pytest-chunkeval report", "", f"model `{report['model']['id']}`, {report['retrieval']} retrieval, k={k}", ""]
    for key, suite in report["suites"].items():
        lines += [f"## {key}", "", f"{suite['files']} files, {suite['queries']} queries", ""]
        lines += [f"| strategy | chunks | NDCG@{k} file | R@{k} file | MRR@{k} file | NDCG@{k} chunk | R@{k} chunk | MRR@{k} chunk | index KB |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for name, s in suite["strategies"].items():
            if s.get("skipped"):
                lines.append(f"| {name} | skipped: {s['skipped']} |||||||| ")
                continue
            a = s["aggregate"]
            lines.append(
                f"| {name} | {s['index']['chunk_count']} | {a['file'][nd]:.3f} | {a['file'][rc]:.3f} | {a['file'][mr]:.3f} | "
                f"{a['chunk'][nd]:.3f} | {a['chunk'][rc]:.3f} | {a['chunk'][mr]:.3f} | {s['index']['bytes'] / 1024:.0f} |"
            )
        lines.append("")
    return "\n".join(lines) + "\n"
