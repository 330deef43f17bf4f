"""The one normalised record every loader produces, whatever the input format looked like.

Records keep only what the comparison needs: the text, token ids and a compact logprob trace,
small structured fields, and the rest of the raw record as canonical JSON. Giant raw objects
(documents, prompt logprobs, full prompts) are never held; a comparison holds two records at a
time (see `k3diff.responses.spill`).
"""

from __future__ import annotations

import math
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
    """Keep ids, timestamps and fingerprints among the compared fields."""
    text_field: tuple[str, ...] | None = None
    """`--text-field`: where the text is in each raw record (dotted path, list indexes)."""
    tokens_field: tuple[str, ...] | None = None
    """`--tokens-field`: where the token ids are in each raw record."""
    beam: int = 0
    """`--beam`: which beam of a TensorRT-LLM record (list-valued `text`/`output_ids`) is read."""
    lm_eval_field: str = "resps"
    """`--lm-eval-field`: compare lm-eval's raw `resps` or its `filtered_resps`."""
    ignore_fields: tuple[tuple[str, ...], ...] = ()
    """`--ignore-field`: compared fields dropped from every record (`k3diff.responses.ignore`)."""


ItemScore = tuple[str, str | None, float]
"""One eval score of one item: (metric, group, value). The group is lm-eval's filter (None when
the log names none or `none`); the value is a number (binary metrics are 0/1)."""

MAX_SCORE_MAGNITUDE = 1e100
"""A score past this magnitude is no score: the paired tests sum and subtract scores, and
a difference or mean of values near float's range would be infinite (written as no JSON
number)."""


def score_number(value: object) -> float | None:
    """A score value as a float, or None for what is no usable score: not a number, NaN,
    infinite, an integer past float's range, or past `MAX_SCORE_MAGNITUDE`."""
    if isinstance(value, bool):
        return float(value)
    if not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) and abs(number) <= MAX_SCORE_MAGNITUDE else None


Alternatives = tuple[tuple[str, float], ...]
"""The alternatives offered at one position, most likely first: (token, logprob)."""


@dataclass(frozen=True, slots=True)
class LogprobTrace:
    """Per-token log-probabilities of one response, in parallel compact arrays."""

    tokens: tuple[str, ...]
    """The sampled token strings in order (interned: a vocabulary repeats)."""
    logprobs: array[float]
    """Log-probability of each sampled token (NaN where the server gave none)."""
    top: tuple[Alternatives, ...]
    """The alternatives at each position, most likely first (empty where none were given)."""
    top_k: int
    """The largest number of alternatives offered at any position (the request's top_logprobs)."""
    not_given: int = 0
    """Positions whose sampled token the server gave no logprob (null)."""

    def shape(self) -> dict[str, int]:
        """What a structural comparison looks at: how many tokens, how many alternatives, and
        how many positions have no logprob where any has none (review64: a patch giving null
        for every logprob the base gave matched, exit 0: each position was skipped as not
        given, and no shape told them apart)."""
        shape = {"tokens": len(self.tokens), "top_k": self.top_k}
        if self.not_given:
            shape["not_given"] = self.not_given
        return shape


