"""`--timeout` ends the whole request, parsing included: parsing runs without an await, so the
asyncio timeout cannot interrupt it; an answer parsed past the deadline is a timeout, not a
success (a 63 MiB answer once succeeded after 36 s under --timeout 10)."""

from __future__ import annotations

import asyncio
import time
from typing import cast

import pytest

from k3diff.sample.response import Answer
from k3diff.sample.retry import Deadline, Final


async def _parse_slowly(seconds: float) -> Answer:
    time.sleep(seconds)  # CPU-bound parsing: no await the timeout could cancel
    return cast(Answer, object())


def test_an_answer_parsed_past_the_deadline_is_a_timeout() -> None:
    deadline = Deadline(0.05)
    with pytest.raises(Final, match=r"read but not parsed within --timeout 0\.05 s"):
        asyncio.run(deadline.run(_parse_slowly(0.2)))
    # Within the deadline the answer passes through.
    assert asyncio.run(Deadline(60).run(_parse_slowly(0))) is not None
