"""Granularity-fair measures: what a generator receives, judged line by line against the gold spans.

File mode ignores how much of what was retrieved is relevant, and chunk mode rewards or punishes a strategy for how
finely it cuts (a function cut in three is three relevant chunks to find). These two measures look at lines instead,
so neither cutting relevant code into pieces nor swallowing whole files pays:

* **line-projected NDCG@k** (as in cAST's appendix): the lines of the top-k chunks, in rank order and each chunk's
  lines in file order, form one ranked list of lines (a line seen before is dropped). A line's gain is the highest
  grade of a gold item covering it; the ideal list puts every gold line first. Irrelevant lines ahead of relevant
  ones (a whole file retrieved for a ten-line function) push them down; relevant code cut into pieces that rank
  together loses nothing.
* **budget recall@B**: the share of gold lines inside the first B tokens of the top-k chunks, counted with the
  model's tokenizer over each chunk's text. A chunk only partly inside the budget contributes the first lines of
  its span in proportion to the tokens that fit (``floor(lines * fitting / tokens)``): a chunk's lines are not
  tokenized one by one, so the report can be re-checked from spans and token counts alone.

A gold item without lines stands for its whole file (``file_lines`` gives the file's length); a query without gold
lines scores 0.0, as in the other modes. Everything here is a pure function of plain values (checked by hand-worked
cases in ``tests/test_line_metrics.py`` and recomputed by ``verify``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from pytest_chunkeval.core.ranking import Ranked, Relevant
from pytest_chunkeval.core.vocabulary import DEFAULT_BUDGETS, NDCG, budget_key, metric_key

Line = tuple[str, int]


def gold_lines(relevant: Sequence[Relevant], file_lines: Mapping[str, int]) -> dict[Line, int]:
    """Every gold line with its grade (the highest of the items covering it)."""
    grades: dict[Line, int] = {}
    for item in relevant:
        if item.grade <= 0:
            continue
        lo, hi = item.lines if item.lines is not None else (1, int(file_lines.get(item.path, 0)))
        for line in range(lo, hi + 1):
            key = (item.path, line)
            grades[key] = max(grades.get(key, 0), item.grade)
    return grades


def projected_lines(ranking: Sequence[Ranked], k: int) -> list[Line]:
    """The lines of the top-k chunks in rank order, each line once (its first appearance)."""
    seen: set[Line] = set()
    out: list[Line] = []
    for r in ranking[:k]:
        for line in range(r.start_line, r.end_line + 1):
            key = (r.path, line)
            if key not in seen:
                seen.add(key)
                out.append(key)
    return out


def line_ndcg_at_k(ranking: Sequence[Ranked], relevant: Sequence[Relevant], k: int,
                   file_lines: Mapping[str, int] | None = None) -> float:
    gold = gold_lines(relevant, file_lines or {})
    if not gold:
        return 0.0
    dcg = sum(gold.get(line, 0) / math.log2(i + 2) for i, line in enumerate(projected_lines(ranking, k)))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(gold.values(), reverse=True)))
    return dcg / idcg


def budget_recall(ranking: Sequence[Ranked], tokens: Sequence[int], relevant: Sequence[Relevant], budget: int,
                  k: int, file_lines: Mapping[str, int] | None = None) -> float:
    """Share of gold lines (each counted once, grades ignored) within the first ``budget`` tokens of the top k.

    ``tokens[i]`` is the token count of ``ranking[i]``'s text.
    """
    gold = gold_lines(relevant, file_lines or {})
    if not gold:
        return 0.0
    if len(tokens) < min(k, len(ranking)):
        raise ValueError(f"{len(tokens)} token counts for {min(k, len(ranking))} ranked chunks")
    left = budget
    inside: set[Line] = set()
    for r, n in zip(ranking[:k], tokens, strict=False):
        if left <= 0:
            break
        span = r.end_line - r.start_line + 1
        fits = span if n <= left else math.floor(span * left / n)
        inside.update((r.path, line) for line in range(r.start_line, r.start_line + fits))
        left -= n
    return sum(1 for line in gold if line in inside) / len(gold)


def evaluate_lines(ranking: Sequence[Ranked], tokens: Sequence[int], relevant: Sequence[Relevant], k: int,
                   file_lines: Mapping[str, int] | None = None,
                   budgets: Sequence[int] = DEFAULT_BUDGETS) -> dict[str, float]:
    """The line-mode metrics of one query, keyed as :func:`vocabulary.line_metric_keys` names them."""
    out = {metric_key(NDCG, k): line_ndcg_at_k(ranking, relevant, k, file_lines)}
    for b in budgets:
        out[budget_key(b)] = budget_recall(ranking, tokens, relevant, b, k, file_lines)
    return out
