"""Each loader reads its format, says "not mine" to others, and names file and line on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k3diff.errors import InputError, ResponseFormatError
from k3diff.responses.loaders import load_side, pick_loader, read_head
from k3diff.responses.model import LoadOptions

from .fixtures import (
    chat,
    chat_logprobs,
    completion,
    completion_chunks,
    sse_transcript,
    write_json,
    write_jsonl,
)


def load(path: Path, key: str | None = None, volatile: bool = False) -> list:  # type: ignore[type-arg]
    options = LoadOptions(tuple(key.split(".")) if key else None, volatile)
    return load_side(path, path.name, options).records


def loader_name(path: Path) -> str:
    return pick_loader(read_head(path, path.name)).name


def test_detection_order(tmp_path: Path) -> None:
    sse = tmp_path / "a.txt"
    sse.write_text(sse_transcript([completion_chunks("x", ["a"])]))
    assert loader_name(sse) == "sse"
    assert loader_name(write_json(tmp_path / "a.json", [completion("x", "t")])) == "json-array"
    assert loader_name(write_json(tmp_path / "d.json", {"records": []})) == "document"
    one_line = tmp_path / "one.json"
    one_line.write_text(json.dumps({"responses": [completion("x", "t")]}))
    assert loader_name(one_line) == "document"
    assert loader_name(write_json(tmp_path / "single.json", completion("x", "t"))) == "document"
    assert loader_name(write_jsonl(tmp_path / "samples_gsm8k_2024.jsonl", [{"x": 1}])) == "lm-eval"
    assert loader_name(write_jsonl(tmp_path / "c.jsonl", [completion("x", "t")])) == "jsonl"
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    with pytest.raises(ResponseFormatError, match=r"notes.txt: not a responses file: no loader"):
        loader_name(other)


def test_sse_streams_are_reassembled_with_token_ids_and_usage(tmp_path: Path) -> None:
    path = tmp_path / "cap.sse"
    path.write_text(
        sse_transcript([completion_chunks("a", ["Hel", "lo", "!"]), completion_chunks("b", ["x"])])
    )
    first, second = load(path)
    assert (first.id, first.text, list(first.token_ids or [])) == ("a", "Hello!", [100, 101, 102])
    assert first.finish_reason == "stop" and first.line == 1
    assert first.usage == {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6}
    assert (second.id, second.text) == ("b", "x")


def test_sse_chat_deltas_and_logprobs(tmp_path: Path) -> None:
    def chunk(content: str | None, lp: list[dict[str, object]], finish: str | None) -> dict:  # type: ignore[type-arg]
        delta = {"content": content} if content is not None else {"role": "assistant"}
        choice = {"index": 0, "delta": delta, "logprobs": {"content": lp}, "finish_reason": finish}
        return {"id": "c1", "object": "chat.completion.chunk", "choices": [choice]}

    lp = chat_logprobs([("Hi", -0.1, [("Hi", -0.1), ("Yo", -2.5)]), ("!", -0.2, [])])["content"]
    path = tmp_path / "chat.sse"
    path.write_text(
        sse_transcript(
            [[chunk(None, [], None), chunk("Hi", lp[:1], None), chunk("!", lp[1:], "stop")]]
        )
    )
    (record,) = load(path)
    assert record.text == "Hi!" and record.finish_reason == "stop"
    assert record.logprobs is not None
    assert record.logprobs.tokens == ("Hi", "!")
    assert [top[1][0] if len(top) > 1 else None for top in record.logprobs.top] == ["Yo", None]
    assert record.logprobs.top_k == 2


def test_completion_logprobs_shape(tmp_path: Path) -> None:
    logprobs = {
        "tokens": ["A", " b"],
        "token_logprobs": [-0.5, -1.0],
        "top_logprobs": [{"A": -0.5, "Z": -0.9}, {" b": -1.0, " c": -1.1, " d": -3.0}],
        "text_offset": [0, 1],
    }
    path = write_jsonl(tmp_path / "c.jsonl", [completion("x", "A b", logprobs=logprobs)])
    (record,) = load(path)
    trace = record.logprobs
    assert trace is not None and trace.top_k == 3
    assert [[lp for _, lp in top[:2]] for top in trace.top] == [[-0.5, -0.9], [-1.0, -1.1]]


def test_key_is_a_dotted_path_into_the_raw_record(tmp_path: Path) -> None:
    rows = [{"meta": {"qid": n}, "text": "t", "choices_seen": [n]} for n in (7, 8)]
    path = write_jsonl(tmp_path / "k.jsonl", rows)
    assert [r.key for r in load(path, key="meta.qid")] == ["7", "8"]
    assert [r.key for r in load(path, key="choices_seen.0")] == ["7", "8"]
    with pytest.raises(ResponseFormatError, match=r"k.jsonl:1: no field 'meta.nope' \(--key\)"):
        load(path, key="meta.nope")


def test_volatile_fields_are_dropped_unless_asked(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "v.jsonl", [{"id": "a", "text": "t", "created_at": 5, "seed": 1}])
    (record,) = load(path)
    assert json.loads(record.other) == {"seed": 1}
    (record,) = load(path, volatile=True)
    assert json.loads(record.other) == {"created_at": 5, "seed": 1}


def test_json_array_elements_know_their_lines(tmp_path: Path) -> None:
    path = write_json(tmp_path / "a.json", [{"id": "a", "text": "x"}, {"id": "b", "nothing": 1}])
    with pytest.raises(ResponseFormatError, match=r"^a.json:6: record has no text field"):
        load(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b'{"text": "a"}\n{"text": "b"}\n{"text": "c" "d"}\n',
            r"^f.jsonl:3: malformed JSON: Expecting ',' delimiter",
        ),
        (  # cut mid-object, its newline kept: the column is the line's end, not 1
            b'{"text": "a"}\n{"custom_id": "q3", "request": {\n',
            r"^f.jsonl:2: malformed JSON: Expecting property name enclosed in double quotes "
            r"\(column 33\)$",
        ),
        (
            b'{"text": "a"}\r\n{"custom_id": "q3", "request": {\r\n',
            r"^f.jsonl:2: malformed JSON: Expecting property name enclosed in double quotes "
            r"\(column 33\)$",
        ),
        (  # cut mid-string: the line's own newline is no "invalid control character"
            b'{"text": "a"}\n{"custom_id": "p9", "respo\n',
            r"^f.jsonl:2: malformed JSON: Unterminated string starting at \(column 21\)$",
        ),
        (
            b'{"text": "a"}\r\n{"custom_id": "p9", "respo\r\n',
            r"^f.jsonl:2: malformed JSON: Unterminated string starting at \(column 21\)$",
        ),
        (  # a control character before the line's end is still named as one
            b'{"text": "a"}\n{"text": "a\tb"}\n',
            r"^f.jsonl:2: malformed JSON: Invalid control character at \(column 12\)$",
        ),
        (b'{"text": "a"}\n{"text": "a" x}\n', r"^f.jsonl:2: malformed JSON: .* \(column 14\)$"),
        (b'{"text": "a"}\n{"output_tokens": 3}\n', r"^f.jsonl:2: record has no text field"),
        (
            b'{"text": "a"}\n{"text": "\xff"}\n',
            r"^f.jsonl:2: invalid UTF-8 \(byte 0xff at column 11\)",
        ),
        (b'{"text": "a"}\n[1, 2]\n', r"^f.jsonl:2: expected a JSON object, found an array"),
        (
            b'{"text": "a", "token_ids": [1, "x"]}\n',
            r"^f.jsonl:1: token_ids is not a list of integers",
        ),
        (b"\n\n", r"^f.jsonl: empty file, no records"),
    ],
)
def test_bad_jsonl_names_file_and_line(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(content)
    with pytest.raises(ResponseFormatError, match=message):
        load(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '[{"text": "a"},\n {"text": "b",}]',
            r"^f.json:2: malformed JSON: Expecting property name",
        ),
        ('[{"text": "a"},\n {"text": "b"}', r"^f.json:2: malformed JSON"),
        ('[{"text": "a"},]', r"^f.json:1: malformed JSON"),
        ('[{"text": "a"}] x', r"^f.json:1: malformed JSON: Extra data"),
    ],
)
def test_bad_json_array(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "f.json"
    path.write_text(content)
    with pytest.raises(ResponseFormatError, match=message):
        load(path)


def test_sse_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.sse"
    path.write_text('data: {"id": "a", "choices": [{"index": 0, "text": "x"}]}\n\n')
    (cut,) = load(path)  # a stream cut before [DONE] is evidence, not an abort
    assert cut.error == "stream ended without [DONE] after 1 chunks" and cut.text == ""
    path.write_text('data: {"id": "a", "choices": []}\nbogus\n')
    with pytest.raises(ResponseFormatError, match=r"^s.sse:2: not an SSE line"):
        load(path)


def test_sse_streams_finished_without_done(tmp_path: Path) -> None:
    """transformers serve ends a /v1/completions stream with its finish_reason chunk and no
    [DONE] (as `k3diff sample --stream` accepts): each such stream is whole, not cut."""
    path = tmp_path / "serve.sse"
    streams = [
        completion_chunks(f"cmpl-{n}", [a[:2], a[2:]]) for n, a in enumerate(["Paris.", "Four."])
    ]
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for s in streams for c in s))
    records = load(path)
    assert [(r.error, r.text) for r in records] == [(None, "Paris."), (None, "Four.")]
    # One choice finished, another not: the stream was cut before it ended.
    two = completion_chunks("cmpl-2", ["ab"])
    two[0]["choices"].append({"index": 1, "text": "c", "finish_reason": None})
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in two))
    assert [r.error for r in load(path)] == ["stream ended without [DONE] after 2 chunks"]


def test_unreadable_inputs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing.jsonl: no such file"):
        load(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match=r"is a directory"):
        load(tmp_path)


def test_chat_and_multiple_choices(tmp_path: Path) -> None:
    two = chat("a", "x")
    two["choices"].append(dict(two["choices"][0], index=1, message={"content": "y"}))
    path = write_jsonl(tmp_path / "m.jsonl", [two])
    first, second = load(path)  # n > 1: one record per choice
    assert (first.choice, first.text, second.choice, second.text) == (0, "x", 1, "y")


def test_k3diffs_own_documents_are_named_not_read_as_captures(tmp_path: Path) -> None:
    # Found by the new-user trial: `responses cmp.json cmp.json` read the comparison's `records`
    # as captured records and said "cmp.json:70: record has no text field"; a samples log said
    # the same of its header line. Each is named as what it is.
    comparison = tmp_path / "cmp.json"
    records = [{"key": "q", "status": "match", "base": {"line": 1}}]
    comparison.write_text(
        json.dumps({"schema": "k3diff.responses/1", "records": records}, indent=2)
    )
    samples = write_jsonl(
        tmp_path / "samples.jsonl",
        [{"schema": "k3diff.samples/1", "run": {}}, {"side": "base", "key": "q", "text": "x"}],
    )
    with pytest.raises(ResponseFormatError) as caught:
        load(comparison)
    assert str(caught.value).startswith("cmp.json: a k3diff.responses/1 document")
    assert "not captured responses" in str(caught.value)
    with pytest.raises(ResponseFormatError) as caught:
        load(samples)
    assert str(caught.value).startswith("samples.jsonl: a k3diff.samples/1 document")
    assert "k3diff triage" in str(caught.value)


def test_a_document_with_both_a_responses_and_a_records_list_is_refused(tmp_path: Path) -> None:
    # review65: the document loader read the "responses" list and left "records" unread, so
    # two captures differing only there compared equal (exit 0).
    from cli_support import run_k3diff, twin

    def capture(name: str, text: str) -> Path:
        return write_json(
            tmp_path / name,
            {
                "responses": [{"id": "a", "text": "same"}],
                "records": [{"id": "b", "text": text}],
            },
        )

    result = run_k3diff("responses", capture("base.json", "yes"), capture("patch.json", "no"))
    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        f"k3diff: error: {tmp_path / 'base.json'}: holds both a 'responses' and a 'records' "
        "list; one file holds its records in one of them\n"
    )
    # Either one alone is read as ever.
    alone = write_json(tmp_path / "alone.json", {"records": [{"id": "b", "text": "no"}]})
    assert run_k3diff("responses", alone, twin(alone)).exit_code == 0


def test_a_response_holding_a_responses_list_is_refused(tmp_path: Path) -> None:
    # review66: a server's answer with a `responses` (or `records`) list added was read by its
    # list, never by its own choices: the patch server answered "Lyon." to its client, and the
    # comparison said match (exit 0).
    from cli_support import run_k3diff

    honest = completion("cmpl-1", "Paris.")
    base = write_json(tmp_path / "base.json", honest)
    for key, answer, shape in (
        ("responses", completion("cmpl-1", "Lyon."), "a completion"),
        ("records", chat("chatcmpl-1", "Lyon."), "a chat"),
        ("responses", {"id": "cmpl-1", "error": {"message": "overloaded"}}, "an error"),
    ):
        patch = write_json(tmp_path / "patch.json", {**answer, key: [honest]})
        result = run_k3diff("responses", base, patch)
        assert result.exit_code == 2, result.stdout
        assert result.stderr == (
            f"k3diff: error: {patch}: holds a '{key}' list but is itself {shape} response "
            "too; read as either, the other would go unread (a client of the server reads the "
            "response, never the list)\n"
        )
    # A list beside fields that are no response (a run's metadata) is read as ever.
    listed = write_json(tmp_path / "listed.json", {"model": "m", "responses": [honest]})
    assert run_k3diff("responses", base, listed).exit_code == 0


def test_chat_content_parts_are_all_text_or_refused(tmp_path: Path) -> None:
    # review66: parts that are no objects were skipped and a part's type was never read, so an
    # answer of "Paris." plus a bare string, or plus a refusal part carrying an empty `text`,
    # compared equal to "Paris." (exit 0), the rest of the answer dropped.
    from cli_support import run_k3diff

    base = write_jsonl(tmp_path / "base.jsonl", [chat("c1", "Paris.")])
    paris = {"type": "text", "text": "Paris."}
    for extra in (" Or Lyon.", 5, {"type": "refusal", "refusal": "I refuse.", "text": ""}):
        answer = chat("c1", "")
        answer["choices"][0]["message"]["content"] = [paris, extra]
        patch = write_jsonl(tmp_path / "patch.jsonl", [answer])
        result = run_k3diff("responses", base, patch)
        assert result.exit_code == 2, result.stdout
        assert result.stderr == (
            f"k3diff: error: {patch}:1: message content is neither text nor text parts\n"
        )
    # Text parts, typed or not, are joined as ever.
    answer["choices"][0]["message"]["content"] = [{"text": "Par"}, {"type": "text", "text": "is."}]
    patch = write_jsonl(tmp_path / "patch.jsonl", [answer])
    assert run_k3diff("responses", base, patch).exit_code == 0


@pytest.mark.parametrize(
    ("logprobs", "stream", "problem"),
    [
        ({"tokens": 5}, False, "logprobs tokens is not a list"),
        ({"tokens": ["x"], "token_logprobs": 5}, False, "logprobs token_logprobs is not a list"),
        ({"content": 5}, False, "logprobs content is not a list"),
        ({"content": [{"token": "x", "logprob": -1, "top_logprobs": 5}]}, False,
         "logprobs top_logprobs is not a list"),
        ({"tokens": 5}, True, "streamed logprobs tokens is not a list"),
        ({"content": 5}, True, "streamed logprobs content is not a list"),
    ],
)  # fmt: skip
def test_logprobs_of_the_wrong_type_are_bad_input_not_an_internal_error(
    tmp_path: Path, logprobs: dict[str, object], stream: bool, problem: str
) -> None:
    # review66: a number where a list belongs was "internal error (a bug in k3diff)", naming
    # no file; a string was read as a list of one-character tokens.
    from cli_support import run_k3diff, twin

    answer = completion("a", "x")
    answer["choices"][0]["logprobs"] = logprobs
    path = tmp_path / "capture"
    if stream:
        answer["object"] = "text_completion"
        path.write_text(sse_transcript([[answer]]), encoding="utf-8")
    else:
        write_jsonl(path, [answer])
    result = run_k3diff("responses", path, twin(path))
    assert result.exit_code == 2, result.stdout
    assert result.stderr == f"k3diff: error: {path}:1: {problem}\n"


def test_engine_records_of_the_wrong_type_are_read_or_refused_never_an_internal_error(
    tmp_path: Path,
) -> None:
    # review66 (a fuzz of every field of each record shape with values of other types): an
    # SGLang top-logprobs position that is no list, and an lm-eval `metrics` list holding an
    # object, were "internal error (a bug in k3diff)".
    from cli_support import run_k3diff, twin

    from .engines import sglang_answer
    from .lm_eval_logs import generate_current

    sglang = sglang_answer("Paris.", [5], logprobs=[-0.5], key="k")
    sglang["meta_info"]["output_top_logprobs"] = [5]
    path = write_jsonl(tmp_path / "sglang.jsonl", [sglang])
    result = run_k3diff("responses", path, twin(path))
    assert result.exit_code == 2, result.stdout
    assert result.stderr == f"k3diff: error: {path}:1: output_top_logprobs entry is not a list\n"
    # A metric name that is no string names no metric: passed over, as before for a number.
    sample = generate_current(0, "Q?", ["42"], "42", "strict-match", 1.0)
    sample["metrics"] = ["exact_match", {"name": "x"}]
    path = write_jsonl(tmp_path / "samples_q.jsonl", [sample])
    result = run_k3diff("responses", path, twin(path))
    assert (result.exit_code, result.stderr) == (0, ""), result.stderr


@pytest.mark.parametrize("choices", [5, {"index": 0, "text": "x"}])
def test_a_streamed_chunk_whose_choices_are_no_list_is_bad_input(
    tmp_path: Path, choices: object
) -> None:
    # review66 (the type fuzz, of stream chunks): a number was an internal error.
    from cli_support import run_k3diff, twin

    chunk = {"id": "a", "object": "text_completion", "model": "m", "choices": choices}
    path = tmp_path / "capture.sse"
    path.write_text(sse_transcript([[chunk]]), encoding="utf-8")
    result = run_k3diff("responses", path, twin(path))
    assert result.exit_code == 2, result.stdout
    assert result.stderr == f"k3diff: error: {path}:1: choices is not a list\n"
