"""A `ResponseRecord` as a plain tuple: what the spill file stores (`marshal` takes plain
values) and what the fast reader (`fastshape`) builds and the identical-pair check
(`matchpair`) reads without building the dataclass.

The tuple holds the record's fields in dataclass order, the token ids as the bytes of their
int64 array, a logprob trace as (tokens, logprobs bytes, top, top_k, not_given) and lm-eval parts as
their field tuple. The index constants name each field's position.
"""

from __future__ import annotations

from array import array
from dataclasses import astuple, fields
from operator import attrgetter
from typing import Any

from k3diff.responses.model import TOKEN_ID_TYPECODE, LmEvalParts, LogprobTrace, ResponseRecord

Packed = tuple[Any, ...]
"""A record as `pack` makes it."""

FIELDS = tuple(f.name for f in fields(ResponseRecord))
"""The record's field names in dataclass (and tuple) order."""
_GET_FIELDS = attrgetter(*FIELDS)

LINE = FIELDS.index("line")
ID = FIELDS.index("id")
KEY = FIELDS.index("key")
PROMPT = FIELDS.index("prompt_digest")
REQUEST = FIELDS.index("request_digest")
CLIENT_KEY = FIELDS.index("client_key")
CLIENT_FIELD = FIELDS.index("client_key_field")
CHOICE = FIELDS.index("choice")
INDEX = FIELDS.index("index")
PREVIEW = FIELDS.index("prompt_preview")
TEXT = FIELDS.index("text")
TOKEN_IDS = FIELDS.index("token_ids")
LOGPROBS = FIELDS.index("logprobs")
FINISH = FIELDS.index("finish_reason")
USAGE = FIELDS.index("usage")
FINGERPRINT = FIELDS.index("fingerprint")
OTHER = FIELDS.index("other")
ERROR = FIELDS.index("error")
RUN_STATE = FIELDS.index("run_state")
LM_EVAL = FIELDS.index("lm_eval")
SCORES = FIELDS.index("scores")
MEMBER = FIELDS.index("member")
LABEL = FIELDS.index("label")
CONDITION = FIELDS.index("condition")
MODEL = FIELDS.index("model")
BEAMS = FIELDS.index("beams")


def pack(record: ResponseRecord) -> Packed:
    """The record's fields in dataclass order, arrays as bytes (marshal takes plain values)."""
    packed = list(_GET_FIELDS(record))
    ids = record.token_ids
    packed[TOKEN_IDS] = None if ids is None else ids.tobytes()
    trace = record.logprobs
    packed[LOGPROBS] = None if trace is None else pack_trace(trace)
    lm_eval = record.lm_eval
    packed[LM_EVAL] = None if lm_eval is None else astuple(lm_eval)
    return tuple(packed)


def unpack(packed: Packed) -> ResponseRecord:
    """The record `pack` made `packed` from."""
    values = list(packed)
    ids = values[TOKEN_IDS]
    values[TOKEN_IDS] = None if ids is None else _array(TOKEN_ID_TYPECODE, ids)
    trace = values[LOGPROBS]
    values[LOGPROBS] = None if trace is None else _unpack_trace(trace)
    lm_eval = values[LM_EVAL]
    values[LM_EVAL] = None if lm_eval is None else LmEvalParts(*lm_eval)
    return ResponseRecord(*values)  # positional, in field order: faster than keywords


def pack_trace(trace: LogprobTrace) -> Packed:
    """A logprob trace as plain values."""
    return (trace.tokens, trace.logprobs.tobytes(), trace.top, trace.top_k, trace.not_given)


def _unpack_trace(packed: Packed) -> LogprobTrace:
    tokens, logprobs, top, top_k, not_given = packed
    return LogprobTrace(tokens, _array("d", logprobs), top, top_k, not_given)


def _array(typecode: str, data: bytes) -> array[Any]:
    values = array(typecode)
    values.frombytes(data)
    return values


def location(packed: Packed, display: str) -> str:
    """`ResponseRecord.location` of a packed record."""
    member = packed[MEMBER]
    if member is not None:
        return f"{display}:{member}"
    where = f"{display}:{packed[LINE]}"
    index = packed[INDEX]
    return where if index is None else f"{where}[{index}]"
