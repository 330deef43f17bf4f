"""A streamed chat answer's deltas besides `content` — a tool call, reasoning, a refusal — are
reassembled as the OpenAI client does (strings joined, a tool call's pieces merged by `index`),
so a stream is compared as its non-streamed answer would be: a patch whose streamed tool call
names another function differs (it was a match, exit 0, the deltas dropped), and the same call
cut into other chunks is the same call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff, twin

from .fixtures import sse_transcript, write_jsonl


def _chunk(rid: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _tool_call_stream(rid: str, name: str, arguments: list[str]) -> list[dict[str, Any]]:
    head = {"index": 0, "id": "call_1", "type": "function"}
    first = {**head, "function": {"name": name, "arguments": ""}}
    chunks = [_chunk(rid, {"role": "assistant", "content": None, "tool_calls": [first]})]
    chunks += [
        _chunk(rid, {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
        for piece in arguments
    ]
    return [*chunks, _chunk(rid, {}, "tool_calls")]


def _write(tmp_path: Path, name: str, chunks: list[dict[str, Any]]) -> str:
    (tmp_path / name).write_text(sse_transcript([chunks]))
    return name


def test_a_streamed_tool_call_naming_another_function_differs(tmp_path: Path) -> None:
    base = _write(tmp_path, "base.sse", _tool_call_stream("a", "list_files", ['{"p"', ': "/"}']))
    patch = _write(tmp_path, "patch.sse", _tool_call_stream("b", "delete_files", ['{"p": "/"}']))
    result = run_k3diff("responses", base, patch, "--by-order", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert 'choice.message.tool_calls[0].function.name: "list_files" → "delete_files"' in (
        result.stdout
    ), result.stdout


def test_a_tool_call_cut_into_other_chunks_is_the_same_call(tmp_path: Path) -> None:
    base = _write(tmp_path, "base.sse", _tool_call_stream("a", "ls", ['{"p"', ': "/"}']))
    patch = _write(tmp_path, "patch.sse", _tool_call_stream("b", "ls", ["{", '"p": ', '"/"}']))
    result = run_k3diff("responses", base, patch, "--by-order", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout


def test_a_streamed_tool_call_reads_as_the_non_streamed_answer(tmp_path: Path) -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "ls", "arguments": '{"p": "/"}'},
    }
    message = {"role": "assistant", "content": "", "tool_calls": [call]}
    answer = {
        "id": "x",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }
    write_jsonl(tmp_path / "base.jsonl", [answer])
    patch = _write(tmp_path, "patch.sse", _tool_call_stream("b", "ls", ['{"p"', ': "/"}']))
    result = run_k3diff("responses", "base.jsonl", patch, "--by-order", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout


def test_streamed_reasoning_that_differs_is_a_difference(tmp_path: Path) -> None:
    def stream(rid: str, thought: list[str]) -> list[dict[str, Any]]:
        chunks = [_chunk(rid, {"role": "assistant", "reasoning_content": t}) for t in thought]
        return [*chunks, _chunk(rid, {"content": "42"}, "stop")]

    base = _write(tmp_path, "base.sse", stream("a", ["add ", "them"]))
    patch = _write(tmp_path, "patch.sse", stream("b", ["guess"]))
    same = _write(tmp_path, "same.sse", stream("c", ["ad", "d them"]))
    result = run_k3diff("responses", base, patch, "--by-order", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    (record,) = json.loads(result.stdout)["records"]
    assert [c["path"] for c in record["field_changes"]] == ["choice.message.reasoning_content"]
    assert run_k3diff("responses", base, same, "--by-order", cwd=tmp_path).exit_code == 0


def _completion_stream(rid: str, stop_reason: Any) -> list[dict[str, Any]]:
    """vLLM's completions stream: every choice carries `stop_reason`, null until the last."""

    def chunk(text: str, finish: str | None, stop: Any) -> dict[str, Any]:
        choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": finish}
        return {"id": rid, "object": "text_completion", "model": "m", "choices": [
            {**choice, "stop_reason": stop}
        ]}  # fmt: skip

    return [chunk("Hello", None, None), chunk(" world", "stop", stop_reason)]


