"""The verdict as the first thing a reader sees: one line PASS or FAIL, then each reason with what settles it.

Rendered for the terminal and for Markdown (the report file, the job summary, the PR comment) from the one
:class:`~pytest_chunkeval.judges.judged_run.Verdict` the run judged and :mod:`.verdict_text` worded; nothing here
decides anything.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_chunkeval.core.vocabulary import NDCG, RECALL, label
from pytest_chunkeval.output.escape import md_code, md_text

if TYPE_CHECKING:
    from pytest_chunkeval.judges.judged_run import Summary, Verdict

SHOWN = 10  # lines per reason; the rest are counted (every one is in the JSON report)
METHODS = {"holm": "Holm-adjusted", "bh": "Benjamini-Hochberg-adjusted", "none": "unadjusted"}


def context(summary: Summary) -> str:
    """What the verdict is about: the base compared with and the family of tests that could fail the run."""
    parts = []
    base = summary.base or {}
    if base.get("ref"):
        parts.append(f"head vs base {base['ref']} ({str(base.get('commit', ''))[:10]})")
    elif base.get("report"):
        parts.append(f"head vs the stored report {base['report']}")
    if summary.comparisons:
        gating = f"file-mode {label(NDCG, summary.k)}, {label(RECALL, summary.k)} and the hit test"
        parts.append(f"{summary.family_size} paired tests can fail the run ({gating} of each changed strategy), "
                     f"{METHODS.get(summary.correction, summary.correction)}")
    return "; ".join(parts)


def one_line(verdict: Verdict) -> str:
    """The verdict in one line, as the JSON report's ``headline`` holds it: PASS, or FAIL and each reason's title
    with its count."""
    if verdict.passed:
        return "PASS"
    return f"FAIL: {'; '.join(f'{r.title} ({len(r.lines)})' for r in verdict.reasons)}"


def _shown(lines: tuple[str, ...]) -> list[str]:
    more = [f"… and {len(lines) - SHOWN} more (see the JSON report)"] if len(lines) > SHOWN else []
    return [*lines[:SHOWN], *more]


def text_lines(verdict: Verdict, summary: Summary) -> list[str]:
    about = context(summary)
    lines = [f"VERDICT: {'PASS' if verdict.passed else 'FAIL'}" + (f" ({about})" if about else "")]
    for r in verdict.reasons:
        lines.append(f"  {r.title} ({len(r.lines)}):")
        lines += [f"    {line}" for line in _shown(r.lines)]
        lines.append(f"    → {r.settle}")
    lines += [f"  note: {n}" for n in verdict.notes[:SHOWN]]
    return lines


def markdown(verdict: Verdict, summary: Summary) -> list[str]:
    mark = "✅ PASS" if verdict.passed else "❌ FAIL"
    count = "" if verdict.passed else f" — {len(verdict.reasons)} reason{'s' if len(verdict.reasons) != 1 else ''}"
    out = [f"## Verdict: {mark}{count}", ""]
    about = context(summary)
    if about:
        out += [md_text(about[0].upper() + about[1:]) + ".", ""]
    for r in verdict.reasons:
        out.append(f"**{r.title}** ({len(r.lines)})")
        out += [f"- {_code(line)}" for line in _shown(r.lines)]
        out += [f"- ↳ {_settle(r.settle)}", ""]
    if verdict.notes:
        out += [f"- {md_text(n)}" for n in verdict.notes[:SHOWN]]
        out.append("")
    return out


def _settle(text: str) -> str:
    """What settles a reason: text around one command in backticks (``record it: `pytest …` ``). The command is
    this run's own command line, which may quote a setting's value (a strategy name holding a newline or a
    backtick), so it is one code span of its own, whatever it holds, and the text around it is text."""
    before, tick, rest = text.partition("`")
    code, close, after = rest.rpartition("`")
    if not (tick and close):
        return md_text(text)
    return f"{md_text(before)}{md_code(code)}{md_text(after)}"


def _code(line: str) -> str:
    """An item id in code style, so Markdown does not read its underscores and brackets as formatting; the rest
    (a failure's first line, which may quote a file name or a query) as plain text."""
    head, sep, rest = line.partition(": ")
    return f"{md_code(head)}{sep}{md_text(rest)}" if "::" in head else md_text(line)
