"""Fast path: a raw OpenAI completion or chat-completion object straight to its packed record.

The general reader (`shapes.records_from_raw`, then `assemble.make_record`) asks each shape in
turn whether it claims the record, copies the object without the fields it took, sorts every
remaining field into compared, volatile or run state by its name, and encodes the compared rest
as canonical JSON. For the common capture (every line an OpenAI completion or chat-completion
object with one choice, all laid out alike) every one of those decisions depends only on the
record's layout: which keys the object, its choice, the choice's message and its usage hold.
`FastReader` makes them once per layout (`_Layout`) and builds the record as the tuple the spill
stores (`k3diff.responses.packed`), without `Parts` nor `ResponseRecord`; the canonical JSON of
the compared fields is reused while their values repeat (model, object, stop_reason, ...).

Whatever it does not handle it hands back (`pack` returns None) and the general reader reads
the record: several choices, an error or wrapped record, prompt token ids, chat content in
parts, a field of the wrong type (the general reader words the error), `--text-field` and
`--tokens-field`. Tests check that both give the same record.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from k3diff.errors import ResponseFormatError
from k3diff.responses.assemble import client_key_of, preview, route_condition, scalar_text
from k3diff.responses.logprobs import parse_logprobs
from k3diff.responses.model import LoadOptions, text_digest
from k3diff.responses.packed import Packed, pack_trace
from k3diff.responses.parts import CLIENT_KEY_FIELDS, MISSING, canonical, lookup
from k3diff.responses.runstate import (
    RUN_STATE,
    VOLATILE,
    drop_in_list,
    field_kind,
    split_fields,
)
from k3diff.responses.tokenbytes import token_id_bytes

TAKEN_TOP = frozenset({"choices", "usage", "system_fingerprint", "prompt_logprobs"})
"""Top-level fields the OpenAI shapes take out of the compared rest (`shapes._openai_parts`)."""
TAKEN_CHOICE = frozenset({"text", "message", "logprobs", "token_ids", "finish_reason", "index"})
"""Fields of the choice they take out."""
NOT_FAST = frozenset({"error", "response", "choice", "prompt_token_ids"})
"""Top-level fields that send a record to the general reader (error and wrapped shapes, a
`choice` the rest would overwrite, prompt token ids replaced by their digest)."""
MAX_LAYOUTS = 64
"""Layouts remembered per file (a file of ever-new layouts is read by the general reader)."""
MAX_CACHED = 4096
"""Canonical texts of the compared fields remembered per layout."""

_KEEP, _RUN, _DROP = 0, 1, 2
Plan = tuple[tuple[str, int, str], ...]
"""(field, what to do with it, its dotted path) for each field of one object, in order."""


def _plan(keys: tuple[str, ...], taken: frozenset[str], path: str, keep_volatile: bool) -> Plan:
    """What `runstate.split_fields` does with each field, decided from the names alone."""
    steps = []
    for name in keys:
        if name in taken:
            continue
        kind = field_kind(name)
        action = _KEEP
        if kind == RUN_STATE:
            action = _RUN
        elif kind == VOLATILE and not keep_volatile:
            action = _DROP
        steps.append((name, action, f"{path}.{name}" if path else name))
    return tuple(steps)


def _getter(names: tuple[str, ...]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """A function giving the values of `names` in one object as a tuple."""
    if not names:
        return lambda _obj: ()
    if len(names) == 1:
        only = names[0]
        return lambda obj: (obj[only],)
    return itemgetter(*names)


def _kept(plan: Plan) -> tuple[str, ...]:
    return tuple(name for name, action, _ in plan if action == _KEEP)


class _Layout:
    """The decisions for one layout of keys."""

    __slots__ = (
        "cache",
        "chat",
        "choice",
        "client",
        "condition",
        "message",
        "plain",
        "prompt",
        "top",
        "usage",
        "usage_plain",
        "values",
    )

    def __init__(self, signature: tuple[Any, ...], keep_volatile: bool) -> None:
        top, choice, message, usage = signature
        self.chat = message is not None
        self.top = _plan(top, TAKEN_TOP, "", keep_volatile)
        self.choice = _plan(choice, TAKEN_CHOICE, "choice", keep_volatile)
        self.message = (
            () if message is None else _plan(message, _CONTENT, "choice.message", keep_volatile)
        )
        self.usage = () if usage is None else _plan(usage, frozenset(), "usage", True)
        self.usage_plain = all(action == _KEEP for _, action, _ in self.usage)
        self.plain = all(
            action != _RUN for _, action, _ in (*self.top, *self.choice, *self.message)
        )
        """No run state among the compared rest's fields: its values decide `other` alone."""
        get_top, get_choice = _getter(_kept(self.top)), _getter(_kept(self.choice))
        get_message = _getter(_kept(self.message))
        self.values: Callable[[dict[str, Any], dict[str, Any], Any], tuple[Any, ...]] = (
            (lambda o, c, m: get_top(o) + get_choice(c) + get_message(m))
            if self.chat
            else (lambda o, c, _m: get_top(o) + get_choice(c))
        )
        """The compared rest's values, in plan order (what `other` is made of)."""
        self.client = not CLIENT_KEY_FIELDS_SET.isdisjoint(top)
        self.prompt = "prompt" in top
        self.condition = route_condition("chat" if self.chat else "completions")
        self.cache: dict[tuple[Any, ...], str] = {}


