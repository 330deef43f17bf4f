"""A URL's user:password kept out of everything k3diff writes: the log header (`servers`, the
recorded `command`, each side's `metrics` URL, `flush_url`), triage's and the bundle's
sentences about one server, and `sample`'s notes and summary (review71c: `--base
http://user:pw@host` was written into the log's header and repeated by triage, its JSON
document and the bundle; only a proxy URL's were hidden). The requests themselves still carry
them: only what is written is redacted, and `--resume` compares the redacted header."""

from __future__ import annotations

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


def redacted(value: Any) -> Any:
    """`value` (a header's `run` object, JSON-like) with every URL in it redacted."""
    if isinstance(value, str):
        return redacted_url(value)
    if isinstance(value, dict):
        return {name: redacted(item) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return [redacted(item) for item in value]
    return value
