"""The one normalised record every loader produces, whatever the input format looked like.

Records keep only what the comparison needs: the text, token ids and a compact logprob trace,
small structured fields, and the rest of the raw record as canonical JSON. Giant raw objects
(documents, prompt logprobs, full prompts) are never held; a comparison holds two records at a
time (see `k3diff.responses.spill`).
"""

from __future__ import annotations

import sys
from array import array
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import xxhash

TOKEN_ID_TYPECODE = "q"
"""Token ids are stored as signed 64-bit integers (8 bytes each, not a Python int object each)."""


class Normalization(StrEnum):
    """Text normalisations a user may ask for with `--normalize`; each is reported, never silent."""

    NFC = "nfc"
    """Unicode normalisation form C (composed characters)."""
    TRAILING_WHITESPACE = "trailing-whitespace"
    """Whitespace at the end of every line and at the end of the text is removed."""


@dataclass(frozen=True)
class LoadOptions:
    """What loaders need to know beyond the file itself."""

    key_path: tuple[str, ...] | None = None
    """`--key` split on dots, evaluated against each raw record; None when not given."""
    include_volatile: bool = False
    """Keep ids, timestamps, latency and fingerprints among the compared fields."""


@dataclass(frozen=True, slots=True)
class LogprobTrace:
    """Per-token log-probabilities of one response, in parallel compact arrays."""

    tokens: tuple[str, ...]
    """The sampled token strings in order (interned: a vocabulary repeats)."""
    logprobs: array[float]
    """Log-probability of each sampled token."""
    top1_tokens: tuple[str | None, ...]
    """The most likely alternative at each position (often the sampled token), None if unknown."""
    top1_logprobs: array[float]
    """Its log-probability, NaN if unknown."""
    top2_tokens: tuple[str | None, ...]
    """The second most likely alternative at each position, None if fewer than two were given."""
    top2_logprobs: array[float]
    """Its log-probability, NaN if unknown."""
    top_k: int
    """The largest number of alternatives offered at any position (the request's top_logprobs)."""

    def shape(self) -> dict[str, int]:
        """What a structural comparison looks at: how many tokens, how many alternatives."""
        return {"tokens": len(self.tokens), "top_k": self.top_k}


@dataclass(frozen=True, slots=True)
class ResponseRecord:
    """One captured response, normalised from any supported format."""

    line: int
    """1-based line in the file where the record starts."""
    id: str | None
    """The record's own identifier (record id, custom_id, lm-eval doc_id, response id)."""
    key: str | None
    """The value of `--key` for this record, when `--key` was given."""
    prompt_digest: str | None
    """xxh3-128 (hex) of the prompt (a string, or canonical JSON of chat messages)."""
    prompt_preview: str | None
    """The first characters of the prompt, on one line, for reports."""
    text: str
    """The generated text exactly as captured."""
    token_ids: array[int] | None
    """Generated token ids when the server returned them."""
    logprobs: LogprobTrace | None
    """Per-token log-probabilities when the server returned them."""
    finish_reason: str | None
    """Why generation stopped (stop, length, ...)."""
    usage: dict[str, Any] | None
    """Token accounting reported by the server."""
    fingerprint: str | None
    """system_fingerprint or similar backend identifier."""
    other: str
    """The rest of the raw record as canonical JSON (volatile fields removed unless asked)."""
    error: str | None = None
    """The server's error message when the request failed (then `text` is empty)."""


def token_ids_digest(token_ids: array[int]) -> str:
    """xxh3-128 (hex) of token ids encoded as little-endian signed 64-bit integers."""
    if sys.byteorder == "big":
        token_ids = array(TOKEN_ID_TYPECODE, token_ids)
        token_ids.byteswap()
    return str(xxhash.xxh3_128_hexdigest(token_ids.tobytes()))


def text_digest(text: str) -> str:
    """xxh3-128 (hex) of the UTF-8 bytes of a text (lone surrogates kept via surrogatepass)."""
    return str(xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass")))


@dataclass(frozen=True)
class LoadedSide:
    """All records of one input file, in file order."""

    display: str
    """The path as the user gave it."""
    format: str
    """Name of the loader that read it (sse, json-array, document, lm-eval, jsonl)."""
    records: list[ResponseRecord]
    """The normalised records."""

    def where(self, record: ResponseRecord) -> str:
        """`file:line` of a record, for messages and reports."""
        return f"{self.display}:{record.line}"
