"""The Markdown report: what a reviewer reads in a pull request's job summary, built from the same tables as the
terminal, plus the detail a terminal has no room for (lost queries and the chunk boundaries that moved).

GitHub refuses a job summary over 1 MiB, so :func:`document` can trim: sections are written in order of importance
(verdicts first, then the tables, then the details) and what does not fit is replaced by one line saying so.
"""
from __future__ import annotations

from pathlib import Path

from pytest_chunkeval.core.vocabulary import CHUNK, FILE
from pytest_chunkeval.judges.comparison import QueryChange, StrategyComparison
from pytest_chunkeval.judges.judged_run import Summary
from pytest_chunkeval.output import headline
from pytest_chunkeval.output.comparison_text import problems
from pytest_chunkeval.output.escape import html_text, md_code, md_text
from pytest_chunkeval.output.tables import (
    comparison_legend,
    comparison_table,
    index_legend,
    index_table,
    not_compared_lines,
    query_changes_lines,
    render_markdown,
    resolving_lines,
    retrieval_legend,
    retrieval_table,
    warning_lines,
)
from pytest_chunkeval.output.unparsed import unparsed
from pytest_chunkeval.results.typed import SuiteResult

STEP_SUMMARY_LIMIT = 1024 * 1024 - 16 * 1024  # GitHub's 1 MiB, with room for other steps' lines


def _span(relevant: tuple) -> str:
    return ", ".join(md_text(f"{r.path}:{r.lines[0]}-{r.lines[1]}" if r.lines else r.path) for r in relevant)


def _rank(rank: int | None, k: int) -> str:
    return f"rank {rank}" if rank is not None else f"not in the top {k}"


def _chunks(spans: tuple) -> str:
    return ", ".join(md_code(s.label) for s in spans) or "none"


def _query_lines(q: QueryChange, k: int) -> list[str]:
    lines = [
        f"- {md_code(str(q.id))} — {md_text(q.text)}",
        f"  - relevant: {_span(q.relevant)}; base {_rank(q.base_rank, k)} → head {_rank(q.head_rank, k)}",
        f"  - chunks over the relevant lines on base: {_chunks(q.base_chunks)}",
    ]
    if [(c.path, c.start_line, c.end_line) for c in q.base_chunks] == [
        (c.path, c.start_line, c.end_line) for c in q.head_chunks
    ]:
        lines.append("  - … the same on head: other chunks now rank above them")
    else:
        lines.append(f"  - … and on head: {_chunks(q.head_chunks)}")
    if q.lost and q.head_top:
        top = (md_code(f"{r.path}:{r.start_line}-{r.end_line}") for r in q.head_top)
        lines.append("  - head's top 3: " + ", ".join(top))
    return lines


def _details(summary_line: str, body: list[str]) -> str:
    return "\n".join(["<details>", f"<summary>{summary_line}</summary>", "", *body, "", "</details>", ""])


def _strategy_details(c: StrategyComparison, k: int) -> list[str]:
    out: list[str] = []
    if c.lost or c.gained:
        body = []
        if c.lost:
            body += [f"**Lost** ({len(c.lost)}): a relevant chunk was in the top {k} on base and is not on head", ""]
            for q in c.lost:
                body += _query_lines(q, k)
            body.append("")
        if c.gained:
            body += [f"**Gained** ({len(c.gained)})", ""]
            for q in c.gained:
                body += _query_lines(q, k)
        out.append(_details(f"{html_text(c.strategy)}: {len(c.lost)} lost, {len(c.gained)} gained queries", body))
    if c.files_rechunked:
        shown = c.files_rechunked[:50]
        more = [f"- … and {len(c.files_rechunked) - len(shown)} more"] if len(shown) < len(c.files_rechunked) else []
        out.append(_details(
            f"{html_text(c.strategy)}: chunk boundaries moved in {len(c.files_rechunked)} files "
            f"({c.base_chunks} → {c.head_chunks} chunks); the snapshot diff shows each",
            [f"- {md_text(p)}" for p in shown] + more,
        ))
    if c.new_warnings:
        out.append(_details(f"{html_text(c.strategy)}: {len(c.new_warnings)} warnings new on head",
                            [f"- {md_text(w)}" for w in c.new_warnings[:100]]))
    return out


def _unparsed(suite: SuiteResult) -> list[str]:
    """Per strategy, the files its grammar could not parse and their lines (a few; the JSON report has all)."""
    return [_details(html_text(u.headline), [f"- {md_text(f)}" for f in u.files]) for u in unparsed(suite)]


