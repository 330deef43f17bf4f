"""Architecture truth for natives (A125): each ELF of a wheel must be built for an architecture
its Linux platform tags name, as auditwheel requires; pip would install an x86-64 library from an
aarch64 wheel on aarch64, where it cannot load."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from cli_support import run_k3diff
from wheel.test_installed_view import BASE_FILES
from wheel.tricks import build

from audit.helpers import audit_json, codes
from k3diff.audit.arch import ElfIdent, elf_ident, mismatch, tagged_architectures
from k3diff.audit.elfneeds import FastTap

MACHINES = {
    "x86_64": (62, True, True),
    "i686": (3, False, True),
    "aarch64": (183, True, True),
    "armv7l": (40, False, True),
    "ppc64le": (21, True, True),
    "ppc64": (21, True, False),
    "s390x": (22, True, False),
    "riscv64": (243, True, True),
    "loongarch64": (258, True, True),
}
"""Each tag architecture and the (e_machine, 64-bit, little-endian) of its ELFs."""


def tiny_elf(machine: int, wide: bool, little: bool, size: int = 4096) -> bytes:
    """A shared object of that identity with no segments (its loader tables read as empty)."""
    order = "<" if little else ">"
    ident = b"\x7fELF" + bytes([2 if wide else 1, 1 if little else 2, 1, 0, 0]) + bytes(7)
    if wide:
        fields = struct.pack(
            order + "HHIQQQIHHHHHH", 3, machine, 1, 0, 64, 0, 0, 64, 56, 0, 64, 0, 0
        )
    else:
        fields = struct.pack(
            order + "HHIIIIIHHHHHH", 3, machine, 1, 0, 64, 0, 0, 52, 32, 0, 40, 0, 0
        )
    return (ident + fields).ljust(size, b"\0")


def wheel_with(tmp_path: Path, library: bytes, platform: str, name: str = "demo/_lib.so") -> Path:
    files = {**BASE_FILES, name: library}
    return build(tmp_path / platform, "1.0", files, tag=f"cp311-cp311-{platform}")


def a125(report: dict[str, object]) -> list[dict[str, str]]:
    artifacts = report["artifacts"]
    assert isinstance(artifacts, list)
    return [f for a in artifacts for f in a["findings"] if f["code"] == "A125"]


@pytest.mark.parametrize("arch", sorted(MACHINES))
def test_an_elf_matching_its_tag_passes(tmp_path: Path, arch: str) -> None:
    exit_code, report = audit_json(
        wheel_with(tmp_path, tiny_elf(*MACHINES[arch]), f"manylinux_2_31_{arch}")
    )
    refused = arch == "loongarch64"  # no manylinux architecture of PyPI's: A141 (hunt80)
    assert a125(report) == [] and exit_code == int(refused), codes(report)
    assert [n["entry"] for n in report["artifacts"][0]["natives"]] == ["demo/_lib.so"]


@pytest.mark.parametrize("arch", sorted(MACHINES))
@pytest.mark.parametrize("tagged", sorted(MACHINES))
def test_every_other_machine_fails(arch: str, tagged: str) -> None:
    """The table edge by edge: ppc64 big-endian is not ppc64le, 32-bit arm not aarch64."""
    wrong = mismatch(ElfIdent(*MACHINES[arch]), frozenset({tagged}))
    assert (wrong is None) == (arch == tagged)
    if wrong is not None:
        assert wrong == f"built for {arch}, but the wheel's platform tags name {tagged}"


def test_an_x86_64_library_in_an_aarch64_wheel_fails(tmp_path: Path) -> None:
    wheel = wheel_with(tmp_path, tiny_elf(*MACHINES["x86_64"]), "manylinux_2_31_aarch64")
    exit_code, report = audit_json(wheel)
    assert exit_code == 1
    (finding,) = a125(report)
    assert finding["path"] == "demo/_lib.so"
    assert finding["detail"] == "built for x86_64, but the wheel's platform tags name aarch64"
    assert finding["severity"] != "info"
    text = run_k3diff("audit", wheel)
    assert text.exit_code == 1
    assert "A125" in text.stdout and "built for x86_64" in text.stdout


def test_big_endian_ppc64_in_a_ppc64le_wheel_fails(tmp_path: Path) -> None:
    wheel = wheel_with(tmp_path, tiny_elf(*MACHINES["ppc64"]), "manylinux2014_ppc64le")
    exit_code, report = audit_json(wheel)
    assert exit_code == 1
    assert [f["detail"] for f in a125(report)] == [
        "built for ppc64, but the wheel's platform tags name ppc64le"
    ]


def test_a_32_bit_elf_of_a_64_bit_machine_is_named_by_its_fields(tmp_path: Path) -> None:
    """x32 (EM_X86_64 in a 32-bit ELF) is not x86_64."""
    wheel = wheel_with(tmp_path, tiny_elf(62, False, True), "linux_x86_64")
    exit_code, report = audit_json(wheel)
    assert exit_code == 1
    assert [f["detail"] for f in a125(report)] == [
        "built for e_machine 62 (32-bit little-endian), but the wheel's platform tags name x86_64"
    ]


def test_a_wheel_of_several_architectures_takes_an_elf_of_any(tmp_path: Path) -> None:
    platform = "manylinux_2_17_x86_64.manylinux_2_17_aarch64"
    for arch in ("x86_64", "aarch64"):
        exit_code, report = audit_json(
            wheel_with(tmp_path / arch, tiny_elf(*MACHINES[arch]), platform)
        )
        assert a125(report) == [], arch
    exit_code, report = audit_json(
        wheel_with(tmp_path / "s390x", tiny_elf(*MACHINES["s390x"]), platform)
    )
    assert exit_code == 1
    assert [f["detail"] for f in a125(report)] == [
        "built for s390x, but the wheel's platform tags name aarch64, x86_64"
    ]


@pytest.mark.parametrize(
    "platform", ["any", "win_amd64", "macosx_11_0_arm64", "linux_mips64", "manylinux_2_17_sparc64"]
)
def test_tags_promising_no_known_linux_architecture_are_not_checked(
    tmp_path: Path, platform: str
) -> None:
    wheel = wheel_with(tmp_path, tiny_elf(*MACHINES["aarch64"]), platform)
    _exit_code, report = audit_json(wheel)
    assert a125(report) == []


def test_a_non_elf_named_so_is_not_this_finding(tmp_path: Path) -> None:
    wheel = wheel_with(tmp_path, b"not an ELF at all, " * 10, "manylinux_2_31_aarch64")
    exit_code, report = audit_json(wheel)
    assert a125(report) == [] and exit_code == 0, codes(report)


def test_a_streamed_library_is_checked_as_a_small_one(tmp_path: Path) -> None:
    """Larger than one chunk: its identity comes from the streamed read's kept prefix."""
    library = tiny_elf(*MACHINES["x86_64"], size=(1 << 20) + 12345)
    exit_code, report = audit_json(wheel_with(tmp_path, library, "musllinux_1_2_aarch64"))
    assert exit_code == 1 and len(a125(report)) == 1


