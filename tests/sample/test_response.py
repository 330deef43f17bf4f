"""Reading one answer: non-streamed bodies and SSE streams, whatever the server sends."""

from __future__ import annotations

import contextlib
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from k3diff.responses.model import text_digest
from k3diff.sample.finish import FINISHED
from k3diff.sample.response import BadAnswer, StreamReader, read_body


def _chunks(text: str, usage: bool, done: bool) -> list[str]:
    half = len(text) // 2
    lines = [
        "data: "
        + json.dumps({"choices": [{"index": 0, "text": text[:half], "finish_reason": None}]}),
        "",
        "data: "
        + json.dumps(
            {
                "choices": [
                    {"index": 0, "text": text[half:], "finish_reason": "stop", "token_ids": [1, 2]}
                ]
            }
        ),
    ]
    if usage:
        lines.append("data: " + json.dumps({"choices": [], "usage": {"completion_tokens": 2}}))
    if done:
        lines.append("data: [DONE]")
    return lines


@pytest.mark.parametrize("usage", [True, False])
@pytest.mark.parametrize("done", [True, False])
def test_a_stream_reads_like_the_body(usage: bool, done: bool) -> None:
    reader = StreamReader()
    for line in _chunks("hello world", usage, done):
        reader.feed(line)
    answer = reader.finish()
    body = {
        "choices": [
            {"index": 0, "text": "hello world", "finish_reason": "stop", "token_ids": [1, 2]}
        ]
    }
    plain = read_body(json.dumps(body).encode())
    assert (answer.text, answer.finish_reason, answer.token_ids_xxh3) == (
        plain.text,
        plain.finish_reason,
        plain.token_ids_xxh3,
    )
    assert answer.text_xxh3 == text_digest("hello world")
    assert answer.usage == ({"completion_tokens": 2} if usage else None)
    assert answer.token_ids_xxh3 is not None


def test_a_stream_cut_before_its_end_is_bad() -> None:
    reader = StreamReader()
    reader.feed(_chunks("hello", False, False)[0])
    with pytest.raises(BadAnswer, match="finish_reason or \\[DONE\\]"):
        reader.finish()
    with pytest.raises(BadAnswer, match="before its first chunk"):
        StreamReader().finish()


def test_a_stream_closed_by_done_without_a_finish_reason_is_bad() -> None:
    """[DONE] after a partial text, no chunk saying why it ended (an engine that gave the request
    up and only closed the stream): counted, the partial text would look like the base's own
    nondeterminism, so the sample fails; a finish_reason on any chunk keeps it."""
    reader = StreamReader()
    for line in [_chunks("hello", False, False)[0], "", "data: [DONE]"]:
        reader.feed(line)
    with pytest.raises(BadAnswer, match="reached \\[DONE\\] without a finish_reason"):
        reader.finish()


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{",
        b"[]",
        b'{"choices": []}',
        b'{"error": "x"}',
        b'{"error": {"message": "x"}, "choices": [{"text": "hi", "finish_reason": "stop"}]}',
        b'{"choices": [{"text": 3}]}',
        b"\xff",
    ],
)
def test_unusable_bodies_are_bad_answers(body: bytes) -> None:
    with pytest.raises(BadAnswer):
        read_body(body)


ERROR_EVENT = 'data: {"error": {"object": "error", "message": "boom", "code": 500}}'
"""vLLM's event for a request that failed once its stream began (`data: [DONE]` follows)."""
TEXT = 'data: {"choices": [{"index": 0, "text": "hi"}]}'
DONE = 'data: {"choices": [{"index": 0, "text": "hi", "finish_reason": "stop"}]}'


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ([ERROR_EVENT, "", "data: [DONE]"], "the server sent an error"),
        ([TEXT, "", ERROR_EVENT, "", "data: [DONE]"], "the server sent an error"),
        ([DONE[:-1] + ', "error": {"message": "x"}}', "", "data: [DONE]"], "the server sent"),
        (['data: {"object": "error", "message": "boom", "code": 400}', "data: [DONE]"], "sent"),
        (['data: {"choices": [], "usage": {"completion_tokens": 0}}', "data: [DONE]"], "no choice"),
        (['data: {"usage": {"completion_tokens": 0}}', "data: [DONE]"], "no choice"),
        (['{"choices": [{"text": "whole", "finish_reason": "stop"}]}', DONE], "mixes"),
        ([DONE, "", '{"choices": [{"text": "whole", "finish_reason": "stop"}]}'], "mixes"),
        ([DONE, "", "[1]", "data: [DONE]"], "mixes"),
    ],
)
def test_a_stream_that_holds_no_completion_is_bad(lines: list[str], error: str) -> None:
    """An error event (with or without text before it), a stream without one choice and a
    body mixing a whole JSON value with the events are no streamed completion: a bad answer
    (a failed sample, retried), never a sample of an empty or partial text."""
    reader = StreamReader()
    with pytest.raises(BadAnswer, match=error):
        for line in lines:
            reader.feed(line)
        reader.finish()


