"""What a sampled stream's lines and chunks hold, against a real server process on loopback
(`hostile_server.py`'s `raw` answers), read by the rule `k3diff responses` reads captures by:
a line that begins with white space or a byte-order mark (a field SSE clients ignore, which a
reader that strips lines takes for data), a chunk whose token_ids is not a list, or whose
finish_reason is not a name, fails the sample instead of recording text or ids no client
received; the stream's own leading byte-order mark is dropped, as SSE drops it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .test_stream_end import DONE, _samples


def _chunk(text: str, finish: Any = None, **choice: Any) -> str:
    body = {"index": 0, "text": text, "finish_reason": finish, **choice}
    return "data: " + json.dumps({"id": "c1", "choices": [body]})


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (f"{_chunk('The')}\n\n {_chunk(' answer')}\n\n{_chunk('', 'stop')}\n\n{DONE}",
         "a stream line begins with white space or a byte-order mark"),
        (f"{_chunk('The')}\n\n\t{_chunk(' answer')}\n\n{_chunk('', 'stop')}\n\n{DONE}",
         "a stream line begins with white space or a byte-order mark"),
        (f"{_chunk('The')}\n\n\ufeff{_chunk(' answer')}\n\n{_chunk('', 'stop')}\n\n{DONE}",
         "a stream line begins with white space or a byte-order mark"),
        (f"{_chunk('The', token_ids=7)}\n\n{_chunk('', 'stop', token_ids=[8])}\n\n{DONE}",
         "a streamed choice's token_ids is a number, not a list"),
        (f"{_chunk('The', token_ids={'a': 1})}\n\n{_chunk('', 'stop')}\n\n{DONE}",
         "a streamed choice's token_ids is an object, not a list"),
        (f"{_chunk('The', 1)}\n\n{_chunk(' more', 'stop')}\n\n{DONE}",
         "a stream chunk's finish_reason is 1, not a reason's name"),
        (f"{_chunk('The', {'type': 'abort'})}\n\n{_chunk('', 'stop')}\n\n{DONE}",
         "a stream chunk's finish_reason is {\"type\": \"abort\"}, not a reason's name"),
    ],
)  # fmt: skip
def test_a_line_or_chunk_no_client_reads_as_sent_fails_the_sample(
    hostile_server: str, tmp_path: Path, body: str, reason: str
) -> None:
    (bad,) = _samples(hostile_server, tmp_path, body)
    assert bad["text"] is None, bad
    assert bad["error"] is not None and reason in bad["error"], bad


def test_the_streams_own_byte_order_mark_is_dropped(hostile_server: str, tmp_path: Path) -> None:
    """A BOM before the first line is the stream's (SSE drops it): its first chunk is read
    (before, the line was skipped and its text lost: "The answer" sampled as " answer")."""
    body = f"\ufeff{_chunk('The')}\n\n{_chunk(' answer', 'stop')}\n\n{DONE}"
    (good,) = _samples(hostile_server, tmp_path, body)
    assert (good["error"], good["text"]) == (None, "The answer")


def test_blank_lines_of_white_space_are_blank(hostile_server: str, tmp_path: Path) -> None:
    body = f"{_chunk('The')}\n \n{_chunk(' answer', 'stop')}\n\n{DONE}"
    (good,) = _samples(hostile_server, tmp_path, body)
    assert (good["error"], good["text"]) == (None, "The answer")
