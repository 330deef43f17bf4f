"""`--allow-native-changes` and the image a wheel's platform loads (wheels62 item 2).

A `.data/scripts` file that was a native executable in the base and is one, rebuilt, in the
patch is a native change the option lets pass only when it is the one image the wheel's
platform tags name: an ELF of the tag's machine for `linux`/`manylinux`/`musllinux` (and
`android`), a PE for `win*`, a Mach-O for `macosx` (and `ios`). On Linux the kernel refuses a
PE, a Mach-O or another machine's ELF with ENOEXEC, and glibc's `execvp` (env, xargs, find
-exec, make...) then hands the file to `/bin/sh`, which runs its lines as a script: held here
against pip 26 on a manylinux wheel. A tag set naming several formats or machines, or none
(`any`), installs the one image where some loader refuses it, so it never passes either (the
strict answer)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from wheel.pipinstall import pip_install

ALLOW = "--allow-native-changes"
LINUX = "py3-none-manylinux_2_17_x86_64"
SCRIPT = "engine-tool"


def _pe(payload: bytes) -> bytes:
    head = bytearray(b"MZ" + b"\x00" * 0x3E)
    head[0x3C:0x40] = struct.pack("<I", 0x80)
    return bytes(head) + b"\x00" * 0x40 + b"PE\x00\x00" + payload


def _macho(payload: bytes) -> bytes:
    return b"\xcf\xfa\xed\xfe" + struct.pack("<I", 0x01000007) + bytes(24) + payload


PE = _pe(b"\necho base\n")
PE_SHELL = _pe(b"\necho ran-as-script\n")
"""A PE image whose second line a shell runs, should it read the file as a script."""
MACHO, MACHO_REBUILT = _macho(b"\x90" * 64), _macho(b"\xc3" * 64)
ELF, ELF_REBUILT = wheelkit.elf_program(b"\x90" * 256), wheelkit.elf_program(b"\xc3" * 256)
ARM, ARM_REBUILT = (
    wheelkit.elf_program(b"\x90" * 256, machine=183),
    wheelkit.elf_program(b"\xc3" * 256, machine=183),
)


def _wheel(root: Path, version: str, script: bytes, tag: str) -> Path:
    path = f"engine-{version}.data/scripts/{SCRIPT}"
    files = {"engine/__init__.py": b"", path: script}
    modes = {path: 0o100755}  # an executable regular file, as a build marks a program
    return wheelkit.make_wheel(root / version, "engine", version, files, tag=tag, modes=modes)


def _w708(tmp_path: Path, old: bytes, new: bytes, tag: str) -> tuple[int, dict[str, object]]:
    base, patch = _wheel(tmp_path, "1.0", old, tag), _wheel(tmp_path, "2.0", new, tag)
    code, report = run_json("wheels", base, patch, ALLOW)
    findings = report["findings"]
    assert isinstance(findings, list)
    [w708] = [f for f in findings if f["code"] == "W708"]
    return code, w708


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's loader and glibc")
@pytest.mark.skipif(shutil.which("env") is None, reason="no env")
def test_pip_installs_a_pe_on_linux_as_a_command_a_shell_runs(tmp_path: Path) -> None:
    """The evidence: pip 26 installs the manylinux wheel's PE as `bin/engine-tool`; run by
    name through `execvp` (here `env`), the kernel refuses it and `/bin/sh` runs its lines."""
    wheel = _wheel(tmp_path, "2.0", PE_SHELL, LINUX)
    installed = pip_install(wheel, tmp_path / "env", prefix=True)
    assert installed.ok, installed.output
    tool = tmp_path / "env" / "bin" / SCRIPT
    ran = subprocess.run(["env", str(tool)], capture_output=True, check=False, cwd=tmp_path)
    assert b"ran-as-script\n" in ran.stdout, ran.stderr


@pytest.mark.parametrize(
    ("old", "new", "tag"),
    [
        (PE, PE_SHELL, LINUX),  # a PE rebuilt as a PE, on a manylinux wheel
        (MACHO, MACHO_REBUILT, "py3-none-musllinux_1_2_x86_64"),  # a Mach-O on musllinux
        (ELF, ELF_REBUILT, "py3-none-win_amd64"),  # an ELF on Windows
        (ELF, ELF_REBUILT, "py3-none-macosx_11_0_arm64"),  # ... or on macOS
        (ELF, ELF_REBUILT, "py3-none-any"),  # no platform: installed where no loader runs it
        (ELF, ELF_REBUILT, "py3-none-manylinux_2_17_x86_64.macosx_11_0_x86_64"),  # two families
        (ARM, ARM_REBUILT, LINUX),  # an aarch64 ELF on an x86_64 wheel: ENOEXEC too
        (ELF, ELF_REBUILT, "py3-none-manylinux_2_17_x86_64.manylinux_2_17_aarch64"),  # two arches
        (ELF, ELF_REBUILT, "py3-none-linux_mips64"),  # an architecture not listed
    ],
    ids=["pe-on-manylinux", "macho-on-musllinux", "elf-on-win", "elf-on-macosx", "elf-on-any",
         "elf-on-linux-and-macosx", "aarch64-on-x86_64", "elf-on-two-arches",
         "elf-on-unlisted-arch"],
)  # fmt: skip
def test_a_rebuilt_image_its_platform_does_not_load_still_fails(
    tmp_path: Path, old: bytes, new: bytes, tag: str
) -> None:
    code, w708 = _w708(tmp_path, old, new, tag)
    assert code == 1
    assert w708["severity"] == "error" and "native" not in w708


@pytest.mark.parametrize(
    ("old", "new", "tag"),
    [
        (ELF, ELF_REBUILT, LINUX),
        (ELF, ELF_REBUILT, "cp311-cp311-linux_x86_64"),
        (ELF, ELF_REBUILT, "py3-none-manylinux_2_17_x86_64.musllinux_1_2_x86_64"),
        (PE, PE_SHELL, "py3-none-win_amd64"),
        (PE, PE_SHELL, "py3-none-win32.win_amd64"),
        (MACHO, MACHO_REBUILT, "py3-none-macosx_11_0_arm64"),
        (ARM, ARM_REBUILT, "py3-none-manylinux2014_aarch64"),
    ],
    ids=["elf-manylinux", "elf-linux", "elf-many-and-musllinux", "pe-win", "pe-win32-and-amd64",
         "macho-macosx", "aarch64-manylinux"],
)  # fmt: skip
def test_a_rebuilt_image_of_its_platform_s_format_passes(
    tmp_path: Path, old: bytes, new: bytes, tag: str
) -> None:
    code, w708 = _w708(tmp_path, old, new, tag)
    assert code == 0
    assert w708["severity"] == "info" and w708["native"] is True


def test_report_refuses_a_native_mark_on_an_image_its_platform_does_not_load(
    tmp_path: Path,
) -> None:
    """A PE on a manylinux wheel marked native (and the verdict made a pass) is no run's:
    `k3diff report` refuses it, as it takes the run's own mark on an ELF there."""
    for name, old, new, forge in (("elf", ELF, ELF_REBUILT, False), ("pe", PE, PE_SHELL, True)):
        where = tmp_path / name
        base, patch = _wheel(where, "1.0", old, LINUX), _wheel(where, "2.0", new, LINUX)
        run = run_k3diff(
            "wheels", base, patch, ALLOW, "--format", "json", "-o", "a.json", cwd=where
        )
        document = json.loads((where / "a.json").read_text())
        if forge:
            assert run.exit_code == 1, run.stdout
            [finding] = [f for f in document["findings"] if f["code"] == "W708"]
            finding.update(native=True, severity="info")
            document["verdict"].update(ok=True, exit_code=0)
        (where / "doc.json").write_text(json.dumps(document))
        bundle = run_k3diff("report", "doc.json", "--out", "bundle", cwd=where)
        assert bundle.exit_code == (2 if forge else 0), bundle.stderr
        if forge:
            assert (
                "its script's image (pe) is none a manylinux_2_17_x86_64 wheel's platform loads"
                in bundle.stderr
            )


