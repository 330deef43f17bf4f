"""Reassembles server-sent-event transcripts into ordinary completion objects.

A transcript holds one or more streams; each is a run of ``data: {chunk}`` lines ended by
``data: [DONE]``. Chunks carry ``choices[i].text`` (completions) or ``choices[i].delta``
(chat), and may carry logprobs, token ids (vLLM ``return_token_ids``), ``finish_reason`` and a
final ``usage`` chunk; a chunk with an ``error`` (with or without choices) makes the stream a
failed request. SGLang's ``meta_info`` (counts of the request so far: tokens, speculation) may
come on a choice or on the chunk itself; either is the last chunk's, fields a later chunk leaves
out kept from before. Choices are reassembled by their ``index`` (n > 1 streams interleave
them). The assembled object is then read like any non-streamed response.

An event's JSON may span several ``data:`` lines; as the SSE specification says, they are
joined with ``"\n"`` until the event ends (`EventData`).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from k3diff import bounded
from k3diff.errors import ResponseFormatError
from k3diff.responses.loader_input import json_kind
from k3diff.responses.parts import (
    message_text,
    refuse_texts_of_two_kinds,
    refuse_two_texts,
    without,
)

_FOLDED = frozenset(
    {"index", "delta", "message", "text", "finish_reason", "token_ids", "logprobs", "meta_info"}
)
"""A streamed choice's fields folded on their own; its others are kept as they come."""

_OUTPUT = (
    "text", "content", "reasoning_content", "reasoning", "tool_calls", "refusal", "token_ids",
    "output_ids", "message",
)  # fmt: skip
"""Fields of a streamed choice (or its delta) that carry output."""
_CHAT_LOGPROBS = ("content", "refusal")
"""The token lists of a chat choice's `logprobs`, each continued chunk by chunk."""
_LOGPROB_LISTS = frozenset(
    {*_CHAT_LOGPROBS, "tokens", "token_logprobs", "top_logprobs", "text_offset"}
)
"""The fields of a streamed `logprobs` that are lists when given (null: not given)."""


def misnamed_field(line: str) -> bool:
    """Whether an event-stream line (not the stream's first) begins with white space or a
    byte-order mark. The SSE specification names a field by what precedes its colon: ` data:`
    is a field of another name, which every client ignores, while a reader that strips lines
    reads it as data. `k3diff responses` and `k3diff sample` refuse such a line alike (review66,
    stream66): the text they would compare is one no client received."""
    return line[:1].isspace() or line[:1] == "\ufeff"


