"""A PNG of the frontier: quality against cost (log scale), one panel per suite and retrieval mode, then the pooled
panels. Each strategy has its colour (a sweep is read as "which family, at which size"); frontier points are large
and labelled with their values only (``2000·greedy·true``: the colour says whose), dominated ones small and faded,
the frontier a step line, defaults ringed in red, the best point a star. matplotlib (Agg) is imported only when a
chart is asked for, as ``output.chart`` does."""
from __future__ import annotations

import math
from pathlib import Path

from pytest_chunkeval.frontier.analysis import Frontier, Panel
from pytest_chunkeval.frontier.points import COST_LABELS, Point
from pytest_chunkeval.output.frontier_tables import metric_label

COLUMNS = 3


def _x(value: float, cost: str) -> float:
    return value / 1024 if cost == "bytes" else value


#: Colours by strategy, in the order first seen (tab10: distinct in print and for the common colour blindnesses).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")


def families(result: Frontier) -> dict[str, str]:
    """Strategy -> colour, the same in every panel."""
    seen: dict[str, str] = {}
    for panel in result.panels:
        for p in panel.points:
            if p.family not in seen:
                seen[p.family] = PALETTE[len(seen) % len(PALETTE)]
    return seen


def short_label(p: Point) -> str:
    """A frontier point's label on the chart: its values (the colour names the strategy), or the strategy's name
    for a plain one, with its report where several reports hold it; the table has the full labels."""
    short = "·".join(str(v).lower() for v in p.params.values()) if p.params else p.family
    return f"{short} ({p.report})" if p.report else short


def _draw(ax: object, panel: Panel, metric: str, cost: str, colours: dict[str, str]) -> None:
    from matplotlib.axes import Axes

    assert isinstance(ax, Axes)
    on = {p.label for p in panel.frontier}
    for p in panel.points:
        x, y = _x(p.costs[cost], cost), p.quality
        front = p.label in on
        ax.scatter([x], [y], s=40 if front else 16, color=colours[p.family], alpha=1.0 if front else 0.45,
                   edgecolors="black" if front else "none", linewidths=0.5, zorder=3)
        if p.default:
            ax.scatter([x], [y], s=150, facecolors="none", edgecolors="#c0392b", linewidths=1.5, zorder=4)
    xs = [_x(p.costs[cost], cost) for p in panel.frontier]
    ys = [p.quality for p in panel.frontier]
    ax.step(xs, ys, where="post", color="#444444", linewidth=1.0, zorder=2)
    for i, p in enumerate(panel.frontier):  # alternate above/below: neighbours on a step line sit close
        ax.annotate(short_label(p), (_x(p.costs[cost], cost), p.quality), fontsize=7, color=colours[p.family],
                    xytext=(5, 4 if i % 2 == 0 else -10), textcoords="offset points")
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
    fig, axes = plt.subplots(rows, cols, figsize=(6.4 * cols, 4.6 * rows), squeeze=False)
    flat = list(axes.flat)
    colours = families(result)
    for ax, panel in zip(flat, result.panels, strict=False):
        _draw(ax, panel, result.metric, result.cost, colours)
    for ax in flat[len(result.panels):]:
        ax.axis("off")
    if not result.panels:
        flat[0].text(0.5, 0.5, "no scored points", ha="center", va="center")
    handles = [Line2D([], [], color=colour, marker="o", linestyle="", label=name) for name, colour in colours.items()]
    handles += [Line2D([], [], color="#444444", marker="o", markeredgecolor="black", label="frontier"),
               Line2D([], [], marker="o", markerfacecolor="none", markeredgecolor="#c0392b", linestyle="",
                      markersize=10, label="default"),
               Line2D([], [], marker="*", color="#e6a817", markeredgecolor="black", linestyle="", markersize=12,
                      label="best")]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 5), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
