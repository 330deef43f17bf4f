"""Real release shapes must neither fail falsely nor pass where the installed result differs
(issue 20): maturin's compressed `Tag:` lines, RECORD rows that changed, binary content under a
text name, natives hidden by name or stream. Exec bits as pip installs them:
test_wheel_trust_modes.py."""

from __future__ import annotations

import dataclasses
import json
import zipfile
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json, run_k3diff, twin

from wheels.trust_support import FILES, MATURIN_TAG, failing_codes, finding_codes, orjson_wheel

# Item 1: tags as expanded sets, versions under PEP 440 ----------------------------------------


def test_a_maturin_wheel_compared_with_a_copy_of_itself_passes(tmp_path: Path) -> None:
    base = orjson_wheel(tmp_path, "base", tag=MATURIN_TAG)
    assert base.name == f"orjson-3.10.0-{MATURIN_TAG}.whl"
    patch = tmp_path / "patch" / base.name
    patch.parent.mkdir()
    patch.write_bytes(base.read_bytes())
    code, report = run_json("wheels", base, patch)
    assert "W605" not in finding_codes(report)
    assert code == 0


def test_audit_of_a_maturin_wheel_passes(tmp_path: Path) -> None:
    wheel = orjson_wheel(tmp_path, "dist", tag=MATURIN_TAG)
    code, report = run_json("audit", wheel)
    assert report["artifacts"][0]["findings"] == []
    assert code == 0


def test_compressed_and_expanded_tag_lines_are_the_same_tags(tmp_path: Path) -> None:
    base = orjson_wheel(tmp_path, "base", tag=MATURIN_TAG)
    expanded = wheelkit.wheel_files("orjson", "3.10.0", FILES, tag=MATURIN_TAG)
    wheel_name = "orjson-3.10.0.dist-info/WHEEL"
    lines = (
        expanded[wheel_name]
        .decode()
        .replace(
            f"Tag: {MATURIN_TAG}\n",
            "Tag: cp312-cp312-manylinux_2_17_x86_64\nTag: cp312-cp312-manylinux2014_x86_64\n",
        )
    )
    files = {**FILES, wheel_name: lines.encode()}
    patch = orjson_wheel(tmp_path, "patch", files, tag=MATURIN_TAG)
    code, report = run_json("wheels", base, patch)
    assert "W605" not in finding_codes(report)
    # The WHEEL file changed (and says so) but its tags did not.
    assert all(change["field"] != "tags" for change in report["metadata_changes"])
    assert code == 0


def test_a_filename_naming_a_subset_of_the_declared_tags_is_no_contradiction(
    tmp_path: Path,
) -> None:
    name = "orjson-3.10.0-cp312-cp312-manylinux_2_17_x86_64.whl"
    wheel = orjson_wheel(tmp_path, "dist", tag=MATURIN_TAG, filename=name)
    code, report = run_json("audit", wheel)
    assert (code, report["artifacts"][0]["findings"]) == (0, [])


def test_a_filename_naming_an_undeclared_tag_fails_in_plain_words(tmp_path: Path) -> None:
    name = "orjson-3.10.0-cp312-cp312-win_amd64.whl"
    wheel = orjson_wheel(tmp_path, "dist", tag=MATURIN_TAG, filename=name)
    code, report = run_json("audit", wheel)
    findings = report["artifacts"][0]["findings"]
    # and W629 (review67b): pip installs it on Windows by its filename, where no Python loads
    # its Linux build's `.so`
    assert (code, sorted(f["code"] for f in findings)) == (1, ["W605", "W629"])
    (finding,) = (f for f in findings if f["code"] == "W605")
    assert finding["detail"] == (
        "the filename names tags cp312-cp312-win_amd64 that WHEEL does not declare "
        "(its Tag lines: cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64)"
    )


def test_versions_compare_under_pep_440(tmp_path: Path) -> None:
    wheel = orjson_wheel(
        tmp_path, "dist", version="3.4.1.0", filename=f"orjson-3.4.1-{MATURIN_TAG}.whl"
    )
    code, report = run_json("audit", wheel)  # no W605; PyPI reads orjson-3.4.1.dist-info: A141
    assert (code, [f["code"] for f in report["artifacts"][0]["findings"]]) == (1, ["A141"])
    other = orjson_wheel(
        tmp_path, "other", version="3.4.2", filename=f"orjson-3.4.1-{MATURIN_TAG}.whl"
    )
    code, report = run_json("audit", other)
    (finding,) = report["artifacts"][0]["findings"]
    assert (code, finding["detail"]) == (
        1,
        "the filename says version 3.4.1, METADATA says 3.4.2",
    )


# Item 3: every RECORD row whose text changed is verified ---------------------------------------