def test_the_format_each_platform_tag_loads() -> None:
    from k3diff.native.sniff import image_format
    from k3diff.wheel.tags import image_formats

    assert image_formats(["cp311-cp311-manylinux2014_aarch64", "py3-none-linux_aarch64"]) == {
        "elf64:183"
    }
    assert image_formats(["py3-none-musllinux_1_2_x86_64", "py3-none-android_21_x86_64"]) == {
        "elf64:62"
    }
    assert image_formats(["py3-none-manylinux1_i686", "py3-none-android_21_x86"]) == {"elf32:3"}
    assert image_formats(["py3-none-linux_armv7l", "py3-none-android_21_armeabi_v7a"]) == {
        "elf32:40"
    }
    assert image_formats(["py3-none-manylinux2014_ppc64"]) == {"elf64be:21"}
    assert image_formats(["py3-none-manylinux2014_ppc64le"]) == {"elf64:21"}
    assert image_formats(["py3-none-linux_mips64"]) == {"linux_mips64"}  # an arch not listed
    assert image_formats(["cp311-cp311-win32", "cp311-cp311-win_arm64"]) == {"pe"}
    assert image_formats(
        ["py3-none-macosx_11_0_universal2", "py3-none-ios_13_0_arm64_iphoneos"]
    ) == {"mach-o"}
    assert image_formats(["py3-none-any"]) == {"any"}  # no format: nothing loads everywhere
    assert image_formats(["py3-none-freebsd_14_0_amd64"]) == {"freebsd_14_0_amd64"}
    assert image_formats([]) == frozenset()
    assert [image_format(i) for i in ("elf64:62", "elf32:3", "elf64be:21", "mach-o:7", "pe")] == [
        "elf64:62", "elf32:3", "elf64be:21", "mach-o", "pe"
    ]  # fmt: skip
