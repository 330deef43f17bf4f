"""The prompts file: a JSONL of requests, or a responses file whose requests and keys are reused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from k3diff.errors import InputError, UsageError
from k3diff.responses.loaders import load_side
from k3diff.responses.model import LoadOptions
from k3diff.sample.model import Endpoint
from k3diff.sample.options import parse_headers, parse_params, redacted_command
from k3diff.sample.prompts import infer_endpoint, read_prompts
from k3diff.sample.sampler import request_sha256


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_requests_file_keys_fields_and_endpoint(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "p.jsonl",
        [
            {"key": "a", "prompt": "x", "max_tokens": 4, "stream": True},
            {"id": 7, "prompt": "y"},
            {"prompt": "z", "seed": 1},
        ],
    )
    records = read_prompts(path)
    assert [r.body for r in records] == [
        {"prompt": "x", "max_tokens": 4},
        {"prompt": "y"},
        {"prompt": "z", "seed": 1},
    ]
    # One rule for the whole file (the one `k3diff responses` pairs by): not every request has
    # a key, so every request is keyed by its prompt's hash.
    flat = _jsonl(tmp_path / "flat.jsonl", [{"prompt": "z", "text": "out"}])
    assert records[2].key == load_side(flat, "flat", LoadOptions()).records[0].prompt_digest
    assert len({r.key for r in records}) == 3 and "a" not in {r.key for r in records}
    assert infer_endpoint(records) is Endpoint.COMPLETIONS
    keyed = _jsonl(tmp_path / "k.jsonl", [{"key": "a", "prompt": "x"}, {"key": 7, "prompt": "x"}])
    assert [r.key for r in read_prompts(keyed)] == ["a", "7"]  # same prompt, two client keys


def test_responses_file_lends_its_requests_and_ids(tmp_path: Path) -> None:
    completion = {"id": "cmpl-1", "choices": [{"index": 0, "text": "t", "finish_reason": "stop"}]}
    path = _jsonl(
        tmp_path / "batch.jsonl",
        [
            {
                "custom_id": "q1",
                "request": {"body": {"prompt": "hello", "max_tokens": 4}},
                "response": {"body": completion},
            },
            {
                "custom_id": "q2",
                "request": {"body": {"prompt": "bye", "max_tokens": 4}},
                "response": {"body": completion},
            },
        ],
    )
    records = read_prompts(path)
    assert [(r.key, r.body) for r in records] == [
        ("q1", {"prompt": "hello", "max_tokens": 4}),
        ("q2", {"prompt": "bye", "max_tokens": 4}),
    ]


def test_chat_responses_without_ids_key_by_prompt_hash(tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "hi"}]
    path = tmp_path / "arr.json"
    path.write_text(json.dumps([{"messages": messages, "output": "yo"}]))
    records = read_prompts(path)
    assert records[0].body == {"messages": messages}
    assert records[0].key == load_side(path, "arr", LoadOptions()).records[0].prompt_digest
    assert infer_endpoint(records) is Endpoint.CHAT


def test_unusable_prompt_files(tmp_path: Path) -> None:
    sse = tmp_path / "s.sse"
    sse.write_text('data: {"choices": [{"index": 0, "text": "a"}]}\n\ndata: [DONE]\n')
    no_prompt = _jsonl(tmp_path / "np.jsonl", [{"id": "a", "text": "x"}])
    mixed = _jsonl(
        tmp_path / "m.jsonl", [{"key": "a", "prompt": "x"}, {"key": "b", "messages": []}]
    )
    with pytest.raises(InputError, match="holds no requests"):
        read_prompts(sse)
    with pytest.raises(InputError, match="no prompt"):
        read_prompts(no_prompt)
    with pytest.raises(InputError, match="mixes"):
        infer_endpoint(read_prompts(mixed))


def test_params_headers_and_redaction() -> None:
    assert parse_params(("temperature=0", 'stop=["\\n"]', "model=llama", "x=")) == {
        "temperature": 0,
        "stop": ["\n"],
        "model": "llama",
        "x": "",
    }
    with pytest.raises(UsageError):
        parse_params(("novalue",))
    assert parse_headers(("Authorization: Bearer t",)) == {"Authorization": "Bearer t"}
    assert redacted_command(["--header", "A: secret", "--header=B:s2", "--out", "d"]) == (
        "k3diff",
        "--header",
        "A:***",
        "--header=B:***",
        "--out",
        "d",
    )


def test_request_hash_ignores_cache_salt_and_key_order() -> None:
    assert request_sha256({"a": 1, "b": 2}) == request_sha256({"b": 2, "a": 1, "cache_salt": "x"})
    assert request_sha256({"a": 1}) != request_sha256({"a": 2})


def test_flat_capture_lends_its_request_parameters(tmp_path: Path) -> None:
    # A flat capture record's max_tokens, temperature, ... are part of its request: `responses`
    # reads them into the record's condition and `triage` checks the samples against them, so
    # `sample --prompts CAPTURE` (the remedy triage names) must send them.
    rows: list[dict[str, object]] = [
        {"key": "a", "prompt": "x", "max_tokens": 8, "temperature": 0, "text": "4"},
        {"key": "b", "messages": [{"role": "user", "content": "hi"}], "seed": 3, "output": "yo"},
    ]
    path = _jsonl(tmp_path / "cap.jsonl", rows)
    records = read_prompts(path)
    assert [r.body for r in records] == [
        {"prompt": "x", "max_tokens": 8, "temperature": 0},
        {"messages": [{"role": "user", "content": "hi"}], "seed": 3},
    ]
    conditions = [
        json.loads(r.condition or "{}") for r in load_side(path, "c", LoadOptions()).records
    ]
    assert [c["params"] for c in conditions] == [
        {k: v for k, v in r.body.items() if k not in ("prompt", "messages")} for r in records
    ]


def test_tensorrt_llm_record_lends_its_input_text(tmp_path: Path) -> None:
    # `k3diff responses` reads a TensorRT-LLM record's prompt from `input_text`; `sample
    # --prompts` replays the same record with the same prompt (one list of prompt fields).
    rows: list[dict[str, object]] = [
        {"input_text": "2+2=", "text": ["4"], "output_ids": [[19]], "max_tokens": 4},
    ]
    path = _jsonl(tmp_path / "trt.jsonl", rows)
    records = read_prompts(path)
    assert [r.body for r in records] == [{"prompt": "2+2=", "max_tokens": 4}]
    assert records[0].key == load_side(path, "t", LoadOptions()).records[0].prompt_digest


@pytest.mark.parametrize(
    "field",
    [
        {"max_new_tokens": 8},
        {"repetition_penalty": 1.1},
        {"sampling_params": {"max_new_tokens": 8}},
    ],
)
def test_flat_capture_with_an_engines_own_field_is_refused(
    tmp_path: Path, field: dict[str, object]
) -> None:
    """vLLM ignores a field its OpenAI server does not know: sent, the samples would log the
    capture's max_new_tokens as theirs while the server generated to its own limit, and triage
    would find the condition repeated."""
    path = _jsonl(tmp_path / "cap.jsonl", [{"key": "a", "prompt": "x", "text": "4", **field}])
    with pytest.raises(InputError) as caught:
        read_prompts(path)
    (name,) = field
    assert str(caught.value).startswith(
        f"{tmp_path / 'cap.jsonl'}:1: {name} is an engine's own field"
    )
    assert "\n" not in str(caught.value)


def test_flat_capture_asking_for_several_choices_is_refused_in_one_line(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "cap.jsonl", [{"key": "a", "prompt": "x", "text": "4", "n": 3}])
    with pytest.raises(InputError, match="asked for n = 3 choices") as caught:
        read_prompts(path)
    assert "\n" not in str(caught.value)
    one = _jsonl(tmp_path / "one.jsonl", [{"key": "a", "prompt": "x", "text": "4", "n": 1}])
    assert read_prompts(one)[0].body == {"prompt": "x", "n": 1}
