"""The token of ``chunkeval comment``: checked once, and taken out of every text before it is shown.

A token pasted with a trailing newline would reach ``http.client``, whose error quotes the header it refused
(``Invalid header value b'Bearer ghp_…\\n'``); a server may quote the request in its error (``Validation Failed for
Bearer ghp_…``) or answer a page that is not JSON with the request in it. So:

* :func:`clean_token` strips the white space around a token (a copy-paste's newline or carriage return) and refuses
  one that still holds a character no token has, in a message that never shows it;
* :class:`Redactor` (:mod:`pytest_chunkeval.core.redact`, shared with the remote embedder's key) takes the token out of
  a text, whatever quoted it. The command (:mod:`.cli`) passes every line and file it writes through one, and the
  client (:mod:`.api`) every text it quotes from an answer or an exception, before cutting it short (a cut could
  leave a piece of the token that no later look would recognise).
"""
from __future__ import annotations

from pytest_chunkeval.core.redact import MASK, Redactor

__all__ = ["MASK", "Redactor", "TokenError", "clean_token"]


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
