"""A secret taken out of every text before it is shown: the GitHub token of ``chunkeval comment``, the API key of a
remote embedder.

Shown anywhere (a log line, an error a server quoted back, a report) a secret leaks, so :class:`Redactor` takes it out
whatever quoted it: the secret as it is, as ``repr``, JSON, a URL or HTML escape it (``\\"``, ``%2F``, ``&amp;``), in
any case (a host name is lower-cased), any run of 12 of its characters (a server that cut its own message short), and
a ``Bearer``/``token`` followed by its start. Core, so both the command (plugin layer) and the embedder (retrieval
layer) use the one rule.
"""
from __future__ import annotations

import html
import json
import re
import urllib.parse
from dataclasses import dataclass

MASK = "***"  # as GitHub Actions masks a secret in a log
FRAGMENT = 12  # a run of this many of the token's characters is the token (fewer in a shorter token: all of it)
PREFIX = 4  # after "Bearer " or "token ", this many of the token's first characters are the token
_CREDENTIAL = re.compile(r"(?i)\b(bearer|token)(\s+|\s*[=:]\s*)([^\s'\",;)}\]]+)")


def _fold(text: str) -> str:
    """``text`` lower-cased character by character, so that positions in it are positions in ``text``."""
    return "".join(low if len(low := c.lower()) == 1 else c for c in text)


@dataclass(frozen=True)
class Redactor:
    """Takes one token out of texts. Made with :meth:`of`; a redactor of no token changes nothing."""

    forms: tuple[str, ...] = ()  # lower-cased, longest first
    pieces: frozenset[str] = frozenset()  # every run of ``size`` characters of each form, lower-cased
    size: int = 0

    @classmethod
    def of(cls, token: str) -> Redactor:
        """A redactor of ``token`` as given and as :func:`clean_token` leaves it."""
        tokens = {t for t in (token, token.strip()) if t}
        forms: set[str] = set()
        for t in tokens:
            forms |= {t, repr(t)[1:-1], json.dumps(t)[1:-1], json.dumps(t, ensure_ascii=False)[1:-1],
                      json.dumps(t)[1:-1].replace("/", "\\/"), urllib.parse.quote(t, safe=""),
                      urllib.parse.quote_plus(t, safe=""), html.escape(t), repr(t.encode("utf-8", "replace"))[2:-1]}
        folded = sorted({_fold(f) for f in forms if f}, key=len, reverse=True)
        if not folded:
            return cls()
        size = min(FRAGMENT, min(map(len, folded)))
        pieces = frozenset(f[i:i + size] for f in folded for i in range(len(f) - size + 1))
        return cls(tuple(folded), pieces, size)

    def __call__(self, text: str) -> str:
        """``text`` with every trace of the token replaced by :data:`MASK`."""
        if not self.forms or not text:
            return text
        folded = _fold(text)
        hidden = [False] * len(text)

        def hide(start: int, end: int) -> None:
            hidden[start:end] = [True] * (end - start)

        for form in self.forms:
            start = folded.find(form)
            while start >= 0:
                hide(start, start + len(form))
                start = folded.find(form, start + 1)
        for i in range(len(folded) - self.size + 1):
            if folded[i:i + self.size] in self.pieces:
                hide(i, i + self.size)
        for match in _CREDENTIAL.finditer(folded):
            start = match.start(3)
            hide(start, start + max(self._start(match.group(3), form) for form in self.forms))
        out, i = [], 0
        while i < len(text):
            if hidden[i]:
                while i < len(text) and hidden[i]:
                    i += 1
                out.append(MASK)
            else:
                out.append(text[i])
                i += 1
        return "".join(out)

    @staticmethod
    def _start(value: str, form: str) -> int:
        """How many of the first characters of ``value`` (a word after ``Bearer`` or ``token``) are the token's:
        the token, or the start of it that a server cut off, over at least :data:`PREFIX` characters (all of a
        shorter token); else 0."""
        common = 0
        while common < min(len(value), len(form)) and value[common] == form[common]:
            common += 1
        return common if common >= min(PREFIX, len(form)) else 0
