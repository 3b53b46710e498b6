"""Where the index tables live: a local folder or any LanceDB URI, with the storage options it needs, kept secret.

LanceDB reaches object stores itself (``s3://``, ``gs://``, ``az://``; LanceDB Cloud ``db://``) and reads the
standard variables of each (``AWS_ACCESS_KEY_ID``, ``AWS_ENDPOINT``, ``GOOGLE_SERVICE_ACCOUNT``, ``AZURE_STORAGE_...``,
``LANCEDB_API_KEY``), so a URI alone is often enough. Anything else comes from ini ``chunkeval_storage_options``,
one ``key=value`` per line (LanceDB's own option names, e.g. ``aws_endpoint``, ``allow_http``, ``aws_region``), where
``${NAME}`` takes a value from the environment so that no secret has to sit in a committed file.

Secrets are never printed: :class:`StorageOptions` shows only its keys and the values of keys that cannot hold a
secret, a URI is shown without user info or query (:func:`redact_uri`), and :func:`scrub` removes every option value
from a message before it reaches the terminal or the report.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

#: A key holding one of these words is treated as a secret: its value is never shown.
SECRET_WORDS = ("key", "secret", "token", "password", "sas", "credential", "signature")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: LanceDB Cloud (``db://``) takes these as arguments of ``connect``, not as storage options.
CLOUD_ARGUMENTS = ("api_key", "region", "host_override")


def is_local(uri: str) -> bool:
    """A folder on this machine (a plain path or ``file://``), as opposed to an object store or LanceDB Cloud."""
    return "://" not in uri or uri.startswith("file://")


def is_secret(key: str) -> bool:
    """Whether ``key`` may hold a secret (by its name: unknown keys that name one are hidden too)."""
    lowered = key.lower()
    return any(word in lowered for word in SECRET_WORDS)


def redact_uri(uri: str) -> str:
    """``uri`` without user info, query or fragment: what may be printed of a URI that could carry a credential."""
    if is_local(uri):
        return uri
    parts = urlsplit(uri)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class StorageOptions(Mapping[str, str]):
    """LanceDB storage options whose ``repr`` and :meth:`describe` never show a secret value.

    A mapping (LanceDB takes it as ``storage_options``), so nothing but printing behaves differently from a dict;
    its repr is redacted because pytest prints objects in tracebacks (``--showlocals``) and in assertion messages.
    """

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        self._values = {str(k).strip().lower(): str(v) for k, v in (values or {}).items()}

    def __getitem__(self, key: str) -> str:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def describe(self) -> str:
        """``key=value`` (a URL value without user info or query), ``key=***`` for secret keys; '' when empty."""
        shown = []
        for key, value in sorted(self._values.items()):
            shown.append(f"{key}={'***' if is_secret(key) else redact_uri(value)}")
        return ", ".join(shown)

    def __repr__(self) -> str:
        return f"StorageOptions({self.describe()})"

    def as_environment(self) -> dict[str, str]:
        """The same settings as environment variables (upper-case keys, which LanceDB reads as it reads the
        lower-case options): how they reach a subprocess without appearing on its command line."""
        return {key.upper(): value for key, value in self._values.items()}

    def connect_arguments(self, uri: str) -> dict[str, Any]:
        """Keyword arguments of ``lancedb.connect`` for ``uri``: LanceDB Cloud takes its key, region and host as
        arguments of their own; every other store takes all of them as ``storage_options``."""
        if uri.startswith("db://"):
            args: dict[str, Any] = {k: v for k, v in self._values.items() if k in CLOUD_ARGUMENTS}
            rest = {k: v for k, v in self._values.items() if k not in CLOUD_ARGUMENTS}
            if rest:
                args["storage_options"] = rest
            return args
        return {"storage_options": dict(self._values)} if self._values else {}

    def scrub(self, text: str) -> str:
        """``text`` with every value of a secret key replaced by ``***`` (longest first, so no part is left)."""
        for value in sorted((v for k, v in self._values.items() if is_secret(k) and v), key=len, reverse=True):
            text = text.replace(value, "***")
        return text


def parse_storage_options(lines: list[str], environ: Mapping[str, str] | None = None) -> StorageOptions:
    """``key=value`` lines (ini ``chunkeval_storage_options``) as :class:`StorageOptions`, ``${NAME}`` taken from
    the environment. Raises ``ValueError`` naming the line or the variable, never a value."""
    env = os.environ if environ is None else environ
    values: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"ini chunkeval_storage_options line {number}: expected key=value, got a line without "
                             f"'=' (its text is not shown: it may hold a secret)")

        def var(match: re.Match[str], key: str = key) -> str:
            name = match.group(1)
            if name not in env:
                raise ValueError(f"ini chunkeval_storage_options: {key} reads ${{{name}}}, which is not set")
            return env[name]

        values[key.lower()] = _VAR.sub(var, value.strip())
    return StorageOptions(values)


def connect(uri: str, options: StorageOptions) -> Any:
    """A LanceDB connection to ``uri``; a local folder is created first."""
    import lancedb

    if is_local(uri):
        from pathlib import Path

        Path(uri.removeprefix("file://")).mkdir(parents=True, exist_ok=True)
    return lancedb.connect(uri, **options.connect_arguments(uri))
