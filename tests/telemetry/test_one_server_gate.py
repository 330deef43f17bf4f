"""`--fail-on acceptance-drop` holds a run whose base and patch were one server (telem72).

hunt72b: `sample --base http://127.0.0.1:P --patch http://localhost:P` measures one server under
two labels; `telemetry LOG --fail-on acceptance-drop` said `Verdict: OK (exit 0)` of it, where
triage holds such a run same-server. Now the gate holds it (`acceptance-undecided`, naming both
URLs and where they connect), unless `--allow-same-server` (an A/A calibration run); the
document records `one_server` and `allow_same_server` (whenever the option is given, so that
a gate `report` imposes later judges the run as the user allowed: audit73), and `report` runs the
gate again with them: the same exit, and a document whose finding and `one_server` disagree is
refused. Servers are real processes on loopback (`fake_vllm.py`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff, run_telemetry
from server_support import loopback_script

from .test_acceptance_gate import BASE_RATES, FAKE, _sample

GATE = ("--fail-on", "acceptance-drop")
SAYS = "base and patch were one server ("


@pytest.fixture
def one_server_log(tmp_path: Path) -> Iterator[Path]:
    """One fake vLLM server sampled as base (127.0.0.1) and patch (localhost); nothing broken."""
    with loopback_script(FAKE, BASE_RATES, "1") as url:
        other = url.replace("127.0.0.1", "localhost")
        yield _sample(tmp_path, (url, other), repeats=10)


def _report(tmp_path: Path, doc: dict[str, Any], *args: str) -> Any:
    (tmp_path / "t.json").write_text(json.dumps(doc))
    return run_k3diff("report", "t.json", "--out", "bundle", *args, cwd=tmp_path)


def test_one_server_under_two_spellings_is_held(one_server_log: Path, tmp_path: Path) -> None:
    code, doc, text = run_telemetry(one_server_log, *GATE)
    assert code == 1, text
    (finding,) = doc["acceptance_gate"]["findings"]
    assert finding["name"] == "acceptance-undecided"
    assert finding["detail"].startswith(SAYS)
    assert "127.0.0.1" in finding["detail"] and "localhost" in finding["detail"]
    assert "could not decide: base and patch were one server" in text
    assert [o["log"] for o in doc["one_server"]] == [str(one_server_log)]
    assert "allow_same_server" not in doc["acceptance_gate"]
    # report runs the gate again from the document, with its one_server: the same exit.
    assert _report(tmp_path, doc).exit_code == 1
    # ... and, given the log beside it, runs telemetry again on it: the same document.
    assert _report(tmp_path, doc, str(one_server_log)).exit_code == 1
    # A reviewer's gate imposed on a document made without one holds it too.
    _, plain, _ = run_telemetry(one_server_log)
    assert _report(tmp_path, plain, *GATE).exit_code == 1


def _summary(tmp_path: Path) -> Any:
    return json.loads((tmp_path / "bundle" / "summary.json").read_text())


HELD = (
    "t.json: base and patch were sampled from one server (http://127.0.0.1:{port} and "
    "http://localhost:{port}, both loopback port {port}, in {log}), judged as an A/A "
    "calibration run on its author's word (allow_same_server in the document), which validates "
    "no patched build: held; report --allow-same-server if you accept it as one"
)


def _port(log: Path) -> str:
    header = json.loads(log.read_text().splitlines()[0])
    return str(header["run"]["servers"]["base"]).rsplit(":", 1)[1].rstrip("/")


def test_the_allowance_is_the_reviewers_not_the_documents(
    one_server_log: Path, tmp_path: Path
) -> None:
    """gate74: `telemetry --allow-same-server` records the allowance in the document, and
    `report` honoured it: a one-server run passed the bundle on its author's word (exit 0 on
    base74). Now the bundle holds it (exit 1) with one line naming the document and the option,
    and passes it only under `report --allow-same-server`, saying the reviewer allowed it."""
    code, doc, text = run_telemetry(one_server_log, *GATE, "--allow-same-server")
    assert code == 0, text  # telemetry itself judges as its user said
    assert doc["acceptance_gate"]["findings"] == []
    assert doc["acceptance_gate"]["allow_same_server"] is True
    held = HELD.format(port=_port(one_server_log), log=one_server_log)
    for given in ((), (str(one_server_log),)):
        result = _report(tmp_path, doc, *given)
        assert result.exit_code == 1, result.stdout + result.stderr
        summary = _summary(tmp_path)
        (row,) = [r for r in summary["matrix"] if r["evidence"] == "telemetry/coverage"]
        assert row["status"] == "FAIL" and held in summary["bottom_line"][0], row
        assert held not in row["finding"]  # said once (cleanup75)
        steps = [s["step"] for s in summary["next_steps"] if s["source"] == "t.json"]
        assert len(steps) == 1 and steps[0].endswith("with the same inputs and --allow-same-server")
        allowed = _report(tmp_path, doc, *given, "--allow-same-server")
        assert allowed.exit_code == 0, allowed.stdout + allowed.stderr
        summary = _summary(tmp_path)
        said = "allowed by the reviewer (report --allow-same-server)"
        assert any(said in q for q in summary["qualifications"]), summary["qualifications"]
        assert summary["bottom_line"][0].startswith(
            "A/A run of one server (report --allow-same-server): base and patch were sampled"
        )
        for name in ("REPORT.md", "report.html"):
            assert said in (tmp_path / "bundle" / name).read_text()


def test_an_edited_allowance_passes_no_gate(one_server_log: Path, tmp_path: Path) -> None:
    """The attack gate74 closes: `"allow_same_server": true` added to a one-server document
    made without the option, and an imposed `report --fail-on acceptance-drop` passed it (exit
    0 on base74), as did a document whose own gate was edited to allow it with its verdict.
    Both are held now (exit 1); the option given by the reviewer passes them."""
    code, plain, _ = run_telemetry(one_server_log)
    assert code == 0 and plain["acceptance_gate"] is None
    edited = {**plain, "allow_same_server": True}
    result = _report(tmp_path, edited, *GATE)
    assert result.exit_code == 1, result.stdout + result.stderr
    (step,) = [s["step"] for s in _summary(tmp_path)["next_steps"] if s["source"] == "t.json"]
    assert "--allow-same-server" in step
    with_log = _report(tmp_path, edited, str(one_server_log), *GATE)
    assert with_log.exit_code == 1, with_log.stdout + with_log.stderr
    reviewed = _report(tmp_path, edited, *GATE, "--allow-same-server")
    assert reviewed.exit_code == 0, reviewed.stdout + reviewed.stderr
    # The reviewer's word, not the document's, decides an imposed gate: unedited, the same.
    assert _report(tmp_path, plain, *GATE, "--allow-same-server").exit_code == 0
    _, own, _ = run_telemetry(one_server_log, *GATE)
    gate = {**own["acceptance_gate"], "findings": [], "allow_same_server": True}
    forged = {
        **own,
        "allow_same_server": True,
        "acceptance_gate": gate,
        "verdict": {"ok": True, "exit_code": 0},
    }
    result = _report(tmp_path, forged)
    assert result.exit_code == 1, result.stdout + result.stderr
    assert _report(tmp_path, forged, *GATE).exit_code == 1


def test_allow_same_server_is_recorded_for_a_gate_report_imposes(
    one_server_log: Path, tmp_path: Path
) -> None:
    """audit73: without `--fail-on`, the option was recorded nowhere. It is recorded, and a
    gate `report --fail-on acceptance-drop` imposes reads the reviewer's option (gate74)."""
    code, doc, text = run_telemetry(one_server_log, "--allow-same-server")
    assert code == 0, text
    assert doc["allow_same_server"] is True and doc["acceptance_gate"] is None
    # No gate: the allowance decided nothing, and the run is recorded as before.
    assert _report(tmp_path, doc).exit_code == 0
    imposed = _report(tmp_path, doc, *GATE, "--allow-same-server")
    assert imposed.exit_code == 0, imposed.stdout + imposed.stderr
    with_log = _report(tmp_path, doc, str(one_server_log), *GATE, "--allow-same-server")
    assert with_log.exit_code == 0, with_log.stdout + with_log.stderr
    # A document that says so without the user's word is caught where its gate says otherwise.
    _, held, _ = run_telemetry(one_server_log, *GATE)
    edited = _report(tmp_path, {**held, "allow_same_server": True})
    assert edited.exit_code == 2, edited.stdout + edited.stderr
    # One written before the field (only its gate said it) reads as before, its log beside it.
    _, allowed, _ = run_telemetry(one_server_log, *GATE, "--allow-same-server")
    older = {k: v for k, v in allowed.items() if k != "allow_same_server"}
    assert _report(tmp_path, older, "--allow-same-server").exit_code == 0
    again = _report(tmp_path, older, str(one_server_log), "--allow-same-server")
    assert again.exit_code == 0, again.stdout + again.stderr
    assert _report(tmp_path, older).exit_code == 1


