"""A stream request (`--stream`) answered 200 without an event stream, against real server
processes on loopback (`hostile_server.py`, its `raw` answers; `fault_server.py`'s
`unstreamed`): whatever its label, the body is read, and one whole JSON completion (a server
that ignores `stream: true`: no Content-Type, text/plain, application/json, even
text/event-stream) or a body that is neither an event stream nor JSON stops the run at the first
such answer (exit 2, one line naming the URL and how many samples the log keeps; `--resume`
continues); what was retried before (an empty body, JSON that does not parse or holds no
completion, an event stream cut short) still is, and a mislabelled event stream is still read as
one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from k3diff.responses.model import text_digest
from k3diff.sample.lines import SampleLine
from k3diff.sample.log import SampleLog, read_log
from k3diff.sample.modes import together

from .support import inference, read_samples, sample, write_prompts

COMPLETION = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "hostile-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "whole"},
                "finish_reason": "stop",
            }
        ],
    },
    indent=2,
)
"""One whole chat completion, pretty-printed (several lines, as some servers send it)."""
PAGE = "<!DOCTYPE html>\n<html><body>\x1b[31mSign in to continue</body></html>\n"
"""A proxy's sign-in page (with a terminal escape the error line must not pass on)."""


def _prompts(tmp_path: Path, raw: dict[str, Any], bad_first: bool = False) -> Path:
    """A good chat prompt (streamed "ok") and a bad one answered with `raw`."""
    good = {"key": "good", "messages": [{"role": "user", "content": "q"}]}
    bad = {"key": "bad", "messages": [{"role": "user", "content": "p"}], "hostile": "raw", **raw}
    return write_prompts(tmp_path / "prompts.jsonl", [bad, good] if bad_first else [good, bad])


def _run(server: str, prompts: Path, out: Path, *args: str) -> Any:
    return sample(
        "--base", server, "--prompts", prompts, "--repeats", "2", "--stream",
        "--out", out, *args,
    )  # fmt: skip


@pytest.mark.parametrize(
    "ctype",
    [None, "text/plain", "text/plain; charset=utf-8", "text/event-stream", "application/json"],
)
def test_a_whole_completion_for_a_stream_stops_the_run_at_the_first(
    hostile_server: str, tmp_path: Path, ctype: str | None
) -> None:
    """One mechanism whatever the label: the body is read, and one whole JSON completion where
    an event stream was asked for stops the run (exit 2), naming the URL and what it kept."""
    raw = {"body": COMPLETION, **({} if ctype is None else {"ctype": ctype})}
    out = tmp_path / "out"
    prompts = _prompts(tmp_path, raw)
    result = _run(hostile_server, prompts, out, "--retries", "3")
    assert result.exit_code == 2, result.stdout
    labelled = "with no Content-Type" if ctype is None else f"as {ctype.split(';')[0]}"
    assert result.stderr.splitlines() == [
        f"k3diff: error: {hostile_server}/v1/chat/completions: answered a stream request "
        f"(stream: true) with one whole JSON completion {labelled}, not an event stream: the "
        "server does not stream (sample it without --stream, in another --out); stopped, 2 "
        f"samples kept in {out}/samples.jsonl (--resume sends the same stream requests and "
        "stops the same way)"
    ]
    _, samples = read_samples(out)
    assert [(s["key"], s["error"], s["text"]) for s in samples] == [("good", None, "ok")] * 2
    again = _run(hostile_server, prompts, out, "--resume")
    assert again.exit_code == 2 and "stopped, 2 samples kept" in again.stderr
    assert len(read_log(out / "samples.jsonl").samples) == 2


def test_a_server_that_ignores_stream_gets_one_request_not_one_per_sample(
    fault_server: Any, tmp_path: Path
) -> None:
    """A 200-sample run against a server that answers every stream request with a whole
    completion (its own request log counts them): one request, then exit 2; before, every
    sample was sent and failed in turn."""
    server = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [{"key": "k", "prompt": "p", "fault": {"unstreamed": "application/json"}}],
    )
    out = tmp_path / "out"
    result = sample(
        "--base", server.url, "--prompts", prompts, "--repeats", "100", "--stream",
        "--patch", server.url, "--out", out,
    )  # fmt: skip
    assert result.exit_code == 2, result.stdout
    assert "with one whole JSON completion as application/json" in result.stderr
    assert "stopped, 0 samples kept in" in result.stderr
    assert len(inference(server)) == 1
    assert read_samples(out)[1] == []