def test_the_tap_keeps_the_identity_however_it_is_fed() -> None:
    library = tiny_elf(*MACHINES["ppc64"], size=9000)
    whole, streamed = FastTap(len(library)), FastTap(len(library))
    whole.feed_whole(library)
    for at in range(0, len(library), 7):
        streamed.feed(library[at : at + 7])
    assert whole.head == streamed.head == library[:20]
    assert elf_ident(whole.head) == ElfIdent(21, True, False)


def test_tag_architectures() -> None:
    assert tagged_architectures(["manylinux1_i686", "manylinux2010_x86_64"]) == frozenset(
        {"i686", "x86_64"}
    )
    assert tagged_architectures(["musllinux_1_1_armv7l", "linux_loongarch64"]) == frozenset(
        {"armv7l", "loongarch64"}
    )
    assert tagged_architectures(["win_amd64", "macosx_11_0_x86_64"]) is None
    assert tagged_architectures(["linux_x86_64", "any"]) is None
    assert tagged_architectures(["linux_x86_64", "linux_mips"]) is None
    assert elf_ident(b"\x7fELF" + bytes(15)) is None
    assert elf_ident(b"\x7fELF\x03\x01" + bytes(14)) is None


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")
def test_a_compiled_library_of_this_machine(tmp_path: Path) -> None:
    """The new user's wheel: a real library of the build machine, tagged for another."""
    source = tmp_path / "lib.c"
    source.write_text("int go(void) { return 1; }\n")
    out = tmp_path / "lib.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(out), str(source)], check=True)
    library = out.read_bytes()
    ident = elf_ident(library[:20])
    assert ident is not None
    arch = next((a for a, shape in MACHINES.items() if ElfIdent(*shape) == ident), None)
    if arch is None:
        pytest.skip("the build machine's architecture is not in the table")
    other = "aarch64" if arch != "aarch64" else "x86_64"
    exit_code, report = audit_json(wheel_with(tmp_path, library, f"manylinux_2_31_{other}"))
    assert exit_code == 1 and [f["path"] for f in a125(report)] == ["demo/_lib.so"]
    exit_code, report = audit_json(wheel_with(tmp_path / "own", library, f"manylinux_2_31_{arch}"))
    assert a125(report) == []