class _Choice:
    """The pieces of one choice of a stream."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.token_ids: list[int] | None = None
        self.completion_logprobs: dict[str, list[Any]] | None = None
        self.chat_logprobs: dict[str, list[Any]] | None = None
        self.rest: dict[str, Any] = {}
        self.message: dict[str, Any] = {}
        """A chat delta's other fields, folded (`merge_delta`): tool calls, reasoning, ..."""
        self.whole: dict[str, Any] | None = None
        """The one whole `message` a chunk carried instead of a delta (`_take_whole`)."""
        self.deltas = False
        self.plain = False
        """A chunk without a delta carried text (`refuse_texts_of_two_kinds`)."""
        self.meta_info: dict[str, Any] | None = None
        self.finish_reason: Any = None

    def _take_whole(self, choice: dict[str, Any], where: str) -> None:
        """A choice that carries a whole `message` instead of a `delta` (a server's own stream
        shape). Sent once, it is the answer. Sent again, nothing says whether each is the text so
        far (cumulative) or the next piece: read either way the other would compare streams
        that differ after their first chunk as equal (review65: only the first was read, exit
        0), so the stream is refused; so is one that mixes messages with deltas."""
        message = choice["message"]
        if not isinstance(message, dict):
            raise ResponseFormatError(f"{where}: a streamed choice's message is not an object")
        if self.whole is not None or self.deltas:
            raise ResponseFormatError(
                f"{where}: a streamed choice carries a whole 'message' after an earlier "
                f"{'message' if self.whole is not None else 'delta'}: k3diff cannot tell whether "
                "each is the answer so far or the next piece of it"
            )
        self.whole = copy.deepcopy(message)

    def add(
        self, choice: dict[str, Any], position: int, chat: bool, where: str, after_finish: bool
    ) -> None:
        if after_finish and self.finish_reason is not None:
            self._after_finish(choice, where)
        if choice.get("message") is not None and not chat:
            self._take_whole(choice, where)
            said = message_text(choice["message"].get("content"))
            refuse_two_texts(choice.get("text"), said or "", "message", where, position)
        if chat:
            if self.whole is not None:
                raise ResponseFormatError(
                    f"{where}: a streamed choice carries a delta after a whole 'message': "
                    "k3diff cannot tell whether the delta continues it"
                )
            self.deltas = True
        meta = choice.get("meta_info")
        if isinstance(meta, dict):
            # SGLang's counts (tokens, speculation) are the request's so far: a later chunk's
            # stand, fields it leaves out kept from before (review65: the first chunk's stood).
            self.meta_info = {**(self.meta_info or {}), **meta}
        piece = choice["delta"].get("content") if chat else choice.get("text")
        if piece is not None and not isinstance(piece, str):
            raise ResponseFormatError(f"{where}: streamed text is not a string")
        if chat:  # the chunk's `text` beside its delta: what a completions client reads
            refuse_two_texts(choice.get("text"), piece or "", "delta", where, position)
        else:
            self.plain = self.plain or bool(piece)
        refuse_texts_of_two_kinds(self.plain, self.deltas, where, position)
        if piece:
            self.pieces.append(piece)
        delta = choice["delta"] if chat else None
        if delta is not None and (len(delta) > 1 or "content" not in delta):  # not text alone
            merge_delta(self.message, without(delta, "content"))
        if choice.get("finish_reason") is not None:
            self.finish_reason = choice["finish_reason"]
        token_ids = choice.get("token_ids")
        if token_ids is not None and not isinstance(token_ids, list):
            # Read as absent, the answer's ids would go uncompared (stream66).
            raise ResponseFormatError(
                f"{where}: a streamed choice's token_ids is {json_kind(token_ids)}, not a list"
            )
        if token_ids is not None:
            if self.token_ids is None:
                self.token_ids = []
            self.token_ids.extend(token_ids)
        self._add_logprobs(choice.get("logprobs"), where)
        for name, value in choice.items():
            # The first value that is not null: vLLM sends `"stop_reason": null` in every chunk
            # but the last, which names the stop string or token (review65: keeping the first
            # chunk's null hid a stop_reason that differed, exit 0).
            if name not in _FOLDED and self.rest.get(name) is None:
                self.rest[name] = value

    def _after_finish(self, choice: dict[str, Any], where: str) -> None:
        """A chunk of a choice that already finished may repeat its reason, or carry nothing;
        more output or another reason is refused, as `k3diff sample` refuses it: a client that
        stops at the finish got less than one that reads on (review66: `length`, then more text
        and `stop`, compared as the whole answer, exit 0)."""
        finish = choice.get("finish_reason")
        delta = choice.get("delta")
        fields = (choice, delta) if isinstance(delta, dict) else (choice,)
        output = any(field.get(name) for field in fields for name in _OUTPUT)
        if output or (finish is not None and finish != self.finish_reason):
            more = "more output" if output else f"finish_reason {finish!r}"
            raise ResponseFormatError(
                f"{where}: a streamed choice carries {more} after it finished "
                f"(finish_reason {self.finish_reason!r}): which part is the answer, the stream "
                "does not say"
            )

    def _add_logprobs(self, logprobs: Any, where: str) -> None:
        if not isinstance(logprobs, dict):
            return
        for name, value in logprobs.items():
            if name in _LOGPROB_LISTS and not (value is None or isinstance(value, list)):
                # review66: a number was an internal error, a string extended as characters
                raise ResponseFormatError(f"{where}: streamed logprobs {name} is not a list")
        if "tokens" in logprobs:
            merged = self.completion_logprobs or {}
            for name in ("tokens", "token_logprobs", "top_logprobs", "text_offset"):
                merged.setdefault(name, []).extend(logprobs.get(name) or [])
            self.completion_logprobs = merged
        elif any(isinstance(logprobs.get(name), list) for name in _CHAT_LOGPROBS):
            # A refusal's tokens come in `logprobs.refusal`, chunk by chunk as `content`'s do
            # (review65: they were dropped, a refusal's logprobs never compared).
            merged = self.chat_logprobs or {}
            for name in _CHAT_LOGPROBS:
                if isinstance(logprobs.get(name), list):
                    merged.setdefault(name, []).extend(logprobs[name])
            self.chat_logprobs = merged

    def finish(self, index: int, chat: bool) -> dict[str, Any]:
        text = "".join(self.pieces)
        choice: dict[str, Any] = dict(self.rest)
        choice["index"] = index
        choice["finish_reason"] = self.finish_reason
        if self.whole is not None:
            choice["message"] = self.whole
        elif chat:
            choice["message"] = {"role": "assistant", **_unindexed(self.message), "content": text}
        else:
            choice["text"] = text
        if self.token_ids is not None:
            choice["token_ids"] = self.token_ids
        if self.completion_logprobs is not None:
            choice["logprobs"] = self.completion_logprobs
        elif self.chat_logprobs is not None:
            choice["logprobs"] = {"content": None, **self.chat_logprobs}
        if self.meta_info is not None:
            choice["meta_info"] = self.meta_info
        return choice


