"""One finding, one row (stop 63, found by new-user trials at stop 62): a W401 (a changed file
that does not match its claimed commit) used to turn the artifact-identity row FAIL too, so
the bottom line read "FAIL: artifact identity (w.json), source match (w.json) fail their
policies" for one finding. Each failing finding now fails the row it belongs to, `wheels`
(text, Markdown, JSON) and the bundle (REPORT.md, summary.json, report.html) agree on what
fails, and no failing finding fails no row."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff
from provenance.repokit import make_repo

from k3diff.bundle.model import Evidence, Status
from k3diff.bundle.wheelfacts import wheels_stages, wheelset_stages
from k3diff.bundle.wheelrows import SOURCE_FAILING, row_of
from k3diff.documents.findingview import FindingView
from k3diff.documents.wheelset import WheelsetDocument, WheelsetPair
from k3diff.documents.wheelsview import WheelsCounts, WheelsDocument, WheelsProvenance, WheelsSide
from k3diff.wheel.codes import WAIVER_PLACEHOLDER_REASON, WHEELS_CODES
from k3diff.wheel.kinds import EntryKind

SO = wheelkit.elf_bytes(b"\x90" * 64)
SO_CHANGED = wheelkit.elf_bytes(b"\xc3" * 64)


def _setup(tmp_path: Path, *, native: bool = False) -> list[str]:
    """demo 1.0 -> 2.0 whose demo/m.py is not the file at the repository's HEAD (W401), and
    with `native` a changed native library (W101) as well."""
    make_repo(tmp_path / "src", [{"demo/__init__.py": b"", "demo/m.py": b"print('old')\n"}])
    wheels = []
    for version, so in (("1.0", SO), ("2.0", SO_CHANGED)):
        files = {"demo/__init__.py": b"", "demo/m.py": f"print({version!r})\n".encode()}
        if native:
            files["demo/_core.so"] = so
        wheels.append(str(wheelkit.make_wheel(tmp_path / version, "demo", version, files)))
    return wheels


def _run(tmp_path: Path, wheels: list[str], *options: str) -> Any:
    return run_k3diff(
        "wheels", *wheels, "--source", "src", "--commit", "HEAD", *options, cwd=tmp_path
    )


def _bundle(tmp_path: Path, wheels: list[str]) -> tuple[dict[str, str], str, str]:
    """The wheels JSON's bundle: matrix statuses, REPORT.md, report.html."""
    made = _run(tmp_path, wheels, "--format", "json", "-o", "w.json")
    assert made.exit_code == 1, made.stdout + made.stderr
    result = run_k3diff("report", "w.json", *wheels, "src", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stdout + result.stderr
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    statuses = {row["evidence"]: row["status"] for row in summary["matrix"]}
    for row in summary["matrix"]:
        statuses[row["evidence"] + " finding"] = row["finding"]
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    html = (tmp_path / "bundle" / "report.html").read_text()
    return statuses, report, html


def test_a_source_mismatch_fails_the_source_row_alone(tmp_path: Path) -> None:
    wheels = _setup(tmp_path)
    text = _run(tmp_path, wheels).stdout
    assert text.strip().splitlines()[-1] == "Verdict: FAIL (exit 1): 1 × W401"
    markdown = _run(tmp_path, wheels, "--format", "markdown").stdout
    assert "**Verdict: FAIL (exit 1): 1 × W401**" in markdown
    statuses, report, html = _bundle(tmp_path, wheels)
    document = json.loads((tmp_path / "w.json").read_text())
    assert [f["code"] for f in document["findings"] if f["severity"] == "error"] == ["W401"]
    assert statuses["artifact identity"] == "pass"
    assert "failing" not in statuses["artifact identity finding"]
    assert statuses["source match"] == "FAIL"
    assert statuses["source match finding"].endswith("; 1 mismatch; failing: 1 × W401")
    assert "**FAIL: source match (w.json) fails its policy** (exit 1)" in report
    assert "| artifact identity | pass |" in report and "| source match | FAIL |" in report
    assert "FAIL: source match (w.json) fails its policy" in html
    assert "artifact identity (w.json)" not in html.split("Evidence matrix")[0]


def test_a_native_change_and_a_mismatch_each_fail_their_own_row(tmp_path: Path) -> None:
    wheels = _setup(tmp_path, native=True)
    verdict = _run(tmp_path, wheels).stdout.strip().splitlines()[-1]
    assert verdict == "Verdict: FAIL (exit 1): 1 × W101, 1 × W401"
    statuses, report, _ = _bundle(tmp_path, wheels)
    assert statuses["artifact identity"] == "FAIL" and statuses["source match"] == "FAIL"
    assert statuses["artifact identity finding"].endswith("; failing findings: 1 × W101")
    assert statuses["source match finding"].endswith("; failing: 1 × W401")
    assert (
        "**FAIL: artifact identity (w.json), source match (w.json) fail their policies**" in report
    )


# Every code at error, in a document with and without a source check: a row fails.


def _counts() -> dict[str, WheelsCounts]:
    return {kind.value: WheelsCounts(1, 1, 0, 0, 0) for kind in EntryKind}


def _document(findings: tuple[FindingView, ...], sourced: bool) -> WheelsDocument:
    side = WheelsSide("demo-1.0-py3-none-any.whl", "demo", "1.0", None, 1)
    failing = any(f.severity == "error" for f in findings)
    provenance = WheelsProvenance("src", "HEAD", None, "0" * 40, {}) if sourced else None
    return WheelsDocument(
        base=side,
        patch=side,
        summary=_counts(),
        entries=(),
        findings=findings,
        ok=not failing,
        exit_code=int(failing),
        different_distributions=False,
        provenance=provenance,
        surface_changes=None,
    )


@pytest.mark.parametrize("sourced", [True, False], ids=["with --source", "without"])
@pytest.mark.parametrize("code", [code.name for code in WHEELS_CODES])
def test_every_failing_code_fails_exactly_its_row(code: str, sourced: bool) -> None:
    finding = FindingView(code, "error", "demo/x")
    stages = wheels_stages("w.json", _document((finding,), sourced))
    failed = [s.evidence for s in stages if s.status is Status.FAIL]
    assert failed == [row_of(code, sourced)], (code, failed)
    expected = Evidence.SOURCE if sourced and code in SOURCE_FAILING else Evidence.IDENTITY
    assert failed == [expected]


@pytest.mark.parametrize("sourced", [True, False], ids=["with --source", "without"])
def test_the_passing_direction_nothing_at_error_fails_no_row(sourced: bool) -> None:
    """Every code reported at info (waived, allowed, informational): every row passes."""
    findings = tuple(FindingView(code.name, "info", "demo/x") for code in WHEELS_CODES)
    stages = wheels_stages("w.json", _document(findings, sourced))
    assert {s.status for s in stages} == {Status.PASS}


def test_a_release_set_row_fails_on_the_set_s_own_reasons_only() -> None:
    """An unpaired wheel --allow-unpaired accepts beside a pair failing W401: the pair's source
    row fails, the set's row passes (before, it failed on the pair's W401 too)."""
    failing = _document((FindingView("W401", "error", "demo/m.py"),), sourced=True)
    pair = WheelsetPair("a.whl", "b.whl", failing, "FAIL", 1, ("W401",))
    for allow, status in ((True, Status.PASS), (False, Status.FAIL)):
        wheelset = WheelsetDocument(
            (pair,), ("c.whl",), (), (), ok=False, exit_code=1, allow_unpaired=allow
        )
        doc = _Doc(wheelset)
        stages = wheelset_stages(doc)  # type: ignore[arg-type]
        rows = [(s.evidence, s.status) for s in stages]
        assert rows == [
            (Evidence.IDENTITY, Status.PASS),
            (Evidence.SOURCE, Status.FAIL),
            (Evidence.IDENTITY, status),
        ], (allow, rows)


class _Doc:
    """The two things `wheelset_stages` reads of a read document."""

    name = "set.json"

    def __init__(self, wheelset: WheelsetDocument) -> None:
        self._wheelset = wheelset

    def typed(self, _kind: object) -> WheelsetDocument:
        return self._wheelset


def test_a_rebuilt_native_script_is_counted_once_in_the_identity_row() -> None:
    """z3_solver's `bin/z3`: W101 and a native W708 on one path, counted as `wheels` counts
    them; a text script's W708 still counts on its own."""
    script = "demo-2.0.data/scripts/solver"
    findings = (
        FindingView("W708", "error", script, native=True),
        FindingView("W708", "error", "demo-2.0.data/scripts/tool"),
        FindingView("W101", "error", "demo/_core.so"),
        FindingView("W101", "error", script),
    )
    [stage] = wheels_stages("w.json", _document(findings, sourced=False))
    assert stage.status is Status.FAIL
    assert stage.headline.endswith("; failing findings: 2 × W101 (1 also W708), 1 × W708")


def test_the_bundle_says_what_still_fails_under_allow_native_changes_as_wheels_does(
    tmp_path: Path,
) -> None:
    """left66: a W101 and a W401. `wheels` says `--allow-native-changes` leaves `1 × W401
    still fails`; the bundle's next step counted only the artifact-identity row's findings and
    told the reviewer "nothing else fails, so the pair then passes". Both now apply one rule
    (`wheelfailing.still_failing`), and the bundle's steps are `wheels`' own, waivers included:
    the reviewed paste makes the pair pass."""
    wheels = _setup(tmp_path, native=True)
    text = _run(tmp_path, wheels).stdout
    said = [line.strip() for line in text.splitlines()]
    _bundle(tmp_path, wheels)
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    source, _, allow, waiver = (s["step"] for s in summary["next_steps"])
    assert source.startswith("1 × W401 on 1 file: the wheel's file is not the one at")
    command = f"k3diff wheels {wheels[0]} {wheels[1]} "
    assert allow.startswith(command) and allow.removeprefix(command) in said
    assert allow.endswith("(1 × W101); 1 × W401 still fails")
    assert "then passes" not in (tmp_path / "bundle" / "REPORT.md").read_text()
    reviewed = summary["next_steps"][3]["toml"].replace(WAIVER_PLACEHOLDER_REASON, "reviewed")
    (tmp_path / "waivers.toml").write_text(reviewed + "\n")
    assert waiver.startswith("or accept each reviewed file with a waiver")
    assert _run(tmp_path, wheels, "--waivers", "waivers.toml").exit_code == 0


def test_each_next_step_names_its_own_row(tmp_path: Path) -> None:
    """report67: a W101 and a W401 fail both rows, and every next step was labelled with the
    last, "source match", `--explain` and `--allow-native-changes` included. Each step names
    the rows of the findings it is about: the native options the artifact-identity row (the
    W101), the one waiver line, which takes both findings, both rows; in summary.json,
    REPORT.md and report.html alike."""
    wheels = _setup(tmp_path, native=True)
    _bundle(tmp_path, wheels)
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    failing = {row["evidence"] for row in summary["matrix"] if row["status"] == "FAIL"}
    assert failing == {"artifact identity", "source match"}
    steps = summary["next_steps"]
    assert [s["evidence"] for s in steps] == [
        "source match",
        "artifact identity",
        "artifact identity",
        "artifact identity and source match",
    ], steps
    assert re.search(r"--commits OLD\.\.[0-9a-f]{40}:", steps[0]["step"])  # checked at HEAD
    assert "--explain" in steps[1]["step"] and "--allow-native-changes" in steps[2]["step"]
    assert '{code = "W101"' in steps[3]["toml"] and '{code = "W401"' in steps[3]["toml"]
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    listed = report.split("### Next steps")[1].split("## Evidence matrix")[0]
    bullets = [line for line in listed.splitlines() if line.startswith("- ")]
    assert [b.split(" (w.json): ")[0] for b in bullets] == [
        "- source match",
        "- artifact identity",
        "- artifact identity",
        "- artifact identity and source match",
    ], bullets
    html = (tmp_path / "bundle" / "report.html").read_text()
    assert html.count("<li>artifact identity (w.json): ") == 2
    assert html.count("<li>artifact identity and source match (w.json): ") == 1
    assert html.count("<li>source match (w.json): ") == 1


def test_a_source_mismatch_alone_is_the_source_row_s_step(tmp_path: Path) -> None:
    wheels = _setup(tmp_path)
    _bundle(tmp_path, wheels)
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    source, step = summary["next_steps"]
    assert source["evidence"] == "source match"
    assert re.search(r"--commits OLD\.\.[0-9a-f]{40}:", source["step"])  # checked at HEAD
    assert step["evidence"] == "source match" and '{code = "W401"' in step["toml"], step
