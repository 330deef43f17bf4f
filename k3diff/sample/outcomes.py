"""A request's `Outcome` as a sample records it: the answer it took, or why it failed
(`k3diff.sample.client`)."""

from __future__ import annotations

import time

from k3diff.sample.model import Outcome
from k3diff.sample.response import Answer


def succeeded(
    answer: Answer, attempt: int, begin: float, started: float, out_of_step: int = 0
) -> Outcome:
    """A sample's outcome from the answer it took: `attempt` requests (`out_of_step` of them
    answered before they were sent), sent at `started` (the run's clock), `begin` its
    perf_counter."""
    return Outcome(
        status=200,
        text=answer.text,
        text_xxh3=answer.text_xxh3,
        token_ids_xxh3=answer.token_ids_xxh3,
        finish_reason=answer.finish_reason,
        usage=answer.usage,
        fingerprint=answer.fingerprint,
        error=None,
        attempts=attempt,
        latency_s=time.perf_counter() - begin,
        started=started,
        connected=True,
        trace=answer.trace,
        spec_meta=answer.spec_meta,
        spec_meta_invalid=answer.spec_meta_invalid,
        model=answer.model,
        stream_models=answer.stream_models,
        out_of_step=out_of_step,
    )


def failed(
    status: int | None,
    message: str,
    attempt: int,
    begin: float,
    started: float,
    connected: bool,
    out_of_step: int = 0,
) -> Outcome:
    """A failed sample's outcome: its last `status` (None: no answer) and error `message`."""
    return Outcome(
        status=status,
        text=None,
        text_xxh3=None,
        token_ids_xxh3=None,
        finish_reason=None,
        usage=None,
        fingerprint=None,
        error=message,
        attempts=attempt,
        latency_s=time.perf_counter() - begin,
        started=started,
        connected=connected,
        out_of_step=out_of_step,
    )
