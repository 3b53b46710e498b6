"""Keyword phrasing of a golden query: the terse identifier-and-term list people type into a code search box.

A golden query is a sentence ("How does the Node API drain in-flight requests when Kubernetes sends SIGTERM?"), but
much real code search is a handful of words and names (``drain in-flight SIGTERM shutdown server.close``). The two
phrasings stress retrieval differently: an embedding model reads a sentence well and a bag of identifiers badly,
while BM25 is the other way round, so a strategy that wins on sentences may lose on keywords. This module turns one
query and the text of its relevant code into its keyword phrasing, with no model and no randomness:

1. the sentence's content terms: stopwords and question words dropped, identifier-looking tokens (``SIGTERM``,
   ``os.path``, ``snake_case``, ``camelCase``) kept exactly as written, other words lower-cased; at most
   ``max_query_terms``, preferring identifier-looking then longer words, shown in the sentence's order;
2. then a few identifiers from the relevant code, as written (never split): names the code *declares*
   (``def``/``func``/``class`` ...) first, then names it calls or assigns, each group rarest in the corpus first;
   comments and string literals are ignored, so prose in the code does not pass for an identifier.

The same inputs always give the same query; :func:`keyword_query` never returns an empty string.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pytest_chunkeval.commands.golden.text import STOPWORDS

#: Words that make a sentence a question or a request but say nothing about the code searched for.
QUESTION_WORDS = frozenset("""
    how what which where when why who whom whose does do did is are was were can could should would will
    i you we my our your me us there here find show tell explain happens happen way ways code function functions
    used use uses using implemented implement handled handle handles done make makes made like about between
    both also only just via per whether someone something without after before instead their them they
    want need particular own
""".split())  # noqa: SIM905 - a word list reads better as words

#: Language keywords and ubiquitous built-ins: present in any code, so they identify nothing.
CODE_KEYWORDS = frozenset("""
    if else elif for while do return returns def class func function fn struct interface type enum trait impl
    module package import from export const let var val new delete try catch except finally throw throws raise
    with as in is not and or true false null nil none None True False self this super void public private
    protected static final async await yield lambda switch case default break continue goto pass end begin then
    int str string bool float double char long short byte list dict map set len print println printf echo
    require include use using namespace extends implements override virtual abstract sizeof typeof instanceof
    where select insert update into values create table alter drop order group by having limit join on
    range sum min max pop append extend get keys items format split push length size isinstance iter next
    open read write close toString equals hashCode
