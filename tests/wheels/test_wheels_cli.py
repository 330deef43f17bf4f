"""`k3diff wheels`: what a reviewer relies on when comparing a patch wheel with its base."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 4096)
TAG = "cp311-cp311-manylinux_2_17_x86_64"
"""The tags of a wheel holding `_C.cpython-311-…so`: where pip installs it, that file imports."""
TOOL = wheelkit.elf_bytes(b"\x31\xc0\xc3" * 512, build_id=b"\x22" * 20)
FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/model.py": b"def run(x):\n    return x + 1\n\n\ndef stop():\n    return None\n",
    "engine/_C.cpython-311-x86_64-linux-gnu.so": SO,
    "engine/bin/engine-tool": TOOL,
    "engine/data/table.json": b'{"a": 1}\n',
}


def _wheel(tmp_path: Path, side: str, files: dict[str, bytes], **kwargs: Any) -> Path:
    version = kwargs.pop("version", "1.0")
    kwargs.setdefault("tag", TAG)
    return wheelkit.make_wheel(tmp_path / side, "engine", version, files, **kwargs)


def _entry(report: dict[str, Any], path: str) -> dict[str, Any]:
    matches: list[dict[str, Any]] = [e for e in report["entries"] if e["path"] == path]
    assert len(matches) == 1, path
    return matches[0]


def test_rebuilt_identical_wheel_is_proven_by_raw_bytes(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "base", FILES)
    patch = _wheel(tmp_path, "patch", FILES)
    code, report = run_json("wheels", base, patch)
    assert code == 0
    assert {e["status"] for e in report["entries"]} == {"identical"}
    assert {e["how"] for e in report["entries"]} == {"raw-bytes"}
    assert report["summary"]["native"] == {
        "total": 2,
        "identical": 2,
        "changed": 0,
        "missing": 0,
        "added": 0,
    }
    assert report["verdict"] == {
        "ok": True,
        "exit_code": 0,
        "different_distributions": False,
        "verified_streams": len(report["entries"]),  # every stream read and CRC-32-checked
    }
    assert report["schema"] == "k3diff.wheels/1"


def _copy(wheel: Path, directory: Path) -> Path:
    """The same bytes in another file: `wheels X X` (one file twice) is refused."""
    directory.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(wheel, directory / wheel.name))


def test_extensionless_elf_is_native_by_content_magic(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "base", FILES)
    _, report = run_json("wheels", base, _copy(base, tmp_path / "copy"))
    assert _entry(report, "engine/bin/engine-tool")["kind"] == "native"
    assert _entry(report, "engine/data/table.json")["kind"] == "other"
    assert _entry(report, "engine-1.0.dist-info/METADATA")["kind"] == "metadata"


def test_recompressed_entries_are_identical_not_changed(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "base", FILES, compresslevel=9)
    patch = _wheel(tmp_path, "patch", FILES, compresslevel=1, order=None)
    code, report = run_json("wheels", base, patch)
    assert code == 0
    so = _entry(report, "engine/_C.cpython-311-x86_64-linux-gnu.so")
    assert (so["status"], so["how"], so["recompressed"]) == ("identical", "content", True)


def test_wheel_built_by_the_zip_tool_compares_with_a_zipfile_wheel(tmp_path: Path) -> None:
    if shutil.which("zip") is None:
        pytest.skip("zip command-line tool not installed")
    base = _wheel(tmp_path, "base", FILES)
    patch = _wheel(tmp_path, "patch", FILES, tool="zip")
    code, report = run_json("wheels", base, patch)
    assert code == 0
    assert {e["status"] for e in report["entries"]} == {"identical"}


def test_edited_python_is_listed_with_line_counts_and_passes(tmp_path: Path) -> None:
    edited = dict(FILES)
    edited["engine/model.py"] = b"def run(x):\n    return x + 2\n\n\ndef stop():\n    return None\n"
    edited["engine/new_feature.py"] = b"ENABLED = True\n"
    code, report = run_json("wheels", _wheel(tmp_path, "b", FILES), _wheel(tmp_path, "p", edited))
    assert code == 0
    model = _entry(report, "engine/model.py")
    assert (model["status"], model["kind"]) == ("changed", "python")
    assert (model["diff"]["added"], model["diff"]["removed"]) == (1, 1)
    assert "+    return x + 2" in model["diff"]["unified"]
    added = _entry(report, "engine/new_feature.py")
    assert (added["status"], added["diff"]["added"]) == ("added", 1)
    assert {f["code"] for f in report["findings"]} >= {"W201", "W203"}
    assert all(f["severity"] == "info" for f in report["findings"])


def test_native_tampered_keeping_size_and_crc_is_changed(tmp_path: Path) -> None:
    forged = wheelkit.forge_same_crc(SO, tamper_at=200, patch_at=1000)
    tampered = dict(FILES)
    tampered["engine/_C.cpython-311-x86_64-linux-gnu.so"] = forged
    code, report = run_json("wheels", _wheel(tmp_path, "b", FILES), _wheel(tmp_path, "p", tampered))
    assert code == 1
    so = _entry(report, "engine/_C.cpython-311-x86_64-linux-gnu.so")
    assert so["base_crc32"] == so["patch_crc32"]
    assert so["base_size"] == so["patch_size"]
    assert (so["status"], so["how"]) == ("changed", "content")
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["W101"]


def test_dropped_native_is_missing_and_fails(tmp_path: Path) -> None:
    dropped = {k: v for k, v in FILES.items() if not k.endswith(".so")}
    code, report = run_json("wheels", _wheel(tmp_path, "b", FILES), _wheel(tmp_path, "p", dropped))
    assert code == 1
    so = _entry(report, "engine/_C.cpython-311-x86_64-linux-gnu.so")
    assert (so["status"], so["patch_path"]) == ("missing", None)
    assert report["summary"]["native"]["missing"] == 1
    assert "W102" in {f["code"] for f in report["findings"]}


def test_allow_native_changes_relaxes_the_policy_but_still_reports(tmp_path: Path) -> None:
    added = dict(FILES)
    added["engine/libextra.so.1"] = wheelkit.elf_bytes(b"\xc3")
    args = ("wheels", _wheel(tmp_path, "b", FILES), _wheel(tmp_path, "p", added))
    assert run_json(*args)[0] == 1
    code, report = run_json(*args, "--allow-native-changes")
    assert code == 0
    assert _entry(report, "engine/libextra.so.1")["status"] == "added"
    assert [f["severity"] for f in report["findings"] if f["code"] == "W103"] == ["info"]


def test_ignore_and_select_filter_findings(tmp_path: Path) -> None:
    dropped = {k: v for k, v in FILES.items() if not k.endswith(".so")}
    args = ("wheels", _wheel(tmp_path, "b", FILES), _wheel(tmp_path, "p", dropped))
    code, report = run_json(*args, "--ignore", "W102")
    assert code == 0
    assert "W102" not in {f["code"] for f in report["findings"]}
    code, report = run_json(*args, "--select", "W1")
    assert code == 1
    assert {f["code"] for f in report["findings"]} == {"W102"}


def test_dist_info_pairs_across_a_version_change(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "b", FILES, version="1.0")
    patch = _wheel(tmp_path, "p", FILES, version="1.0.post1")
    code, report = run_json("wheels", base, patch)
    assert code == 0
    metadata = _entry(report, "engine-1.0.post1.dist-info/METADATA")
    assert metadata["base_path"] == "engine-1.0.dist-info/METADATA"
    assert metadata["status"] == "changed"
    assert report["summary"]["metadata"]["missing"] == 0
    assert report["summary"]["metadata"]["added"] == 0
    assert report["metadata_changes"] == [{"field": "version", "base": "1.0", "patch": "1.0.post1"}]
    assert (report["base"]["version"], report["patch"]["version"]) == ("1.0", "1.0.post1")


def test_auditwheel_vendored_library_pairs_across_hash_suffix(tmp_path: Path) -> None:
    lib = wheelkit.elf_bytes(b"\x90" * 300)
    base_files = {**FILES, "engine.libs/libgomp-a34b3233.so.1.0.0": lib}
    patch_files = {**FILES, "engine.libs/libgomp-0f9e8d7c.so.1.0.0": lib}
    code, report = run_json(
        "wheels", _wheel(tmp_path, "b", base_files), _wheel(tmp_path, "p", patch_files)
    )
    assert code == 0
    vendored = _entry(report, "engine.libs/libgomp-0f9e8d7c.so.1.0.0")
    assert vendored["base_path"] == "engine.libs/libgomp-a34b3233.so.1.0.0"
    assert (vendored["status"], vendored["how"]) == ("identical", "raw-bytes")


def test_record_that_omits_a_file_is_a_failing_finding(tmp_path: Path) -> None:
    patch = _wheel(tmp_path, "p", FILES, record_overrides={"engine/model.py": None})
    code, report = run_json("wheels", _wheel(tmp_path, "b", FILES), patch)
    assert code == 1
    w302 = [f for f in report["findings"] if f["code"] == "W302"]
    assert [(f["path"], f["detail"]) for f in w302] == [("engine/model.py", "not listed in RECORD")]


def test_stale_record_hash_is_flagged(tmp_path: Path) -> None:
    edited = {**FILES, "engine/model.py": b"def run(x):\n    return x * 2\n"}
    stale_row = f"engine/model.py,{wheelkit.record_hash(FILES['engine/model.py'])},"
    stale_row += str(len(edited["engine/model.py"]))
    patch = _wheel(tmp_path, "p", edited, record_overrides={"engine/model.py": stale_row})
    code, report = run_json("wheels", _wheel(tmp_path, "b", FILES), patch)
    assert code == 1
    assert any("stale RECORD" in f["detail"] for f in report["findings"] if f["code"] == "W302")


def test_two_findings_of_one_code_on_one_path_get_one_waiver_stanza(tmp_path: Path) -> None:
    """A .py edited and the wheel re-zipped with RECORD as it was (newuser71, on a real
    setuptools wheel): its row's size and hash both say the base's, two W302 on one path. One
    stanza waives both; the report printed two, and the file pasted from them reported the
    second 'unused ... (stale?)'. Failed on base71: two stanzas, one unused waiver."""
    original = FILES["engine/model.py"]
    edited = {**FILES, "engine/model.py": original + b"# patched\n"}
    stale_row = f"engine/model.py,{wheelkit.record_hash(original)},{len(original)}"
    patch = _wheel(tmp_path, "p", edited, record_overrides={"engine/model.py": stale_row})
    base = _wheel(tmp_path, "b", FILES)
    code, report = run_json("wheels", base, patch)
    assert code == 1
    w302 = [f for f in report["findings"] if f["code"] == "W302"]
    assert [f["path"] for f in w302] == ["engine/model.py"] * 2
    result = run_k3diff("wheels", base, patch)
    assert result.exit_code == 1
    stanzas = result.stdout.split("Next steps", 1)[1].split("Verdict:", 1)[0]
    assert stanzas.count("[[waiver]]") == 2  # the step's own words name it once
    assert stanzas.count('path = "engine/model.py"') == 1
    pasted = "\n".join(
        line.strip() for line in stanzas.splitlines() if line.startswith("    ")
    ).replace("why this change is expected, and who reviewed it", "re-zipped by hand, reviewed")
    waivers = tmp_path / "waivers.toml"
    waivers.write_text(pasted + "\n")
    waived = run_k3diff("wheels", base, patch, "--waivers", waivers)
    assert waived.exit_code == 0, waived.stdout
    assert "2 findings waived" in waived.stdout
    assert "unused" not in waived.stdout


def test_output_file_is_written_only_on_success(tmp_path: Path, k3diff_cli: Any) -> None:
    base = _wheel(tmp_path, "b", FILES)
    out = tmp_path / "report.json"
    result = k3diff_cli(
        "wheels", base, _copy(base, tmp_path / "copy"), "--format", "json", "--output", out
    )
    assert result.exit_code == 0
    assert result.stdout == ""
    assert json.loads(out.read_text())["schema"] == "k3diff.wheels/1"
    out.write_text("previous report\n")
    failed = k3diff_cli("wheels", base, tmp_path / "absent.whl", "--output", out)
    assert failed.exit_code == 2
    assert out.read_text() == "previous report\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report")] == []


@pytest.mark.parametrize("damage", ["truncated", "not-zip", "directory", "missing"])
def test_unusable_input_exits_2_with_one_line(tmp_path: Path, k3diff_cli: Any, damage: str) -> None:
    base = _wheel(tmp_path, "b", FILES)
    bad = tmp_path / "bad.whl"
    if damage == "truncated":
        bad.write_bytes(base.read_bytes()[:-300])
    elif damage == "not-zip":
        bad.write_text("<html>404 Not Found</html>\n")
    elif damage == "directory":
        bad.mkdir()
    result = k3diff_cli("wheels", base, bad)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("k3diff: error: ")
    assert str(bad) in lines[0]
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_unknown_finding_code_is_a_usage_error(tmp_path: Path, k3diff_cli: Any) -> None:
    base = _wheel(tmp_path, "b", FILES)
    result = k3diff_cli("wheels", base, base, "--ignore", "W999")
    assert result.exit_code == 2
    assert "unknown finding code 'W999'" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_duplicate_entry_names_fail_and_the_last_one_is_compared(
    tmp_path: Path, k3diff_cli: Any
) -> None:
    base = _wheel(tmp_path, "b", FILES)
    dup = tmp_path / "dup.whl"
    shutil.copy(base, dup)
    with zipfile.ZipFile(dup, "a") as archive, pytest.warns(UserWarning):
        archive.writestr("engine/model.py", b"evil = True\n")
    result = k3diff_cli("wheels", base, dup, "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert {"W608", "W201"} <= {f["code"] for f in report["findings"]}
    # pip extracts in directory order: the later entry is the file left on disk.
    (entry,) = (e for e in report["entries"] if e["path"] == "engine/model.py")
    assert entry["status"] == "changed"


def test_hostile_paths_and_symlinks_fail_without_anything_written(tmp_path: Path) -> None:
    patch = _wheel(tmp_path, "p", FILES)
    with zipfile.ZipFile(patch, "a") as archive:
        archive.writestr("../../etc/cron.d/evil", b"* * * * * root sh\n")
        link = zipfile.ZipInfo("engine/libcuda.so.1")
        link.create_system = 3
        link.external_attr = 0o120777 << 16
        archive.writestr(link, b"/usr/lib/x86_64-linux-gnu/libcuda.so.1")
    base = _wheel(tmp_path, "b", FILES)
    # Run two levels down, so an extracted "../../etc/cron.d/evil" would land inside tmp_path.
    cwd = tmp_path / "run" / "here"
    cwd.mkdir(parents=True)
    before = sorted(tmp_path.rglob("*"))
    result = run_k3diff("wheels", base, patch, "--format", "json", cwd=cwd)
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    errors = {(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"}
    assert ("W601", "../../etc/cron.d/evil") in errors
    assert ("W602", "engine/libcuda.so.1") in errors
    assert sorted(tmp_path.rglob("*")) == before  # nothing extracted, nothing written


def test_requirement_and_tag_changes_are_listed(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "b", FILES, requires=["numpy>=1.26", "torch==2.5.0"])
    patch = _wheel(
        tmp_path,
        "p",
        FILES,
        requires=["numpy>=2", "torch==2.5.0"],
        tag="cp311-cp311-manylinux_2_28_x86_64",
    )
    code, report = run_json("wheels", base, patch)
    changes = {c["field"]: (c["base"], c["patch"]) for c in report["metadata_changes"]}
    assert changes == {
        "tags": (TAG, "cp311-cp311-manylinux_2_28_x86_64"),
        "requires_dist": ("numpy>=1.26, torch==2.5.0", "numpy>=2, torch==2.5.0"),
    }
    # The changes are W301 (informational); the patch's tags install on glibc 2.28+ alone,
    # where the base installed from glibc 2.17: that narrowing is W630's.
    assert (code, {f["code"] for f in report["findings"]}) == (1, {"W301", "W630"})


def test_upgraded_vendored_library_pairs_as_changed(tmp_path: Path) -> None:
    base_files = {**FILES, "engine.libs/libwebp-2fd3cdca.so.7.1.8": wheelkit.elf_bytes(b"\x01")}
    patch_files = {**FILES, "engine.libs/libwebp-850e2bec.so.7.1.9": wheelkit.elf_bytes(b"\x02")}
    code, report = run_json(
        "wheels", _wheel(tmp_path, "b", base_files), _wheel(tmp_path, "p", patch_files)
    )
    assert code == 1
    webp = _entry(report, "engine.libs/libwebp-850e2bec.so.7.1.9")
    assert (webp["base_path"], webp["status"]) == (
        "engine.libs/libwebp-2fd3cdca.so.7.1.8",
        "changed",
    )
    assert report["summary"]["native"]["missing"] == 0
