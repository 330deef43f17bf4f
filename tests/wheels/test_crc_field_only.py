"""A wheel entry whose only difference is a wrong stored CRC-32 (its content byte for byte the
base's) is no content change: it keeps its failing W604 (pip refuses the stream), but its status
says the content is identical and the detail that the CRC-32 field is wrong, with no W201
"Python file changed" beside it."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

from .test_wheel_verdicts import FILES

NAME = "engine/model.py"


def _wrong_crc(wheel: Path, name: str, flip: int = 0xDEADBEEF) -> None:
    """Declare another CRC-32 for `name` in its local header and its central record alike (the
    right one XOR `flip`)."""
    with zipfile.ZipFile(wheel) as archive:
        info = archive.getinfo(name)
    data = bytearray(wheel.read_bytes())
    wrong = info.CRC ^ flip
    struct.pack_into("<I", data, info.header_offset + 14, wrong)
    encoded = name.encode()
    central = data.find(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(encoded)] != encoded:
        central = data.find(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", data, central + 16, wrong)
    wheel.write_bytes(bytes(data))


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", FILES)
    _wrong_crc(patch, NAME)
    return base, patch


def test_a_wrong_crc_field_on_identical_content_is_identical_with_w604(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    result = run_k3diff("wheels", base, patch, "--format", "json")
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    (entry,) = [e for e in report["entries"] if e["path"] == NAME]
    assert entry["status"] == "identical" and entry["how"] == "crc-field", entry
    codes = {f["code"] for f in report["findings"] if f["path"] == NAME}
    assert codes == {"W604"}, codes
    (w604,) = [f for f in report["findings"] if f["code"] == "W604"]
    assert "content identical to the base wheel's" in w604["detail"]
    assert "the patch wheel's CRC-32 field is wrong" in w604["detail"]
    text = run_k3diff("wheels", base, patch)
    assert text.exit_code == 1
    assert "Python file changed" not in text.stdout and "crc32 differs" not in text.stdout
    assert "CRC-32 field is wrong" in text.stdout


def test_the_document_is_accepted_by_report(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    run_k3diff("wheels", base, patch, "--format", "json", "-o", tmp_path / "w.json")
    out = run_k3diff("report", tmp_path / "w.json", "--out", tmp_path / "b")
    assert out.exit_code == 1, out.stderr


def test_a_forged_crc_field_entry_without_its_w604_is_refused(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    run_k3diff("wheels", base, patch, "--format", "json", "-o", tmp_path / "w.json")
    document = json.loads((tmp_path / "w.json").read_text())
    document["findings"] = [f for f in document["findings"] if f["code"] != "W604"]
    document["verdict"].update(ok=True, exit_code=0)  # a pass, as if the stream were sound
    (tmp_path / "w.json").write_text(json.dumps(document))
    out = run_k3diff("report", tmp_path / "w.json", "--out", tmp_path / "b")
    assert out.exit_code == 2
    assert f"{NAME} is identical but its CRC-32s differ" in out.stderr, out.stderr


def test_both_wrong_crc_fields_on_identical_content_name_both_wheels(tmp_path: Path) -> None:
    # Each wheel declares its own wrong CRC-32: pip refuses both, and the patch is named.
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", FILES)
    _wrong_crc(base, NAME)
    _wrong_crc(patch, NAME, flip=0x12345678)
    result = run_k3diff("wheels", base, patch, "--format", "json")
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    (entry,) = [e for e in report["entries"] if e["path"] == NAME]
    assert entry["status"] == "identical" and entry["how"] == "crc-field", entry
    (w604,) = [f for f in report["findings"] if f["code"] == "W604"]
    assert "content identical in both wheels" in w604["detail"], w604
    assert "both wheels' CRC-32 fields are wrong" in w604["detail"], w604