CLIENT_KEY_FIELDS_SET = frozenset(CLIENT_KEY_FIELDS)
_SIMPLE = frozenset({str, int, bool, type(None)})
"""Value types the canonical-text cache keys (with the types: True == 1, yet encoded apart;
floats are left out, -0.0 == 0.0)."""
_TEXTS = frozenset({str, type(None)})
"""Value types equal only to themselves: values of these alone key the cache without their
types (a key of pairs of tuples, the other kind, never equals such a tuple)."""
_CONTENT = frozenset({"content"})
_NO_CLIENT: tuple[str | None, str | None] = (None, None)
_NOT_FAST = object()
"""The layout cache's answer for a layout the general reader reads."""


def _take(
    obj: dict[str, Any],
    plan: Plan,
    keep_volatile: bool,
    run_state: dict[str, Any],
    kept: list[tuple[str, Any]],
) -> None:
    """`obj`'s compared fields into `kept`, its run state into `run_state`, as
    `runstate.split_fields` does."""
    for name, action, where in plan:
        value = obj[name]
        if action == _KEEP:
            kind = type(value)
            if kind is dict:
                value = split_fields(value, where, run_state, keep_volatile)
            elif kind is list and not keep_volatile:
                value = drop_in_list(value)
            kept.append((name, value))
        elif action == _RUN:
            run_state[where] = value


