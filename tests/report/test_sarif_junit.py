"""`--format sarif` and `--format junit`: what GitHub code scanning and Jenkins' JUnit plugin
read of a run — valid against SARIF 2.1.0's own JSON Schema, levels from the policy, the
artifact and the archive member located, fingerprints that survive a release, and a failing
run never readable as a pass."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import wheelkit
from cli_support import run_k3diff, twin

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-2.1.0.schema.json").read_text())
SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 512)
SO_CHANGED = wheelkit.elf_bytes(b"\x31\xc0\xc3\x90" * 512)
FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/_C.cpython-311-x86_64-linux-gnu.so": SO,
}
TAG = "cp311-cp311-manylinux_2_17_x86_64"


def _pair(tmp_path: Path, version: str = "1.1") -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES, tag=TAG)
    changed = {**FILES, "engine/_C.cpython-311-x86_64-linux-gnu.so": SO_CHANGED}
    changed["engine/extra.py"] = b"x = 1\n"
    patch = wheelkit.make_wheel(tmp_path / f"patch-{version}", "engine", version, changed, tag=TAG)
    return base, patch


def _sarif(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run_k3diff(*args, "--format", "sarif")
    assert result.exit_code in (0, 1), result.stderr
    document = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(document)
    return result.exit_code, document


def test_wheels_sarif_validates_with_rules_levels_and_locations(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    code, document = _sarif("wheels", base, patch, "--no-file-hash")
    assert code == 1
    assert document["version"] == "2.1.0" and len(document["runs"]) == 1
    run = document["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert rules["W101"]["defaultConfiguration"]["level"] == "error"
    assert rules["W101"]["shortDescription"]["text"] == "native entry changed"
    assert rules["W203"]["defaultConfiguration"]["level"] == "note"
    by_rule = {r["ruleId"]: r for r in run["results"]}
    native = by_rule["W101"]
    assert native["level"] == "error"
    assert run["tool"]["driver"]["rules"][native["ruleIndex"]]["id"] == "W101"
    location = native["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == str(patch)
    member = "engine/_C.cpython-311-x86_64-linux-gnu.so"
    assert location["logicalLocations"][0]["name"] == member
    assert location["logicalLocations"][0]["fullyQualifiedName"] == f"{patch}!/{member}"
    assert by_rule["W203"]["level"] == "note"
    assert run["invocations"][0]["exitCode"] == 1


NATIVE = "engine/_C.cpython-311-x86_64-linux-gnu.so"


def _fingerprints(base: Path, patch: Path, *options: str | Path) -> dict[tuple[str, str], str]:
    """(rule, member) -> the result's `k3diff/v3` partial fingerprint."""
    _, document = _sarif("wheels", base, patch, "--no-file-hash", *options)
    results = document["runs"][0]["results"]
    found = {}
    for result in results:
        logical = result["locations"][0].get("logicalLocations", [{"name": ""}])
        found[(result["ruleId"], logical[0]["name"])] = result["partialFingerprints"]["k3diff/v3"]
    assert len(found) == len(results) and len(set(found.values())) == len(found)
    return found


def test_fingerprints_survive_a_new_release_of_the_same_change(tmp_path: Path) -> None:
    base, patch_11 = _pair(tmp_path, "1.1")
    _, patch_12 = _pair(tmp_path / "again", "1.2")
    first, second = _fingerprints(base, patch_11), _fingerprints(base, patch_12)
    # The same native bytes and the same added file keep their fingerprints across the release
    # (the wheel's and the dist-info's version are not part of them) ...
    for key in (("W101", NATIVE), ("W203", "engine/extra.py")):
        assert first[key] == second[key]
    # ... while METADATA, whose content changed differently (Version 1.1, then 1.2), is a new
    # finding: a dismissal of the first change does not cover the second.
    (meta_11,) = [fp for (rule, path), fp in first.items() if rule == "W301" and path]
    (meta_12,) = [fp for (rule, path), fp in second.items() if rule == "W301" and path]
    assert meta_11 != meta_12