KEPT_FIRST = frozenset({"role", "index", "type", "id"})
"""Delta fields a stream may repeat in every chunk rather than continue: the first stands."""


def merge_delta(into: dict[str, Any], delta: dict[str, Any]) -> None:
    """Fold one chat delta into the fields before it, as the OpenAI client's `accumulate_delta`
    does, so the result does not depend on where the stream was cut: strings joined (a tool
    call's `arguments`, `reasoning_content`, `refusal`), objects merged, a list's objects merged
    by their `index` (each tool call), other list items appended; `KEPT_FIRST` kept from the
    first chunk that has them; a null adds nothing."""
    for key, value in delta.items():
        held = into.get(key)
        if value is None or (held is not None and key in KEPT_FIRST):
            continue
        if held is None:
            into[key] = copy.deepcopy(value)
        elif isinstance(held, str) and isinstance(value, str):
            into[key] = held + value
        elif isinstance(held, dict) and isinstance(value, dict):
            merge_delta(held, value)
        elif isinstance(held, list) and isinstance(value, list):
            for item in value:
                index = item.get("index") if isinstance(item, dict) else None
                same = next(
                    (h for h in held if isinstance(h, dict) and h.get("index") == index), None
                )
                if index is not None and same is not None:
                    merge_delta(same, item)
                else:
                    held.append(copy.deepcopy(item))
        else:
            into[key] = copy.deepcopy(value)


def _unindexed(message: dict[str, Any]) -> dict[str, Any]:
    """The folded delta fields without the `index` of each listed object (a tool call's place
    in the stream, which a non-streamed answer does not carry)."""
    return {
        key: [without(item, "index") if isinstance(item, dict) else item for item in value]
        if isinstance(value, list)
        else value
        for key, value in message.items()
    }


class EventData:
    """Joins the ``data:`` lines of one server-sent event, as the SSE specification does.

    A data line whose JSON is whole on its own is an event of its own, also when no blank line
    follows it (servers that leave the blank lines out stay readable). One whose JSON ends
    early starts an event that later data lines continue, joined with ``"\n"``, until the
    event ends: a blank line, ``data: [DONE]``, or the end of the stream.
    """

    def __init__(self) -> None:
        self._parts: list[str] = []
        self.start: int | None = None
        """The line the pending event started on (None when nothing is pending)."""

    @property
    def pending(self) -> bool:
        """Data lines wait for the end of their event."""
        return bool(self._parts)

    def add(self, payload: str, lineno: int, where: str) -> tuple[bool, Any]:
        """Take one data line's payload: (True, value) when it completes a JSON value, else
        (False, None). Raises json.JSONDecodeError for a line that cannot start one."""
        if self._parts:
            self._parts.append(payload)
            return False, None
        try:
            return True, bounded.loads(payload, where)
        except json.JSONDecodeError as exc:
            if exc.pos < len(payload.rstrip()):
                raise  # broken before its end: not a value continued on the next line
        self._parts, self.start = [payload], lineno
        return False, None

    def end(self, where: str) -> Any:
        """The pending event's joined data, decoded (json.JSONDecodeError if not JSON)."""
        text = "\n".join(self._parts)
        self._parts, self.start = [], None
        return bounded.loads(text, where)


