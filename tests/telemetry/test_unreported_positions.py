"""`--fail-on acceptance-drop` holds a run whose patch reports fewer draft positions than its base
(hunt72b). A drafter broken at position 4 fails the gate there (`acceptance-drop`, position 4);
the same patch on a server whose per-position counter is absent (or exposes positions 1-2
only) passed on the pooled test alone, `Verdict: OK (exit 0)`: the positions that held the
drop were in no test. Now it is `acceptance-undecided`, exit 1, naming the positions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from cli_support import run_k3diff, run_telemetry
from server_support import loopback_script

from .test_acceptance_gate import BASE_RATES, FAKE, _sample

BROKEN_AT_4 = "0.8,0.65,0.5,0.0"
"""Position 4 never accepted: the pooled rate moves by about 2 points, position 4 by 9."""


@pytest.fixture
def run_log(tmp_path: Path) -> Iterator[object]:
    with ExitStack() as stack:

        def sample(*patch_options: str) -> Path:
            urls = (
                stack.enter_context(loopback_script(FAKE, BASE_RATES, "1")),
                stack.enter_context(loopback_script(FAKE, BROKEN_AT_4, "2", *patch_options)),
            )
            return _sample(tmp_path, urls, repeats=10)

        yield sample


@pytest.mark.parametrize(
    ("shown", "says"),
    [
        ("positions=0", "base reports positions 1-4, patch no positions: positions 1-4 in no test"),
        (
            "positions=2",
            "base reports positions 1-4, patch positions 1-2: positions 3-4 in no test",
        ),
    ],
)
def test_positions_the_patch_does_not_report_hold_the_gate(
    shown: str, says: str, run_log: object, tmp_path: Path
) -> None:
    log = run_log(shown)  # type: ignore[operator]
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 1, text
    (finding,) = doc["acceptance_gate"]["findings"]
    assert finding["name"] == "acceptance-undecided"
    assert finding["detail"].startswith(says)
    assert f"could not decide: {says.split(':')[0]} (positions in no test)" in text
    # `report` runs the gate again from the document and reaches the same hold.
    (tmp_path / "telemetry.json").write_text(json.dumps(doc))
    again = run_k3diff("report", tmp_path / "telemetry.json", "--out", tmp_path / "bundle")
    assert again.exit_code == 1, again.stdout + again.stderr
    # The finding removed and the verdict made a pass: the gate run again on the units holds.
    cleared = {
        **doc,
        "acceptance_gate": {**doc["acceptance_gate"], "findings": []},
        "verdict": {"ok": True, "exit_code": 0},
    }
    (tmp_path / "cleared.json").write_text(json.dumps(cleared))
    forged = run_k3diff("report", tmp_path / "cleared.json", "--out", tmp_path / "forged")
    assert forged.exit_code == 2, forged.stdout + forged.stderr


def test_the_same_break_reported_fails_at_position_4(run_log: object) -> None:
    code, doc, text = run_telemetry(run_log(), "--fail-on", "acceptance-drop")  # type: ignore[operator]
    assert code == 1, text
    drops = [f["position"] for f in doc["acceptance_gate"]["findings"]]
    assert drops == [4]


def _two_servers(tmp_path: Path, base: tuple[str, ...], patch: tuple[str, ...]) -> Path:
    with ExitStack() as stack:
        urls = (
            stack.enter_context(loopback_script(FAKE, *base)),
            stack.enter_context(loopback_script(FAKE, *patch)),
        )
        return _sample(tmp_path, urls, repeats=10)


def test_a_base_that_shows_fewer_positions_than_it_drafts_holds_the_gate(tmp_path: Path) -> None:
    """hunt74b: the base drafts 4 tokens a draft but its counter shows positions 1-2; the patch,
    broken at position 4, passed on positions 1-2 and the pooled rate (`Verdict: OK (exit 0)`)."""
    log = _two_servers(tmp_path, (BASE_RATES, "1", "positions=2"), (BROKEN_AT_4, "2"))
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 1, text
    (finding,) = doc["acceptance_gate"]["findings"]
    assert finding["name"] == "acceptance-undecided"
    assert finding["detail"].startswith(
        "base reports positions 1-2, patch positions 1-4: positions 3-4 in no test"
    )
    (tmp_path / "telemetry.json").write_text(json.dumps(doc))
    again = run_k3diff("report", tmp_path / "telemetry.json", "--out", tmp_path / "bundle")
    assert again.exit_code == 1, again.stdout + again.stderr


def test_a_patch_that_drafts_deeper_than_the_base_still_decides(tmp_path: Path) -> None:
    """A base drafting 2 tokens a draft reports every position it drafts at: nothing of it is
    untested, so the gate decides on positions 1-2 as before."""
    log = _two_servers(tmp_path, ("0.8,0.65", "1"), ("0.95,0.95,0.95,0.95", "2"))
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 0, text
    assert doc["acceptance_gate"]["findings"] == []
