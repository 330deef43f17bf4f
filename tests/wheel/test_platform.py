"""Platform truth for natives: the glibc an ELF needs, against the wheel's platform tag (audit,
A115) and base -> patch (`wheels --explain`, W713)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff.native.glibcpromise import promised_glibc
from k3diff.native.platform import PlatformNeeds, read_needs_from_stream
from wheel.test_installed_view import BASE_FILES, audit_code
from wheel.tricks import build

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

PTHREAD = "#include <pthread.h>\nvoid *run(void *a) { return a; }\nint go(void) { pthread_t t; return pthread_create(&t, 0, run, 0); }\n"
PLAIN = "int go(void) { return 1; }\n"


def compile_library(tmp_path: Path, source: str, name: str, *flags: str) -> bytes:
    c = tmp_path / f"{name}.c"
    c.write_text(source)
    out = tmp_path / f"{name}.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", str(out), str(c), *flags], check=True)
    return out.read_bytes()


def needs_of(data: bytes) -> PlatformNeeds:
    return read_needs_from_stream(
        [data[i : i + 4096] for i in range(0, len(data), 4096)], len(data)
    )


def tagged(tmp_path: Path, library: bytes, platform: str) -> Path:
    files = {**BASE_FILES, "demo/_lib.so": library}
    return build(tmp_path / platform, "1.0", files, tag=f"cp311-cp311-{platform}")


def test_a_native_needing_more_glibc_than_its_tag_fails_audit(tmp_path: Path) -> None:
    library = compile_library(tmp_path, PTHREAD, "threads", "-Wl,-rpath,$ORIGIN/../demo.libs")
    needs = needs_of(library)
    assert needs.glibc is not None and needs.runpath == "$ORIGIN/../demo.libs"
    assert "libc.so.6" in needs.needed
    required = tuple(int(p) for p in needs.glibc.split("."))
    assert required > (2, 17)
    exit_code, found = audit_code(tagged(tmp_path, library, "manylinux_2_17_x86_64"))
    assert exit_code == 1 and "A115" in found
    report = json.loads(
        run_k3diff(
            "audit", tagged(tmp_path, library, "manylinux2014_x86_64"), "--format", "json"
        ).stdout
    )
    native = report["artifacts"][0]["natives"][0]
    assert native["entry"] == "demo/_lib.so" and native["glibc"] == needs.glibc
    honest = f"manylinux_{required[0]}_{required[1]}_x86_64"
    assert audit_code(tagged(tmp_path, library, honest)) == (0, set())
    assert audit_code(tagged(tmp_path, library, "musllinux_1_2_x86_64"))[0] == 1


def test_wheels_explain_shows_and_fails_a_raised_glibc_requirement(tmp_path: Path) -> None:
    old = compile_library(tmp_path, PLAIN, "plain")
    new = compile_library(tmp_path, PTHREAD, "threads")
    assert needs_of(old).glibc != needs_of(new).glibc
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, "demo/_lib.so": old})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/_lib.so": new})
    result = run_k3diff(
        "wheels", base, patch, "--explain", "--allow-native-changes", "--format", "json"
    )
    report = json.loads(result.stdout)
    assert result.exit_code == 1
    assert "W713" in {f["code"] for f in report["findings"] if f["severity"] == "error"}
    entry = next(e for e in report["entries"] if e["path"] == "demo/_lib.so")
    assert entry["native"]["platform"]["patch"]["glibc"] == needs_of(new).glibc
    text = run_k3diff("wheels", base, patch, "--explain", "--allow-native-changes").stdout
    assert "Platform change: GLIBC" in text


def test_promised_glibc_reads_every_tag_family() -> None:
    assert promised_glibc({"manylinux_2_28_x86_64", "manylinux2014_x86_64"}) == (2, 17)
    assert promised_glibc({"manylinux1_x86_64"}) == (2, 5)
    assert promised_glibc({"musllinux_1_2_aarch64"}) == ()
    assert promised_glibc({"any"}) is None
