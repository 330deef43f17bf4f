"""A patch's directory records that spell an entry as the base's do are still the patch's own.

The patch's central directory takes the base's name objects where a record's name bytes are the
base's (`zip.besidenames`): a patch rebuilt by `zip` from its base with one file edited lists
every later entry with the base's record but its offset. Whatever else differs under such a
record (its local header, its data) is judged on the patch's own bytes, exactly as when nothing
is shared; and a record whose name differs from the base's in its bytes alone is its own name.
"""

from __future__ import annotations

import shutil
import struct
import zipfile
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

from .test_wheels_cli import FILES, TAG

pytestmark = pytest.mark.skipif(shutil.which("zip") is None, reason="needs the zip tool")

EDITED = {**FILES, "engine/__init__.py": b"VERSION = '1.0'\nEXTRA = 'a longer first file'\n"}
"""The first entry grows: every later record keeps the base's bytes but its offset."""
LATE = "engine/data/table.json"
"""An entry after the edited one, its record the base's but for its offset."""


def _pair(tmp_path: Path, files: dict[str, bytes] = EDITED) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES, tag=TAG, tool="zip")
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", files, tag=TAG, tool="zip")
    return base, patch


def _records(wheel: Path) -> dict[str, bytes]:
    """Each central record's bytes but its header offset, by name."""
    data = wheel.read_bytes()
    records: dict[str, bytes] = {}
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        name_len, extra_len, comment_len = struct.unpack_from("<3H", data, at + 28)
        end = at + 46 + name_len + extra_len + comment_len
        records[data[at + 46 : at + 46 + name_len].decode()] = (
            data[at : at + 42] + data[at + 46 : end]
        )
        at = data.find(b"PK\x01\x02", end)
    return records


def _tamper(wheel: Path, name: str, how: str) -> None:
    """Change the entry's local header or data in place; its central record stays as it is."""
    data = bytearray(wheel.read_bytes())
    with zipfile.ZipFile(wheel) as archive:
        header = archive.getinfo(name).header_offset
    name_len, extra_len = struct.unpack_from("<HH", data, header + 26)
    if how == "local name":
        data[header + 30 + name_len - 6] ^= 0x20  # `tablE.json` in the local header only
    elif how == "local crc":
        data[header + 14] ^= 0x01
    elif how == "data":
        data[header + 30 + name_len + extra_len + 3] ^= 0x55
    else:  # "local extra": the data would start 4 bytes later, into the next record
        struct.pack_into("<H", data, header + 28, extra_len + 4)
    wheel.write_bytes(bytes(data))


def _findings(report: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["code"], f["path"]) for f in report["findings"] if f["code"] != "W201")


def _entry(report: dict[str, Any], path: str) -> dict[str, Any]:
    entries: list[dict[str, Any]] = [e for e in report["entries"] if e["path"] == path]
    assert len(entries) == 1, path
    return entries[0]


def test_the_pair_shares_records_apart_from_offsets(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    with zipfile.ZipFile(base) as old, zipfile.ZipFile(patch) as new:
        offsets = (old.getinfo(LATE).header_offset, new.getinfo(LATE).header_offset)
    assert offsets[0] != offsets[1]
    assert _records(base)[LATE] == _records(patch)[LATE]
    code, report = run_json("wheels", base, patch, "--no-file-hash")
    assert (code, _findings(report)) == (0, [])
    assert (_entry(report, LATE)["status"], _entry(report, LATE)["how"]) == (
        "identical",
        "raw-bytes",
    )


@pytest.mark.parametrize("path", [LATE, "engine/model.py"])
@pytest.mark.parametrize(
    ("how", "expected", "status"),
    [
        ("local name", ["W609"], "identical"),
        ("local crc", ["W609"], "identical"),
        ("data", ["W604"], "changed"),
    ],
)
def test_a_local_header_or_data_under_a_shared_record_is_judged_on_its_own(
    tmp_path: Path, path: str, how: str, expected: list[str], status: str
) -> None:
    base, patch = _pair(tmp_path)
    _tamper(patch, path, how)
    assert _records(base)[path] == _records(patch)[path]
    for options in (["--no-file-hash"], []):
        code, report = run_json("wheels", base, patch, *options)
        assert code == 1
        assert _findings(report) == [(code_, path) for code_ in expected]
        assert _entry(report, path)["status"] == status


def test_a_local_extra_field_under_a_shared_record_moves_its_data(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    _tamper(patch, LATE, "local extra")
    code, report = run_json("wheels", base, patch, "--no-file-hash")
    assert code == 1
    assert _findings(report) == [("W604", LATE), ("W611", "engine-1.0.dist-info/METADATA")]
    assert _entry(report, LATE)["status"] == "changed"
    text = run_k3diff("wheels", base, patch, "--no-file-hash")
    assert text.exit_code == 1
    assert "W611" in text.stdout and "W604" in text.stdout


def test_a_name_changed_in_place_is_the_patch_s_own(tmp_path: Path) -> None:
    # Same length, same place, same content: only the name bytes tell the records apart.
    renamed = {("engine/modal.py" if k == "engine/model.py" else k): v for k, v in EDITED.items()}
    base, patch = _pair(tmp_path, renamed)
    code, report = run_json("wheels", base, patch, "--no-file-hash")
    assert _entry(report, "engine/modal.py")["status"] == "added"
    assert _entry(report, "engine/model.py")["status"] == "missing"
    assert code == 0


def test_an_entry_added_before_shared_records_keeps_every_name(tmp_path: Path) -> None:
    # Every later record is the base's one place further on: the names pair from the end.
    added = {"engine/aaa.py": b"A = 1\n", **EDITED}
    base, patch = _pair(tmp_path, added)
    code, report = run_json("wheels", base, patch, "--no-file-hash")
    assert code == 0
    assert _entry(report, "engine/aaa.py")["status"] == "added"
    assert {e["path"] for e in report["entries"]} == {*FILES, "engine/aaa.py"} | {
        f"engine-1.0.dist-info/{name}" for name in ("METADATA", "WHEEL", "RECORD")
    }
    assert [e["status"] for e in report["entries"]].count("identical") == len(FILES) + 1
