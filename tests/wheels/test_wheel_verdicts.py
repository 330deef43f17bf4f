"""Verdicts a reviewer must be able to trust (issue 9, items 3-5): a corrupt stream is corruption,
not a change; a changed or added entry's RECORD hash is verified; a wheel whose filename
contradicts its metadata, or a pair of different distributions, fails."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

SO = wheelkit.elf_bytes(bytes(range(256)) * 64 + b"\x55\x48\x89\xe5" * 2048)
FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/model.py": b"def run(x):\n    return x + 1\n",
    "engine/_C.so": SO,
    "engine/data/table.json": b'{"a": 1}\n',
}


def _wheel(tmp_path: Path, side: str, files: dict[str, bytes], **kwargs: Any) -> Path:
    version = kwargs.pop("version", "1.0")
    name = kwargs.pop("name", "engine")
    return wheelkit.make_wheel(tmp_path / side, name, version, files, **kwargs)


def _codes(report: dict[str, Any], path: str | None = None) -> list[str]:
    return [f["code"] for f in report["findings"] if path is None or f["path"] == path]


def _flip_inside_stream(wheel: Path, name: str, fraction: float) -> None:
    """Flip one byte inside the entry's deflate stream; the directory's CRC-32 and sizes stay."""
    with zipfile.ZipFile(wheel) as archive:
        info = archive.getinfo(name)
    data = bytearray(wheel.read_bytes())
    name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
    start = info.header_offset + 30 + name_len + extra_len
    data[start + int(info.compress_size * fraction)] ^= 0x10
    wheel.write_bytes(bytes(data))


# Item 3: a corrupt stream -------------------------------------------------------------------


@pytest.mark.parametrize("fraction", [0.3, 0.5, 0.8])
@pytest.mark.parametrize("explain", [False, True])
def test_corrupt_native_stream_is_corruption_not_a_change(
    tmp_path: Path, fraction: float, explain: bool
) -> None:
    base = _wheel(tmp_path, "base", FILES)
    patch = _wheel(tmp_path, "patch", FILES)
    _flip_inside_stream(patch, "engine/_C.so", fraction)
    args = ["--explain"] if explain else []
    result = run_k3diff("wheels", base, patch, *args, "--format", "json")
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    assert _codes(report, "engine/_C.so") == ["W604"]
    finding = next(f for f in report["findings"] if f["code"] == "W604")
    assert finding["severity"] == "error"
    assert "patch" in finding["detail"]
    entry = next(e for e in report["entries"] if e["path"] == "engine/_C.so")
    assert entry["how"] == "corrupt"
    assert "native" not in entry
    if explain:
        assert "not explained" in finding["detail"]


def test_corrupt_python_stream_is_corruption_in_text_too(tmp_path: Path) -> None:
    big = {**FILES, "engine/model.py": b"".join(b"x%d = %d\n" % (i, i) for i in range(4000))}
    base = _wheel(tmp_path, "base", big)
    patch = _wheel(tmp_path, "patch", big)
    _flip_inside_stream(patch, "engine/model.py", 0.5)
    result = run_k3diff("wheels", base, patch)
    assert result.exit_code == 1, result.stderr
    assert "W604" in result.stdout
    assert "engine/model.py" in result.stdout
    assert "W201" not in result.stdout


def test_corrupt_stream_on_the_base_side_is_named(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "base", FILES)
    patch = _wheel(tmp_path, "patch", FILES)
    _flip_inside_stream(base, "engine/_C.so", 0.5)
    code, report = run_json("wheels", base, patch)
    assert code == 1
    finding = next(f for f in report["findings"] if f["code"] == "W604")
    assert finding["path"] == "engine/_C.so"
    assert "base" in finding["detail"]


def test_corrupt_added_entry_is_corruption(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "base", FILES)
    added = {**FILES, "engine/data/big.bin": bytes(range(256)) * 400}
    patch = _wheel(tmp_path, "patch", added)
    _flip_inside_stream(patch, "engine/data/big.bin", 0.5)
    code, report = run_json("wheels", base, patch)
    assert code == 1
    assert "W604" in _codes(report, "engine/data/big.bin")


# Item 4: RECORD hashes of changed and added entries ------------------------------------------


def _wrong_row(path: str, data: bytes) -> str:
    return f"{path},{wheelkit.record_hash(b'not the content')},{len(data)}"


def test_changed_python_with_a_wrong_record_hash_fails_w302(tmp_path: Path) -> None:
    edited = {**FILES, "engine/model.py": b"def run(x):\n    return x + 2\n"}
    base = _wheel(tmp_path, "base", FILES)
    good = _wheel(tmp_path, "good", edited)
    assert run_json("wheels", base, good)[0] == 0
    row = _wrong_row("engine/model.py", edited["engine/model.py"])
    bad = _wheel(tmp_path, "bad", edited, record_overrides={"engine/model.py": row})
    code, report = run_json("wheels", base, bad)
    assert code == 1
    assert _codes(report, "engine/model.py") == ["W201", "W302"]
    detail = next(f["detail"] for f in report["findings"] if f["code"] == "W302")
    assert "sha256=" in detail


def test_w302_size_mismatch_names_both_sizes_in_bytes(tmp_path: Path) -> None:
    """A hand-edited module whose RECORD row keeps the old size (unzip, edit, zip): both sizes
    are written alike, '1,109 bytes, the archive holds 1,151 bytes' (was '... holds 1151')."""
    big = {**FILES, "engine/model.py": b"#" * 1109}
    edited = {**FILES, "engine/model.py": b"#" * 1151}
    base = _wheel(tmp_path, "base", big)
    row = f"engine/model.py,{wheelkit.record_hash(big['engine/model.py'])},1109"
    bad = _wheel(tmp_path, "bad", edited, record_overrides={"engine/model.py": row})
    code, report = run_json("wheels", base, bad)
    assert code == 1
    details = [f["detail"] for f in report["findings"] if f["code"] == "W302"]
    assert "RECORD says 1,109 bytes, the archive holds 1,151 bytes" in details


@pytest.mark.parametrize("algorithm", ["sha256", "sha512"])
def test_added_data_file_with_a_wrong_record_hash_fails_w302(
    tmp_path: Path, algorithm: str
) -> None:
    data = bytes(range(256)) * 300
    added = {**FILES, "engine/data/weights.bin": data}
    base = _wheel(tmp_path, "base", FILES)
    assert run_json("wheels", base, _wheel(tmp_path, "good", added))[0] == 0
    import base64
    import hashlib

    wrong = hashlib.new(algorithm, data + b"!").digest()
    row = f"engine/data/weights.bin,{algorithm}={base64.urlsafe_b64encode(wrong).decode().rstrip('=')},{len(data)}"
    bad = _wheel(tmp_path, "bad", added, record_overrides={"engine/data/weights.bin": row})
    code, report = run_json("wheels", base, bad)
    assert code == 1
    assert "W302" in _codes(report, "engine/data/weights.bin")


def test_changed_data_file_with_a_wrong_record_hash_fails_w302(tmp_path: Path) -> None:
    edited = {**FILES, "engine/data/table.json": b'{"a": 2, "b": 3}\n'}
    base = _wheel(tmp_path, "base", FILES)
    assert run_json("wheels", base, _wheel(tmp_path, "good", edited))[0] == 0
    row = _wrong_row("engine/data/table.json", edited["engine/data/table.json"])
    bad = _wheel(tmp_path, "bad", edited, record_overrides={"engine/data/table.json": row})
    code, report = run_json("wheels", base, bad)
    assert code == 1
    assert "W302" in _codes(report, "engine/data/table.json")


def test_allowed_native_change_with_a_wrong_record_hash_fails_w302(tmp_path: Path) -> None:
    changed = {**FILES, "engine/_C.so": wheelkit.elf_bytes(b"\x90" * 5000)}
    base = _wheel(tmp_path, "base", FILES)
    good = _wheel(tmp_path, "good", changed)
    assert run_json("wheels", base, good, "--allow-native-changes")[0] == 0
    row = _wrong_row("engine/_C.so", changed["engine/_C.so"])
    bad = _wheel(tmp_path, "bad", changed, record_overrides={"engine/_C.so": row})
    code, report = run_json("wheels", base, bad, "--allow-native-changes")
    assert code == 1
    assert next(f for f in report["findings"] if f["code"] == "W302")["path"] == "engine/_C.so"


def test_forged_crc_change_with_a_wrong_record_hash_fails_w302(tmp_path: Path) -> None:
    forged = wheelkit.forge_same_crc(FILES["engine/data/table.json"] * 40, 10, 100)
    base = _wheel(
        tmp_path, "base", {**FILES, "engine/data/table.json": FILES["engine/data/table.json"] * 40}
    )
    row = _wrong_row("engine/data/table.json", forged)
    bad = _wheel(
        tmp_path,
        "bad",
        {**FILES, "engine/data/table.json": forged},
        record_overrides={"engine/data/table.json": row},
    )
    code, report = run_json("wheels", base, bad)
    assert code == 1
    entry = next(e for e in report["entries"] if e["path"] == "engine/data/table.json")
    assert (entry["status"], entry["how"]) == ("changed", "content")
    assert "W302" in _codes(report, "engine/data/table.json")


# Item 5: filename versus metadata; different distributions -----------------------------------


@pytest.mark.parametrize(
    ("filename", "field"),
    [
        ("motor-1.0-py3-none-any.whl", "name"),
        ("engine-2.0-py3-none-any.whl", "version"),
        ("engine-1.0-cp311-cp311-linux_x86_64.whl", "tags"),
    ],
)
def test_filename_contradicting_metadata_fails_w605(
    tmp_path: Path, filename: str, field: str
) -> None:
    base = _wheel(tmp_path, "base", FILES)
    patch = _wheel(tmp_path, "patch", FILES, filename=filename)
    code, report = run_json("wheels", base, patch)
    assert code == 1
    w605 = [f for f in report["findings"] if f["code"] == "W605"]
    assert len(w605) == 1
    assert field in w605[0]["detail"] and "patch" in w605[0]["detail"]
    # Either wheel: the same file as the base fails too.
    assert run_json("wheels", patch, base)[0] == 1


def test_filename_agreeing_after_normalisation_passes(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "base", FILES, name="My.Engine")
    patch = _wheel(
        tmp_path, "patch", FILES, name="my-engine", filename="my_engine-1.0-py3-none-any.whl"
    )
    code, report = run_json("wheels", base, patch)
    assert "W605" not in _codes(report) and "W606" not in _codes(report)
    assert report["verdict"]["different_distributions"] is False
    assert code == 0


def test_different_distributions_fail_w606_with_a_headline(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "base", FILES)
    patch = _wheel(tmp_path, "patch", FILES, name="motor")
    code, report = run_json("wheels", base, patch)
    assert code == 1
    assert "W606" in _codes(report)
    assert report["verdict"]["different_distributions"] is True
    for fmt in ("text", "markdown"):
        result = run_k3diff("wheels", base, patch, "--format", fmt)
        head = "\n".join(result.stdout.splitlines()[:12])
        assert "different distributions" in head.lower(), result.stdout


def test_a_new_version_of_the_same_distribution_passes(tmp_path: Path) -> None:
    base = _wheel(tmp_path, "base", FILES)
    patch = _wheel(tmp_path, "patch", FILES, version="1.1")
    code, report = run_json("wheels", base, patch)
    assert code == 0
    assert report["verdict"]["different_distributions"] is False
    assert "W605" not in _codes(report)