def test_a_document_whose_finding_and_one_server_disagree_is_refused(
    one_server_log: Path, tmp_path: Path
) -> None:
    _, held, _ = run_telemetry(one_server_log, *GATE)
    dropped = {**held, "one_server": []}  # the record removed, the finding kept
    result = _report(tmp_path, dropped)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "lists acceptance-undecided, but" in result.stderr
    cleared = {  # the finding removed and the verdict made a pass, the record kept
        **held,
        "acceptance_gate": {**held["acceptance_gate"], "findings": []},
        "verdict": {"ok": True, "exit_code": 0},
    }
    result = _report(tmp_path, cleared)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "lists no finding" in result.stderr
    assert "one_server (base and patch one server, not allowed) give acceptance-undecided" in (
        result.stderr
    )


def test_two_servers_are_judged_as_before(tmp_path: Path) -> None:
    with (
        loopback_script(FAKE, BASE_RATES, "1") as base,
        loopback_script(FAKE, BASE_RATES, "2") as patch,
    ):
        log = _sample(tmp_path, (base, patch), repeats=10)
    code, doc, text = run_telemetry(log, *GATE)
    assert code == 0, text
    assert doc["one_server"] == [] and doc["acceptance_gate"]["findings"] == []
    assert _report(tmp_path, doc).exit_code == 0
    # An allowance recorded where the logs show two servers decides nothing (gate74).
    code, allowed, text = run_telemetry(log, *GATE, "--allow-same-server")
    assert code == 0 and allowed["allow_same_server"] is True, text
    for given in ((), (str(log),), (str(log), *GATE)):
        result = _report(tmp_path, allowed, *given)
        assert result.exit_code == 0, result.stdout + result.stderr
        assert not any("A/A" in q for q in _summary(tmp_path)["qualifications"])


def test_the_command_that_makes_it_again_keeps_its_allowance(
    one_server_log: Path, tmp_path: Path
) -> None:
    """A telemetry document made with --allow-same-server that its log no longer gives is
    refused with the command that writes it anew: it left the option out (base74), so the
    document it wrote held the gate, another document than the one refused."""
    code, doc, text = run_telemetry(one_server_log, *GATE, "--allow-same-server")
    assert code == 0, text
    doc["modes"][0]["latency_s"]["p50"] += 1.0
    refused = _report(tmp_path, doc, str(one_server_log))
    assert refused.exit_code == 2, refused.stdout + refused.stderr
    assert "--fail-on acceptance-drop --allow-same-server --format json -o t.json" in (
        refused.stderr
    ), refused.stderr
