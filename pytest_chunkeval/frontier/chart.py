"""A PNG of the frontier: quality against cost (log scale), one panel per suite and retrieval mode, then the pooled
panels. Dominated points grey, frontier points blue and labelled, the frontier a step line, defaults ringed in red,
the best point a star. matplotlib (Agg) is imported only when a chart is asked for, as ``output.chart`` does."""
from __future__ import annotations

import math
from pathlib import Path

from pytest_chunkeval.frontier.analysis import Frontier, Panel
from pytest_chunkeval.frontier.points import COST_LABELS
from pytest_chunkeval.frontier.render import metric_label

COLUMNS = 3


def _x(value: float, cost: str) -> float:
    return value / 1024 if cost == "bytes" else value


def _draw(ax: object, panel: Panel, metric: str, cost: str) -> None:
    from matplotlib.axes import Axes

    assert isinstance(ax, Axes)
    on = {p.label for p in panel.frontier}
    for p in panel.points:
        x, y = _x(p.costs[cost], cost), p.quality
        ax.scatter([x], [y], s=28, color="#3b6ea8" if p.label in on else "#b0b0b0", zorder=3)
        if p.default:
            ax.scatter([x], [y], s=140, facecolors="none", edgecolors="#c0392b", linewidths=1.5, zorder=4)
    xs = [_x(p.costs[cost], cost) for p in panel.frontier]
    ys = [p.quality for p in panel.frontier]
    ax.step(xs, ys, where="post", color="#3b6ea8", linewidth=1.2, zorder=2)
    for p in panel.frontier:
        ax.annotate(p.label, (_x(p.costs[cost], cost), p.quality), fontsize=6, xytext=(4, 4),
                    textcoords="offset points")
    b = panel.best
    ax.scatter([_x(b.costs[cost], cost)], [b.quality], marker="*", s=160, color="#e6a817", edgecolors="black",
               linewidths=0.5, zorder=5)
    if all(p.costs[cost] > 0 for p in panel.points):
        ax.set_xscale("log")
    ax.set_xlabel(COST_LABELS[cost] + (" (log)" if ax.get_xscale() == "log" else ""))
    ax.set_ylabel(metric_label(metric))
    ax.set_title(f"{panel.suite} — {panel.mode}", fontsize=8)
    ax.grid(True, linewidth=0.3)


def write_chart(result: Frontier, path: Path) -> None:
    """Write the chart (a blank panel saying so when there is nothing to draw)."""
    import matplotlib

    matplotlib.use("Agg")  # no display here, and none needed
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    n = max(len(result.panels), 1)
    cols = min(COLUMNS, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False)
    flat = list(axes.flat)
    for ax, panel in zip(flat, result.panels, strict=False):
        _draw(ax, panel, result.metric, result.cost)
    for ax in flat[len(result.panels):]:
        ax.axis("off")
    if not result.panels:
        flat[0].text(0.5, 0.5, "no scored points", ha="center", va="center")
    handles = [Line2D([], [], color="#3b6ea8", marker="o", label="frontier"),
               Line2D([], [], color="#b0b0b0", marker="o", linestyle="", label="dominated"),
               Line2D([], [], marker="o", markerfacecolor="none", markeredgecolor="#c0392b", linestyle="",
                      markersize=10, label="default"),
               Line2D([], [], marker="*", color="#e6a817", markeredgecolor="black", linestyle="", markersize=12,
                      label="best")]
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