def _row(path: str, algorithm: str, data: bytes, *, wrong: bool = False) -> str:
    import base64
    import hashlib

    digest = hashlib.new(algorithm, data + (b"x" if wrong else b"")).digest()
    encoded = base64.urlsafe_b64encode(digest).decode().rstrip("=")
    return f"{path},{algorithm}={encoded},{len(data)}"


@pytest.mark.parametrize(
    ("algorithm", "wrong", "codes"),
    [
        ("sha512", True, ["W302"]),
        ("sha512", False, []),
        ("sha3_256", True, ["W302"]),
        ("blake2s", False, []),
        ("md5", False, ["W623"]),
        ("md5", True, ["W623", "W302"]),
        ("sha1", True, ["W623", "W302"]),  # refused, and wrong too
    ],
)
@pytest.mark.parametrize(
    "path", ["orjson/__init__.py", "orjson/orjson.cpython-312-x86_64-linux-gnu.so"]
)
def test_a_record_row_that_changed_on_unchanged_content_is_verified(
    tmp_path: Path, algorithm: str, wrong: bool, codes: list[str], path: str
) -> None:
    base = orjson_wheel(tmp_path, "base")
    row = _row(path, algorithm, FILES[path], wrong=wrong)
    patch = orjson_wheel(tmp_path, "patch", record_overrides={path: row})
    code, report = run_json("wheels", base, patch)
    found = [f["code"] for f in report["findings"] if f["path"] == path]
    assert found == codes
    assert code == (1 if codes else 0)
    # audit agrees on the same wheel.
    assert run_json("audit", patch)[0] == code


def test_an_unknown_algorithm_is_a_finding_in_wheels_as_in_audit(tmp_path: Path) -> None:
    path = "orjson/__init__.py"
    base = orjson_wheel(tmp_path, "base")
    patch = orjson_wheel(tmp_path, "patch", record_overrides={path: f"{path},crc32=0badf00d,22"})
    code, report = run_json("wheels", base, patch)
    (finding,) = [f for f in report["findings"] if f["code"] == "W623"]
    assert code == 1
    assert finding["detail"] == (
        "RECORD hashes it with an algorithm k3diff does not know: 'crc32=0badf00d'"
    )


# Item 4: content magic before the extension; binary content is never diffed as text ------------


def test_an_elf_named_py_is_native_and_fails(tmp_path: Path) -> None:
    disguised = "orjson/_speedups.py"
    base = orjson_wheel(tmp_path, "base", {**FILES, disguised: wheelkit.elf_bytes(b"\x90" * 2000)})
    patch = orjson_wheel(
        tmp_path, "patch", {**FILES, disguised: wheelkit.elf_bytes(b"\xcc" * 2000)}
    )
    code, report = run_json("wheels", base, patch)
    (entry,) = [e for e in report["entries"] if e["path"] == disguised]
    assert (entry["kind"], entry["status"]) == ("native", "changed")
    assert "diff" not in entry
    assert (code, finding_codes(report)) == (1, ["W101"])
    explained = run_json("wheels", base, patch, "--explain")[1]
    (entry,) = [e for e in explained["entries"] if e["path"] == disguised]
    assert "native" in entry


def test_an_elf_under_dist_info_is_native_and_fails(tmp_path: Path) -> None:
    """pip installs every file of `.dist-info/` beside the package: a library changed or
    added there is a native change (W101, W103), not a metadata one (W301, informational)."""
    hidden = "orjson-3.10.0.dist-info/helper"
    base = orjson_wheel(tmp_path, "base", {**FILES, hidden: wheelkit.elf_bytes(b"\x90" * 200)})
    patch = orjson_wheel(tmp_path, "patch", {**FILES, hidden: wheelkit.elf_bytes(b"\xcc" * 200)})
    code, report = run_json("wheels", base, patch)
    (entry,) = [e for e in report["entries"] if e["path"] == hidden]
    assert (entry["kind"], code, failing_codes(report)) == ("native", 1, ["W101"])
    code, report = run_json("wheels", orjson_wheel(tmp_path, "plain"), patch)
    assert (code, failing_codes(report)) == (1, ["W103"])


