"""WHEEL's `Tag:` lines against the filename's tags, held to what pip 26 does with them.

pip 26 selects and installs a wheel by its filename's tags and never reads WHEEL's `Tag:` lines
while installing; the one reader is `pip check`, which says "NAME VERSION is not supported on
this platform" when none of the installed WHEEL's tags is one the running Python supports. A
real shape (ray 2.58.0, torch 2.5.1): the filename says `manylinux2014_x86_64` (or
`manylinux1`), WHEEL still says `linux_x86_64`, as the build wrote it before the wheel was
renamed. Every platform that supports a manylinux or musllinux tag supports `linux_ARCH`
(packaging's `sys_tags` lists it last), and every one that supports `py3-none-PLATFORM`
supports `py3-none-any` (playwright 1.63.0 names `manylinux1_x86_64` over WHEEL's `any`), so
that narrowing changes nothing pip does: no W605; nor does a Python 2 tag, which pip 26 never
selects (py-spy 0.4.2 names `py2.py3`, WHEEL `py3`). A Tag line of another platform or Python
is one `pip check` reports: W605, as before."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pip
import pytest
from cli_support import run_k3diff
from packaging.tags import sys_tags

from k3diff.wheel.tags import never_selected, wider_tags
from wheel.pipinstall import pip_install
from wheel.rawwheel import wheel_file, write_wheel

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or sys.implementation.name != "cpython", reason="Linux CPython tags"
)

FILES = {"demo/__init__.py": b"VALUE = 1\n"}
ARCH = platform.machine()
PY = f"cp{sys.version_info.major}{sys.version_info.minor}"
OTHER_PY = f"cp{sys.version_info.major}{sys.version_info.minor - 1}"


def _w605(*args: str | Path) -> tuple[int, list[str]]:
    result = run_k3diff(*args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    found = report["artifacts"][0]["findings"] if "artifacts" in report else report["findings"]
    return result.exit_code, [f["detail"] for f in found if f["code"] == "W605"]


def _pip_check_says_unsupported(wheel: Path, root: Path) -> bool:
    """Install with pip 26 into a new virtual environment's site-packages (`pip check` looks
    at that environment's own projects only), then ask `pip check` about it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = str(root / "venv" / "bin" / "python")
    where = [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
    site = Path(subprocess.run(where, capture_output=True, text=True, check=True).stdout.strip())
    installed = pip_install(wheel, site)
    assert installed.ok, installed.output  # pip installs by the filename's tags
    pip_home = str(Path(pip.__file__).parent.parent)
    env = {**os.environ, "PYTHONPATH": pip_home, "PIP_CONFIG_FILE": os.devnull}
    command = [python, "-m", "pip", "check", "--disable-pip-version-check"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    return "demo 1.0 is not supported on this platform" in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("filename_tag", "wheel_tag", "w605"),
    [
        (f"{PY}-{PY}-manylinux2014_{ARCH}", f"{PY}-{PY}-linux_{ARCH}", False),  # ray 2.58.0
        (f"{PY}-{PY}-manylinux1_{ARCH}", f"{PY}-{PY}-linux_{ARCH}", False),  # torch 2.5.1
        (
            f"{PY}-{PY}-manylinux_2_17_{ARCH}.manylinux2014_{ARCH}",
            f"{PY}-{PY}-linux_{ARCH}",
            False,
        ),
        (f"py3-none-manylinux1_{ARCH}", "py3-none-any", False),  # playwright 1.63.0
        (  # py-spy 0.4.2: a Python 2 tag pip 26 never selects
            f"py2.py3-none-manylinux_2_5_{ARCH}.manylinux1_{ARCH}",
            f"py3-none-manylinux_2_5_{ARCH}.manylinux1_{ARCH}",
            False,
        ),
        (f"{PY}-{PY}-manylinux2014_{ARCH}", f"{PY}-{PY}-macosx_11_0_arm64", True),
        (f"py3-none-manylinux1_{ARCH}", "py3-none-macosx_11_0_arm64", True),
        (f"py3-none-manylinux1_{ARCH}", f"{OTHER_PY}-none-any", True),  # py3 is wider
        (f"{PY}-{PY}-manylinux2014_{ARCH}", f"{OTHER_PY}-{OTHER_PY}-linux_{ARCH}", True),
        # wheels61 item 4: a version-bound build whose WHEEL still says abi3 (the filename is
        # the truth pip installs by; every CPython of the filename's ABI supports the abi3 tag)
        (f"{PY}-{PY}-linux_{ARCH}", f"{PY}-abi3-linux_{ARCH}", False),
        (f"{PY}-{PY}-manylinux2014_{ARCH}", f"cp38-abi3-linux_{ARCH}", False),
        (f"{PY}-abi3-linux_{ARCH}", f"cp38-abi3-linux_{ARCH}", False),
        (f"{OTHER_PY}-abi3-linux_{ARCH}", f"{OTHER_PY}-{OTHER_PY}-linux_{ARCH}", True),
    ],
)
def test_w605_on_tag_lines_is_what_pip_check_reports(
    tmp_path: Path, filename_tag: str, wheel_tag: str, w605: bool
) -> None:
    wheel = write_wheel(
        tmp_path / "w", "demo", "1.0", FILES, tag=filename_tag, wheel=wheel_file(wheel_tag)
    )
    assert _pip_check_says_unsupported(wheel, tmp_path) is w605
    code, details = _w605("audit", wheel)
    refused = filename_tag.endswith(f"-linux_{ARCH}")  # A141: PyPI refuses the tag (hunt80)
    assert (code, bool(details)) == (int(w605 or refused), w605), details
    copy = tmp_path / "copy" / wheel.name
    copy.parent.mkdir()
    copy.write_bytes(wheel.read_bytes())
    code, details = _w605("wheels", wheel, copy)
    assert (code, len(details)) == ((1, 2) if w605 else (0, 0)), details


def test_a_musllinux_filename_over_a_linux_tag_line_passes(tmp_path: Path) -> None:
    """pip 26 here (glibc) refuses a musllinux wheel, so the oracle is packaging's rule: a
    musl platform's supported tags end with `linux_ARCH`, as a glibc one's do."""
    tag = f"{PY}-{PY}-musllinux_1_2_{ARCH}"
    wheel = write_wheel(
        tmp_path / "w", "demo", "1.0", FILES, tag=tag, wheel=wheel_file(f"{PY}-{PY}-linux_{ARCH}")
    )
    assert _w605("audit", wheel) == (0, [])


def test_a_filename_wider_than_its_tag_lines_still_fails(tmp_path: Path) -> None:
    """`linux_ARCH` in the filename, `manylinux2014_ARCH` in WHEEL: pip installs it on any Linux,
    and `pip check` reports it where glibc is older than manylinux2014's."""
    wheel = write_wheel(
        tmp_path / "w",
        "demo",
        "1.0",
        FILES,
        tag=f"{PY}-{PY}-linux_{ARCH}",
        wheel=wheel_file(f"{PY}-{PY}-manylinux2014_{ARCH}"),
    )
    code, details = _w605("audit", wheel)
    assert code == 1 and len(details) == 1 and f"linux_{ARCH}" in details[0], details


def test_every_wider_tag_is_supported_wherever_its_tag_is() -> None:
    """The rule held to packaging's own list (what pip 26 calls `get_supported`): for each tag
    this Python supports, every tag `wider_tags` names is supported too, and none is Python 2."""
    supported = {str(tag) for tag in sys_tags()}
    for tag in supported:
        assert wider_tags(tag) <= supported, tag
        assert not never_selected(tag), tag


def _stable(minor: int, *platforms: str) -> set[str]:
    """What `cpython_tags` lists after `cp3M-cp3M-PLAT`: the version's `none` ABI and the stable
    ABI of it and every older version down to 3.2."""
    tags = {f"cp3{minor}-none-{p}" for p in platforms}
    return tags | {f"cp3{m}-abi3-{p}" for m in range(2, minor + 1) for p in platforms}


@pytest.mark.parametrize(
    ("tag", "wider"),
    [
        (
            "cp311-cp311-manylinux1_x86_64",
            {"cp311-cp311-linux_x86_64", *_stable(11, "manylinux1_x86_64", "linux_x86_64")},
        ),
        (
            "cp311-cp311-manylinux_2_28_aarch64",
            {"cp311-cp311-linux_aarch64", *_stable(11, "manylinux_2_28_aarch64", "linux_aarch64")},
        ),
        (
            "cp39-abi3-musllinux_1_2_x86_64",
            {
                f"cp3{m}-abi3-{p}"
                for m in range(2, 10)
                for p in ("musllinux_1_2_x86_64", "linux_x86_64")
            },
        ),
        ("py3-none-manylinux2010_i686", {"py3-none-linux_i686", "py3-none-any"}),
        ("py3-none-macosx_11_0_arm64", {"py3-none-any"}),
        (
            "cp34-cp34m-macosx_11_0_arm64",  # an ABI of its own that is not the Python's
            set(),
        ),
        (
            "cp34-cp34-linux_x86_64",
            _stable(4, "linux_x86_64"),
        ),
        ("cp34-abi3-linux_x86_64", {"cp32-abi3-linux_x86_64", "cp33-abi3-linux_x86_64"}),
        ("cp313-cp313t-linux_x86_64", set()),  # free-threaded: no stable ABI
        ("pp310-pypy310_pp73-linux_x86_64", set()),
        ("not-a-tag-at-all", set()),
    ],
)
def test_wider_tags(tag: str, wider: set[str]) -> None:
    assert wider_tags(tag) == {tag, *wider}


@pytest.mark.parametrize(
    ("tag", "never"),
    [
        ("py2-none-any", True),
        ("cp27-cp27mu-linux_x86_64", True),
        ("pp273-pypy_73-any", True),
        ("py3-none-any", False),
        ("cp311-cp311-linux_x86_64", False),
        ("py32-none-any", False),
    ],
)
def test_python_2_tags_are_never_selected(tag: str, never: bool) -> None:
    assert never_selected(tag) is never
