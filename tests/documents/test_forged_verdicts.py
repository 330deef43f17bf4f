"""A document's `ok` and `exit_code` are judged again from its own contents, by the rule of the
command that wrote it (`k3diff.documents.verdicts`): a document written by the real command and
then edited so that its verdict no longer follows from its findings, pairs or records is
refused by `k3diff report` (exit 2, one line naming the file and the field), whichever field
was edited to flip it. In a document written before `rerun` (forge62), edits that leave it consistent with a relaxed
policy (a native finding at info is `--allow-native-changes`, a finding carrying a waiver)
cannot be told from the real run without its inputs: those pass, and the bundle says which
policy they rest on (one that records its settings is judged by them: test_forged_settings)."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from bundle.helpers import BASE_FILES, seed, wheels_json
from cli_support import CliResult, run_k3diff
from wheels.wheelset_support import release_sets

Edit = Callable[[dict[str, Any]], None]
WHEEL = "pkg-1.0-py3-none-any.whl"


def _forge(tmp_path: Path, name: str, edit: Edit) -> str:
    document = json.loads((tmp_path / name).read_text())
    edit(document)
    (tmp_path / "forged.json").write_text(json.dumps(document, indent=2))
    return "forged.json"


def _report(tmp_path: Path, *names: str) -> CliResult:
    return run_k3diff("report", *names, "--out", "bundle", cwd=tmp_path)


def _refused(result: CliResult, name: str, *fragments: str) -> None:
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"k3diff: error: {name}: "), line
    for fragment in fragments:
        assert fragment in line, line


def _passing(document: dict[str, Any]) -> None:
    document["verdict"].update(ok=True, exit_code=0)


def _then(*edits: Callable[[dict[str, Any]], object]) -> Edit:
    """The edits applied in turn."""

    def edit(document: dict[str, Any]) -> None:
        for each in edits:
            each(document)

    return edit


def _finding(code: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda d: next(f for f in d["findings"] if f["code"] == code)


def _native(document: dict[str, Any]) -> dict[str, Any]:
    return _finding("W101")(document)


# A pair whose native library changed: W101 (error) and W201 (info); exit 1. -----------------

WHEELS_EDITS: dict[str, tuple[Edit, str]] = {
    "verdict flipped to pass": (
        _passing,
        "verdict.exit_code 0 does not follow from its findings (1 failing: W101 pkg/_native.so)",
    ),
    "only ok flipped": (
        lambda d: d["verdict"].update(ok=True),
        "verdict.ok true contradicts verdict.exit_code 1",
    ),
    "only exit_code flipped": (
        lambda d: d["verdict"].update(exit_code=0),
        "verdict.ok false contradicts verdict.exit_code 0",
    ),
    "an exit code no document carries": (
        lambda d: d["verdict"].update(ok=False, exit_code=3),
        "verdict.exit_code 3 is none a document is written with (0 or 1)",
    ),
    "failing finding given an unknown code": (
        _then(lambda d: _native(d).update(code="W999", severity="info"), _passing),
        "findings[0] W999 pkg/_native.so: no k3diff run writes the code 'W999' here",
    ),
    "failing finding given a code that never fails": (
        _then(lambda d: _native(d).update(code="W501", severity="info"), _passing),
        "1 native entry is changed but it lists 0 W101 findings",
    ),
    "passing finding relabelled error": (
        lambda d: _finding("W201")(d).update(severity="error"),
        "findings[1] W201 pkg/sampler.py has severity 'error' but W201 never fails a run",
    ),
    "severity of no kind": (
        _then(lambda d: _native(d).update(severity="warning"), _passing),
        'field \'findings[0].severity\' must be one of "error", "info", not "warning"',
    ),
    "waiver added to the failing finding by hand": (
        _then(
            lambda d: _native(d).update(
                severity="info", waiver={"number": 1, "reason": "x", "expires": None}
            ),
            _passing,
        ),
        "waivers.waived is 0 but 1 findings carry a waiver",
    ),
    "waived finding still error": (
        _then(
            lambda d: _native(d).update(waiver={"number": 1, "reason": "x", "expires": None}),
            lambda d: d.update(
                waivers={"file": "w.toml", "waived": 1, "expired": [], "unused": []}
            ),
        ),
        "findings[0] W101 pkg/_native.so has severity 'error' but a waived finding is 'info'",
    ),
    "different distributions denied": (
        lambda d: d["verdict"].update(different_distributions=True),
        "verdict.different_distributions is true but the wheels are named 'pkg' and 'pkg'",
    ),
}


@pytest.mark.parametrize("case", sorted(WHEELS_EDITS))
def test_an_edited_wheels_verdict_is_refused(tmp_path: Path, case: str) -> None:
    edit, message = WHEELS_EDITS[case]
    name = wheels_json(tmp_path, native_changed=True)
    assert _report(tmp_path, name).exit_code == 1
    _refused(_report(tmp_path, _forge(tmp_path, name, edit)), "forged.json", message)


def test_a_document_that_says_it_fails_while_its_findings_pass_is_refused(tmp_path: Path) -> None:
    name = wheels_json(tmp_path)
    assert _report(tmp_path, name).exit_code == 0
    forged = _forge(tmp_path, name, lambda d: d["verdict"].update(ok=False, exit_code=1))
    _refused(
        _report(tmp_path, forged),
        "forged.json",
        "verdict.exit_code 1 does not follow from its findings (none failing)",
    )


def _older(document: dict[str, Any]) -> None:
    """A document written before `rerun` (forge62): its findings are how its policy shows."""
    del document["rerun"]


def test_a_native_relabelled_info_reads_as_allowed_native_changes(tmp_path: Path) -> None:
    """In a document written before `rerun`, no field records `--allow-native-changes`; its
    findings at info are how a run shows it. A hand relabel is that claim, and the bundle names
    it: a pass, said to rest on it."""
    name = wheels_json(tmp_path, native_changed=True)
    relabel = _then(lambda d: _native(d).update(severity="info"), _passing)
    forged = _forge(tmp_path, name, _then(relabel, _older))
    assert _report(tmp_path, forged).exit_code == 0
    report = (tmp_path / "bundle/REPORT.md").read_text()
    assert "native changes were allowed (--allow-native-changes): 1 × W101" in report


def test_a_waiver_written_in_whole_is_named_in_the_bundle(tmp_path: Path) -> None:
    """A waiver file is not in the document: a waived finding rests on the document's word,
    and the bundle says so rather than reading a plain pass."""
    name = wheels_json(tmp_path, native_changed=True)

    def waive(document: dict[str, Any]) -> None:
        _native(document).update(
            severity="info", waiver={"number": 1, "reason": "x", "expires": None}
        )
        document["waivers"] = {"file": "w.toml", "waived": 1, "expired": [], "unused": []}
        _passing(document)
        _older(document)  # forge62: one that records its waivers must hold this one

    assert _report(tmp_path, _forge(tmp_path, name, waive)).exit_code == 0
    report = (tmp_path / "bundle/REPORT.md").read_text()
    assert "findings waived (--waivers): 1 × W101 reported, not failed" in report


def test_one_native_allowed_and_another_not_is_refused(tmp_path: Path) -> None:
    """`--allow-native-changes` lets every native finding pass or none."""
    name = wheels_json(tmp_path, native_changed=True)

    def half(document: dict[str, Any]) -> None:
        native = dict(_native(document), path="pkg/_other.so", severity="info")
        document["findings"].append(native)
        _older(document)  # forge62: the recorded policy would decide (it allows none)

    _refused(
        _report(tmp_path, _forge(tmp_path, name, half)),
        "forged.json",
        "findings[0] W101 pkg/_native.so has severity 'error' unlike its other native findings "
        "(--allow-native-changes lets all of them pass or none)",
    )


def test_a_filtered_code_whose_would_fail_was_flipped_is_refused(tmp_path: Path) -> None:
    wheels_json(tmp_path, native_changed=True)
    result = run_k3diff(
        "wheels", f"base/{WHEEL}", f"patch/{WHEEL}", "--ignore", "W201", "--format", "json",
        "-o", "ignored.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    forged = _forge(tmp_path, "ignored.json", lambda d: d["verdict"]["filtered"][0].update(
        would_fail=True
    ))  # fmt: skip
    _refused(
        _report(tmp_path, forged),
        "forged.json",
        "verdict.filtered[0] W201: would_fail true does not follow from the run's policy",
    )


def _other_distribution(tmp_path: Path) -> str:
    """A pair of two projects: W606, a failing finding no `--allow-*` relaxes."""
    stored = zipfile.ZIP_STORED
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", BASE_FILES, method=stored)
    wheelkit.make_wheel(tmp_path / "patch", "other", "1.0", BASE_FILES, method=stored)
    result = run_k3diff(
        "wheels", f"base/{WHEEL}", "patch/other-1.0-py3-none-any.whl", "--format", "json",
        "-o", "w606.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    return "w606.json"


def test_a_failing_finding_relabelled_info_is_refused(tmp_path: Path) -> None:
    name = _other_distribution(tmp_path)
    w606 = _finding("W606")
    forged = _forge(tmp_path, name, _then(lambda d: w606(d).update(severity="info"), _passing))
    _refused(
        _report(tmp_path, forged),
        "forged.json",
        "W606 '' has severity 'info' but W606 fails every run that does not waive it",
    )


def test_a_deleted_distribution_finding_is_refused(tmp_path: Path) -> None:
    name = _other_distribution(tmp_path)

    def delete(document: dict[str, Any]) -> None:
        document["findings"] = [f for f in document["findings"] if f["code"] != "W606"]
        _passing(document)

    _refused(
        _report(tmp_path, _forge(tmp_path, name, delete)),
        "forged.json",
        "the wheels are different distributions but no W606 finding says so",
    )


# A release set: 3 pairs (one with a changed native), one base wheel unpaired; exit 1. -------


def _wheelset(tmp_path: Path, native_change: bool = True) -> str:
    release_sets(tmp_path, native_change=native_change)
    result = run_k3diff(
        "wheels", "base", "patch", "--format", "json", "-o", "set.json", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    return "set.json"


def _set_passing(document: dict[str, Any]) -> None:
    document["verdict"].update(ok=True, exit_code=0, failures=[], failing_pairs=[])
    document["summary"]["failing_pairs"] = 0


def _drop_unpaired(document: dict[str, Any]) -> None:
    document["only_base"] = []
    document["summary"]["only_base"] = 0
    document["verdict"]["unpaired"] = 0


def _failing_pair(document: dict[str, Any]) -> dict[str, Any]:
    pair: dict[str, Any] = next(p for p in document["pairs"] if p["exit_code"] == 1)
    return pair


WHEELSET_EDITS: dict[str, tuple[Edit, str]] = {
    "set verdict flipped": (
        _passing,
        "verdict.exit_code 0 does not follow from its pairs and unpaired wheels (2 failing: 1 "
        "unpaired (only on one side), 1 of 3 pairs fail)",
    ),
    "set verdict and its failures flipped": (
        _set_passing,
        "verdict.failing_pairs names 0 pairs but 1 of its pairs fail",
    ),
    "unpaired list emptied, its count kept": (
        lambda d: d["only_base"].clear(),
        "summary.only_base is 1 but its lists give 0",
    ),
    "unpaired list and counts emptied": (
        _then(_drop_unpaired, lambda d: d["verdict"].update(failures=["1 of 3 pairs fail"])),
        "base.wheels is 4 but its pairs and only_base give 3",
    ),
    "failing pair's row flipped": (
        lambda d: _failing_pair(d).update(verdict="OK", exit_code=0, failing_codes=[]),
        "pairs[1] says OK (exit_code 0) but its wheels document says exit_code 1",
    ),
    "failing pair's own verdict flipped": (
        lambda d: _failing_pair(d)["wheels"]["verdict"].update(ok=True, exit_code=0),
        "pairs[1] verdict.exit_code 0 does not follow from its findings (1 failing: W101 "
        "engine/_C.so)",
    ),
}


@pytest.mark.parametrize("case", sorted(WHEELSET_EDITS))
def test_an_edited_wheelset_verdict_is_refused(tmp_path: Path, case: str) -> None:
    edit, message = WHEELSET_EDITS[case]
    name = _wheelset(tmp_path)
    assert _report(tmp_path, name).exit_code == 1
    _refused(_report(tmp_path, _forge(tmp_path, name, edit)), "forged.json", message)


def test_unpaired_wheels_allowed_by_hand_are_named_in_the_bundle(tmp_path: Path) -> None:
    """`allow_unpaired` is the run's stated option: a set passing by it says so."""
    name = _wheelset(tmp_path, native_change=False)

    def allow(document: dict[str, Any]) -> None:
        document["verdict"].update(ok=True, exit_code=0, failures=[], allow_unpaired=True)

    assert _report(tmp_path, _forge(tmp_path, name, allow)).exit_code == 0
    report = (tmp_path / "bundle/REPORT.md").read_text()
    assert "(--allow-unpaired: it does not fail the set)" in report