@pytest.mark.parametrize(
    ("ctype", "body", "shown"),
    [
        (None, PAGE, "with no Content-Type"),
        ("text/html", PAGE, "as text/html"),
        ("text/plain", "upstream is down\nretry later\n", "as text/plain"),
        ("text/event-stream", PAGE, "as text/event-stream"),  # the label proves nothing
        ("text/event-stream; charset=utf-8", "Bad Gateway\n", "as text/event-stream"),
    ],
)
def test_a_body_neither_events_nor_json_stops_the_run_and_keeps_the_samples(
    hostile_server: str, tmp_path: Path, ctype: str | None, body: str, shown: str
) -> None:
    raw = {"body": body, **({} if ctype is None else {"ctype": ctype})}
    out = tmp_path / "out"
    result = _run(hostile_server, _prompts(tmp_path, raw), out, "--retries", "3")
    assert result.exit_code == 2, result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback, no stray task warnings
    url = f"{hostile_server}/v1/chat/completions"
    assert lines[0].startswith(
        f"k3diff: error: {url}: answered a stream request (stream: true) {shown} with a body "
        "that is neither an event stream nor JSON (it begins '"
    )
    assert "\x1b" not in result.stderr
    assert (
        f"not an OpenAI-compatible endpoint; stopped, 2 samples kept in {out}/samples.jsonl "
        f"(--resume continues: k3diff sample --base {hostile_server} --prompts "
    ) in lines[0]
    assert lines[0].endswith(f" --stream --out {out} --retries 3 --resume)"), lines[0]
    _, samples = read_samples(out)
    assert [(s["key"], s["error"], s["text"]) for s in samples] == [("good", None, "ok")] * 2
    assert len(read_log(out / "samples.jsonl").samples) == 2  # as --resume reads it


def test_in_a_concurrent_batch_the_run_stops_with_one_line(
    hostile_server: str, tmp_path: Path
) -> None:
    """The first answer of the batch stops the run: the other requests of the batch are
    cancelled before the log is closed, so nothing is written behind the error."""
    out = tmp_path / "out"
    prompts = _prompts(tmp_path, {"body": PAGE})
    result = sample(
        "--base", hostile_server, "--prompts", prompts, "--repeats", "4", "--stream",
        "--mode", "concurrent", "--concurrency", "4", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 2, result.stdout
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "neither an event stream nor JSON" in result.stderr
    _, samples = read_samples(out)
    assert sorted((s["key"], s["repeat"], s["error"]) for s in samples) == [
        ("good", r, None) for r in range(4)
    ]


CUT_STREAM = 'data: {"id": "c1", "choices": [{"index": 0, "delta": {"content": "cu"}}]}\n\n'
"""An event stream's first chunk, then the end of the body: a stream cut short."""


@pytest.mark.parametrize("ctype", [None, "text/event-stream", "application/json"])
@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("", "the stream ended before its first chunk"),
        ("\n\n", "the stream ended before its first chunk"),
        ('{"choices": [{"index": 0, "message": {"content": "cut', "malformed JSON in the response"),
        ('{"error": {"message": "overloaded"}}', "the server sent an error"),
        (CUT_STREAM, "the stream ended before a finish_reason or [DONE]"),
        (CUT_STREAM + 'data: {"id": "c1", "choi', "malformed JSON in a stream"),
    ],
)
def test_what_was_retried_still_is(
    hostile_server: str, tmp_path: Path, body: str, error: str, ctype: str | None
) -> None:
    prompts = _prompts(tmp_path, {"body": body, **({} if ctype is None else {"ctype": ctype})})
    result = _run(hostile_server, prompts, tmp_path / "out", "--retries", "1")
    assert result.exit_code == 1, result.stderr
    _, samples = read_samples(tmp_path / "out")
    bad = [s for s in samples if s["key"] == "bad"]
    assert [s["attempts"] for s in bad] == [2, 2]
    assert all(s["error"].startswith(error) for s in bad), bad


