"""The installed view follows the Python the wheel installs on, from its tags: a file under
`.data/data/lib/pythonX.Y/site-packages/` is a site-packages file only on Python X.Y (W627 when
the tags admit other Pythons too, or not X.Y at all), Windows' `Lib/site-packages` only on
Windows, headers install to `include/site/pythonX.Y/NAME/`, pip names `easy_install-X.Y` for the
wheel's Python, and pip's write order decides which of two spellings of one script wins.
pip (the test venv's, on this interpreter) is the oracle wherever it can install the wheel."""

from __future__ import annotations

import posixpath
import sys
from pathlib import Path

import pytest

from wheel.pipinstall import pip_install
from wheel.rawwheel import write_wheel
from wheel.test_installed_view import (
    assert_claims_hold,
    audit_code,
    by_installed_path,
    codes,
    wheels_json,
)

HERE = f"{sys.version_info[0]}.{sys.version_info[1]}"
TAG_HERE = f"cp{sys.version_info[0]}{sys.version_info[1]}"
MODULE = b"def escape(text):\n    return text\n"


def test_a_module_moved_under_another_pythons_site_packages_fails(tmp_path: Path) -> None:
    """markupsafe's shape: identical bytes moved to `lib/python3.9/site-packages/` of a `py3`
    wheel are site-packages only on 3.9; pip on this Python leaves the package without them."""
    base = write_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": MODULE})
    moved = "demo-2.0.data/data/lib/python3.9/site-packages/demo/__init__.py"
    patch = write_wheel(tmp_path / "p", "demo", "2.0", {moved: MODULE})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W627" in codes(report), report["findings"]
    assert audit_code(patch) == (1, {"W627"})
    installed = pip_install(patch, tmp_path / "ip", prefix=True)
    assert installed.ok and "site-packages/demo/__init__.py" not in installed.tree


def test_another_pythons_site_packages_in_a_one_python_wheel_reaches_none(tmp_path: Path) -> None:
    files = {"demo/__init__.py": b"", "demo-2.0.data/data/lib/python3.9/site-packages/x.py": b""}
    wheel = write_wheel(tmp_path, "demo", "2.0", files, tag="cp312-cp312-manylinux_2_17_x86_64")
    exit_code, found = audit_code(wheel)
    assert exit_code == 1 and found == {"W627"}


def test_the_one_pythons_own_site_packages_is_site_packages(tmp_path: Path) -> None:
    extra = f"demo-2.0.data/data/lib/python{HERE}/site-packages/demo/extra.py"
    files = {"demo/__init__.py": b"", extra: b"X = 1\n"}
    tag = f"{TAG_HERE}-{TAG_HERE}-linux_x86_64"
    wheel = write_wheel(tmp_path, "demo", "2.0", files, tag=tag)
    assert audit_code(wheel) == (1, {"A141"})  # A141: PyPI refuses the tag (hunt80)
    installed = pip_install(wheel, tmp_path / "ip", prefix=True)
    assert installed.ok and "site-packages/demo/extra.py" in installed.tree


def test_windows_site_packages_in_a_universal_wheel_fails(tmp_path: Path) -> None:
    base = write_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": MODULE})
    copy = "demo-2.0.data/data/Lib/site-packages/demo/__init__.py"
    files = {"demo/__init__.py": MODULE, copy: b"import os\n"}
    patch = write_wheel(tmp_path / "p", "demo", "2.0", files)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and {"W615", "W627"} <= codes(report), report["findings"]


def test_headers_and_a_data_include_file_are_two_files(tmp_path: Path) -> None:
    files = {
        "demo/__init__.py": b"",
        "demo-2.0.data/headers/x.h": b"int a;\n",
        "demo-2.0.data/data/include/demo/x.h": b"int b;\n",
    }
    patch = write_wheel(tmp_path / "p", "demo", "2.0", files)
    base = write_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": b""})
    _, report = wheels_json(base, patch)
    assert "W615" not in codes(report), report["findings"]
    paths = set(by_installed_path(report))
    assert {f"include/site/python{HERE}/demo/x.h", "include/demo/x.h"} <= paths
    installed = pip_install(patch, tmp_path / "ip", prefix=True)
    assert installed.ok
    assert {f"include/site/python{HERE}/demo/x.h", "include/demo/x.h"} <= set(installed.tree)