class StreamAssembler:
    """Accumulates the chunks of one stream, one at a time (no chunk list is kept)."""

    def __init__(self, first_line: int, after_finish: bool = True) -> None:
        self.first_line = first_line
        self.after_finish = after_finish
        """Refuse a choice's output or another reason after its finish (`_Choice.add`); `k3diff
        sample` passes False, its own `Finishes` refusing such a stream in its words."""
        self.first_chunk: dict[str, Any] | None = None
        self.chunks = 0
        self._header: dict[str, Any] = {}
        self._choices: dict[int, _Choice] = {}
        self._chat = False
        self._usage: Any = None
        self._error: Any = None
        self._meta_info: dict[str, Any] | None = None

    def starts_another(self, chunk: dict[str, Any]) -> bool:
        """True when `chunk` belongs to another response (its id differs from this stream's):
        this stream was cut before its [DONE]."""
        mine = self._header.get("id")
        return mine is not None and "id" in chunk and chunk["id"] != mine

    def add(self, chunk: dict[str, Any], where: str) -> None:
        """Fold one ``data:`` chunk into the stream."""
        if self.first_chunk is None:
            self.first_chunk = chunk
        self.chunks += 1
        for name in ("id", "model", "system_fingerprint", "object"):
            if name in chunk and name not in self._header:
                self._header[name] = chunk[name]
        if chunk.get("usage") is not None:
            self._usage = chunk["usage"]
        meta = chunk.get("meta_info")
        if isinstance(meta, dict):
            # The chunk's own meta_info, as a choice's (`_Choice.add`): the request's counts so
            # far, a later chunk's standing (review66: it was dropped, a whole answer's kept).
            self._meta_info = {**(self._meta_info or {}), **meta}
        if chunk.get("error") not in (None, "", {}):
            # A failed request, also beside choices: the stream becomes an error record (see
            # failed.ErrorShape), whatever text it carried.
            self._error = chunk["error"] if self._error is None else self._error
            return
        choices = chunk.get("choices")
        if choices is not None and not isinstance(choices, list):
            # review66: a number was an internal error, a string's characters each a choice
            raise ResponseFormatError(f"{where}: choices is not a list")
        for position, choice in enumerate(choices or []):
            if not isinstance(choice, dict):
                raise ResponseFormatError(f"{where}: a choice is not an object")
            index = choice.get("index", 0)
            if not isinstance(index, int) or isinstance(index, bool) or index < 0:
                raise ResponseFormatError(f"{where}: choice index is not a whole number")
            chat = isinstance(choice.get("delta"), dict)
            self._chat = self._chat or chat or choice.get("message") is not None
            held = self._choices.setdefault(index, _Choice())
            held.add(choice, position, chat, where, self.after_finish)

    @property
    def answered(self) -> bool:
        """Some chunk held a choice, or an error: the stream is a completion or chat stream
        (or a failed one), not another server's stream (SGLang's `/generate` and TGI's send
        their text outside `choices`)."""
        return bool(self._choices) or self._error is not None

    def finish(self) -> dict[str, Any]:
        """The stream as one non-streamed completion or chat-completion object."""
        choices = [self._choices[i].finish(i, self._chat) for i in sorted(self._choices)]
        obj = dict(self._header)
        obj["object"] = "chat.completion" if self._chat else "text_completion"
        obj["choices"] = choices or [_Choice().finish(0, self._chat)]
        if self._usage is not None:
            obj["usage"] = self._usage
        if self._meta_info is not None:
            obj["meta_info"] = self._meta_info
        if self._error is not None:
            obj["error"] = self._error
        return obj
