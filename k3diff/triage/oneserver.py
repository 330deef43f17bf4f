"""Base and patch sampled from one server with the same parameters validate no patch
(server71): every record they would clear is held `same-server` and fails the run, unless
`--allow-same-server` says the run is an A/A calibration on purpose.

Before, triage noted it (a qualification) only where the two URLs were spelled alike, and the
verdict still passed (exit 0) although the patch samples were the base server's. Which logs
sampled one server is read from each log's header (`RunHeader.same_server`: where each side's
URL connects, recorded when the run started, `k3diff.sample.oneserver`); triage resolves
nothing itself. A run whose sides differ by their request fields (`--base-param`,
`--patch-param`) is an A/B of those fields on one server, deliberate, and is judged as any."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.sample.oneserver import OneServer
from k3diff.sample.reader import SamplesLog
from k3diff.triage.flags import HELD_FLAGS, Flag
from k3diff.triage.model import RecordVerdict
from k3diff.triage.rollup import held
from k3diff.triage.sameserverwhy import same_server_why


def same_server_logs(logs: Sequence[SamplesLog]) -> tuple[tuple[str, OneServer], ...]:
    """(log, its URLs) for each log whose base and patch are one server with the same
    parameters."""
    found = ((log.path, log.header.same_server) for log in logs)
    return tuple((path, one) for path, one in found if one is not None)


def described(found: tuple[tuple[str, OneServer], ...]) -> str:
    """'http://localhost:8000 and http://127.0.0.1:8000, both loopback port 8000, in
    run/samples.jsonl' for each log, joined by '; '."""
    return "; ".join(f"{one.urls}, both {one.where}, in {log}" for log, one in found)


def hold_same_server(
    verdict: RecordVerdict, found: tuple[tuple[str, OneServer], ...]
) -> RecordVerdict:
    """`verdict` held `same-server` where `found` names a log of one server and the record
    would otherwise pass (a regression candidate, or a record already held or kept by a
    vacuous control, fails as it is, its reason and the result line saying why)."""
    if not found or verdict.regression_candidate or HELD_FLAGS & set(verdict.flags):
        return verdict
    if Flag.VACUOUS in verdict.flags:
        return verdict
    why = same_server_why(described(found))
    return held(verdict, Flag.SAME_SERVER, why, samples_decide=False)