@dataclass(frozen=True, slots=True)
class ResponseRecord:
    """One captured response, normalised from any supported format."""

    line: int
    """1-based line in the file where the record starts."""
    id: str | None
    """The record's own identifier (a record id, or the id a server gave its response)."""
    key: str | None
    """The value of `--key` for this record, when `--key` was given."""
    prompt_digest: str | None
    """xxh3-128 (hex) of the prompt (a string, or canonical JSON of chat messages)."""
    request_digest: str | None
    """xxh3-128 (hex) of the whole request (prompt and parameters), when the record holds it."""
    client_key: str | None
    """The key the client gave the request (top-level `key`, `custom_id` or `request_id`)."""
    client_key_field: str | None
    """Which field `client_key` came from."""
    choice: int | None
    """The choice's index when the response held several (n > 1); None for a single one."""
    index: int | None
    """Position of the record in a JSON array written on one line (then `line` says little)."""
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
    run_state: dict[str, Any] | None = None
    """Evidence about the run rather than the output: cache hits, latency, server timing."""
    lm_eval: LmEvalParts | None = None
    """What an lm-evaluation-harness sample adds (every generation, choices, metrics)."""
    scores: tuple[ItemScore, ...] = ()
    """The item's eval scores (lm-eval per-doc metrics, inspect_ai scores) as numbers, compared
    as paired data across all items (`k3diff.responses.scores`)."""
    member: str | None = None
    """Where the record is inside its file when a line number says nothing: an archive member
    (`samples/3_epoch_1.json` of an inspect_ai `.eval` log) or a list item (`samples[3]`)."""
    label: str | None = None
    """How the user names this record: `--key`'s value, a client key (`key`, `custom_id`,
    `request_id`), lm-eval's doc id, or the record's own top-level `id` when the record is not a
    server's response object (whose ids are per run); None when it carries none."""
    condition: str | None = None
    """The request's condition as far as the record shows it, canonical JSON of `route`
    (chat / completions, from the response's shape), `stream` (from the request, or an SSE
    transcript), `params` (the request's fields but prompt, model and stream) and `complete`
    (the record holds its whole request body, so an absent field was not sent); None when the
    record shows none of it."""
    model: str | None = None
    """The model the server said it answered as (the response's `model`; a stream's first chunk
    naming one), None when the record names none: triage holds samples to it."""
    beams: int | None = None
    """How many beams the record held (a TensorRT-LLM record, of which `--beam` read one), None
    where its shape has no beams: the output says how many records held beams not compared."""

    def location(self, display: str) -> str:
        """`file:line` (or `file:line[index]` inside a one-line JSON array, `file:member` inside
        an archive or a log's list)."""
        if self.member is not None:
            return f"{display}:{self.member}"
        where = f"{display}:{self.line}"
        return where if self.index is None else f"{where}[{self.index}]"


@dataclass(frozen=True, slots=True)
class LmEvalParts:
    """One lm-evaluation-harness sample as lm-eval means it."""

    doc_id: str
    """The document's id (one doc has one record per filter)."""
    filter: str | None
    """The filter the sample's metrics were computed under (None in 0.4.0-0.4.2 logs)."""
    field: str
    """Which field the generations were read from: `resps` or `filtered_resps`."""
    generations: tuple[str, ...]
    """Every generation of the doc (repeats), in order; empty for loglikelihood tasks."""
    loglikelihoods: tuple[tuple[float, bool | None], ...]
    """Per choice (loglikelihood, is_greedy) for loglikelihood tasks; empty for generation."""
    prompt_hash: str | None
    """lm-eval's own `prompt_hash` (0.4.3 and later), None in older logs."""
    arguments_digest: str | None
    """xxh3-128 of every request's arguments (context, continuation or generation kwargs)."""
    metrics: tuple[tuple[str, Any], ...]
    """The per-doc metrics (exact_match, acc, ...) as (name, value), in the log's order."""
    inputs: tuple[tuple[str, str | None, str], ...] = ()
    """The eval's other inputs, `target` and `doc`, as (name, value digest, lm-eval hash): the
    value's xxh3-128 (None: the line holds only lm-eval's hash), and lm-eval's SHA-256 of it,
    computed from the value where the line holds it, else the line's `target_hash`/`doc_hash`;
    absent when the line holds neither. Plain tuples: a packed record is `astuple`d."""
    grouping: tuple[int, ...] | None = None
    """How many responses each request of the compared field holds (what the harness scored:
    one request's several answers, or several requests')."""
    context_hash: str | None = None
    """The first request's context hashed as lm-eval hashes it into `prompt_hash` (None: the
    line holds no context as text)."""


def record_label(*records: ResponseRecord) -> str | None:
    """How reports name a record: the user's own identifier when the records agree on it, else
    the prompt's first characters (with the choice's `#i`), else None (the key names it)."""
    labels = {record.label for record in records if record.label is not None}
    if len(labels) == 1:
        return labels.pop()
    # Two labels for one pair are per-run ids, not names: the prompt names it instead.
    for record in records:
        if record.prompt_preview is not None:
            if record.choice is None:
                return record.prompt_preview
            return f"{record.prompt_preview} #{record.choice}"
    return None


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
        return record.location(self.display)