def test_a_streamed_stop_reason_is_the_last_chunks_as_in_the_whole_answer(tmp_path: Path) -> None:
    # review65: the first chunk's `"stop_reason": null` was kept, so two streams that stopped
    # on different stop strings (a stop_reason difference, exit 1 between whole answers) matched.
    base = _write(tmp_path, "base.sse", _completion_stream("a", "\n\n"))
    patch = _write(tmp_path, "patch.sse", _completion_stream("b", 128009))
    result = run_k3diff("responses", base, patch, "--by-order", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout
    assert 'choice.stop_reason: "\\n\\n" → 128009' in result.stdout, result.stdout
    same = _write(tmp_path, "same.sse", _completion_stream("c", "\n\n"))
    assert run_k3diff("responses", base, same, "--by-order", cwd=tmp_path).exit_code == 0


def test_a_stream_whose_chunks_hold_no_choice_is_refused_not_read_as_empty(
    tmp_path: Path,
) -> None:
    # review65: SGLang's native /generate streams its (cumulative) text outside `choices`; both
    # sides were read as "" and matched (exit 0) whatever they said.
    def native(text: str) -> list[dict[str, Any]]:
        meta = {"id": "r1", "prompt_tokens": 3, "completion_tokens": 2}
        done = {**meta, "finish_reason": {"type": "stop", "matched": 2}}
        return [
            {"text": text.split()[0], "meta_info": {**meta, "finish_reason": None}},
            {"text": text, "meta_info": done},
        ]

    base = _write(tmp_path, "base.sse", native("Hello world"))
    patch = _write(tmp_path, "patch.sse", native("Goodbye moon"))
    result = run_k3diff("responses", base, patch, "--by-order", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        "k3diff: error: base.sse:1: a stream none of whose 2 chunks holds a choice (k3diff "
        "reads OpenAI completion and chat streams; SGLang's /generate and TGI stream their "
        "text outside choices): nothing to compare\n"
    )
    # A stream that failed before any choice is still a failed request (exit 1), as before.
    failed = _write(tmp_path, "failed.sse", [{"id": "e", "error": {"message": "overloaded"}}])
    assert (
        run_k3diff(
            "responses", failed, twin(failed, tmp_path), "--by-order", cwd=tmp_path
        ).exit_code
        == 1
    )


def test_a_line_that_begins_with_white_space_is_refused_not_read_as_data(
    tmp_path: Path,
) -> None:
    # review66: ` data: {...}` was stripped and read as data; the SSE specification names the
    # field ` data`, which its clients ignore. The patch's client got "The answer is " and the
    # comparison, reading the indented chunk too, said match (exit 0). So was a line behind a
    # byte-order mark, which the specification drops at the stream's start only.
    pieces = ["The answer", " is ", "42"]
    lines = [f"data: {json.dumps(_chunk('c', {'content': p}))}\n\n" for p in pieces]
    end = f"data: {json.dumps(_chunk('c', {}, 'stop'))}\n\ndata: [DONE]\n\n"
    (tmp_path / "base.sse").write_text("".join(lines) + end)
    for mark in (" ", "\t", "\ufeff"):  # what the specification's readers skip
        hidden = [*lines[:2], mark + lines[2]]
        (tmp_path / "patch.sse").write_text("".join(hidden) + end)
        result = run_k3diff("responses", "base.sse", "patch.sse", cwd=tmp_path)
        assert result.exit_code == 2, result.stdout
        assert result.stderr == (
            "k3diff: error: patch.sse:5: a line that begins with white space or a byte-order "
            "mark: the SSE specification makes it a field other than 'data' (ignored), a reader "
            "that strips lines reads it as data; refused\n"
        )
    # The same transcript unmarked, or with a byte-order mark at its start, is read as ever.
    for start in ("", "\ufeff"):
        (tmp_path / "patch.sse").write_text(start + "".join(lines) + end)
        assert run_k3diff("responses", "base.sse", "patch.sse", cwd=tmp_path).exit_code == 0


def test_a_choice_that_goes_on_after_its_finish_is_refused(tmp_path: Path) -> None:
    # review66: a patch stream that finished (`length`), then sent the rest and `stop`, was read
    # as the whole answer and matched (exit 0); a client that stops at the finish got "The
    # answer". `k3diff sample` refuses such a stream; so does `responses` now.
    base = [_chunk("c", {"content": "The answer"}), _chunk("c", {"content": " is 42"}, "stop")]
    (tmp_path / "base.sse").write_text(sse_transcript([base]))
    cut = _chunk("c", {"content": "The answer"}, "length")
    for later, shown in (
        (_chunk("c", {"content": " is 42"}, "stop"), "more output"),
        (_chunk("c", {}, "stop"), "finish_reason 'stop'"),
    ):
        (tmp_path / "patch.sse").write_text(sse_transcript([[cut, later]]))
        result = run_k3diff("responses", "base.sse", "patch.sse", cwd=tmp_path)
        assert result.exit_code == 2, result.stdout
        assert result.stderr == (
            f"k3diff: error: patch.sse:3: a streamed choice carries {shown} after it finished "
            "(finish_reason 'length'): which part is the answer, the stream does not say\n"
        )
    # The reason repeated in an empty chunk, as some servers send it, is read as ever.
    (tmp_path / "patch.sse").write_text(sse_transcript([[*base, _chunk("c", {}, "stop")]]))
    assert run_k3diff("responses", "base.sse", "patch.sse", cwd=tmp_path).exit_code == 0
