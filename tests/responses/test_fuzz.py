"""Any mutation of a valid capture is compared or rejected with a K3diffError, never a crash."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.errors import K3diffError
from k3diff.output import OutputFormat
from k3diff.report.responses import StreamedReport
from k3diff.responses import CompareOptions, RecordDiff, compare_streaming

from .fixtures import chat, chat_logprobs, completion, completion_chunks, sse_transcript

SEEDS = [
    "".join(
        json.dumps(r) + "\n" for r in [completion("a", "x y", token_ids=[1, 2]), chat("b", "z")]
    ),
    sse_transcript([completion_chunks("a", ["x", " y"])]),
    json.dumps(
        [chat("a", "hi", logprobs=chat_logprobs([("hi", -0.1, [("hi", -0.1), ("yo", -1.0)])]))]
    ),
    json.dumps({"responses": [{"id": "a", "text": "t", "prompt": "p"}]}, indent=1),
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)).encode())
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, max(0, len(data) - 1)))
        action = draw(st.sampled_from(["flip", "delete", "insert", "truncate"]))
        if action == "flip" and data:
            data[position] = draw(st.integers(0, 255))
        elif action == "delete" and data:
            del data[position]
        elif action == "insert":
            data[position:position] = draw(
                st.sampled_from([b"\n", b"{", b'"', b"\xff", b"[DONE]", b"data: "])
            )
        else:
            del data[position:]
    return bytes(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=mutated(), suffix=st.sampled_from([".jsonl", ".json", ".sse"]))
def test_mutated_inputs_never_crash(base: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        base_path = Path(directory) / f"base{suffix}"
        base_path.write_bytes(base)
        patch_path = Path(directory) / "patch.json"
        patch_path.write_text(SEEDS[3])
        records: list[RecordDiff] = []
        try:
            overview = compare_streaming(base_path, patch_path, CompareOptions(), records.append)
        except K3diffError as exc:
            assert "\n" not in str(exc)
            return
        for fmt in OutputFormat:
            with StreamedReport(fmt) as report:
                for record in records:
                    report.add(record)
                pieces = report.chunks(overview)
                assert "".join(p if isinstance(p, str) else "".join(p.texts()) for p in pieces)