STREAM = (
    'data: {"id": "c1", "choices": [{"index": 0, "delta": {"content": "stre"}}]}\n\n'
    'data: {"id": "c1", "choices": [{"index": 0, "delta": {"content": "am"}, '
    '"finish_reason": "stop"}]}\n\n'
)
"""A whole event stream of "stream", without its [DONE]."""
VLLM_ERROR = (
    'data: {"error": {"object": "error", "message": "internal error", "type": '
    '"InternalServerError", "param": null, "code": 500}}\n\n'
)
"""What vLLM streams when a request fails once its stream began (then `data: [DONE]`)."""
LLAMA_CPP_ERROR = (
    'error: {"code": 500, "message": "failed to decode the batch", "type": "server_error"}\n\n'
)
"""What llama.cpp's server streams when a request fails: its own `error:` field, no data line
(before, a body of that one line stopped the run as "not an OpenAI-compatible endpoint")."""


@pytest.mark.parametrize("ctype", ["text/event-stream", "application/json"])
@pytest.mark.parametrize(
    ("body", "error"),
    [
        (VLLM_ERROR + "data: [DONE]\n\n", "the server sent an error"),
        (CUT_STREAM + VLLM_ERROR + "data: [DONE]\n\n", "the server sent an error"),
        (
            'data: {"id": "c1", "choices": [{"index": 0, "delta": {"content": "x"}, '
            '"finish_reason": "stop"}], "error": {"message": "overloaded"}}\n\ndata: [DONE]\n\n',
            "the server sent an error",
        ),
        (
            'data: {"id": "c1", "choices": [], "usage": {"prompt_tokens": 3, '
            '"completion_tokens": 0, "total_tokens": 3}}\n\ndata: [DONE]\n\n',
            "the stream held no choice",
        ),
        (json.dumps(json.loads(COMPLETION)) + "\n" + STREAM, "the body mixes"),
        (COMPLETION + "\n" + STREAM, "the body mixes"),
        (STREAM + json.dumps(json.loads(COMPLETION)) + "\n", "the body mixes"),
        (
            CUT_STREAM + STREAM.replace('"c1"', '"c2"') + "data: [DONE]\n\n",
            "the stream holds chunks of two responses",
        ),
        (STREAM + "data: [DONE]\n\n" + STREAM + "data: [DONE]\n\n", "a stream chunk after"),
        (CUT_STREAM + "data: [DONE]\n\n", "the stream reached [DONE] without a finish_reason"),
        (LLAMA_CPP_ERROR, "the server sent an error in the stream"),
        (CUT_STREAM + LLAMA_CPP_ERROR, "the server sent an error in the stream"),
    ],
)
def test_an_answer_that_is_no_streamed_completion_fails_its_sample(
    hostile_server: str, tmp_path: Path, body: str, error: str, ctype: str
) -> None:
    """An error event (vLLM's, alone or after some text), a stream that never held a choice
    (usage only), a body mixing a whole JSON completion with an event stream and one holding
    two streams (a cut one and its retry, or one after another's [DONE]), llama.cpp's `error:`
    line (alone or after some text) and a partial text
    closed by [DONE] with no finish_reason are no streamed completion of the request: each fails its sample (retried, exit 1), never a
    sample of an empty or partial text (exit 0 before)."""
    prompts = _prompts(tmp_path, {"body": body, "ctype": ctype})
    result = _run(hostile_server, prompts, tmp_path / "out", "--retries", "1")
    assert result.exit_code == 1, result.stdout
    _, samples = read_samples(tmp_path / "out")
    bad = [s for s in samples if s["key"] == "bad"]
    assert [s["attempts"] for s in bad] == [2, 2]
    assert all(s["error"] is not None and s["error"].startswith(error) for s in bad), bad