""".split())  # noqa: SIM905 - a word list reads better as words

_COMMENT_LINE = re.compile(r"^\s*(?://|#(?!include|define|if|pragma)|--|/\*|\*|;|%|<!--)")
_TRAILING_COMMENT = re.compile(r"\s(?://|#|--)\s.*$")
_STRING = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`[^`\n]*`")
_DECLARED = re.compile(
    r"\b(?:def|class|func|function|fn|struct|interface|type|enum|trait|module|macro|record|object|protocol|sub|"
    r"proc|procedure|message|service|TABLE|table|VIEW|FUNCTION)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
)
_CALLED = re.compile(r"([A-Za-z_$][\w$]*)\s*\(")
_ASSIGNED = re.compile(r"^\s*(?:(?:const|let|var|val|my|local)\s+)?([A-Za-z_$][\w$]*)\s*(?::=|=(?!=))", re.MULTILINE)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_QUERY_TOKEN = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*(?:\(\))?")


@dataclass(frozen=True)
class KeywordOptions:
    """How terse a keyword query is: at most ``max_tokens`` in all, of which ``max_identifiers`` come from the code
    (one more when the sentence has fewer than two content terms, so a query is rarely under three tokens)."""

    max_query_terms: int = 4
    max_identifiers: int = 2
    max_tokens: int = 6


def looks_like_identifier(token: str) -> bool:
    """``snake_case``, ``camelCase``, ``CONSTANT``, ``a.b``, ``x::y``, ``f()`` or a word with digits: a name a
    person copies from code, which a search box should get exactly as written."""
    core = token.removesuffix("()")
    return bool(
        token.endswith("()") or "_" in core or "." in core or "::" in core or "$" in core
        or re.search(r"\d", core) or re.search(r"[a-z][A-Z]", core) or (len(core) >= 2 and core.isupper())
    )


def query_terms(query: str, max_terms: int = KeywordOptions.max_query_terms) -> list[str]:
    """The sentence's content terms in their order: identifiers as written, other words lower-cased, stopwords,
    question words and words under three letters dropped, duplicates (ignoring case) kept once. When there are
    more than ``max_terms``, identifiers and then longer words are kept (ties: the earlier word)."""
    seen: set[str] = set()
    terms: list[str] = []
    for raw in _QUERY_TOKEN.findall(query):
        ident = looks_like_identifier(raw)
        term = raw.removesuffix("()") if ident else raw.lower()
        low = term.lower()
        if low in seen or (not ident and (low in STOPWORDS or low in QUESTION_WORDS or len(low) < 3)):
            continue
        seen.add(low)
        terms.append(term)
    if len(terms) <= max_terms:
        return terms
    ranked = sorted(range(len(terms)), key=lambda i: (not looks_like_identifier(terms[i]), -len(terms[i]), i))
    keep = set(ranked[:max_terms])
    return [t for i, t in enumerate(terms) if i in keep]


def code_only(text: str) -> str:
    """``text`` without comment lines, trailing comments and string literals (each replaced by a space): prose
    in code is not an identifier a person would type."""
    out = []
    for line in text.split("\n"):
        if _COMMENT_LINE.match(line):
            out.append("")
            continue
        out.append(_TRAILING_COMMENT.sub("", _STRING.sub(" ", line)))
    return "\n".join(out)


def _usable(name: str) -> bool:
    return len(name) >= 3 and name not in CODE_KEYWORDS and name.lower() not in CODE_KEYWORDS \
        and not name.strip("_$").isdigit()


def code_identifiers(text: str) -> tuple[list[str], list[str]]:
    """Names in ``text`` as (declared, used), each in order of first appearance and without repeats; a declared
    name is not repeated among the used ones. Declared: the name after ``def``/``func``/``class``/``type`` ...;
    used: names called (``name(``) or assigned at the start of a line (``name =``, ``x := ...``)."""
    code = code_only(text)
    declared = list(dict.fromkeys(n for n in _DECLARED.findall(code) if _usable(n)))
    used_hits = sorted(
        [(m.start(1), m.group(1)) for m in _CALLED.finditer(code)]
        + [(m.start(1), m.group(1)) for m in _ASSIGNED.finditer(code)]
    )
    taken = set(declared)
    used = list(dict.fromkeys(n for _, n in used_hits if _usable(n) and n not in taken))
    return declared, used


def document_frequency(texts: Iterable[str]) -> Counter[str]:
    """In how many of ``texts`` each identifier occurs (comments and strings ignored): how rare a name is, so the
    keyword query carries the names that single out its code rather than ones every file uses."""
    df: Counter[str] = Counter()
    for text in texts:
        df.update(set(_IDENT.findall(code_only(text))))
    return df


def keyword_query(query: str, spans: Sequence[str], frequency: Mapping[str, int] | None = None,
                  options: KeywordOptions | None = None) -> str:
    """The keyword phrasing of ``query`` whose relevant code is ``spans`` (the callers pass the spans of the
    highest grade: the names a person remembers are those of the code they want most), with identifier
    rarity from ``frequency`` (:func:`document_frequency` of the corpus; without it, every name counts as
    equally rare and first appearance decides). Tokens are joined by single spaces; never empty."""
    opts = options or KeywordOptions()
    terms = query_terms(query, opts.max_query_terms)
    taken = {t.lower() for t in terms}
    df = frequency or {}
    declared: list[tuple[int, int, str]] = []
    used: list[tuple[int, int, str]] = []
    order = 0
    for span in spans:
        d, u = code_identifiers(span)
        for group, names in ((declared, d), (used, u)):
            for name in names:
                group.append((df.get(name, 0), order, name))
                order += 1
    budget = opts.max_identifiers + (1 if len(terms) < 2 and opts.max_identifiers else 0)  # 0: terms only
    budget = max(0, min(budget, opts.max_tokens - len(terms)))
    idents: list[str] = []
    for _, _, name in sorted(declared) + sorted(used):
        if len(idents) >= budget:
            break
        if name.lower() not in taken:
            taken.add(name.lower())
            idents.append(name)
    tokens = (terms + idents)[: opts.max_tokens]
    if not tokens:  # a sentence of stopwords over code with no usable name: its own first words, as typed
        tokens = query.split()[: max(1, min(3, opts.max_tokens))]
    return " ".join(tokens)
