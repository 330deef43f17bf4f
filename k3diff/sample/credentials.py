"""A URL's user:password kept out of everything k3diff writes: the log header (`servers`, the
recorded `command`, each side's `metrics` URL, `flush_url`), triage's and the bundle's
sentences about one server, and `sample`'s notes and summary (review71c: `--base
http://user:pw@host` was written into the log's header and repeated by triage, its JSON
document and the bundle; only a proxy URL's were hidden). The requests themselves still carry
them: only what is written is redacted, and `--resume` compares the redacted header."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

HIDDEN = "***"
"""What a URL's user:password is written as."""


def redacted_url(url: str) -> str:
    """`url` with any user:password replaced by `***` (`http://***@host:8000`); any other
    string as it is."""
    if "@" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=f"{HIDDEN}@{parts.netloc.rpartition('@')[2]}"))


URL_FIELDS = frozenset({"servers", "command", "metrics", "flush_url", "proxy"})
"""The header's `run` fields that name a server's URL (the request fields, prompts and
templates are written as sent)."""


def redacted_run(run: Mapping[str, Any]) -> dict[str, Any]:
    """A header's `run` object with every URL in `URL_FIELDS` redacted."""
    return {name: redacted(value) if name in URL_FIELDS else value for name, value in run.items()}


def redacted(value: Any) -> Any:
    """`value` (JSON-like) with every URL string in it redacted."""
    if isinstance(value, str):
        return redacted_url(value)
    if isinstance(value, dict):
        return {name: redacted(item) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return [redacted(item) for item in value]
    return value