class FastReader:
    """Builds packed records of the common OpenAI shapes for one file (see the module doc)."""

    def __init__(self, options: LoadOptions, display: str) -> None:
        self._display = display
        self._keep_volatile = options.include_volatile
        self._key_path = options.key_path
        self._layouts: dict[tuple[Any, ...], Any] = {}
        self.enabled = options.text_field is None and options.tokens_field is None

    def _layout(self, signature: tuple[Any, ...]) -> Any:
        layout = self._layouts.get(signature)
        if layout is None:
            if NOT_FAST.intersection(signature[0]) or (
                signature[2] is not None and "text" in signature[1]
            ):  # a choice with a text beside its message: the general reader judges it
                layout = _NOT_FAST
            else:
                layout = _Layout(signature, self._keep_volatile)
            if len(self._layouts) < MAX_LAYOUTS:
                self._layouts[signature] = layout
        return layout

    def pack(self, obj: dict[str, Any], line: int) -> Packed | None:
        """The record of `obj` as `packed.pack(records_from_raw(obj, ...)[0])` would give it,
        or None when the general reader must read it."""
        if not self.enabled:
            return None
        choices = obj.get("choices")
        if type(choices) is not list or len(choices) != 1:
            return None
        choice = choices[0]
        if type(choice) is not dict:
            return None
        message: Any = choice.get("message")
        usage = obj.get("usage")
        signature = (
            tuple(obj),
            tuple(choice),
            tuple(message) if type(message) is dict else None,
            tuple(usage) if type(usage) is dict else None,
        )
        layout = self._layouts.get(signature) or self._layout(signature)
        if layout is _NOT_FAST:
            return None
        if layout.chat:
            text = message.get("content")
            if text is None:
                text = ""  # a tool-call-only message
            elif type(text) is not str:
                return None  # content parts, or not text: the general reader
        else:
            text = choice.get("text")
            if type(text) is not str:
                return None
        finish = choice.get("finish_reason")
        fingerprint = obj.get("system_fingerprint")
        model = obj.get("model")
        if type(model) is not str:
            model = None  # kept among the compared fields only, as `assemble` does
        if (finish is not None and type(finish) is not str) or (
            fingerprint is not None and type(fingerprint) is not str
        ):
            return None  # the general reader words the error
        ids = choice.get("token_ids")
        if ids is not None:
            if type(ids) is not list:
                return None
            ids = token_id_bytes(ids)
            if ids is None:
                return None
        trace = choice.get("logprobs")
        if trace is not None:
            try:
                parsed = parse_logprobs(trace, f"{self._display}:{line}")
            except ResponseFormatError:
                return None  # the general reader raises it, after any earlier error
            trace = None if parsed is None else pack_trace(parsed)
        key = None
        if self._key_path is not None:
            value = lookup(obj, self._key_path)
            if value is MISSING or value is None:
                return None
            key = scalar_text(value)
        run_state: dict[str, Any] = {}
        if type(usage) is dict:
            if not layout.usage_plain or dict in map(type, usage.values()):
                usage = split_fields(usage, "usage", run_state, True)
        else:
            usage = None
        other = None
        if layout.plain:  # the compared rest's text from the cache: see `_other`
            values = layout.values(obj, choice, message)
            if _TEXTS.issuperset(map(type, values)):
                other = layout.cache.get(values)
        if other is None:
            other = self._other(obj, choice, message, layout, run_state)
        prompt_digest = prompt_preview = None
        if layout.prompt:
            prompt = obj["prompt"]
            if prompt is not None:
                prompt_text = prompt if isinstance(prompt, str) else canonical(prompt)
                prompt_digest, prompt_preview = text_digest(prompt_text), preview(prompt_text)
        client_key, client_field = client_key_of(obj) if layout.client else _NO_CLIENT
        record_id = obj.get("id")
        if record_id is not None and type(record_id) is not str:
            record_id = scalar_text(record_id)
        return (
            line,
            record_id,
            key,
            prompt_digest,
            None,  # request digest: a bare response holds no request
            client_key,
            client_field,
            None,  # one choice
            None,  # index: lines, not a one-line array
            prompt_preview,
            text,
            ids,
            trace,
            finish,
            usage,
            fingerprint,
            other,
            None,  # error
            run_state or None,
            None,  # lm_eval
            (),  # scores
            None,  # member
            key if key is not None else client_key,  # label: a response's own id names nothing
            layout.condition,
            model,
            None,  # beams: a response object has none
        )

    def _other(
        self,
        obj: dict[str, Any],
        choice: dict[str, Any],
        message: Any,
        layout: _Layout,
        run_state: dict[str, Any],
    ) -> str:
        """The canonical JSON of the compared rest, from the layout's cache while it repeats."""
        cache_key: tuple[Any, ...] | None = None
        if layout.plain:
            values = layout.values(obj, choice, message)
            types = tuple(map(type, values))
            if _TEXTS.issuperset(types):
                cache_key = values  # a string or null equals only itself (`pack` looked)
            elif _SIMPLE.issuperset(types):
                cache_key = (values, types)
                text = layout.cache.get(cache_key)
                if text is not None:
                    return text
        keep = self._keep_volatile
        top: list[tuple[str, Any]] = []
        rest: list[tuple[str, Any]] = []
        inner: list[tuple[str, Any]] = []
        _take(obj, layout.top, keep, run_state, top)
        _take(choice, layout.choice, keep, run_state, rest)
        if layout.chat:
            _take(message, layout.message, keep, run_state, inner)
        compared = dict(top)
        compared["choice"] = dict(rest)
        if layout.chat:
            compared["choice"]["message"] = dict(inner)
        text = canonical(compared)
        if cache_key is not None and len(layout.cache) < MAX_CACHED:
            layout.cache[cache_key] = text
        return text