CUT = 'data: {"id": "c1", "choices": [{"index": 0, "text": "cu"}]}'
WHOLE = 'data: {"id": "c2", "choices": [{"index": 0, "text": "hello", "finish_reason": "stop"}]}'


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ([CUT, "", WHOLE, "", "data: [DONE]"], "two responses"),
        ([WHOLE, "", "data: [DONE]", "", CUT.replace("c1", "c2"), "", "data: [DONE]"], "after"),
    ],
)
def test_one_body_holding_two_streams_is_bad(lines: list[str], error: str) -> None:
    """A body holding two streams (a proxy that replays a cut stream's retry after it: the ids
    differ, or a second stream after the first's [DONE]) is no one completion: `k3diff
    responses` reads such a transcript as two records, a sample must not join their texts."""
    reader = StreamReader()
    with pytest.raises(BadAnswer, match=error):
        for line in lines:
            reader.feed(line)
        reader.finish()


@given(st.lists(st.text(max_size=40), max_size=8))
def test_any_stream_is_an_answer_or_a_bad_answer(lines: list[str]) -> None:
    reader = StreamReader()
    try:
        for line in lines:
            reader.feed(line)
        reader.finish()
    except BadAnswer:
        pass


@given(st.binary(max_size=200))
def test_any_body_is_an_answer_or_a_bad_answer(body: bytes) -> None:
    with contextlib.suppress(BadAnswer):
        read_body(body)


@pytest.mark.parametrize(
    "reason", ["abort", "error", "cancelled", "timeout", "canceled", "aborted", "ABORT"]
)
@pytest.mark.parametrize("stream", [True, False])
def test_a_request_the_engine_gave_up_on_is_bad(reason: str, stream: bool) -> None:
    """vLLM and SGLang end an aborted request with finish_reason "abort", TensorRT-LLM with
    "cancelled" or "timeout": its partial text is no sample of what the server answers (counted,
    it would look like the base's own nondeterminism), so the sample fails."""
    choice = {"index": 0, "text": "par", "finish_reason": reason}
    with pytest.raises(BadAnswer, match=f"unfinished \\(finish_reason '{reason}'\\)"):
        _read_choice(choice, stream)


def _read_choice(
    choice: dict[str, object], stream: bool, finished: frozenset[str] = FINISHED
) -> None:
    """Read one choice as a whole answer, or streamed after TEXT's chunk and closed by [DONE]."""
    if not stream:
        read_body(json.dumps({"choices": [choice]}).encode(), finished=finished)
        return
    reader = StreamReader(finished=finished)
    for line in [TEXT, "", "data: " + json.dumps({"choices": [choice]}), "data: [DONE]"]:
        reader.feed(line)
    reader.finish()


@pytest.mark.parametrize("reason", ["stop", "length", "tool_calls", "content_filter", " Stop"])
def test_a_finished_request_is_an_answer(reason: str) -> None:
    """The finish reasons of a request that ran to its end keep the sample."""
    body = {"choices": [{"index": 0, "text": "done", "finish_reason": reason}]}
    assert read_body(json.dumps(body).encode()).finish_reason == reason


@pytest.mark.parametrize(
    ("reason", "error"),
    [
        ("null", "the answer ended with an unknown finish_reason 'null'"),
        ("\u200b", "the answer ended with an unknown finish_reason '\\u200b'"),
        ("model_length", "the answer ended with an unknown finish_reason 'model_length'"),
        ("abort", "the server ended the request unfinished (finish_reason 'abort')"),
        (None, "the answer has no finish_reason"),
        ("", "the answer has no finish_reason"),
        (7, "finish_reason is not a string: 7"),
    ],
)
def test_a_whole_answer_without_a_finishing_reason_is_bad(reason: object, error: str) -> None:
    """One rule for a whole answer and a stream (failed on main, which counted a whole answer
    ending "null", a zero-width space, another unknown reason or none as a sample: a base
    server's malformed answers became extra distinct outputs)."""
    choice = {"index": 0, "text": "par", "finish_reason": reason}
    with pytest.raises(BadAnswer, match=re.escape(error)):
        read_body(json.dumps({"choices": [choice]}).encode())
    body: dict[str, object] = {"choices": [{"index": 0, "text": "par"}]}  # no field at all
    with pytest.raises(BadAnswer, match="the answer has no finish_reason"):
        read_body(json.dumps(body).encode())


@pytest.mark.parametrize("stream", [True, False])
def test_an_added_finish_reason_keeps_the_sample_on_both_paths(stream: bool) -> None:
    """`--finish-reason model_length` (`finishing`) makes Mistral's reason a finished request,
    streamed or not; without it both paths fail the answer alike."""
    from k3diff.sample.finish import finishing

    choice = {"index": 0, "text": "par", "finish_reason": "model_length"}
    with pytest.raises(BadAnswer, match="unknown finish_reason 'model_length'"):
        _read_choice(choice, stream)
    _read_choice(choice, stream, finishing(["Model_Length "]))