# An audit whose pinned manifest mismatches (A201, error); exit 1. --------------------------


def _audit(tmp_path: Path) -> str:
    wheelkit.make_wheel(tmp_path, "demo", "1.0", {"demo/__init__.py": b"x = 1\n"})
    (tmp_path / "notes.txt").write_text("v1\n")
    names = ["demo-1.0-py3-none-any.whl", "notes.txt"]
    assert run_k3diff("audit", *names, "--write-manifest", "SUMS", cwd=tmp_path).exit_code == 0
    (tmp_path / "notes.txt").write_text("v2\n")
    result = run_k3diff(
        "audit", *names, "--manifest", "SUMS", "--format", "json", "-o", "audit.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    return "audit.json"


def test_an_audit_finding_relabelled_info_is_refused(tmp_path: Path) -> None:
    """Audit's policy is fixed (no `--allow-*`): A201 is an error unless waived."""
    name = _audit(tmp_path)

    def relabel(document: dict[str, Any]) -> None:
        document["findings"][0]["severity"] = "info"
        document["verdict"].update(ok=True, exit_code=0, errors=0)
        document["verdict"]["warnings"] += 1

    _refused(
        _report(tmp_path, _forge(tmp_path, name, relabel)),
        "forged.json",
        "findings[0] A201 notes.txt has severity 'info' but A201 fails every run that does not "
        "waive it",
    )


# A comparison and its triage (the seed scenario: 4 of 8 records differ). -------------------


def test_a_comparison_edited_to_pass_is_refused_by_triage_too(tmp_path: Path) -> None:
    comparison, samples, _ = seed(tmp_path)
    forged = _forge(tmp_path, comparison, lambda d: d["verdict"].update(ok=True, exit_code=0))
    result = run_k3diff("triage", forged, samples, cwd=tmp_path)
    _refused(
        result,
        "forged.json",
        "verdict.exit_code 0 does not follow from its records (1 failing: 4 of 8 paired records "
        "differ)",
    )


def test_a_triage_that_says_it_fails_while_its_records_pass_is_refused(tmp_path: Path) -> None:
    _, _, triage = seed(tmp_path)
    document = json.loads((tmp_path / triage).read_text())
    assert document["verdict"]["exit_code"] == 0
    forged = _forge(tmp_path, triage, lambda d: d["verdict"].update(ok=False, exit_code=1))
    _refused(
        _report(tmp_path, forged),
        "forged.json",
        "verdict.exit_code 1 does not follow from its records (none failing)",
    )
