"""A document holds at most its kind's cap of JSON values (review80f): after its `schema` a member
was decoded whole whatever it held, so `{"schema": "k3diff.triage/1", "records": [{}, ...]}` of
30,000,000 items (120 MB) cost 28.9 s of CPU and 4.9 GB before `report` refused it, a 1 GiB one
tens of GB. Each value is decoded from a piece of the text holding no more values than the cap
leaves (`jsonvalues.decode_capped`): past it, exit 2, one line naming the file, the member and
the cap. The caps are shrunk here (`raising=False`: the test runs, and fails, where they are not
read)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff import docbody, jsonvalues
from k3diff.docbody import Kind
from k3diff.errors import InputError
from k3diff.jsonmembers import Items, read_object
from k3diff.strictjson import decode_at


def _cap_line(path: Path, key: str, most: int, kind: str) -> str:
    return (
        f"k3diff: error: {path}: member {key!r} takes the document past {most:,} JSON values "
        f"(its commas and brackets counted), the most a {kind} document holds; refused"
    )


def _caps(monkeypatch: pytest.MonkeyPatch, triage: int, others: int) -> None:
    monkeypatch.setattr(docbody, "VALUES", {Kind.TRIAGE: triage}, raising=False)
    monkeypatch.setattr(docbody, "MOST_VALUES", others, raising=False)


def test_report_refuses_triage_records_past_the_cap(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _caps(monkeypatch, 1_000, 10_000)
    path = tmp_path / "triage.json"
    # the schema holds 1 value, 600 items of `{}` 2 each and the list 1 more: 1,202 > 1,000
    path.write_text('{"schema": "k3diff.triage/1", "records": [' + ",".join(["{}"] * 600) + "]}")
    result = run_k3diff("report", path, "--out", tmp_path / "bundle")
    assert result.exit_code == 2, result.stderr
    assert result.stderr.strip() == _cap_line(path, "records", 1_000, "k3diff.triage/1")


def test_report_refuses_a_nested_array_of_another_kind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Not only a top-level array: a list inside any member (here a wheels document's `base`)."""
    _caps(monkeypatch, 1_000_000, 500)
    path = tmp_path / "wheels.json"
    inner = ",\n".join(["[]"] * 300)  # 299 commas, 301 brackets, one value more: 601 > 500
    path.write_text(f'{{"schema": "k3diff.wheels/1", "base": {{"x": [{inner}]}}}}\n')
    result = run_k3diff("report", path, "--out", tmp_path / "bundle")
    assert result.exit_code == 2, result.stderr
    assert result.stderr.strip() == _cap_line(path, "base", 500, "k3diff.wheels/1")


