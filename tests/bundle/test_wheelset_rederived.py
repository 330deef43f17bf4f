"""`k3diff report` runs a release set again when given its wheels or its two directories
(rerun62): each pair exactly as a single pair is (`wheelsrederive`, found by the SHA-256 the
pair's document records), and the set's own listing (wheels on one side only, misnamed `.whl`
files, other files) against the directories listed and paired again. A release set was never
run again: an unpaired wheel deleted with the verdict made to pass, or one pair's W302 deleted,
agreed with itself and passed the bundle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_k3diff
from wheels.wheelset_support import SOLO, release_sets

MODULE = b"print('m')\n"


def _sets(tmp_path: Path, *, stale_record: bool = False) -> None:
    """The release sets of `wheelset_support` (with `solo` on the base side only) and a `demo`
    pair whose patch wheel's RECORD, with `stale_record`, does not vouch for `demo/m.py`."""
    release_sets(tmp_path)
    stale = f"demo/m.py,sha256=AAAA{wheelkit.record_hash(MODULE)[11:]},{len(MODULE)}"
    for side, version in (("base", "1.0"), ("patch", "2.0")):
        overrides = {"demo/m.py": stale} if stale_record and side == "patch" else None
        files = {"demo/__init__.py": b"", "demo/m.py": MODULE}
        wheelkit.make_wheel(
            tmp_path / side, "demo", version, files, tool="zip", record_overrides=overrides
        )


def _wheelset(tmp_path: Path, *extra: str) -> Any:
    made = run_k3diff(
        "wheels", "base", "patch", "--format", "json", "-o", "made.json", *extra, cwd=tmp_path
    )
    assert made.exit_code in (0, 1), made.stderr
    return json.loads((tmp_path / "made.json").read_text())


def _report(tmp_path: Path, document: Any, *inputs: str, out: str = "bundle") -> Any:
    (tmp_path / "set.json").write_text(json.dumps(document))
    return run_k3diff("report", "set.json", *inputs, "--out", out, cwd=tmp_path)


def _label(tmp_path: Path, out: str = "bundle") -> str:
    summary = json.loads((tmp_path / out / "summary.json").read_text())
    (own,) = [i for i in summary["inputs"] if i["name"] == "set.json"]
    labels = {
        d["label"] for row in summary["matrix"] for d in row["documents"] if d["name"] == "set.json"
    }
    assert len(labels) == 1, labels
    assert own["cross_checked"] is not own.get("judged_alone", False)
    return str(labels.pop())


def test_a_genuine_release_set_is_run_again_with_its_directories(tmp_path: Path) -> None:
    _sets(tmp_path)
    document = _wheelset(tmp_path, "--allow-unpaired")
    assert document["verdict"]["ok"] is True and document["only_base"]
    result = _report(tmp_path, document, "base", "patch")
    assert result.exit_code == 0, result.stderr
    assert _label(tmp_path) == (
        "set.json (cross-checked; wheels run again; directories listed again)"
    )
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    again = [i for i in summary["inputs"] if i["schema"] == "wheel (k3diff wheels run again on it)"]
    assert len(again) == 8  # both wheels of each of the four pairs; not the unpaired solo
    assert not any(SOLO in i["name"] for i in again)
    # The wheels given one by one: the pairs run again, the listing the document's word.
    wheels = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.glob("*/*.whl"))
    result = _report(tmp_path, document, *wheels, out="loose")
    assert result.exit_code == 0, result.stderr
    assert _label(tmp_path, "loose") == (
        "set.json (cross-checked; wheels run again; unpaired and misnamed wheels judged alone)"
    )
    said = (tmp_path / "loose" / "REPORT.md").read_text()
    assert (
        "the wheels on one side only and the misnamed .whl files judged from the document" in said
    )
    result = _report(tmp_path, document, out="alone")
    assert result.exit_code == 0, result.stderr
    assert _label(tmp_path, "alone") == "set.json (judged alone: self-consistent)"


def test_an_unpaired_wheel_deleted_is_refused_with_the_directories(tmp_path: Path) -> None:
    _sets(tmp_path)
    document = _wheelset(tmp_path)
    assert document["verdict"]["exit_code"] == 1
    assert document["verdict"]["failures"] == ["1 unpaired (only on one side)"]
    document["only_base"] = []
    document["summary"]["only_base"] = 0
    document["base"]["wheels"] -= 1
    document["verdict"].update(ok=True, exit_code=0, failures=[], unpaired=0)
    alone = _report(tmp_path, document, out="alone")
    assert alone.exit_code == 0, alone.stderr  # it agrees with itself: only the listing shows it
    result = _report(tmp_path, document, "base", "patch")
    assert result.exit_code == 2, result.stderr
    assert (
        "set.json: does not follow from the directories given with it (listed again from base "
        "and patch: base.wheels: 4, run again 5)"
    ) in result.stderr, result.stderr


def test_a_pair_finding_deleted_is_refused_with_its_wheels(tmp_path: Path) -> None:
    _sets(tmp_path, stale_record=True)
    document = _wheelset(tmp_path, "--allow-unpaired")
    (index,) = [i for i, p in enumerate(document["pairs"]) if p["failing_codes"] == ["W302"]]
    pair = document["pairs"][index]
    pair["wheels"]["findings"] = [f for f in pair["wheels"]["findings"] if f["code"] != "W302"]
    pair["wheels"]["verdict"].update(ok=True, exit_code=0)
    pair.update(verdict="OK", exit_code=0, failing_codes=[])
    document["summary"]["failing_pairs"] = 0
    document["verdict"].update(ok=True, exit_code=0, failures=[], failing_pairs=[])
    alone = _report(tmp_path, document, out="alone")
    assert alone.exit_code == 0, alone.stderr
    for inputs in (("base", "patch"), (pair["base"], pair["patch"])):
        result = _report(tmp_path, document, *inputs)
        assert result.exit_code == 2, result.stderr
        assert (
            f"set.json pairs[{index}] ({pair['patch']}): does not follow from the wheels given "
            "with it (wheels run again on"
        ) in result.stderr, result.stderr
        assert "findings: 2 items, run again 3" in result.stderr, result.stderr
