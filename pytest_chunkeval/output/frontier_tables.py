"""The frontier as tables (terminal and Markdown, one row model: ``output.tables.Table``) and sentences.

One table per panel: every point cheapest first, its quality and costs, ``★ frontier`` or ``dominated by X``, which
point is best and which are today's defaults; under it, the best point against each default (paired test, Holm p).
"""
from __future__ import annotations

from pytest_chunkeval.core.vocabulary import label, split_key
from pytest_chunkeval.frontier.analysis import Frontier, Panel
from pytest_chunkeval.frontier.points import COST_LABELS, COSTS, Point, parse_metric
from pytest_chunkeval.output.escape import md_text
from pytest_chunkeval.output.tables import Table, render_markdown, render_text

ALPHA = 0.05


def metric_label(metric: str) -> str:
    """``lines:ndcg@10`` -> ``NDCG@10 lines`` (as the retrieval table heads it)."""
    mode, key = parse_metric(metric)
    name, cutoff = split_key(key)
    return f"{label(name, cutoff)} {mode}"


def cost_cell(p: Point, cost: str) -> str:
    value = p.costs.get(cost)
    if value is None:  # not recorded by the point's report
        return "—"
    return f"{value / 1024:,.0f}" if cost == "bytes" else f"{value:,.0f}"


def _status(panel: Panel, p: Point) -> str:
    if p.label in panel.dominated_by:
        return f"dominated by {panel.dominated_by[p.label]}"
    return "★ frontier, best" if p.label == panel.best.label else "★ frontier"


def _title(panel: Panel, metric: str, cost: str) -> str:
    how = " (quality: mean of the suites' means; costs: summed over suites)" if panel.pooled else ""
    return (f"{panel.suite} — {panel.mode} retrieval: {metric_label(metric)} against "
            f"{COST_LABELS[cost]}{how}")


def panel_table(panel: Panel, metric: str, cost: str) -> Table:
    """Every point of the panel, cheapest on ``cost`` first."""
    tests = {v.default.label: v for v in panel.tests}
    t = Table(_title(panel, metric, cost),
              ["point", metric_label(metric), *(COST_LABELS[c] for c in COSTS), "queries", "frontier", "default",
               "best − default (p, Holm p)"], right={1, 2, 3, 4, 5})
    for p in panel.points:
        v = tests.get(p.label)
        versus = f"{v.delta:+.3f} (p={v.p_value:.3f}, {v.p_holm:.3f})" if v else ("—" if p.default else "")
        t.rows.append([p.label, f"{p.quality:.3f}", *(cost_cell(p, c) for c in COSTS), str(p.queries),
                       _status(panel, p), "default" if p.default else "", versus])
    return t


def verdict_lines(panel: Panel, metric: str, cost: str) -> list[str]:
    """The best point, and what its tests against the defaults say."""
    b = panel.best
    lines = [f"best: {b.label} ({metric_label(metric)} {b.quality:.3f}, {COST_LABELS[cost]} {cost_cell(b, cost)})"
             + (", itself a default" if b.default else "")]
    for v in panel.tests:
        word = "no significant difference from"
        if v.p_holm < ALPHA:
            word = "better than" if v.delta > 0 else "worse than"
        how = "stratified by suite, " if panel.pooled else ""
        lines.append(f"  {word} default {v.default.label}: {v.delta:+.3f} over {v.queries} paired queries "
                     f"({how}p={v.p_value:.4f}, Holm over {v.compared} comparison{'s' * (v.compared != 1)} "
                     f"p={v.p_holm:.4f})")
    if not panel.tests:
        lines.append("  no other default point to compare with")
    return lines


def text(result: Frontier, width: int = 160) -> str:
    items: list[Table | str] = []
    for panel in result.panels:
        items += [panel_table(panel, result.metric, result.cost), *verdict_lines(panel, result.metric, result.cost),
                  ""]
    items += result.notes
    return render_text(items, width)


def markdown(result: Frontier, chart: str | None = None) -> str:
    """A ``## Frontier`` section: the chart (when ``chart`` names it, relative to the Markdown), then per panel its
    table and verdict lines."""
    lines = ["## Frontier", "",
             f"Pareto-optimal points of {metric_label(result.metric)} against {COST_LABELS[result.cost]}; the best "
             f"point against each default with a paired randomization test, Holm-adjusted (alpha {ALPHA}).", ""]
    if chart:
        lines += [f"![frontier]({chart})", ""]
    for panel in result.panels:
        lines += render_markdown(panel_table(panel, result.metric, result.cost))
        lines += [f"- {md_text(line.strip())}" for line in verdict_lines(panel, result.metric, result.cost)] + [""]
    lines += [f"- {md_text(n)}" for n in result.notes]
    return "\n".join(lines).rstrip() + "\n"
