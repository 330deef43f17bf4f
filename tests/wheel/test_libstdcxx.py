"""libstdc++ truth for natives (A115): a C++ extension needing a newer `GLIBCXX_` / `CXXABI_` than
its manylinux tag's policy allows fails `audit`, as `auditwheel show` says it is not consistent
with that tag (a new-user trial found it passing: only the glibc was compared)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from k3diff.native.libstdcxx import promised_libstdcxx
from k3diff.native.platform import version_key
from wheel.test_installed_view import audit_code
from wheel.test_platform import needs_of, tagged

CHARCONV = """#include <string>
#include <charconv>
extern "C" int kern(const char *s) {
    std::string x(s); double d = 0; std::from_chars(x.data(), x.data() + x.size(), d);
    return (int)d;
}
"""


@pytest.mark.parametrize(
    ("tags", "glibcxx", "cxxabi"),
    [
        # auditwheel's manylinux-policy.json, x86_64 (the newest numeric version per family)
        (["manylinux1_x86_64"], (3, 4, 8), (1, 3, 1)),
        (["manylinux2010_x86_64"], (3, 4, 13), (1, 3, 3)),
        (["manylinux2014_x86_64"], (3, 4, 19), (1, 3, 7)),
        (["manylinux_2_17_aarch64"], (3, 4, 19), (1, 3, 7)),
        (["manylinux_2_24_x86_64"], (3, 4, 22), (1, 3, 10)),
        (["manylinux_2_26_x86_64"], (3, 4, 22), (1, 3, 10)),
        (["manylinux_2_26_aarch64"], (3, 4, 24), (1, 3, 11)),
        (["manylinux_2_28_x86_64"], (3, 4, 24), (1, 3, 11)),
        (["manylinux_2_31_x86_64"], (3, 4, 28), (1, 3, 12)),
        (["manylinux_2_34_x86_64"], (3, 4, 29), (1, 3, 13)),
        (["manylinux_2_35_x86_64"], (3, 4, 30), (1, 3, 13)),
        (["manylinux_2_39_x86_64"], (3, 4, 33), (1, 3, 15)),
        (["manylinux_2_39_loongarch64"], (3, 4, 32), (1, 3, 15)),
        # between policies: the older one; before every policy: the oldest; after: the newest
        (["manylinux_2_30_x86_64"], (3, 4, 24), (1, 3, 11)),
        (["manylinux_2_3_x86_64"], (3, 4, 8), (1, 3, 1)),
        (["manylinux_2_99_x86_64"], (3, 4, 33), (1, 3, 15)),
        # several tags: an installer may pick any, so the lowest binds
        (["manylinux_2_34_x86_64", "manylinux2014_x86_64"], (3, 4, 19), (1, 3, 7)),
    ],
)
def test_promises_follow_auditwheels_policy_table(
    tags: list[str], glibcxx: tuple[int, ...], cxxabi: tuple[int, ...]
) -> None:
    assert promised_libstdcxx(tags) == (glibcxx, cxxabi)


def test_no_manylinux_tag_promises_nothing() -> None:
    assert promised_libstdcxx(["linux_x86_64", "musllinux_1_2_x86_64", "any"]) is None


def compile_cxx(tmp_path: Path) -> bytes:
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("needs a C++ compiler (g++)")
    source = tmp_path / "kern.cpp"
    source.write_text(CHARCONV)
    out = tmp_path / "kern.so"
    subprocess.run(
        [compiler, "-std=c++17", "-shared", "-fPIC", "-O2", "-o", str(out), str(source)], check=True
    )
    return out.read_bytes()


def test_a_cxx_native_needing_a_newer_libstdcxx_than_its_tag_fails_audit(tmp_path: Path) -> None:
    library = compile_cxx(tmp_path)
    needs = needs_of(library)
    assert needs.glibcxx is not None
    required = version_key(needs.glibcxx)
    allowed = {
        tag: promised_libstdcxx([tag]) for tag in ("manylinux2014_x86_64", "manylinux_2_41_x86_64")
    }
    strict = allowed["manylinux2014_x86_64"]
    assert strict is not None and required > strict[0], (
        "the compiler's libstdc++ is too old to test"
    )
    exit_code, found = audit_code(tagged(tmp_path, library, "manylinux2014_x86_64"))
    assert exit_code == 1 and "A115" in found
    newest = allowed["manylinux_2_41_x86_64"]
    assert newest is not None
    if (
        required <= newest[0]
        and version_key(needs.cxxabi) <= newest[1]
        and version_key(needs.glibc) <= (2, 41)
    ):
        assert audit_code(tagged(tmp_path, library, "manylinux_2_41_x86_64")) == (0, set())


def test_a_plain_c_native_is_not_held_to_libstdcxx(tmp_path: Path) -> None:
    from wheel.test_platform import PLAIN, compile_library

    library = compile_library(tmp_path, PLAIN, "plain")
    assert needs_of(library).glibcxx is None
    assert audit_code(tagged(tmp_path, library, "manylinux2014_x86_64")) == (0, set())