def test_binary_content_under_a_text_name_is_described_not_diffed(tmp_path: Path) -> None:
    import hashlib

    blob = "orjson/table.py"
    old, new = bytes(range(256)) * 10, bytes(range(255, -1, -1)) * 10
    base = orjson_wheel(tmp_path, "base", {**FILES, blob: old})
    patch = orjson_wheel(tmp_path, "patch", {**FILES, blob: new})
    code, report = run_json("wheels", base, patch)
    (entry,) = [e for e in report["entries"] if e["path"] == blob]
    assert entry["kind"] == "python"
    assert entry["diff"]["unified"] == ""
    assert entry["diff"]["binary"] == (
        f"base: binary, 2,560 bytes, sha256 {hashlib.sha256(old).hexdigest()}; "
        f"patch: binary, 2,560 bytes, sha256 {hashlib.sha256(new).hexdigest()}"
    )
    text = run_k3diff("wheels", base, patch)
    assert "\x00" not in text.stdout and "@@" not in text.stdout
    assert f"{blob}: base: binary, 2,560 bytes, sha256 {hashlib.sha256(old).hexdigest()}" in (
        text.stdout
    )
    assert code == 0  # a changed Python file alone does not fail


# Item 5: an option never takes a wheel as the file it writes -----------------------------------


def test_write_manifest_before_the_wheels_is_refused_and_the_wheel_survives(
    tmp_path: Path,
) -> None:
    first = orjson_wheel(tmp_path, "dist")
    second = orjson_wheel(tmp_path, "dist", version="3.10.1")
    before = first.read_bytes()
    result = run_k3diff("audit", "--write-manifest", first, second)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"k3diff: error: --write-manifest took {first} as its FILE; put the option after the wheels"
    )
    assert len(result.stderr.splitlines()) == 1
    assert first.read_bytes() == before


@pytest.mark.parametrize("command", ["audit", "wheels"])
def test_output_named_like_a_wheel_or_holding_a_zip_is_refused(
    tmp_path: Path, command: str
) -> None:
    base, patch = orjson_wheel(tmp_path, "base"), orjson_wheel(tmp_path, "patch")
    inputs = [base] if command == "audit" else [base, patch]
    named = tmp_path / "r.whl"
    result = run_k3diff(command, "-o", named, *inputs)
    assert result.exit_code == 2
    assert f"--output took {named} as its FILE; put the option after the wheels" in result.stderr
    assert not named.exists()
    disguised = tmp_path / "report.txt"  # a zip by content, whatever its name
    disguised.write_bytes(base.read_bytes())
    result = run_k3diff(command, "-o", disguised, *inputs)
    assert (result.exit_code, disguised.read_bytes()) == (2, base.read_bytes())
    assert "is a zip archive" in result.stderr


def test_a_responses_report_is_not_written_over_a_zip_either(tmp_path: Path) -> None:
    capture = tmp_path / "base.jsonl"
    capture.write_text('{"id": "a", "text": "x"}\n')
    result = run_k3diff("responses", capture, twin(capture), "-o", tmp_path / "out.zip")
    assert result.exit_code == 2
    assert "put the option after the inputs" in result.stderr


# Item 7: soname bumps pair; release sets; the same file twice ----------------------------------


def test_a_versioned_soname_bump_pairs_and_is_explained(tmp_path: Path) -> None:
    old_name = "onnxruntime/capi/libonnxruntime.so.1.20.0"
    new_name = "onnxruntime/capi/libonnxruntime.so.1.20.1"
    base = orjson_wheel(tmp_path, "base", {old_name: wheelkit.elf_bytes(b"\x90" * 900)})
    patch = orjson_wheel(tmp_path, "patch", {new_name: wheelkit.elf_bytes(b"\xcc" * 900)})
    code, report = run_json("wheels", base, patch, "--explain")
    (entry,) = [e for e in report["entries"] if e["kind"] == "native"]
    assert (entry["base_path"], entry["patch_path"]) == (old_name, new_name)
    assert entry["status"] == "changed" and "native" in entry
    assert code == 1


def test_an_ambiguous_soname_bump_does_not_pair(tmp_path: Path) -> None:
    lib = wheelkit.elf_bytes(b"\x90" * 900)
    base = orjson_wheel(tmp_path, "base", {"pkg/libx.so.1.0": lib})
    patch = orjson_wheel(tmp_path, "patch", {"pkg/libx.so.1.1": lib, "pkg/libx.so.1.2": lib})
    _, report = run_json("wheels", base, patch)
    statuses = sorted(e["status"] for e in report["entries"] if e["kind"] == "native")
    assert statuses == ["added", "added", "missing"]


def test_an_unpaired_wheel_shows_a_valid_tag_set(tmp_path: Path) -> None:
    from packaging.tags import parse_tag

    base = orjson_wheel(tmp_path, "base", tag=MATURIN_TAG)
    # A Windows wheel: on no interpreter does pip take one where it takes the other, so the
    # two stay unpaired (a py3-none-any patch is now paired with it by pip's choice, release77).
    other = orjson_wheel(tmp_path, "patch", tag="cp312-cp312-win_amd64")
    result = run_k3diff("wheels", "--base", base, "--patch", other)
    assert result.exit_code == 1
    (line,) = [line for line in result.stdout.splitlines() if line.startswith(f"- {base}")]
    shown = line.split(", ")[1]
    assert {str(tag) for tag in parse_tag(shown)} == {
        "cp312-cp312-manylinux_2_17_x86_64",
        "cp312-cp312-manylinux2014_x86_64",
    }


