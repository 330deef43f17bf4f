"""`telemetry --expect` of a run whose base and patch were one server: "every side exercised
speculation" is one server's coverage under two labels, the patched build exercised nothing.
review74d: `report` passed its row (`pass`, exit 0) with no word of the one server the
document lists; it holds it (exit 1) unless the reviewer gives `report --allow-same-server`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_k3diff, run_telemetry
from server_support import loopback_script

from .test_acceptance_gate import BASE_RATES, FAKE, _sample
from .test_one_server_gate import _port


@pytest.fixture
def one_server_log(tmp_path: Path) -> Iterator[Path]:
    """One fake vLLM server sampled as base (127.0.0.1) and patch (localhost)."""
    with loopback_script(FAKE, BASE_RATES, "1") as url:
        yield _sample(tmp_path, (url, url.replace("127.0.0.1", "localhost")), repeats=10)


def test_coverage_of_one_server_is_held(one_server_log: Path, tmp_path: Path) -> None:
    """Failed on main at 14176c42: exit 0, the row `pass`."""
    code, doc, text = run_telemetry(one_server_log, "--expect", "speculation")
    assert code == 0, text  # telemetry's own verdict: every side exercised it
    assert doc["one_server"] and doc["acceptance_gate"] is None
    (tmp_path / "t.json").write_text(json.dumps(doc))
    port = _port(one_server_log)
    held = (
        f"t.json: base and patch were sampled from one server (http://127.0.0.1:{port} and "
        f"http://localhost:{port}, both loopback port {port}, in {one_server_log}), which "
        "validates no patched build: held; report --allow-same-server if you accept it as one"
    )
    for given in ((), (str(one_server_log),)):
        result = run_k3diff("report", "t.json", *given, "--out", "b", cwd=tmp_path)
        assert result.exit_code == 1, result.stdout + result.stderr
        summary = json.loads((tmp_path / "b" / "summary.json").read_text())
        (row,) = [r for r in summary["matrix"] if r["evidence"] == "telemetry/coverage"]
        assert row["status"] == "FAIL" and held not in row["finding"], row
        assert row["finding"].endswith(
            "held: base and patch were sampled from one server (the bottom line says why)"
        ), row
        assert held in summary["bottom_line"][0], summary["bottom_line"]
        allowed = run_k3diff(
            "report", "t.json", *given, "--out", "b", "--allow-same-server", cwd=tmp_path
        )
        assert allowed.exit_code == 0, allowed.stdout + allowed.stderr
