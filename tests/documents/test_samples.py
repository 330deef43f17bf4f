"""`k3diff/sample/lines.py`, `header.py` and `reader.py`: the samples log's line type, its
writer and its one reader."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.errors import InputError
from k3diff.responses.model import text_digest
from k3diff.sample.header import header_line, resumed_line
from k3diff.sample.lines import SampleLine, encode_line
from k3diff.sample.reader import read_samples_log
from k3diff.sample.usage import checked_usage

DESIGN_FIELDS = (
    "side", "key", "mode", "repeat", "request_sha256", "status", "text", "text_xxh3",
    "token_ids_xxh3", "finish_reason", "usage", "latency_s", "fingerprint", "error", "attempts",
)  # fmt: skip
"""DESIGN.md's list of what every sample line holds, in its order."""

RUN = {
    "run_id": "0123456789abcdef0123456789abcdef",
    "servers": {"base": "http://127.0.0.1:1", "patch": "http://127.0.0.1:2"},
    "modes": ["serial", "concurrent"],
    "repeats": 2,
    "prompts_sha256": "ab" * 32,
    "started": "2026-01-01T00:00:00Z",
}


def _line(side: str, key: str, mode: str, repeat: int, text: str | None = "out") -> SampleLine:
    return SampleLine(
        side=side, key=key, mode=mode, repeat=repeat, request_sha256="cd" * 32,
        status=200 if text is not None else None, text=text,
        text_xxh3=None if text is None else text_digest(text), token_ids_xxh3=None,
        finish_reason="stop" if text is not None else None,
        usage={"prompt_tokens": 3, "completion_tokens": 2} if text is not None else None,
        latency_s=0.01, fingerprint=None, error=None if text is not None else "ConnectError",
        attempts=1, started=1.5,
    )  # fmt: skip


def _log(tmp_path: Path) -> Path:
    lines = [
        _line(side, key, mode, repeat, None if (side, key, repeat) == ("patch", "b", 1) else "out")
        for side in ("base", "patch")
        for key in ("a", "b")
        for mode in ("serial", "concurrent")
        for repeat in range(2)
    ]
    data = header_line(RUN) + b"".join(encode_line(line) for line in lines[:9])
    data += resumed_line("2026-01-01T00:01:00Z") + b"".join(encode_line(x) for x in lines[9:])
    path = tmp_path / "samples.jsonl"
    path.write_bytes(data)
    return path


def test_the_line_type_holds_designs_fields_in_order() -> None:
    names = tuple(f.name for f in fields(SampleLine))
    assert names[: len(DESIGN_FIELDS)] == DESIGN_FIELDS


def test_what_the_writer_writes_the_reader_reads_back(tmp_path: Path) -> None:
    log = read_samples_log(_log(tmp_path))
    assert log.header.run_id == RUN["run_id"] and log.header.modes == ("serial", "concurrent")
    assert log.header.sides == ("base", "patch") and log.header.repeats == 2
    assert len(log.samples) == 16 and log.resumed == ("2026-01-01T00:01:00Z",)
    assert log.lines[9] == 12  # header, 9 samples, the resume marker
    failed = [s for s in log.samples if s.error is not None]
    assert len(failed) == 2 and all(s.text_xxh3 is None for s in failed)
    assert log.samples[0] == _line("base", "a", "serial", 0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"repeat": 2}, "repeat 2, but the run takes 2 per record"),
        ({"mode": "loaded"}, "a loaded sample, but the run's modes are serial, concurrent"),
        ({"usage": {"prompt_tokens": -5}}, "usage.prompt_tokens is -5"),
        ({"usage": {"prompt_tokens": 3}, "usage_invalid": "x"}, "'usage' recorded although"),
        ({"latency_s": -1}, "'latency_s' is not a non-negative number"),
        ({"attempts": 0}, "'attempts' is not a positive integer"),
        ({"finish_reason": 7}, "'finish_reason' is neither null nor a str"),
    ],
)
def test_a_line_is_checked_field_by_field(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    path = _log(tmp_path)
    rows = path.read_text().splitlines()
    rows[1] = json.dumps(json.loads(rows[1]) | change)
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match=r"samples.jsonl:2: ") as caught:
        read_samples_log(path)
    assert message in str(caught.value)


def test_usage_is_kept_only_when_every_count_is_a_non_negative_integer() -> None:
    assert checked_usage({"prompt_tokens": 3, "details": {"cached_tokens": 0}}) == (
        {"prompt_tokens": 3, "details": {"cached_tokens": 0}},
        None,
    )
    for bad in ({"prompt_tokens": 1.5}, {"prompt_tokens": True}, {"t": 10**30}, [1], "many"):
        usage, why = checked_usage(bad)
        assert usage is None and why is not None


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_mutated_log_is_read_or_refused_with_one_line(
    tmp_path: Path, data: st.DataObject
) -> None:
    original = _log(tmp_path).read_bytes()
    start = data.draw(st.integers(0, len(original)))
    end = data.draw(st.integers(start, min(len(original), start + 40)))
    filler = data.draw(st.binary(max_size=12) | st.sampled_from([b"\n", b'"', b"}", b"{}\n"]))
    mutated = original[:start] + filler + original[end:]
    path = tmp_path / "mutated.jsonl"
    path.write_bytes(mutated)
    try:
        log = read_samples_log(path)
    except InputError as exc:
        message = str(exc)
        assert message.startswith(str(path)) and "\n" not in message
    else:
        assert len({s.ident for s in log.samples}) == len(log.samples)