def test_the_same_wheels_give_the_same_fingerprints_in_every_run(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    copies = tmp_path / "elsewhere"
    copies.mkdir()
    moved = [copies / p.name for p in (base, patch)]
    for source, target in zip((base, patch), moved, strict=True):
        target.write_bytes(source.read_bytes())
    # Another run, other paths (as on another machine), with --explain: the same fingerprints.
    assert _fingerprints(base, patch) == _fingerprints(moved[0], moved[1], "--explain")


def test_a_later_change_to_the_same_native_is_a_new_finding(tmp_path: Path) -> None:
    # A reviewer dismissed "native _C changed" for the reviewed rebuild (patch 1.1); patch 1.2
    # changes the same native again, to other bytes: code scanning must show it, so its
    # fingerprint differs. An unrelated entry changed beside it leaves the native's alone.
    base, reviewed = _pair(tmp_path, "1.1")
    again = {**FILES, NATIVE: wheelkit.elf_bytes(b"\x90\x90\xc3\x90" * 512)}
    again["engine/extra.py"] = b"x = 1\n"
    later = wheelkit.make_wheel(tmp_path / "later", "engine", "1.2", again, tag=TAG)
    unrelated = {**FILES, NATIVE: SO_CHANGED, "engine/extra.py": b"x = 2\n"}
    beside = wheelkit.make_wheel(tmp_path / "beside", "engine", "1.2", unrelated, tag=TAG)
    dismissed = _fingerprints(base, reviewed)[("W101", NATIVE)]
    assert _fingerprints(base, later)[("W101", NATIVE)] != dismissed
    assert _fingerprints(base, beside)[("W101", NATIVE)] == dismissed


def test_a_rebuild_that_keeps_the_natives_crc_and_size_is_a_new_finding(tmp_path: Path) -> None:
    # review64b: the reviewed rebuild's native and a later one forged to keep its CRC-32 and
    # size (RECORD rows without a hash, so the comparison itself computes no SHA-256 of the
    # native): the forged bytes must not inherit the reviewer's dismissal.
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES, tag=TAG)
    no_hash = {NATIVE: f"{NATIVE},,"}
    forged = wheelkit.forge_same_crc(SO_CHANGED, 100, 200)
    assert len(forged) == len(SO_CHANGED) and forged != SO_CHANGED
    reviewed, later = (
        wheelkit.make_wheel(
            tmp_path / where,
            "engine",
            "1.1",
            {**FILES, NATIVE: so},
            tag=TAG,
            record_overrides=no_hash,
        )
        for where, so in (("reviewed", SO_CHANGED), ("later", forged))
    )
    dismissed = _fingerprints(base, reviewed)[("W101", NATIVE)]
    assert _fingerprints(base, later)[("W101", NATIVE)] != dismissed
    # The same bytes again (another directory): the same fingerprint, dismissal kept.
    again = tmp_path / "again"
    again.mkdir()
    (again / reviewed.name).write_bytes(reviewed.read_bytes())
    assert _fingerprints(base, again / reviewed.name)[("W101", NATIVE)] == dismissed