def sections(summary: Summary) -> list[str]:
    """The document as sections, most important first."""
    k = summary.k
    head = ["# pytest-chunkeval report", ""]
    if summary.verdict is not None:
        head += headline.markdown(summary.verdict, summary)
    models = [str(m.get("id")) for m in (summary.model.get("models") or {"": summary.model}).values()]
    named = ", ".join(md_code(m) for m in models)
    head.append(
        f"model{'s' if len(models) > 1 else ''} {named}, {' and '.join(summary.modes)} retrieval, k={k}; "
        f"embedded {summary.embedding['embedded']} texts, {summary.embedding['cached']} from cache"
    )
    if summary.base and summary.base.get("ref"):
        b = summary.base
        head.append(f"\nCompared with base {md_code(str(b['ref']))} ({md_text(str(b['commit'])[:10])}),"
                    " evaluated with that commit's own code "
                    f"in {b['seconds']}s (embedded {b['embedded']} texts, {b['cached']} from cache).")
    elif summary.base:
        head.append(f"\nCompared with the stored report {md_code(str(summary.base.get('report')))}.")
    out = ["\n".join(head) + "\n"]
    for key in summary.comparisons:
        part = ["## Head vs base: " + md_text(key), ""]
        part += render_markdown(comparison_table(summary, key, FILE))
        part += [md_text(comparison_legend(summary)), ""]
        part += [f"- **{md_text(line)}**" for line in resolving_lines(summary, key)]
        part += [f"- {md_text(line)}" for line in query_changes_lines(summary, key)]
        part += [f"- not compared: {md_text(line)}" for line in not_compared_lines(summary, key)]
        for c in summary.comparisons[key].strategies.values():
            if c.failed:
                # A problem may quote a new warning, which names a corpus file.
                part += [f"- **{md_text(c.strategy)}**: " + md_text("; ".join(problems(c)))]
        out.append("\n".join(part) + "\n")
    for key, suite in summary.suites.items():
        part = [f"## {md_text(suite.heading)}", ""]
        part += render_markdown(retrieval_table(summary, key))
        part += [md_text(retrieval_legend(summary)), ""]  # the legends name the baseline, a setting's value
        part += render_markdown(index_table(summary, key))
        part += [md_text(index_legend(summary, key)), ""]
        failed = {s.name: s.failed for s in suite.strategies.values() if s.failed}
        part += [f"- **{md_text(name)} failed to build**: {md_text(why)}" for name, why in failed.items()]
        shown = tuple(f"{name}: failed to build" for name in failed)  # said above, in bold
        warnings = [w for w in warning_lines(suite, limit=10) if not w.startswith(shown)]
        if warnings:
            part.append(_details(f"{len(warnings)} notes: skipped files and strategies, fallbacks, warnings",
                                 [f"- {md_text(w)}" for w in warnings]))
        part += _unparsed(suite)
        out.append("\n".join(part) + "\n")
    for key in summary.comparisons:
        details = [d for c in summary.comparisons[key].strategies.values() for d in _strategy_details(c, k)]
        details.append(
            _details("the same comparison in chunk mode", render_markdown(comparison_table(summary, key, CHUNK)))
        )
        out.append("\n".join([f"### What changed on {md_text(key)}", "", *details]))
    return out


def document(summary: Summary, limit: int | None = None) -> str:
    """The Markdown report; with ``limit`` (bytes), whole sections that do not fit are left out and said so."""
    parts = sections(summary)
    if limit is None:
        return "\n".join(parts)
    kept: list[str] = []
    size = 0
    note = "\n> Trimmed: {n} of {t} sections did not fit GitHub's job-summary limit; the full report is in the " \
           "chunkeval-report artifact (Markdown and JSON).\n"
    reserve = len(note.encode("utf-8")) + 32
    for i, part in enumerate(parts):
        length = len(part.encode("utf-8")) + 1
        if size + length + reserve > limit:
            kept.append(note.format(n=len(parts) - i, t=len(parts)))
            break
        kept.append(part)
        size += length
    return "\n".join(kept)


def append_step_summary(summary: Summary, path: Path, limit: int = STEP_SUMMARY_LIMIT) -> None:
    """Append to ``$GITHUB_STEP_SUMMARY`` (other steps may have written there too: their bytes count)."""
    used = path.stat().st_size if path.exists() else 0
    with path.open("a", encoding="utf-8") as fh:
        fh.write(document(summary, max(limit - used, 4096)))