@pytest.mark.parametrize("reason", ["abort", " Cancelled", "timeout", "", " "])
def test_a_gave_up_or_blank_reason_cannot_be_added(reason: str) -> None:
    from k3diff.sample.finish import finishing

    with pytest.raises(ValueError, match=r"gives a request up|blank"):
        finishing(["model_length", reason])


@pytest.mark.parametrize("reason", ["", " ", "\t"])
def test_a_stream_whose_finish_reason_is_blank_is_bad(reason: str) -> None:
    """A blank finish_reason says no more than none: the stream's text is not known whole."""
    choice = {"index": 0, "text": "par", "finish_reason": reason}
    with pytest.raises(BadAnswer, match="without a finish_reason"):
        _read_choice(choice, stream=True)


@pytest.mark.parametrize("reason", [" abort", "abort ", "Cancelled\n"])
@pytest.mark.parametrize("stream", [True, False])
def test_a_gave_up_reason_padded_with_blanks_is_bad(reason: str, stream: bool) -> None:
    """Blanks around a gave-up finish reason do not turn it into a finished request."""
    choice = {"index": 0, "text": "par", "finish_reason": reason}
    with pytest.raises(BadAnswer, match="unfinished"):
        _read_choice(choice, stream)


@pytest.mark.parametrize("later", ["stop", None])
def test_a_stream_given_up_on_stays_given_up(later: str | None) -> None:
    """A chunk whose finish reason says the engine gave the request up (`abort`) fails the
    stream whatever a later chunk says: its text is partial (a later `stop` made it a sample)."""
    reader = StreamReader()
    for choice in (
        {"index": 0, "text": "par", "finish_reason": "abort"},
        {"index": 0, "text": "", "finish_reason": later},
    ):
        reader.feed("data: " + json.dumps({"id": "x", "choices": [choice]}))
        reader.feed("")
    reader.feed("data: [DONE]")
    with pytest.raises(BadAnswer, match="unfinished"):
        reader.finish()


@pytest.mark.parametrize("first", ["null", "model_length", "\u200b"])
def test_a_stream_that_ended_unknown_stays_unknown(first: str) -> None:
    """The choice's first finish reason is one no server ends a finished request with; a later
    chunk's `stop` does not make the text whole (it did: the assembled, last reason was read),
    as a later reason does not undo a gave-up one."""
    reader = StreamReader()
    for choice in (
        {"index": 0, "text": "par", "finish_reason": first},
        {"index": 0, "text": "", "finish_reason": "stop"},
    ):
        reader.feed("data: " + json.dumps({"id": "x", "choices": [choice]}))
        reader.feed("")
    reader.feed("data: [DONE]")
    with pytest.raises(BadAnswer, match="unknown finish_reason"):
        reader.finish()


def test_an_error_event_fails_the_stream_whatever_its_data() -> None:
    """An SSE event named `error` is the server's error whether or not its data carries an
    `error` key (it counted as a sample when its data held a choice)."""
    reader = StreamReader()
    choice = {"index": 0, "text": "par", "finish_reason": "stop"}
    with pytest.raises(BadAnswer, match="sent an error in the stream"):
        for line in ["event: error", "data: " + json.dumps({"id": "x", "choices": [choice]})]:
            reader.feed(line)
        reader.feed("")
        reader.feed("data: [DONE]")
        reader.finish()


def test_an_event_of_another_name_is_read_as_before() -> None:
    reader = StreamReader()
    choice = {"index": 0, "text": "ok", "finish_reason": "stop"}
    for line in ["event: error", "", "event: message"]:
        reader.feed(line)
    for line in ["data: " + json.dumps({"id": "x", "choices": [choice]}), "", "data: [DONE]"]:
        reader.feed(line)
    assert reader.finish().text == "ok"


@pytest.mark.parametrize(
    ("first", "later", "kept"),
    [("stop", "length", False), ("length", "stop", False), ("stop", "tool_calls", False),
     ("stop", "stop", True), ("stop", " STOP", True)],
)  # fmt: skip
def test_a_stream_that_finishes_twice_differently_is_malformed(
    first: str, later: str, kept: bool
) -> None:
    """`stop`, then `length` on the answer's choice: which one ended the text is the server's
    guess (the last one was recorded and the sample kept); a repeated finish changes nothing."""
    reader = StreamReader()
    for choice in (
        {"index": 0, "text": "par", "finish_reason": first},
        {"index": 0, "text": "", "finish_reason": later},
    ):
        reader.feed("data: " + json.dumps({"id": "x", "choices": [choice]}))
        reader.feed("")
    reader.feed("data: [DONE]")
    if kept:
        assert reader.finish().text == "par"
        return
    with pytest.raises(
        BadAnswer,
        match=f"finished twice with different finish_reasons \\({first!r}, then {later!r}\\)",
    ):
        reader.finish()