def test_a_streamed_record_holds_at_most_the_cap(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A responses document's records are read one by one and dropped, each under the cap."""
    _caps(monkeypatch, 1_000_000, 100)
    path = tmp_path / "cmp.json"
    record = '{"key": "k", "base": [' + ",".join(["0"] * 200) + "]}"
    path.write_text(f'{{"schema": "k3diff.responses/1", "records": [{record}]}}')
    result = run_k3diff("report", path, "--out", tmp_path / "bundle")
    assert result.exit_code == 2, result.stderr
    assert result.stderr.strip() == _cap_line(path, "records[0]", 100, "k3diff.responses/1")


def _read(text: str, most: int) -> object:
    return read_object(text, "d.json", lambda members: {}, lambda members: ("k3diff", most))


def test_the_cap_is_the_values_of_all_members_together() -> None:
    # "s": 1; [0,0]: 1 comma + 1 bracket + 1 = 3, twice: 7 in all
    text = '{"schema": "s", "a": [0,0], "b": [0,0]}'
    assert _read(text, 7) == {"schema": "s", "a": [0, 0], "b": [0, 0]}
    with pytest.raises(InputError, match=r"^d\.json: member 'b' takes the document past 6 "):
        _read(text, 6)


def test_a_list_read_before_the_schema_counts_once_read() -> None:
    # counted item by item (each `0`: 1), then read whole once the schema is known: 3 + 1
    text = '{"a": [0,0], "schema": "s"}'
    assert _read(text, 4) == {"a": [0, 0], "schema": "s"}
    with pytest.raises(InputError, match=r"^d\.json: member 'a' takes the document past 3 "):
        _read(text, 3)


_TEXTS = [
    '{"a": [1, true, false, null, "\\u00e9x,[{", -12.5e3, {"b": "c,d"}], "e": 12345678}',
    '[[1, 2], [3, [4, {"k": [5, "\\"]"]}]], "tail", 1e5, -0.0]',
    '"a string with, commas [and] {brackets} and \\ud83d\\ude00 in it"',
    "123456789012345678901234567890",
]


@pytest.mark.parametrize("text", _TEXTS)
def test_a_value_read_from_pieces_is_the_value_or_refused_by_its_count(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """Whatever the first piece's length and the cap: the value `decode_at` reads from the whole
    text, with its end, where it holds at most the cap (`held`); else the refusal."""
    monkeypatch.setattr(jsonvalues, "_BLOCK", 3)
    whole = decode_at(text + " ,", 0, "d", 100)
    count = jsonvalues.held(text, 0, len(text))
    for first in range(1, len(text) + 3):
        monkeypatch.setattr(jsonvalues, "_FIRST", (first, first))
        for most in range(1, count + 2):
            budget = jsonvalues.Budget(most, lambda key, most: InputError(f"{key} {most}"))
            budget.span = first
            if count > most:
                with pytest.raises(InputError, match=f"^m {most}$"):
                    jsonvalues.decode_capped(text + " ,", 0, "d", 100, budget, "m")
            else:
                assert jsonvalues.decode_capped(text + " ,", 0, "d", 100, budget, "m") == whole
                assert budget.kept == count


def test_a_syntax_error_past_the_first_piece_is_worded_at_its_place(tmp_path: Path) -> None:
    """The piece's error is moved to its place in the whole text: the line `json` names."""
    items = ["0"] * 300_000
    items[250_000] = "0 0"  # no comma: an item past the first MiB
    text = '{"schema": "k3diff.triage/1", "records": [' + ",\n".join(items) + "]}"
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    path = tmp_path / "triage.json"
    path.write_text(text)
    result = run_k3diff("report", path, "--out", tmp_path / "bundle")
    assert result.exit_code == 2, result.stderr
    line = f"line {expected.value.lineno}: {expected.value.msg}"
    assert result.stderr.strip() == f"k3diff: error: {path}: not a k3diff JSON document ({line})"


def test_items_read_one_by_one_keep_the_cap_per_item() -> None:
    """An item read and dropped (a responses record) holds at most the cap, not the cap less the
    items before it: here 4 + 5 + 4 values, each item at most 5 ([0,0,0,0]: 3 commas, a bracket
    and one)."""
    streams = {"r": Items(lambda item, where: sum(item), 10)}
    text = '{"schema": "s", "r": [[0,0,0], [1,1,1,1], [0,0,0]]}'

    def read(most: int) -> object:
        return read_object(text, "d.json", lambda m: streams, lambda m: ("k3diff", most))

    value = read(5)
    assert isinstance(value, dict) and value["r"].items == (0, 4, 0)
    with pytest.raises(InputError, match=r"^d\.json: member 'r\[1\]' takes the document past 4 "):
        read(4)


def test_each_character_is_counted_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Members each longer than their first piece: the text is counted a few times over, not
    once more to its end for each (review80f's first cut did: 200 members of 1.1 MiB strings,
    88 s of CPU where the whole-text decoder took 3.4 s; 5.4 s now)."""
    counted: list[int] = []
    original = jsonvalues.held

    def held(text: str, start: int, stop: int) -> int:
        counted.append(stop - start)
        return original(text, start, stop)

    monkeypatch.setattr(jsonvalues, "held", held)
    monkeypatch.setattr(jsonvalues, "_FIRST", (64, 64))
    members = ", ".join(f'"m{n}": "{"a" * 5_000}"' for n in range(50))
    text = f'{{"schema": "s", {members}}}'
    assert len(_read(text, 1_000)) == 51  # type: ignore[arg-type]
    assert sum(counted) <= 4 * len(text)  # a piece twice its value, the value once more
