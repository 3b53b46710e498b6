"""The token of ``chunkeval comment``: checked once, and taken out of every text before it is shown.

A token pasted with a trailing newline used to reach ``http.client``, whose error quotes the header it refused
(``Invalid header value b'Bearer ghp_…\\n'``); a server may quote the request in its error (``Validation Failed for
Bearer ghp_…``) or answer a page that is not JSON with the request in it. So:

* :func:`clean_token` strips the white space around a token (a copy-paste's newline or carriage return) and refuses
  one that still holds a character no token has, in a message that never shows it;
* :class:`Redactor` takes the token out of a text, whatever quoted it: the token as it is, as ``repr``, JSON, a URL
  or HTML escape it (``\\"``, ``%2F``, ``&amp;``), in any case (a host name is lower-cased), any run of 12 of its
  characters (a server that cut its own message short), and a ``Bearer``/``token`` followed by its start. The
  command (:mod:`.cli`) passes every line and file it writes through one, and the client (:mod:`.api`) every text it
  quotes from an answer or an exception, before cutting it short (a cut could leave a piece of the token that no
  later look would recognise).
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


class TokenError(ValueError):
    """A token that cannot be sent; the message never shows it."""


def clean_token(raw: str) -> str:
    """``raw`` without the white space around it; :class:`TokenError` when what is left holds a character that no
    token has (a control character, white space, anything outside printable ASCII): a header would refuse it, or
    send what the user did not mean. An empty result is for the caller to name."""
    token = raw.strip()
    if any(not "\x21" <= c <= "\x7e" for c in token):
        raise TokenError("the token (GITHUB_TOKEN) holds a character that no token has (a control character, a "
                         "space inside it, or a character outside printable ASCII): set it again as GitHub shows it")
    return token


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