@pytest.mark.parametrize("ctype", [None, "text/plain"])
def test_a_mislabelled_event_stream_is_read_as_one(
    hostile_server: str, tmp_path: Path, ctype: str | None
) -> None:
    events = (
        ": keep-alive\n\n"
        'data: {"id": "c1", "choices": [{"index": 0, "delta": {"content": "stre"}}]}\n\n'
        'data: {"id": "c1", "choices": [{"index": 0, "delta": {"content": "am"}, '
        '"finish_reason": "stop"}]}\n\n'
        "data: [DONE]\n\n"
    )
    raw = {"body": events, **({} if ctype is None else {"ctype": ctype})}
    result = _run(hostile_server, _prompts(tmp_path, raw, bad_first=True), tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    _, samples = read_samples(tmp_path / "out")
    assert {s["key"]: s["text"] for s in samples} == {"bad": "stream", "good": "ok"}


def test_together_cancels_the_rest_of_a_batch_before_the_error_goes_on() -> None:
    finished: list[str] = []

    async def fails() -> None:
        await asyncio.sleep(0.01)
        raise RuntimeError("stop")

    async def slow(name: str) -> None:
        try:
            await asyncio.sleep(10)
        finally:
            finished.append(name)

    async def run() -> None:
        with pytest.raises(RuntimeError, match="stop"):
            await together(slow("a"), fails(), slow("b"))
        assert sorted(finished) == ["a", "b"]  # cancelled and done before the error came out

    asyncio.run(run())


def _line(repeat: int) -> SampleLine:
    return SampleLine(
        side="base", key="k", mode="concurrent", repeat=repeat, request_sha256="cd" * 32,
        status=200, text="out", text_xxh3=text_digest("out"), token_ids_xxh3=None,
        finish_reason="stop", usage=None, latency_s=0.01, fingerprint=None, error=None,
        attempts=1, started=1.5,
    )  # fmt: skip


def test_a_stopped_run_writes_the_lines_already_handed_to_the_log(tmp_path: Path) -> None:
    """The answers of a batch whose appends were cancelled (the run stopping) are written
    before the log is closed, never to a closed descriptor."""

    async def run() -> None:
        log = SampleLog.create(tmp_path, {"command": ["k3diff", "sample"]})
        appends = [asyncio.ensure_future(log.append(_line(r))) for r in range(3)]
        await asyncio.sleep(0)  # each line queued, the flusher started
        for append in appends:
            append.cancel()
        await log.aclose()

    asyncio.run(run())
    lines = (tmp_path / "samples.jsonl").read_text().splitlines()
    assert [json.loads(line).get("repeat") for line in lines] == [None, 0, 1, 2]


@pytest.mark.parametrize(
    ("ctype", "body", "begins"),
    [
        ("text/html", PAGE, "<!DOCTYPE html>"),
        (None, "upstream is down\nretry later\n", "upstream is down"),
        ("application/json", "502 Bad Gateway", "502 Bad Gateway"),
    ],
)
def test_a_completion_request_answered_with_no_json_object_stops_the_run(
    hostile_server: str, tmp_path: Path, ctype: str | None, body: str, begins: str
) -> None:
    """Without --stream as with it: a 200 whose body does not even begin like a JSON object (a
    sign-in page in front of the server) stops the run at once, naming the URL, instead of
    being retried and recorded as failed samples."""
    raw = {"body": body, **({} if ctype is None else {"ctype": ctype})}
    out = tmp_path / "out"
    prompts = _prompts(tmp_path, raw)
    result = sample(
        "--base", hostile_server, "--prompts", prompts, "--repeats", "2", "--retries", "3",
        "--out", out,
    )  # fmt: skip
    assert result.exit_code == 2, result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    url = f"{hostile_server}/v1/chat/completions"
    assert lines[0].startswith(f"k3diff: error: {url}: answered a completion request ")
    assert f"with a body that is not a JSON object (it begins '{begins}" in lines[0]
    assert "\x1b" not in result.stderr
    _, samples = read_samples(out)
    assert [(s["key"], s["error"]) for s in samples] == [("good", None)] * 2