def test_a_release_set_with_an_unpaired_wheel_fails_in_sarif_too(tmp_path: Path) -> None:
    base_dir, patch_dir = tmp_path / "b", tmp_path / "p"
    wheelkit.make_wheel(base_dir, "engine", "1.0", FILES, tag=TAG)
    wheelkit.make_wheel(patch_dir, "engine", "1.1", FILES, tag=TAG)
    lonely = wheelkit.make_wheel(patch_dir, "helper", "1.1", {"helper/__init__.py": b""})
    code, document = _sarif("wheels", base_dir, patch_dir, "--no-file-hash")
    assert code == 1
    failing = [r for r in document["runs"][0]["results"] if r["level"] == "error"]
    assert [r["ruleId"] for r in failing] == ["verdict"]
    assert failing[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == str(lonely)


def test_logs_sarif_locates_the_line(tmp_path: Path) -> None:
    base = tmp_path / "base.log"
    base.write_text("INFO: Application startup complete.\n")
    patch = tmp_path / "patch.log"
    patch.write_text(
        "INFO: Application startup complete.\nRuntimeError: CUDA error: an illegal memory "
        "access was encountered\n"
    )
    code, document = _sarif("logs", base, patch)
    assert code == 1
    errors = [r for r in document["runs"][0]["results"] if r["level"] == "error"]
    assert errors and errors[0]["ruleId"] == "cuda-error"
    physical = errors[0]["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == str(patch)
    assert physical["region"]["startLine"] == 2
    # A log rule's help sends the reader to the page that lists the log rules.
    (rule,) = [r for r in document["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "cuda-error"]
    assert "docs/logs.md" in rule["help"]["text"] and "findings.md" not in rule["help"]["text"]


def test_hostile_names_stay_valid_sarif_and_junit(tmp_path: Path) -> None:
    files = {**FILES, "engine/\u202eevil\x1b[2K.py": b"x = 1\n"}
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", FILES, tag=TAG)
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", files, tag=TAG)
    _code, document = _sarif("wheels", base, patch, "--no-file-hash")
    text = json.dumps(document)
    assert "\x1b" not in text
    junit = run_k3diff("wheels", base, patch, "--no-file-hash", "--format", "junit")
    root = ET.fromstring(junit.stdout)  # parses: no raw control character in the XML
    assert "\x1b" not in junit.stdout and root.tag == "testsuites"


def _junit(*args: str | Path) -> tuple[int, ET.Element]:
    result = run_k3diff(*args, "--format", "junit")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, ET.fromstring(result.stdout)


def test_audit_junit_has_a_testcase_per_artifact_and_fails_the_broken_one(
    tmp_path: Path,
) -> None:
    good = wheelkit.make_wheel(tmp_path / "good", "engine", "1.0", FILES, tag=TAG)
    bad = wheelkit.make_wheel(
        tmp_path / "bad",
        "tool",
        "1.0",
        {"tool/__init__.py": b"x = 1\n"},
        record_overrides={"tool/__init__.py": "tool/__init__.py,sha256=AAAA,6"},
    )
    code, root = _junit("audit", good, bad)
    assert code == 1
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("name") == "k3diff audit"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == {str(good), str(bad)}
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    assert cases[str(good)].find("failure") is None
    failure = cases[str(bad)].find("failure")
    assert failure is not None and "A10" in (failure.get("type") or "")
    assert "tool/__init__.py" in (failure.text or "")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["exit_code"] == "1"


def test_commands_without_findings_refuse_ci_formats(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    capture.write_text('{"id": "a", "text": "x"}\n')
    result = run_k3diff("responses", capture, twin(capture), "--format", "sarif")
    assert result.exit_code == 2 and "sarif" in result.stderr


def test_an_artifact_uri_is_percent_encoded_and_names_the_path_given(tmp_path: Path) -> None:
    """SARIF's `uri` is a URI reference: a directory `a:b #1 50%` would otherwise read as the
    scheme `a`, a fragment `#1` and a broken escape; encoded, it decodes to the path given."""
    from urllib.parse import unquote, urlsplit

    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", FILES, tag=TAG)
    changed = {**FILES, "engine/_C.cpython-311-x86_64-linux-gnu.so": SO_CHANGED}
    patch = wheelkit.make_wheel(tmp_path / "a:b #1 50%?\n", "engine", "1.0", changed, tag=TAG)
    relative = patch.relative_to(tmp_path)
    result = run_k3diff("wheels", "b/" + base.name, relative, "--format", "sarif", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    document = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(document)
    (native,) = [r for r in document["runs"][0]["results"] if r["ruleId"] == "W101"]
    uri = native["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert unquote(uri) == str(relative)
    parts = urlsplit(uri)
    assert (parts.scheme, parts.query, parts.fragment) == ("", "", "")
    assert not set(uri) & set(" #?\n") and uri.endswith("/" + patch.name)


def test_a_member_name_cannot_forge_a_link_in_a_sarif_message(tmp_path: Path) -> None:
    """SARIF 2.1.0 §3.11.6: in a plain-text message `[text](target)` is an embedded link, which
    code scanning renders live; a literal `[` or `]` (and a backslash before one) must be
    backslash-escaped. An archive member named like a link comes out as text."""
    name = "engine/[click](https:\\\\x.example)\\].py"
    files = {**FILES, name: b"x = 1\n"}
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", FILES, tag=TAG)
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", files, tag=TAG)
    _code, document = _sarif("wheels", base, patch, "--no-file-hash")
    results = document["runs"][0]["results"]
    (text,) = [r["message"]["text"] for r in results if r["ruleId"] == "W203"]
    assert "engine/\\[click\\](https:\\\\x.example)\\\\\\].py" in text
    assert "[click]" not in text.replace("\\[click\\]", "")
    for result in results:  # every other bracket of every message is escaped too
        message = result["message"]["text"]
        assert all(message[i - 1] == "\\" for i, c in enumerate(message) if c in "[]")
    names = [r["locations"][0]["logicalLocations"][0]["name"] for r in results]
    assert name in names  # a location is no message: it keeps the raw name


def test_markup_in_a_member_name_stays_text_in_junit(tmp_path: Path) -> None:
    """ElementTree escapes `<`, `&` and quotes: a name cannot close an element or open one."""
    name = 'engine/a"]]></failure><x y="&amp;.py'
    files = {**FILES, name: b"x = 1\n"}
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", FILES, tag=TAG)
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", files, tag=TAG)
    _code, root = _junit("wheels", base, patch, "--no-file-hash")
    # The name's `"`, `<` and `>` are W619's too (Windows refuses them): a failure names it.
    assert [e.tag for e in root.iter() if e.tag not in ("properties", "property")] == [
        "testsuites",
        "testsuite",
        "testcase",
        "failure",
        "system-out",
    ]
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None and failure.text is not None and name in failure.text
    out = root.find("testsuite/testcase/system-out")
    assert out is not None and out.text is not None and name in out.text


def test_a_control_character_in_a_finding_is_shown_not_sent_to_code_scanning(
    tmp_path: Path,
) -> None:
    # A log line (or an archive member) carrying a bidirectional override, an escape sequence
    # or a bell: code scanning shows a result's message as it is, so the message shows each as
    # a visible escape, as the text report and the JUnit XML do (the location keeps the name).
    base = tmp_path / "base.log"
    base.write_text("INFO: Application startup complete.\n")
    patch = tmp_path / "patch.log"
    patch.write_text(
        "INFO: Application startup complete.\n"
        "RuntimeError: CUDA error: \u202eRTL \x1b[2Kgone \x07bell\n"
    )
    _code, document = _sarif("logs", base, patch)
    (result,) = [r for r in document["runs"][0]["results"] if r["level"] == "error"]
    message = result["message"]["text"]
    assert not any(c in message for c in "\u202e\x1b\x07"), message
    # The logs scan drops a terminal's colour and erase sequences (review64); the rest shows.
    assert "\\u202eRTL gone \\x07bell" in message
    files = {**FILES, "engine/\u202eevil\x1b[2K.py": b"x = 1\n"}
    old = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", FILES, tag=TAG)
    new = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", files, tag=TAG)
    _code, document = _sarif("wheels", old, new, "--no-file-hash")
    results = document["runs"][0]["results"]
    evil = [r for r in results if "evil" in r["message"]["text"]]
    assert evil
    for r in evil:
        assert not any(c in r["message"]["text"] for c in "\u202e\x1b"), r["message"]["text"]


def _wheel_level(document: dict[str, Any]) -> dict[str, list[str]]:
    """rule -> the fingerprints of its results that name no archive member (about the wheel)."""
    found: dict[str, list[str]] = {}
    for result in document["runs"][0]["results"]:
        if "logicalLocations" not in result["locations"][0]:
            found.setdefault(result["ruleId"], []).append(
                result["partialFingerprints"]["k3diff/v3"]
            )
    return found


def test_a_finding_about_the_whole_wheel_is_new_when_its_bytes_are(tmp_path: Path) -> None:
    """newuser64c: a finding with no archive member (bytes appended after the end record, W610)
    kept one fingerprint whatever was appended, so a dismissed alert stayed dismissed for
    another payload. Now such findings rest on both files' SHA-256 and what they say."""
    base, patch = _pair(tmp_path)
    payloads = {}
    for name, tail in (("one", b"A" * 64), ("two", b"B" * 64)):
        appended = tmp_path / name / patch.name
        appended.parent.mkdir()
        appended.write_bytes(patch.read_bytes() + tail)
        payloads[name] = appended
    _, one = _sarif("wheels", base, payloads["one"], "--no-file-hash")
    _, two = _sarif("wheels", base, payloads["two"], "--no-file-hash")
    _, again = _sarif("wheels", base, payloads["one"])  # the run's own file hashes this time
    assert len(_wheel_level(one)["W610"]) == 1
    assert _wheel_level(one)["W610"] != _wheel_level(two)["W610"]
    assert _wheel_level(one)["W610"] == _wheel_level(again)["W610"]
