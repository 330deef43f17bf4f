"""`--allow-native-changes` and binary `.data/scripts` files (wheels61 item 1). pip 26 copies
every `.data/scripts` file into the environment's `bin/`, where a user runs it by name: a PE
(`MZ`), ELF or Mach-O image there is a command on PATH. The option expects rebuilt native code,
so it lets pass a script that was a native executable in the base and is one, rebuilt, in the
patch, of the format its platform loads (z3_solver's `bin/z3`, an ELF on manylinux; a PE on
Windows). A binary script added, or a text script that became one, is a new command no rebuild
explains, and still fails (W708); so does an `ar` archive or CUDA fatbin, which is no program at
all (the loader refuses it; a shell may then read it as a script)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from wheel.pipinstall import pip_install

TAG = "cp311-cp311-win_amd64"
FILES = {"engine/__init__.py": b""}
ALLOW = "--allow-native-changes"


def _pe(payload: bytes) -> bytes:
    head = bytearray(b"MZ" + b"\x00" * 0x3E)
    head[0x3C:0x40] = struct.pack("<I", 0x80)
    return bytes(head) + b"\x00" * 0x40 + b"PE\x00\x00" + payload


PE = _pe(b"\x90" * 256)
PE_REBUILT = _pe(b"\xc3" * 256)
ELF = wheelkit.elf_program(b"\x90" * 256)
ELF_REBUILT = wheelkit.elf_program(b"\xc3" * 256)
AR = b"!<arch>\nx.o/            0           0     0     644     4         `\n\x00\x01\x02\x03"
AR_REBUILT = AR[:-4] + b"\x00\x04\x05\x06"
FATBIN = b"\x50\xed\x55\xba" + b"\x01\x00" * 40
FATBIN_REBUILT = b"\x50\xed\x55\xba" + b"\x02\x00" * 40
TEXT = b"#!/bin/sh\necho 1\n"


def _wheel(root: Path, version: str, script: bytes | None, tag: str = TAG) -> Path:
    files = dict(FILES)
    if script is not None:
        files[f"engine-{version}.data/scripts/engine-tool"] = script
    return wheelkit.make_wheel(root / version, "engine", version, files, tag=tag)


def _w708(
    tmp_path: Path, old: bytes | None, new: bytes, tag: str = TAG
) -> tuple[int, dict[str, object]]:
    base, patch = _wheel(tmp_path, "1.0", old, tag), _wheel(tmp_path, "2.0", new, tag)
    code, report = run_json("wheels", base, patch, ALLOW)
    findings = report["findings"]
    assert isinstance(findings, list)
    [w708] = [f for f in findings if f["code"] == "W708"]
    return code, w708


def test_pip_copies_a_pe_script_into_bin(tmp_path: Path) -> None:
    """The premise: pip 26 installs the `MZ` file as `bin/engine-tool`, a command by name."""
    wheel = _wheel(tmp_path, "2.0", PE, tag="py3-none-any")  # installable here
    installed = pip_install(wheel, tmp_path / "env", prefix=True)
    assert installed.ok, installed.output
    assert "bin/engine-tool" in installed.tree


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (None, PE),  # a PE command added
        (None, ELF),  # an ELF command added
        (TEXT, PE),  # a text script that became a PE
        (TEXT, ELF),  # ... or an ELF
        (AR, AR_REBUILT),  # an ar archive is no program
        (None, AR),
        (FATBIN, FATBIN_REBUILT),  # nor is a fatbin
        (TEXT, FATBIN),
    ],
    ids=["pe-added", "elf-added", "text-to-pe", "text-to-elf", "ar", "ar-added", "fatbin",
         "text-to-fatbin"],
)  # fmt: skip
def test_a_new_binary_command_is_never_let_pass(
    tmp_path: Path, old: bytes | None, new: bytes
) -> None:
    code, w708 = _w708(tmp_path, old, new)
    assert code == 1
    assert w708["severity"] == "error" and "native" not in w708


@pytest.mark.parametrize(
    ("old", "new", "tag"),
    [(PE, PE_REBUILT, TAG), (ELF, ELF_REBUILT, "cp311-cp311-manylinux_2_17_x86_64")],
    ids=["pe", "elf"],
)
def test_a_rebuilt_native_executable_passes_with_allow(
    tmp_path: Path, old: bytes, new: bytes, tag: str
) -> None:
    """A PE on a Windows wheel, an ELF on a Linux one (`test_native_scripts_platform`: an
    image of another format than its platform's never passes)."""
    code, w708 = _w708(tmp_path, old, new, tag)
    assert code == 0
    assert w708["severity"] == "info" and w708["native"] is True


def test_report_refuses_a_native_mark_forged_onto_an_added_binary(tmp_path: Path) -> None:
    """No run marks an added binary script `native`: the mark forged onto one (with the verdict
    made a pass) is refused by `k3diff report`, as one on a text script is."""
    base, patch = _wheel(tmp_path, "1.0", None), _wheel(tmp_path, "2.0", PE)
    run = run_k3diff("wheels", base, patch, ALLOW, "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert run.exit_code == 1, run.stdout
    document = json.loads((tmp_path / "a.json").read_text())
    [finding] = [f for f in document["findings"] if f["code"] == "W708"]
    finding.update(native=True, severity="info")
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    assert "is marked native but its script is added, not rebuilt" in refused.stderr


ELF_ARM = ELF_REBUILT[:18] + struct.pack("<H", 183) + ELF_REBUILT[20:]  # EM_AARCH64


@pytest.mark.parametrize(
    ("old", "new"),
    [(ELF, PE_REBUILT), (PE, ELF_REBUILT), (ELF, ELF_ARM)],
    ids=["elf-to-pe", "pe-to-elf", "x86_64-to-aarch64"],
)
def test_a_native_script_swapped_for_another_format_or_machine_still_fails(
    tmp_path: Path, old: bytes, new: bytes
) -> None:
    """review61a item 3: an ELF `bin/engine-tool` "rebuilt" as a PE (or for another machine)
    is a program this host's loader refuses with ENOEXEC, and a shell (dash) then reads the
    file as a script: no rebuild explains it, so `--allow-native-changes` does not let it pass."""
    code, w708 = _w708(tmp_path, old, new)
    assert code == 1
    assert w708["severity"] == "error" and "native" not in w708
