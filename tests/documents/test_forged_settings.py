"""A wheels document that records its settings (`rerun`, forge62) is judged by them: a finding's
severity by the recorded `--allow-*`, its presence by the recorded `--select`/`--ignore`, a
waived finding by the waivers recorded. So an edit that a document written before `rerun`
could pass off as a relaxed policy (test_forged_verdicts) is refused, exit 2, one line naming
the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bundle.helpers import wheels_json
from cli_support import run_k3diff


def _refused_with(tmp_path: Path, name: str, edit: Any, fragment: str) -> None:
    document = json.loads((tmp_path / name).read_text())
    edit(document)
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("k3diff: error: forged.json: "), line
    assert fragment in line, line


def _native(document: dict[str, Any]) -> dict[str, Any]:
    found: list[dict[str, Any]] = [f for f in document["findings"] if f["code"] == "W101"]
    return found[0]


def test_a_native_relabelled_info_against_the_recorded_policy_is_refused(tmp_path: Path) -> None:
    name = wheels_json(tmp_path, native_changed=True)
    _refused_with(
        tmp_path,
        name,
        lambda d: _native(d).update(severity="info"),
        "findings[0] W101 pkg/_native.so has severity 'info' but W101 fails every run that does "
        "not waive it",
    )


def test_a_waiver_the_recorded_waivers_do_not_hold_is_refused(tmp_path: Path) -> None:
    name = wheels_json(tmp_path, native_changed=True)

    def waive(document: dict[str, Any]) -> None:
        _native(document).update(
            severity="info", waiver={"number": 1, "reason": "x", "expires": None}
        )
        document["waivers"] = {"file": "w.toml", "waived": 1, "expired": [], "unused": []}

    _refused_with(
        tmp_path,
        name,
        waive,
        "findings[0] W101 pkg/_native.so is waived by waiver 1, which the run's waivers "
        "(rerun.waivers) do not hold",
    )


def test_a_finding_dropped_into_filtered_against_the_recorded_filter_is_refused(
    tmp_path: Path,
) -> None:
    name = wheels_json(tmp_path, native_changed=True)

    def hide(document: dict[str, Any]) -> None:
        document["findings"].remove(_native(document))
        document["verdict"]["filtered"] = [{"code": "W101", "count": 1, "would_fail": True}]

    _refused_with(
        tmp_path,
        name,
        hide,
        "verdict.filtered[0] W101 is left out, but the run's --select/--ignore (rerun) reports "
        "its code",
    )
