"""The fast paths give what the general ones give, byte for byte.

`FastReader` (raw OpenAI object → packed record) against `shapes.records_from_raw`; `MatchRow`
(an identical pair) against `diff.diff_pair`; `documents.responses_match.match_line` against the
spool's encoding of `record_line`; and whole `k3diff responses` runs, every format, with the
fast paths switched off (monkeypatched) against switched on, on normal and hostile input.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from k3diff.documents.responses import record_line
from k3diff.documents.responses_match import match_line
from k3diff.errors import ResponseFormatError
from k3diff.responses import compare as compare_module
from k3diff.responses import loaders as loaders_module
from k3diff.responses.collect import _STRICT
from k3diff.responses.diff import DiffOptions, diff_pair
from k3diff.responses.fastshape import FastReader
from k3diff.responses.matchpair import MatchRow, identical
from k3diff.responses.model import LoadOptions
from k3diff.responses.packed import FIELDS, pack, unpack
from k3diff.responses.shapes import records_from_raw

from .fixtures import chat, chat_logprobs, completion, write_jsonl

NAN = float("nan")


def _objects() -> list[dict[str, Any]]:
    """Completion and chat objects in many layouts and values, and records only the general
    reader reads (several choices, errors, wrapped, prompt token ids, content parts, bad
    types)."""
    rows: list[dict[str, Any]] = []
    stops: list[Any] = [None, 1, True, 1.0, -0.0, 0.0, "x", 1, True, None, [], {}]
    for n, stop in enumerate(stops):
        row = completion(f"c{n}", f"text {n} caf\u00e9", token_ids=[1, 2, n])
        row["choices"][0]["stop_reason"] = stop
        rows.append(row)
    rows.append(completion("t", "with timing", token_ids=[2**40]) | {"e2e_latency": 0.5})
    rows.append(completion("p", "prompted") | {"prompt": "Say  hi\n" * 20})
    rows.append(completion("q", "chat prompt") | {"prompt": [{"role": "user", "content": "q"}]})
    rows.append(completion("n", "nan") | {"temperature": NAN, "kv_transfer_params": None})
    rows.append(completion("v", "volatile") | {"request_time": 3, "trace_id": "x"})
    rows.append(completion("d", "nested") | {"meta": {"a_ms": 1, "b": [{"id": 1, "c": 2}]}})
    usage = {"prompt_tokens": 3, "prompt_tokens_details": {"cached_tokens": 2}}
    rows.append(completion("u", "cached") | {"usage": usage})
    usage = {"prompt_tokens": 3, "completion_tokens_details": {"reasoning_tokens": 0, "x_ms": 4}}
    rows.append(completion("u2", "nested usage") | {"usage": usage})
    rows.append(completion("u3", "odd usage") | {"usage": 5})
    no_usage = completion("u4", "no usage")
    del no_usage["usage"]
    rows.append(no_usage)
    rows.append(
        completion("l", "Hi!", logprobs={"tokens": ["Hi", "!"], "token_logprobs": [-0.1, -0.2]})
    )
    rows.append(completion("k", "keyed") | {"custom_id": "req-1", "meta": {"qid": 7}})
    rows.append(chat("h1", "chat text"))
    rows.append(chat("h2", None))  # type: ignore[arg-type]
    lp = chat_logprobs([("Hi", -0.1, [("Hi", -0.1), ("Yo", -2.5)])])
    rows.append(chat("h3", "Hi", logprobs=lp))
    tools = chat("h4", "tools")
    tools["choices"][0]["message"] |= {"tool_calls": [], "refusal": None, "annotations": []}
    rows.append(tools)
    calls = chat("h5", "")
    calls["choices"][0]["message"]["tool_calls"] = [{"id": "call-1", "function": {"name": "f"}}]
    rows.append(calls)
    # Only the general reader reads these (or refuses them, with its own words).
    parts = chat("g1", "x")
    parts["choices"][0]["message"]["content"] = [{"type": "text", "text": "a"}, {"text": "b"}]
    rows.append(parts)
    two = completion("g2", "first")
    two["choices"].append({"index": 1, "text": "second", "finish_reason": "stop"})
    rows.append(two)
    rows.append(completion("g3", "x") | {"prompt_token_ids": [1, 2, 3]})
    rows.append({"id": "g4", "error": {"message": "overloaded"}})
    rows.append({"custom_id": "g5", "response": {"body": completion("r", "wrapped")}})
    rows.append(completion("g6", "x") | {"choice": 1})
    return rows


BAD = [
    ("finish_reason", 3),
    ("token_ids", [1, 2.5]),
    ("token_ids", [2**70]),
    ("token_ids", "1 2"),
    ("text", None),
    ("logprobs", {"tokens": ["a"], "token_logprobs": "x"}),
]


@pytest.mark.parametrize("volatile", [False, True])
@pytest.mark.parametrize("key", [None, ("id",)])
def test_fast_reader_builds_the_general_readers_record(
    volatile: bool, key: tuple[str, ...] | None
) -> None:
    options = LoadOptions(key, volatile)
    reader = FastReader(options, "cap.jsonl")
    fast = 0
    for _round in range(2):  # the second round reads every layout and value from the caches
        for line, obj in enumerate(_objects(), 1):
            packed = reader.pack(copy.deepcopy(obj), line)
            try:
                general = records_from_raw(obj, f"cap.jsonl:{line}", line, options)
            except ResponseFormatError:
                assert packed is None  # the general reader refuses it, with its own words
                continue
            if packed is None:
                continue
            fast += 1
            assert len(general) == 1
            # repr: NaN != NaN, yet both sides must hold it alike
            assert repr(packed) == repr(pack(general[0])), obj
            assert repr(unpack(packed)) == repr(general[0])
    # all but the six of the general reader (and, with --key id, the id-less error record)
    assert fast == 2 * (len(_objects()) - 6)


@pytest.mark.parametrize(("field", "value"), BAD)
def test_a_record_the_fast_reader_cannot_vouch_for_goes_to_the_general_reader(
    field: str, value: Any
) -> None:
    obj = completion("b", "text", token_ids=[1])
    obj["choices"][0][field] = value
    assert FastReader(LoadOptions(), "cap.jsonl").pack(obj, 1) is None


def test_text_and_tokens_fields_turn_the_fast_reader_off() -> None:
    for options in (
        LoadOptions(text_field=("choices", "0", "text")),
        LoadOptions(tokens_field=("x",)),
    ):
        assert FastReader(options, "cap.jsonl").pack(completion("a", "b"), 1) is None


def test_the_packed_field_order_is_the_records() -> None:
    assert FIELDS[:3] == ("line", "id", "key")
    assert FIELDS[-5:] == ("member", "label", "condition", "model", "beams")
    assert len(FIELDS) == 26  # FastReader._build writes all 26 in this order


def _packed(obj: dict[str, Any], line: int, display: str = "cap.jsonl") -> tuple[Any, ...]:
    options = LoadOptions()
    return pack(records_from_raw(obj, f"{display}:{line}", line, options)[0])


def test_a_match_row_is_the_diff_and_line_diff_pair_makes() -> None:
    displays = ("b\u00e4se \ud800.jsonl", "patch.jsonl")
    options = DiffOptions()
    checked = 0
    for line, obj in enumerate(_objects(), 1):
        if "error" in obj or len(obj.get("choices", [])) != 1:
            continue
        base = _packed(obj, line, displays[0])
        other = copy.deepcopy(obj) | {"id": "other", "created": 5}
        patch = _packed(other, line + 7, displays[1])
        if not identical(base, patch, False):
            assert obj["choices"][0].get("logprobs") is not None
            continue
        row = MatchRow(f"k\u00e9y{line}", base, patch, displays)
        expected = diff_pair(row.key, unpack(base), unpack(patch), displays, options)
        assert row.diff() == expected
        assert match_line(row) == _STRICT.encode(record_line(expected))
        checked += 1
    assert checked > 20


def test_a_match_line_names_array_items_and_archive_members_as_the_diff_does() -> None:
    base = list(_packed(completion("a", "x", token_ids=[1]), 1))
    patch = list(base)
    base[FIELDS.index("index")] = 3
    patch[FIELDS.index("member")] = "samples/1_epoch_1.json"
    row = MatchRow("a", tuple(base), tuple(patch), ("b.json", "p.eval"))
    expected = diff_pair(
        "a", unpack(tuple(base)), unpack(tuple(patch)), row.displays, DiffOptions()
    )
    assert row.diff() == expected
    assert match_line(row) == _STRICT.encode(record_line(expected))
    assert '"b.json:1[3]"' in str(match_line(row))


def test_pairs_that_differ_in_anything_compared_are_not_identical() -> None:
    base = completion("a", "same", token_ids=[1, 2])
    changes = [
        ("text", "other"),
        ("token_ids", [1, 3]),
        ("finish_reason", "length"),
        ("stop_reason", 7),
    ]
    for field, value in changes:
        patch = copy.deepcopy(base)
        patch["choices"][0][field] = value
        assert not identical(_packed(base, 1), _packed(patch, 1), False), field
    for top in ({"usage": {"prompt_tokens": 4}}, {"model": "m2"}, {"e2e_latency": 3}):
        assert not identical(_packed(base, 1), _packed(base | top, 1), False), top
    no_ids = copy.deepcopy(base)
    del no_ids["choices"][0]["token_ids"]
    assert not identical(_packed(base, 1), _packed(no_ids, 1), False)
    fingerprint = base | {"system_fingerprint": "fp-2"}
    assert identical(_packed(base, 1), _packed(fingerprint, 1), False)
    assert not identical(_packed(base, 1), _packed(fingerprint, 1), True)


def test_a_condition_the_strict_encoder_refuses_is_left_to_the_general_writer() -> None:
    obj = completion("a", "x")
    base = list(_packed(obj, 1))
    base[FIELDS.index("condition")] = '{"params":{"temperature":NaN}}'
    row = MatchRow("a", tuple(base), tuple(base), ("b", "p"))
    assert match_line(row) is None
    assert math.isnan(json.loads(base[FIELDS.index("condition")])["params"]["temperature"])


def _slow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loaders_module, "loads_line", lambda text: None)
    monkeypatch.setattr(FastReader, "pack", lambda self, obj, line: None)
    monkeypatch.setattr(compare_module, "identical", lambda base, patch, volatile: False)


def _capture(tmp_path: Path) -> tuple[Path, Path]:
    base_rows = [r for r in _objects() if "error" not in r and "response" not in r]
    patch_rows = copy.deepcopy(base_rows)
    for n, row in enumerate(patch_rows):
        row["id"] = f"patch-{n}"
        if n % 5 == 1 and "choices" in row and "text" in row["choices"][0]:
            row["choices"][0]["text"] += " changed"
        if n % 7 == 2:
            row["usage"] = {"prompt_tokens": 99}
        if n % 4 == 3:
            row["system_fingerprint"] = "fp-other"
    base_rows.append({"id": "e", "error": {"message": "overloaded"}})
    patch_rows.append({"id": "e", "error": {"message": "overloaded"}})
    return write_jsonl(tmp_path / "base.jsonl", base_rows), write_jsonl(
        tmp_path / "patch.jsonl", patch_rows
    )


RUNS = [
    ("--format", "text", "--by-order"),
    ("--format", "json", "--by-order"),
    ("--format", "markdown", "--by-order", "--limit", "3"),
    ("--format", "json", "--by-order", "--include-volatile", "--normalize", "nfc"),
    ("--format", "text", "--by-order", "--limit", "0"),
]


@pytest.mark.parametrize("args", RUNS, ids=[" ".join(a) for a in RUNS])
def test_a_run_reports_byte_for_byte_what_the_general_path_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    base, patch = _capture(tmp_path)
    fast = run_k3diff("responses", base, patch, *args)
    _slow(monkeypatch)
    slow = run_k3diff("responses", base, patch, *args)
    assert fast.exit_code == slow.exit_code == 1
    assert fast.stdout == slow.stdout
    assert fast.stderr == slow.stderr


def test_identical_captures_match_alike_on_either_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [completion(f"c{n}", f"t{n % 3}", token_ids=[n]) for n in range(3000)]
    base = write_jsonl(tmp_path / "base.jsonl", rows)
    patch = write_jsonl(tmp_path / "patch.jsonl", rows)
    results = []
    for fmt in ("text", "json"):
        results.append(run_k3diff("responses", base, patch, "--format", fmt, "--limit", "5"))
    _slow(monkeypatch)
    for index, fmt in enumerate(("text", "json")):
        slow = run_k3diff("responses", base, patch, "--format", fmt, "--limit", "5")
        assert (results[index].exit_code, results[index].stdout) == (0, slow.stdout)
        assert slow.exit_code == 0


HOSTILE = [
    '{"id": "x", "choices": [{"text": "a"}], "id": "y"}',
    '{"id": "x", "choices": [{"text": "a", "token_ids": [1, 2.5]}]}',
    '{"id": "x", "choices": [{"text": "a", "finish_reason": 7}]}',
    '{"id": "x", "choices": [{"text": "a"}]',
    '{"id": "x", "choices": [{"text": null}]}',
    "[" * 200 + "]" * 200,
    '{"id": "x", "choices": [{"text": "a"}]} trailing',
    '{"id": "x", "choices": [{"text": "a"}]}{}',
    '["not", "an", "object"]',
    '{"id": "x", "choices": [{"text": "a"}], "deep": ' + "[" * 150 + "]" * 150 + "}",
    '{"id": "x", "choices": [{"text": "a", "token_ids": [1, 18446744073709551616]}]}',
    '{"id": "x", "choices": [{"text": "a\u0000\x01"}]}',
    '{"id": "x", "choices": [{"text": "a", "token_ids": [true, 2]}]}',  # no token id: readers72
]


ODD_LINES = [
    '  {"id": "s", "choices": [{"text": "leading blanks"}]}',
    '{"id": "t", "choices": [{"text": "trailing blanks"}]}   \t',
    '{"id": "r", "choices": [{"text": "crlf"}]}\r',
    '\ufeff{"id": "b", "choices": [{"text": "bom"}]}',
    '{"id": "n", "choices": [{"text": "nan", "token_ids": [1]}], "t": NaN}',
    '{"id": "d", "choices": [{"text": "ids", "token_ids": [0, -9223372036854775808]}]}',
    '{"id": "e", "choices": [{"text": "empty ids", "token_ids": []}]}',
]


def test_odd_but_valid_lines_read_alike_on_either_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "base.jsonl"
    base.write_text("\n".join(ODD_LINES) + "\n", encoding="utf-8")
    patch = tmp_path / "patch.jsonl"
    patch.write_text("\n".join(ODD_LINES[::-1]) + "\n", encoding="utf-8")
    fast = [run_k3diff("responses", base, patch, "--format", fmt) for fmt in ("json", "text")]
    _slow(monkeypatch)
    slow = [run_k3diff("responses", base, patch, "--format", fmt) for fmt in ("json", "text")]
    for one, other in zip(fast, slow, strict=True):
        assert (one.exit_code, one.stdout, one.stderr) == (
            other.exit_code,
            other.stdout,
            other.stderr,
        )
    assert fast[0].exit_code == 0


@pytest.mark.parametrize("line", HOSTILE)
def test_hostile_lines_after_fast_ones_fail_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str
) -> None:
    good = "".join(json.dumps(completion(f"c{n}", "t", token_ids=[n])) + "\n" for n in range(3))
    base = tmp_path / "base.jsonl"
    base.write_text(good + line + "\n", encoding="utf-8")
    patch = tmp_path / "patch.jsonl"
    patch.write_text(good, encoding="utf-8")
    fast = run_k3diff("responses", base, patch)
    _slow(monkeypatch)
    slow = run_k3diff("responses", base, patch)
    assert fast.exit_code == slow.exit_code == 2
    assert fast.stderr == slow.stderr
    assert "base.jsonl:4" in fast.stderr
    assert "Traceback" not in fast.stderr


def test_the_record_cap_holds_on_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [completion(f"c{n}", "t" * (10 if n < 3 else 5000), token_ids=[n]) for n in range(4)]
    base = write_jsonl(tmp_path / "base.jsonl", rows)
    patch = write_jsonl(tmp_path / "patch.jsonl", rows[:3])
    args = ("responses", base, patch, "--max-record-bytes", "1000")
    fast = run_k3diff(*args)
    _slow(monkeypatch)
    slow = run_k3diff(*args)
    assert fast.exit_code == slow.exit_code == 2
    assert fast.stderr == slow.stderr
    assert "base.jsonl:4: line longer than 1,000 bytes" in fast.stderr
