"""A PNG of the headline numbers: NDCG@k per strategy and suite, file and chunk mode, with 95 % intervals.

matplotlib is imported here only, and only when a chart is asked for (``--chunkeval-chart PATH``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_chunkeval.core.vocabulary import CHUNK, FILE, NDCG, label, metric_key


def write_chart(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # no display here, and none needed
    import matplotlib.pyplot as plt

    k = report["k"]
    metric = metric_key(NDCG, k)
    suites = [(key, s) for key, s in report["suites"].items() if any(map(_scored, s["strategies"].values()))]
    fig, axes = plt.subplots(len(suites), 1, figsize=(10, 3.2 * max(len(suites), 1)), squeeze=False)
    for ax, (key, suite) in zip(axes[:, 0], suites, strict=True):
        names = [n for n, e in suite["strategies"].items() if _scored(e)]
        for offset, mode, colour in ((-0.2, FILE, "#3b6ea8"), (0.2, CHUNK, "#d98c3a")):
            means, lows, highs = [], [], []
            for n in names:
                iv = suite["strategies"][n]["intervals"][mode][metric]
                means.append(iv["mean"])
                lows.append(iv["mean"] - iv["ci_low"])
                highs.append(iv["ci_high"] - iv["mean"])
            xs = [i + offset for i in range(len(names))]
            ax.bar(xs, means, width=0.4, color=colour, label=f"{mode} mode", yerr=[lows, highs], capsize=3)
        base = suite["strategies"].get(report["baseline"])
        if base and not (base.get("skipped") or base.get("failed")):
            ax.axhline(base["aggregate"][FILE][metric], color="#3b6ea8", linestyle=":", linewidth=1)
        ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
        ax.set_ylim(0, 1)
        ax.set_ylabel(label(NDCG, k))
        ax.set_title(
            f"{key} — {suite['queries']} queries, {report['retrieval']} retrieval (dotted: baseline, file mode)"
        )
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    from pytest_chunkeval.output.files import write_atomic

    try:
        write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=110, format=path.suffix.lstrip(".") or "png"))
    finally:
        plt.close(fig)


def _scored(entry: dict[str, Any]) -> bool:
    """A report entry with numbers: neither skipped nor failed to build."""
    return not (entry.get("skipped") or entry.get("failed"))
