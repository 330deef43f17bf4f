"""One rule for the tags pip installs a wheel by (`filename.installing_tags`), read by W630 from
a wheel's identity and by the installed view (`install_check`: W627-W629 and the systems' case
rules) from the archive's WHEEL file: the two agree over compressed tag sets, WHEEL `Tag:`
lines against filename tags, `any`, abi3 and every system's platforms, and both are what pip
26 selects by: the filename's tags as packaging reads them, else (a file not named as a wheel)
the union of the `Tag:` lines' expanded sets."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.tags import parse_tag
from packaging.utils import parse_wheel_filename
from wheelkit import make_wheel

from k3diff.wheel.filename import FILENAME, TAG_LINES, installing_tags
from k3diff.wheel.installable import install_check
from k3diff.wheel.metadata import read_identity
from k3diff.zip.archive import ZipArchive

FILES = {"demo/__init__.py": b"X = 1\n"}
TAG_SETS = [
    "py3-none-any",
    "py2.py3-none-any",
    "cp313-none-any",
    "cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64",
    "cp312-cp312-musllinux_1_2_aarch64",
    "cp311-cp311-linux_armv7l",
    "cp313-cp313t-win_amd64",
    "cp312-cp312-win32.win_arm64",
    "cp312-abi3-macosx_11_0_arm64.macosx_10_9_x86_64",
    "cp313-cp313-android_21_arm64_v8a",
    "cp313-cp313-ios_13_0_arm64_iphoneos",
    "cp312-cp312-mingw_x86_64_ucrt_gnu",
    "cp39-cp39-cygwin_3_5_x86_64",
    "cp312-cp312-msys_3_5_x86_64",
    "cp311.cp312-cp311.cp312-freebsd_14_0_release_amd64",
    "cp313-cp313-manylinux_2_17_x86_64.win_amd64.macosx_11_0_arm64",
]


def _agreed(wheel: Path) -> frozenset[str]:
    """The tags both readers give, checked equal."""
    with ZipArchive.open(wheel) as archive:
        viewed = install_check(archive, "base").tags
        identity = read_identity(archive)
    named = installing_tags(str(wheel), identity.tags)
    assert viewed == named.tags
    return viewed


@pytest.mark.parametrize("filename_tag", TAG_SETS)
@pytest.mark.parametrize("wheel_tag", ["py3-none-any", TAG_SETS[3], TAG_SETS[-1]])
def test_the_view_and_w630_read_the_filenames_tags(
    tmp_path: Path, filename_tag: str, wheel_tag: str
) -> None:
    name = f"demo-1.0-{filename_tag}.whl"
    wheel = make_wheel(tmp_path, "demo", "1.0", FILES, tag=wheel_tag, filename=name)
    expected = frozenset(map(str, parse_wheel_filename(name)[3]))
    assert _agreed(wheel) == expected
    assert installing_tags(str(wheel), (wheel_tag,)).source == FILENAME


@pytest.mark.parametrize("wheel_tag", TAG_SETS)
def test_a_file_not_named_as_a_wheel_is_read_by_its_tag_lines(
    tmp_path: Path, wheel_tag: str
) -> None:
    wheel = make_wheel(tmp_path, "demo", "1.0", FILES, tag=wheel_tag, filename="base.whl")
    assert _agreed(wheel) == frozenset(map(str, parse_tag(wheel_tag)))
    found = installing_tags(str(wheel), (wheel_tag,))
    assert (found.source, found.written) == (TAG_LINES, wheel_tag)


def test_several_tag_lines_are_their_union(tmp_path: Path) -> None:
    """A WHEEL file of one `Tag:` line a tag, as `bdist_wheel` writes it, and a compressed one."""
    wheel = make_wheel(tmp_path, "demo", "1.0", FILES, tag=TAG_SETS[0], filename="base.whl")
    lines = (TAG_SETS[4], TAG_SETS[7], "py3-none-any")
    rewritten = tmp_path / "lines.whl"
    _with_tag_lines(wheel, rewritten, lines)
    expected = frozenset(str(tag) for line in lines for tag in parse_tag(line))
    assert _agreed(rewritten) == expected


def _with_tag_lines(wheel: Path, out: Path, lines: tuple[str, ...]) -> None:
    import zipfile

    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith(".dist-info/WHEEL"):
                kept = [line for line in data.decode().splitlines() if not line.startswith("Tag:")]
                data = "\n".join([*kept, *(f"Tag: {line}" for line in lines), ""]).encode()
            target.writestr(info, data)
