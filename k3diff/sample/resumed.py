"""What `sample --resume` continues: every sample the log holds must be one this run would
take. The header check (`k3diff.sample.log.more_repeats`) compares the run's options; this one
compares each logged line with the request the run sends for its key and side: a line whose
key is none of the prompts' (added by hand, or another prompts file's) or whose
`request_sha256` is not the hash of that request (a line of a run with other request fields,
or edited by hand) is refused (exit 2, naming the line), where it used to be kept and counted
as a sample of this run's requests, its slot never sampled again. No line is kept for a key
outside the prompts: the run's keys come from its prompts file, which the header pins
(`prompts_sha256`), so such a line is of no request this run sends, and triage would pair it
with a capture's record of that key as if it were.

A control sample (`--control`) is checked against its control request (temperature 1, the
repeat's own seed); `--control nonce` adds a random suffix to each, so its hash is not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from k3diff.errors import UsageError
from k3diff.sample.lines import SampleLine
from k3diff.sample.modes import control_body
from k3diff.sample.names import Mode
from k3diff.sample.reader import SamplesLog
from k3diff.sample.sampler import request_sha256

ELSEWHERE = "sample these requests in another --out"
"""How each refusal ends: a log of other requests is not continued."""


@dataclass
class Sent:
    """The requests a run sends: per (side, key), the body every repeat sends."""

    bodies: Mapping[tuple[str, str], dict[str, Any]]
    """`k3diff.sample.bodies.request_bodies`."""
    control: str | None
    """`--control` (seeds, nonce) or None."""
    _digests: dict[tuple[str, str], str] = field(default_factory=dict)

    def check(self, log: SamplesLog) -> None:
        """UsageError naming the first line of `log` that is no sample of these requests."""
        for sample, number in zip(log.samples, log.lines, strict=True):
            where = f"{log.path}:{number}"
            body = self.bodies.get((sample.side, sample.key))
            if body is None:
                raise UsageError(
                    f"{where}: cannot resume: a {sample.side} sample of key {sample.key!r}, "
                    "which none of the prompts has (a line added by hand, or of another "
                    f"prompts file): the log is not this run's alone; {ELSEWHERE}"
                )
            sent = self._sha256(sample, body)
            if sent is not None and sample.request_sha256 != sent:
                raise UsageError(
                    f"{where}: cannot resume: the {sample.side} sample of key {sample.key!r} "
                    f"({sample.mode} repeat {sample.repeat}) logs request_sha256 "
                    f"{sample.request_sha256}, but this run sends {sent} for it (a line of a "
                    f"run with other request fields, or edited by hand); {ELSEWHERE}"
                )

    def _sha256(self, sample: SampleLine, body: dict[str, Any]) -> str | None:
        """The request hash the run sends for `sample`'s slot; None where it is not fixed."""
        if sample.mode == Mode.CONTROL.value:
            if self.control is None or self.control == "nonce":
                return None
            return request_sha256(control_body(body, sample.repeat, self.control))
        slot = (sample.side, sample.key)
        if slot not in self._digests:
            self._digests[slot] = request_sha256(body)
        return self._digests[slot]
