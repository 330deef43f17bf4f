"""`--allow-native-changes` and an ELF script the kernel refuses (review62b).

wheels62 lets a rebuilt `.data/scripts` ELF pass when its machine is the one the wheel's
platform tags name. But Linux's `binfmt_elf` refuses more than another machine: a header in the
other byte order (it reads `e_machine` in its own), an ELF class its kernel does not run (x32,
i386 on x86_64), an `e_type` other than `ET_EXEC`/`ET_DYN` (a `.o`, a core), a program header
table of the wrong entry size or none, a `PT_INTERP` not NUL-terminated. Each is ENOEXEC, and
glibc's `execvp` (env, xargs, make) then hands the file to `/bin/sh` (dash on Debian and
Ubuntu), which runs its lines as a script: held here against pip 26 on a manylinux wheel. Such a
file is no native program, so a "rebuild" of one never passes. An ELF whose `PT_INTERP` names a
script, or a missing loader, fails with another error (EIO, ENOENT) and no shell reads it."""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json
from wheel.pipinstall import pip_install

ALLOW = "--allow-native-changes"
X86_64_LINUX = sys.platform == "linux" and platform.machine() == "x86_64"
LINUX = "py3-none-manylinux_2_17_x86_64"
SCRIPT = "engine-tool"
SHELL = b"\necho ran-as-script\n"
"""A line a shell runs, should it read the file as a script."""

REFUSED = {
    "big-endian": {"order": ">"},
    "relocatable": {"elf_type": 1},
    "no-program-headers": {"phnum": 0},
    "x32-class": {"elf_class": 1},
    "interp-without-nul": {"interp": b"/lib64/ld-linux-x86-64.so.2"},
}
"""x86_64 ELFs Linux refuses with ENOEXEC (`wheelkit.elf_program`'s arguments)."""


def _wheel(root: Path, version: str, script: bytes, tag: str = LINUX) -> Path:
    path = f"engine-{version}.data/scripts/{SCRIPT}"
    files = {"engine/__init__.py": b"", path: script}
    modes = {path: 0o100755}
    return wheelkit.make_wheel(root / version, "engine", version, files, tag=tag, modes=modes)


def _runs(tmp_path: Path, script: bytes) -> subprocess.CompletedProcess[bytes]:
    """pip 26 installs the manylinux wheel; its `bin/engine-tool` is run through `execvp`."""
    installed = pip_install(_wheel(tmp_path, "2.0", script), tmp_path / "env", prefix=True)
    assert installed.ok, installed.output
    tool = tmp_path / "env" / "bin" / SCRIPT
    # /bin/sh runs the refused image's bytes as lines: its redirections write files in cwd
    return subprocess.run(
        ["env", str(tool)], capture_output=True, check=False, timeout=30, cwd=tmp_path
    )


@pytest.mark.skipif(not X86_64_LINUX or shutil.which("env") is None, reason="x86_64 Linux")
@pytest.mark.skipif(Path("/bin/sh").resolve().name != "dash", reason="dash reads binary lines")
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_pip_installs_an_elf_the_kernel_refuses_as_a_command_a_shell_runs(
    tmp_path: Path, name: str
) -> None:
    ran = _runs(tmp_path, wheelkit.elf_program(SHELL, **REFUSED[name]))  # type: ignore[arg-type]
    assert b"ran-as-script\n" in ran.stdout, ran.stderr


@pytest.mark.skipif(not X86_64_LINUX or shutil.which("env") is None, reason="x86_64 Linux")
def test_the_kernel_runs_the_loadable_program_itself(tmp_path: Path) -> None:
    """The control: the same lines behind a header the kernel takes; it exits 0 unread."""
    ran = _runs(tmp_path, wheelkit.elf_program(SHELL))
    assert (ran.returncode, ran.stdout) == (0, b""), ran.stderr


@pytest.mark.parametrize(
    ("kwargs", "tag"),
    [
        *[(kwargs, LINUX) for _, kwargs in sorted(REFUSED.items())],
        ({"machine": 3}, "py3-none-manylinux2014_i686"),  # an ELF64 of EM_386
        ({"machine": 21, "order": ">"}, "py3-none-manylinux2014_ppc64le"),  # ppc64 on ppc64le
        ({"machine": 21}, "py3-none-manylinux2014_ppc64"),  # ... and the mirror
    ],
    ids=[*sorted(REFUSED), "elf64-on-i686", "ppc64-on-ppc64le", "ppc64le-on-ppc64"],
)
def test_a_rebuilt_elf_the_kernel_refuses_still_fails(
    tmp_path: Path, kwargs: dict[str, object], tag: str
) -> None:
    old = wheelkit.elf_program(b"\x90" * 64, **kwargs)  # type: ignore[arg-type]
    new = wheelkit.elf_program(SHELL, **kwargs)  # type: ignore[arg-type]
    base, patch = _wheel(tmp_path, "1.0", old, tag), _wheel(tmp_path, "2.0", new, tag)
    code, report = run_json("wheels", base, patch, ALLOW)
    findings = report["findings"]
    assert isinstance(findings, list)
    [w708] = [f for f in findings if f["code"] == "W708"]
    assert code == 1 and w708["severity"] == "error" and "native" not in w708, w708


@pytest.mark.parametrize(
    ("kwargs", "tag"),
    [
        ({}, LINUX),
        ({"elf_type": 3}, LINUX),  # a PIE (ET_DYN)
        ({"interp": b"/lib64/ld-linux-x86-64.so.2\x00"}, LINUX),
        ({"machine": 3, "elf_class": 1}, "py3-none-manylinux2014_i686"),
        ({"machine": 21, "order": ">"}, "py3-none-manylinux2014_ppc64"),
        ({"machine": 183}, "py3-none-manylinux2014_aarch64"),
    ],
    ids=["x86_64", "x86_64-pie", "x86_64-interp", "i686", "ppc64", "aarch64"],
)
def test_a_rebuilt_elf_program_of_its_platform_passes(
    tmp_path: Path, kwargs: dict[str, object], tag: str
) -> None:
    old = wheelkit.elf_program(b"\x90" * 64, **kwargs)  # type: ignore[arg-type]
    new = wheelkit.elf_program(b"\xc3" * 64, **kwargs)  # type: ignore[arg-type]
    base, patch = _wheel(tmp_path, "1.0", old, tag), _wheel(tmp_path, "2.0", new, tag)
    code, report = run_json("wheels", base, patch, ALLOW)
    findings = report["findings"]
    assert isinstance(findings, list)
    [w708] = [f for f in findings if f["code"] == "W708"]
    assert code == 0 and w708["severity"] == "info" and w708["native"] is True, w708