def test_pip_writes_the_plain_scripts_spelling_last(tmp_path: Path) -> None:
    old, new = b"\x7fELF old native", b"\x7fELF new native"
    base = write_wheel(tmp_path / "b", "demo", "1.0", {"demo-1.0.data/scripts/ninja": old})
    patch = write_wheel(
        tmp_path / "p",
        "demo",
        "2.0",
        {"demo-2.0.data/scripts/ninja": new, "demo-2.0.data/./scripts/ninja": old},
    )
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    detail = next(f["detail"] for f in report["findings"] if f["code"] == "W615")
    assert "'demo-2.0.data/scripts/ninja' wins" in detail
    assert by_installed_path(report)["bin/ninja"]["status"] == "changed"
    installed = (
        pip_install(base, tmp_path / "ib", prefix=True),
        pip_install(patch, tmp_path / "ip", prefix=True),
    )
    assert installed[1].ok and installed[0].tree["bin/ninja"] != installed[1].tree["bin/ninja"]
    assert_claims_hold(report, exit_code, *installed)


def test_easy_install_is_named_for_the_wheels_python(tmp_path: Path) -> None:
    ep = b"[console_scripts]\neasy_install = demo.cli:main\n"
    files = {"demo/__init__.py": b"", "demo-2.0.dist-info/entry_points.txt": ep}
    wheel = write_wheel(tmp_path, "demo", "2.0", files, tag="cp39-cp39-manylinux_2_17_x86_64")
    base = write_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": b""})
    _, report = wheels_json(base, wheel)
    keys = {s["key"] for s in report["execution_surfaces"]["patch"] if s["kind"] == "script"}
    assert keys == {"bin/easy_install", "bin/easy_install-3.9"}


@pytest.mark.parametrize(
    ("scheme", "tag", "elsewhere"),
    [
        ("nt_user", "cp312-cp312-win_amd64", "cp312-cp312-manylinux_2_17_x86_64"),
        ("osx_framework_user", "cp312-cp312-macosx_11_0_arm64", "cp312-cp312-win_amd64"),
    ],
)
def test_a_data_file_in_a_user_schemes_site_packages_fails(
    tmp_path: Path, scheme: str, tag: str, elsewhere: str
) -> None:
    """`pip install --user` puts `.data/data/` under the user base, whose site-packages is
    `Python312/site-packages` on Windows and `lib/python/site-packages` on a macOS framework
    build (CPython's `sysconfig` schemes, which pip 26 installs by): a `.pth` there runs at every
    start (review70b: passed, exit 0). On a system without that layout it is data."""
    from wheel.test_pth_leaving_site import _scheme_paths

    paths = _scheme_paths(scheme, "/u")
    site = posixpath.relpath(paths["purelib"].replace("\\", "/"), paths["data"].replace("\\", "/"))
    files = {"demo/__init__.py": b"", f"demo-2.0.data/data/{site}/evil.pth": b"import os\n"}
    wheel = write_wheel(tmp_path / "on", "demo", "2.0", files, tag=tag)
    assert audit_code(wheel) == (1, {"W627"})
    wheel = write_wheel(tmp_path / "off", "demo", "2.0", files, tag=elsewhere)
    assert audit_code(wheel) == (0, set())


def test_a_data_file_in_site_packages_in_another_case_fails_on_macos(tmp_path: Path) -> None:
    """APFS, as macOS formats it, opens `LIB/python3.12/Site-Packages` as the venv's
    `lib/python3.12/site-packages` (review70b: passed, exit 0); Linux's file systems do not."""
    path = "demo-2.0.data/data/LIB/python3.12/Site-Packages/evil.pth"
    files = {"demo/__init__.py": b"", path: b"import os\n"}
    wheel = write_wheel(tmp_path / "mac", "demo", "2.0", files, tag="cp312-cp312-macosx_11_0_arm64")
    assert audit_code(wheel) == (1, {"W627"})
    tag = "cp312-cp312-manylinux_2_17_x86_64"
    assert audit_code(write_wheel(tmp_path / "linux", "demo", "2.0", files, tag=tag)) == (0, set())