def test_ambiguity_among_given_wheels_says_to_give_fewer(tmp_path: Path) -> None:
    base = orjson_wheel(tmp_path, "base")
    first = orjson_wheel(tmp_path, "patch", version="3.10.1")
    second = orjson_wheel(tmp_path, "patch", version="3.10.2")
    result = run_k3diff("wheels", "--base", base, "--patch", first, "--patch", second)
    assert result.exit_code == 2
    assert "give only the one to compare with --patch" in result.stderr
    assert "--base/--patch" not in result.stderr


@pytest.mark.parametrize("directories", [False, True])
def test_the_same_file_twice_compares_nothing_and_exits_2(
    tmp_path: Path, directories: bool
) -> None:
    wheel = orjson_wheel(tmp_path, "dist")
    target = wheel.parent if directories else wheel
    for args in ([target, target], ["--base", wheel, "--patch", wheel]):
        result = run_k3diff("wheels", *args)
        assert result.exit_code == 2
        assert "are the same file: nothing would be compared" in result.stderr
    copy = tmp_path / "copy" / wheel.name
    copy.parent.mkdir()
    copy.write_bytes(wheel.read_bytes())
    assert run_k3diff("wheels", wheel, copy).exit_code == 0  # a copy is a real comparison


def test_help_says_the_same_file_twice_is_refused() -> None:
    """The refusal above is part of the interface: `--help` says it (w408b)."""
    result = run_k3diff("wheels", "--help")
    assert result.exit_code == 0
    said = " ".join(result.stdout.split())
    assert (
        "BASE and PATCH naming one file (or directory), through any path or link, is refused (exit 2)"
        in said
    )


def test_a_prepended_stub_with_uncorrected_offsets_is_w610_with_the_delta(tmp_path: Path) -> None:
    import zipfile

    base = orjson_wheel(tmp_path, "base")
    patch = tmp_path / "patch" / base.name
    patch.parent.mkdir()
    stub = b'#!/bin/sh\nexec python3 -m pip install "$0"\n'
    patch.write_bytes(stub + base.read_bytes())
    with zipfile.ZipFile(patch) as archive:  # what pip reads: the same entries
        assert archive.read("orjson/__init__.py") == FILES["orjson/__init__.py"]
    commands: list[list[str | Path]] = [["wheels", base, patch], ["audit", patch]]
    for command in commands:
        code, report = run_json(*command)
        audited = report.get("artifacts")
        findings = audited[0]["findings"] if audited else report["findings"]
        (finding,) = [f for f in findings if f["code"] == "W610"]
        assert f"{len(stub)} bytes were prepended without correcting" in finding["detail"]
        assert "corrupt" not in json.dumps(report)
        assert code == 1


@pytest.mark.parametrize("base_blob", [b"plain data\n" * 40, None])
def test_a_native_whose_stream_starts_with_empty_blocks_is_still_native(
    tmp_path: Path, base_blob: bytes | None
) -> None:
    """A library under a data name whose deflate stream starts with more than `SNIFF_INPUT`
    bytes of empty stored blocks (pip inflates it all the same) is sniffed past them: a native
    added or replacing a data file fails (W103/W101), not an informational W501."""
    blob = "orjson/data/blob"
    library = wheelkit.elf_bytes(b"\xc3" * 3000)
    base = orjson_wheel(
        tmp_path, "base", FILES if base_blob is None else {**FILES, blob: base_blob}
    )
    members = [
        wheelkit.raw_member(name, content)
        for name, content in wheelkit.wheel_files(
            "orjson", "3.10.0", {**FILES, blob: library}, tag=MATURIN_TAG
        ).items()
    ]
    empty_blocks = b"\x00\x00\x00\xff\xff" * 900  # stored, not final: 4,500 bytes of nothing
    members = [
        dataclasses.replace(m, stored=empty_blocks + m.stored) if m.name == blob.encode() else m
        for m in members
    ]
    patch = tmp_path / "patch" / f"orjson-3.10.0-{MATURIN_TAG}.whl"
    patch.parent.mkdir()
    patch.write_bytes(wheelkit.raw_zip(members))
    with zipfile.ZipFile(patch) as archive:
        assert archive.read(blob) == library  # what pip installs
    code, report = run_json("wheels", base, patch)
    (entry,) = [e for e in report["entries"] if e["path"] == blob]
    assert (entry["kind"], code) == ("native", 1)
    assert ("W103" if base_blob is None else "W101") in failing_codes(report)
