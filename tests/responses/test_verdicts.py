"""Verdicts a reviewer can trust: unpaired evidence, pairing by order, failed requests.

Every test runs the real `k3diff responses` command, as a user would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import twin

from k3diff.responses.doccheck import parse_comparison

from .eval_logs import inspect_sample, write_eval_log
from .fixtures import chat, completion_chunks, sse_transcript, write_json, write_jsonl
from .lm_eval_logs import generate_current

GROUP = "responses"
ANSWERS = ["Paris.", "Four.", "Blue."]


def _chat_captures(tmp_path: Path, patch_answers: list[str] = ANSWERS) -> None:
    """Bare chat.completion JSONL as a client saves it: ids differ on every run, no prompt."""
    write_jsonl(tmp_path / "base.jsonl", [chat(f"chatcmpl-b{n}", a) for n, a in enumerate(ANSWERS)])
    write_jsonl(
        tmp_path / "patch.jsonl",
        [chat(f"chatcmpl-p{n}", a) for n, a in enumerate(patch_answers)],
    )


def _sse_captures(tmp_path: Path, patch_answers: list[str] = ANSWERS) -> None:
    def streams(prefix: str, answers: list[str]) -> str:
        return sse_transcript(
            [completion_chunks(f"cmpl-{prefix}{n}", [a[:2], a[2:]]) for n, a in enumerate(answers)]
        )

    (tmp_path / "base.sse").write_text(streams("b", ANSWERS), encoding="utf-8")
    (tmp_path / "patch.sse").write_text(streams("p", patch_answers), encoding="utf-8")


def _json(result: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(result.stdout)
    return document


# 1. Nothing paired, or a record on one side only, must not pass.


def test_per_run_ids_paired_by_id_pair_nothing_and_fail(
    k3diff_cli: Any, golden: Any, tmp_path: Path
) -> None:
    _chat_captures(tmp_path)
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--key", "id", cwd=tmp_path)
    assert result.exit_code == 1
    assert "NOTHING PAIRED" in result.stdout and "--by-order" in result.stdout
    golden.check(GROUP, "nothing-paired", result)


def test_nothing_paired_is_in_the_json(k3diff_cli: Any, tmp_path: Path) -> None:
    _chat_captures(tmp_path)
    args = ("responses", "base.jsonl", "patch.jsonl", "--key", "id", "--format", "json")
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 1
    document = _json(result)
    assert document["summary"]["paired"] == 0 and document["summary"]["nothing_paired"] is True
    assert document["summary"]["only_base"] == 3 and document["summary"]["only_patch"] == 3
    assert document["verdict"] == {
        "ok": False,
        "exit_code": 1,
        "reasons": document["verdict"]["reasons"],
    }
    assert any("nothing paired" in reason for reason in document["verdict"]["reasons"])


def test_sse_with_per_run_ids_paired_by_id_fails(k3diff_cli: Any, tmp_path: Path) -> None:
    _sse_captures(tmp_path)
    result = k3diff_cli("responses", "base.sse", "patch.sse", "--key", "id", cwd=tmp_path)
    assert result.exit_code == 1
    assert "NOTHING PAIRED" in result.stdout


def test_nothing_paired_fails_even_with_allow_unpaired(k3diff_cli: Any, tmp_path: Path) -> None:
    _chat_captures(tmp_path)
    args = ("responses", "base.jsonl", "patch.jsonl", "--key", "id", "--allow-unpaired")
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 1
    assert "NOTHING PAIRED" in result.stdout


def _one_sided(tmp_path: Path) -> None:
    rows = [{"id": f"q{n}", "prompt": f"p{n}", "text": f"answer {n}"} for n in range(3)]
    write_jsonl(tmp_path / "base.jsonl", rows)
    write_jsonl(tmp_path / "patch.jsonl", rows[:2])


def test_a_record_on_one_side_only_fails(k3diff_cli: Any, golden: Any, tmp_path: Path) -> None:
    _one_sided(tmp_path)
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 1
    assert "1 record only in base" in result.stdout
    golden.check(GROUP, "unpaired", result)


def test_allow_unpaired_relaxes_one_sided_records(k3diff_cli: Any, tmp_path: Path) -> None:
    _one_sided(tmp_path)
    args = ("responses", "base.jsonl", "patch.jsonl", "--allow-unpaired")
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 0
    assert "--allow-unpaired" in result.stdout.splitlines()[-1]
    document = _json(k3diff_cli(*args, "--format", "json", cwd=tmp_path))
    assert document["summary"]["unpaired_allowed"] is True
    assert document["verdict"]["exit_code"] == 0
    strict = _json(k3diff_cli(*args[:3], "--format", "json", cwd=tmp_path))
    assert strict["summary"]["unpaired_allowed"] is False and strict["verdict"]["ok"] is False


# 2. --by-order: the Nth record of each side.


@pytest.mark.parametrize("layout", ["jsonl", "json-list", "sse"])
def test_by_order_pairs_captures_without_usable_keys(
    layout: str, k3diff_cli: Any, tmp_path: Path
) -> None:
    changed = [ANSWERS[0], "Five.", ANSWERS[2]]
    if layout == "sse":
        _sse_captures(tmp_path, changed)
        names = ("base.sse", "patch.sse")
    else:
        _chat_captures(tmp_path, changed)
        names = ("base.jsonl", "patch.jsonl")
        if layout == "json-list":
            for name in names:
                lines = (tmp_path / name).read_text().splitlines()
                write_json(tmp_path / f"{name}.json", [json.loads(line) for line in lines])
            names = ("base.jsonl.json", "patch.jsonl.json")
    automatic = k3diff_cli("responses", *names, cwd=tmp_path)
    assert automatic.exit_code == 2 and "--by-order" in automatic.stderr
    args = ("responses", *names, "--by-order", "--format", "json")
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    document = _json(result)
    assert document["pairing"]["key"] == "order"
    assert document["summary"]["paired"] == 3 and document["summary"]["differing"] == 1
    assert [r["status"] for r in document["records"]] == ["match", "text-differs", "match"]


def test_by_order_identical_captures_pass(k3diff_cli: Any, golden: Any, tmp_path: Path) -> None:
    _chat_captures(tmp_path)
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--by-order", cwd=tmp_path)
    assert result.exit_code == 0
    golden.check(GROUP, "by-order", result)


def test_by_order_refuses_different_counts(k3diff_cli: Any, tmp_path: Path) -> None:
    _chat_captures(tmp_path, ANSWERS[:2])
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--by-order", cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("k3diff: error: --by-order: base.jsonl has 3 records")
    assert "patch.jsonl has 2" in result.stderr and result.stderr.count("\n") == 1


def test_by_order_and_key_are_exclusive(k3diff_cli: Any, tmp_path: Path) -> None:
    _chat_captures(tmp_path)
    args = ("responses", "base.jsonl", "patch.jsonl", "--by-order", "--key", "id")
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "--by-order" in result.stderr and "--key" in result.stderr


def test_every_help_example_pairs(k3diff_cli: Any, tmp_path: Path) -> None:
    """The --help examples, run on the captures they name, pair every record."""
    help_text = k3diff_cli("responses", "--help").stdout
    lines = [line.strip() for line in help_text.splitlines()]
    examples = [line.split() for line in lines if line.startswith("k3diff responses ")]
    assert len(examples) >= 3
    _sse_captures(tmp_path)
    rows = [{"id": f"q{n}", "prompt": f"p{n}", "text": f"answer {n}"} for n in range(3)]
    write_jsonl(tmp_path / "base.jsonl", rows)
    write_jsonl(tmp_path / "patch.jsonl", rows)
    write_json(tmp_path / "base.json", [{"prompt": "p", "text": "a \n"}])
    write_json(tmp_path / "patch.json", [{"prompt": "p", "text": "a"}])
    samples = [inspect_sample(n, 1, f"Q{n}", "42", {"match": "C"}) for n in range(3)]
    for name in ("base.eval", "patch.eval", "base-again.eval"):
        write_eval_log(tmp_path / name, samples)
    # The --fail-on score-drop example: 1,000 docs scored alike decide a 2-point drop.
    docs = [generate_current(n, f"Q{n}?", ["42"], "42", "none", n % 2) for n in range(1000)]
    for side in ("base", "patch"):
        (tmp_path / side).mkdir()
        write_jsonl(tmp_path / side / "samples_gsm8k.jsonl", docs)
    for words in examples:
        assert words[:2] == ["k3diff", "responses"]
        args = [w for w in words[2:] if w not in ("-o", "diff.json")] + ["--format", "json"]
        result = k3diff_cli("responses", *args, cwd=tmp_path)
        assert result.exit_code == 0, (words, result.stdout[-400:], result.stderr)
        summary = _json(result)["summary"]
        assert summary["paired"] == summary["records"] > 0, words


# 7. A failed request is a record whose status is `error`.

ERROR_RECORD = {"id": "q1", "prompt": "p1", "error": {"message": "CUDA out of memory", "code": 500}}


def _error_captures(tmp_path: Path) -> None:
    rows = [{"id": f"q{n}", "prompt": f"p{n}", "text": f"answer {n}"} for n in range(3)]
    write_jsonl(tmp_path / "base.jsonl", rows)
    write_jsonl(tmp_path / "patch.jsonl", [rows[0], ERROR_RECORD, rows[2]])


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_an_error_record_is_a_difference(
    fmt: str, k3diff_cli: Any, golden: Any, tmp_path: Path
) -> None:
    _error_captures(tmp_path)
    args = ("responses", "base.jsonl", "patch.jsonl", "--format", fmt)
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert "CUDA out of memory" in result.stdout and "error" in result.stdout
    golden.check(GROUP, f"error-record-{fmt}", result)


def test_an_error_record_in_json(k3diff_cli: Any, tmp_path: Path) -> None:
    _error_captures(tmp_path)
    args = ("responses", "base.jsonl", "patch.jsonl", "--format", "json")
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 1
    document = _json(result)
    record = document["records"][1]
    assert record["status"] == "error" and record["base"]["error"] is None
    assert record["patch"]["error"] == "CUDA out of memory"
    assert document["summary"]["errors"] == 1 and document["summary"]["differing"] == 1
    assert document["summary"]["by_status"]["error"] == 1


def test_errors_on_both_sides_still_fail(k3diff_cli: Any, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "base.jsonl", [{"error": "timeout"}])
    write_jsonl(tmp_path / "patch.jsonl", [{"error": "timeout"}])
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--by-order", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert "timeout" in result.stdout


def test_an_sse_error_event_is_an_error_record(k3diff_cli: Any, tmp_path: Path) -> None:
    _sse_captures(tmp_path)
    broken = [completion_chunks("cmpl-x0", ["Pa", "ris."]), [{"error": {"message": "overloaded"}}]]
    broken.append(completion_chunks("cmpl-x2", ["Bl", "ue."]))
    (tmp_path / "patch.sse").write_text(sse_transcript(broken), encoding="utf-8")
    args = ("responses", "base.sse", "patch.sse", "--by-order", "--format", "json")
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    statuses = [(r["status"], (r["patch"] or {}).get("error")) for r in _json(result)["records"]]
    assert statuses == [("match", None), ("error", "overloaded"), ("match", None)]


ERROR_EVENT = 'event: error\ndata: {"message": "overloaded"}\n\ndata: [DONE]\n\n'
"""A stream failed with an SSE event named `error` whose data has no `error` key."""


def _text_chunk(rid: str, text: str, **rest: Any) -> str:
    choice = {"index": 0, "text": text, "finish_reason": "stop"}
    return "data: " + json.dumps({"id": rid, "choices": [choice], **rest}) + "\n\n"


@pytest.mark.parametrize(
    ("failed", "shown"),
    [
        (ERROR_EVENT, "overloaded"),
        ("event: error\n" + _text_chunk("cmpl-x1", "Rome.") + "data: [DONE]\n\n", "Rome."),
        (_text_chunk("cmpl-x1", "Ro") + ERROR_EVENT, "overloaded"),
        (
            _text_chunk("cmpl-x1", "Rome.", error={"message": "overloaded"}) + "data: [DONE]\n\n",
            "overloaded",
        ),
        (
            'event: error\ndata: {"error": {"message": "overloaded"}}\n\ndata: [DONE]\n\n',
            "overloaded",
        ),
    ],
)
def test_an_sse_error_event_or_error_beside_choices_is_an_error_record(
    k3diff_cli: Any, tmp_path: Path, failed: str, shown: str
) -> None:
    """An event named `error`, whatever its data holds, and a chunk with an `error` key beside
    its choices make the stream a failed request (status error), never a text: before, the
    event's data was read as a chunk (its text counted, or a text-less stream matched an empty
    answer) and an error beside choices was dropped."""
    _sse_captures(tmp_path)
    first, last = (
        sse_transcript([completion_chunks(f"cmpl-x{n}", [a[:2], a[2:]])])
        for n, a in ((0, "Paris."), (2, "Blue."))
    )
    (tmp_path / "patch.sse").write_text(first + "\n" + failed + last, encoding="utf-8")
    args = ("responses", "base.sse", "patch.sse", "--by-order", "--format", "json")
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    records = _json(result)["records"]
    assert [r["status"] for r in records] == ["match", "error", "match"], records
    assert shown in records[1]["patch"]["error"]


def test_openai_batch_error_line_is_an_error_record(k3diff_cli: Any, tmp_path: Path) -> None:
    ok = {"custom_id": "r1", "response": {"status_code": 200, "body": chat("x", "hi")}}
    failed = {"custom_id": "r1", "response": None, "error": {"code": "x", "message": "expired"}}
    write_jsonl(tmp_path / "base.jsonl", [ok])
    write_jsonl(tmp_path / "patch.jsonl", [failed])
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    record = _json(result)["records"][0]
    assert record["key"] == "r1" and record["status"] == "error"
    assert record["patch"]["error"] == "expired"


def test_openai_batch_line_whose_status_failed_is_an_error_record(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    # review66: a Batch line's status_code was dropped and its body read, so a 500 whose body
    # held the base's answer compared equal (exit 0), and a 500 with an empty body was refused
    # as having no text. Its request_id is the server's id of the request: never compared.
    def line(rid: str, status: Any, body: dict[str, Any], request_id: str) -> dict[str, Any]:
        response = {"status_code": status, "request_id": request_id, "body": body}
        return {"id": f"batch_req_{rid}", "custom_id": rid, "response": response, "error": None}

    answer = chat("chatcmpl-1", "hi")
    write_jsonl(tmp_path / "base.jsonl", [line(r, 200, answer, "req-b") for r in "abcd"])
    write_jsonl(
        tmp_path / "patch.jsonl",
        [
            line("a", 500, answer, "req-p"),
            line("b", 503, {"error": {"message": "overloaded"}}, "req-p"),
            line("c", "500", {}, "req-p"),
            line("d", 200, answer, "req-p"),
        ],
    )
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    document = _json(result)
    records = {r["key"]: r for r in document["records"]}
    assert {k: r["status"] for k, r in records.items()} == {
        "a": "error",
        "b": "error",
        "c": "error",
        "d": "match",
    }
    assert [records[k]["patch"]["error"] for k in "abc"] == [
        "HTTP 500",
        "HTTP 503: overloaded",
        'HTTP status "500"',
    ]
    assert document["summary"]["errors"] == 3


def test_openai_batch_line_with_a_failing_status_is_an_error_record(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    # review66: the wrapper's status_code was never read: a line whose request failed (500)
    # but whose body held the base's answer compared as a match (exit 0).
    def line(status: Any) -> dict[str, Any]:
        response = {"status_code": status, "request_id": "req-1", "body": chat("x", "hi")}
        return {"id": "batch_req_1", "custom_id": "r1", "response": response, "error": None}

    write_jsonl(tmp_path / "base.jsonl", [line(200)])
    for status, shown in ((500, "HTTP 500"), ("200", 'HTTP status "200"')):
        write_jsonl(tmp_path / "patch.jsonl", [line(status)])
        args = ("responses", "base.jsonl", "patch.jsonl", "--format", "json")
        result = k3diff_cli(*args, cwd=tmp_path)
        assert result.exit_code == 1, result.stdout
        record = _json(result)["records"][0]
        assert record["status"] == "error" and record["patch"]["error"] == shown, record
    # A success status (2xx) is read as ever.
    write_jsonl(tmp_path / "patch.jsonl", [line(200)])
    assert k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path).exit_code == 0


# 12. NFC vs NFD, SGLang output_ids, plurals.


def test_nfc_nfd_divergence_shows_code_points_and_hint(
    k3diff_cli: Any, golden: Any, tmp_path: Path
) -> None:
    write_jsonl(tmp_path / "base.jsonl", [{"id": "a", "text": "caf\u00e9 au lait"}])
    write_jsonl(tmp_path / "patch.jsonl", [{"id": "a", "text": "cafe\u0301 au lait"}])
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 1
    assert "U+00E9" in result.stdout and "U+0065 U+0301" in result.stdout
    assert "--normalize nfc" in result.stdout
    golden.check(GROUP, "nfc-nfd-hint", result)
    document = _json(
        k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--format", "json", cwd=tmp_path)
    )
    divergence = document["records"][0]["divergence"]
    assert divergence["codepoints"] == {"base": ["U+00E9"], "patch": ["U+0065", "U+0301"]}
    assert divergence["equal_after_normalize"] == ["nfc"]
    fixed = k3diff_cli("responses", "base.jsonl", "patch.jsonl", "--normalize", "nfc", cwd=tmp_path)
    assert fixed.exit_code == 0


def test_sglang_output_ids_are_token_ids(k3diff_cli: Any, tmp_path: Path) -> None:
    def sglang(ids: list[int]) -> dict[str, Any]:
        meta = {"id": "x", "prompt_tokens": 3, "completion_tokens": len(ids)}
        return {"text": "Hello", "output_ids": ids, "meta_info": meta}

    write_jsonl(tmp_path / "base.jsonl", [sglang([1, 2])])
    write_jsonl(tmp_path / "patch.jsonl", [sglang([1, 3])])
    args = ("responses", "base.jsonl", "patch.jsonl", "--by-order", "--format", "json")
    result = k3diff_cli(*args, cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    record = _json(result)["records"][0]
    assert record["status"] == "tokens-differ" and record["base"]["tokens"] == 2
    assert record["divergence"]["token_index"] == 1


def test_one_record_is_singular(k3diff_cli: Any, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "base.jsonl", [{"id": "a", "text": "x"}])
    write_jsonl(tmp_path / "patch.jsonl", [{"id": "a", "text": "y"}])
    for fmt in ("text", "markdown"):
        args = ("responses", "base.jsonl", "patch.jsonl", "--format", fmt)
        result = k3diff_cli(*args, cwd=tmp_path)
        assert result.exit_code == 1
        assert "1 records" not in result.stdout and "1 paired records" not in result.stdout
        assert "(jsonl, 1 record)" in result.stdout
    text = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path).stdout
    assert "1 record: 1 paired" in text and "1 of 1 paired record differs" in text


def test_a_client_key_whose_values_never_meet_is_named(k3diff_cli: Any, tmp_path: Path) -> None:
    """Every record of both sides has a `key`, but no value appears on both: the default rule
    falls back to the prompt hash. The report used to say only `paired by prompt-hash` and
    'pair by a field both sides share', although `key` is such a field: it says what happened."""
    write_jsonl(
        tmp_path / "base.jsonl",
        [{"key": f"b{n}", "prompt": f"p{n}", "text": "a"} for n in range(3)],
    )
    write_jsonl(
        tmp_path / "z.jsonl", [{"key": f"z{n}", "prompt": f"q{n}", "text": "a"} for n in range(3)]
    )
    result = k3diff_cli("responses", "base.jsonl", "z.jsonl", cwd=tmp_path)
    assert result.exit_code == 1
    text = " ".join(result.stdout.split())
    unshared = "both sides carry 'key', but no value of it appears on both sides"
    assert f"paired by prompt-hash ({unshared})" in text
    assert (
        f"result: NOTHING PAIRED: {unshared}, and the prompt-hash the default rule fell back to "
        "paired none of the 3 in base and 3 in patch either, so nothing was compared"
    ) in text


def test_the_unshared_key_field_is_kept_in_the_json_document(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    """The note the text report prints is in `k3diff.responses/1` too (`pairing.unshared_field`,
    null when none), and the comparison's reader reads it; a document written before the field
    (by 3e8bbca's code) reads as none."""
    write_jsonl(
        tmp_path / "base.jsonl",
        [{"key": f"b{n}", "prompt": f"p{n}", "text": "a"} for n in range(3)],
    )
    write_jsonl(
        tmp_path / "z.jsonl", [{"key": f"z{n}", "prompt": f"q{n}", "text": "a"} for n in range(3)]
    )
    args = ("responses", "base.jsonl", "z.jsonl", "--format", "json", "-o", "cmp.json")
    assert k3diff_cli(*args, cwd=tmp_path).exit_code == 1
    document = json.loads((tmp_path / "cmp.json").read_text())
    assert document["pairing"]["unshared_field"] == "key"
    view = parse_comparison((tmp_path / "cmp.json").read_bytes(), tmp_path / "cmp.json")
    assert view.unshared_field == "key"
    same = ("base.jsonl", twin("base.jsonl", tmp_path))
    args = ("responses", *same, "--format", "json", "-o", "same.json")
    assert k3diff_cli(*args, cwd=tmp_path).exit_code == 0
    assert json.loads((tmp_path / "same.json").read_text())["pairing"]["unshared_field"] is None
    old = Path(__file__).parent.parent / "bundle/data/triage_3e8bbca/base_flaky/cmp.json"
    assert "unshared_field" not in json.loads(old.read_text())["pairing"]
    assert parse_comparison(old.read_bytes(), old).unshared_field is None
