"""A file named like a directory another entry needs, on Windows or macOS: `demo/A` beside
`demo/a/b.py`, `demo/a.` beside it (Windows drops the dot), an 8.3 short name of the directory
(`demo/LONGNA~1` beside `demo/longnamefoo/x.py`) or the other way round. pip writes one, then
cannot write the other there (pip 26 on Linux, the same name: NotADirectoryError or
IsADirectoryError, whichever comes first), so its install stops half-way: W615 in both commands
(names78: each passed, exit 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.pipinstall import pip_install
from wheel.test_installed_view import BASE_FILES, EVIL, audit_code, codes, wheels_json
from wheel.tricks import build

ALIKE = {
    "case": {"demo/A": b"x", "demo/a/b.py": EVIL},
    "case, the directory first": {"demo/a/b.py": EVIL, "demo/A": b"x"},
    "trailing dot": {"demo/a.": b"x", "demo/a/b.py": EVIL},
    "short file, long directory": {"demo/LONGNA~1": b"x", "demo/longnamefoo/x.py": EVIL},
    "long file, short directory": {"demo/longnamefoo": b"x", "demo/LONGNA~1/x.py": EVIL},
    "deeper": {"demo/Sub/a": b"x", "demo/sub/A/b/c.py": EVIL},
}


@pytest.mark.parametrize("extra", ALIKE.values(), ids=ALIKE.keys())
def test_a_file_named_as_a_needed_directory_fails_both_commands(
    tmp_path: Path, extra: dict[str, bytes]
) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **extra})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W615" in codes(report)
    exit_code, found = audit_code(patch)
    assert exit_code == 1 and "W615" in found
    (finding,) = [f for f in report["findings"] if f["code"] == "W615"]
    assert "needs the directory" in finding["detail"] and "stops half-way" in finding["detail"]


@pytest.mark.parametrize(
    ("base_extra", "patch_extra"),
    [
        ({"demo/a/b.py": b""}, {"demo/A": EVIL}),
        ({"demo/a": b""}, {"demo/A/b.py": EVIL}),
    ],
)
def test_a_file_added_beside_the_bases_directory_alike_fails(
    tmp_path: Path, base_extra: dict[str, bytes], patch_extra: dict[str, bytes]
) -> None:
    """The patch's view is built from the base's shared names (`installedbeside`): the names
    it adds are checked against the base's case-blind too."""
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, **base_extra})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **base_extra, **patch_extra})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W615" in codes(report)


def test_the_same_name_is_w616_as_pip_on_linux_fails(tmp_path: Path) -> None:
    """pip 26 fails either way round on every system; this is W616, not W615 again."""
    for order, extra in enumerate(
        ({"demo/a": b"x", "demo/a/b.py": EVIL}, {"demo/a/b.py": EVIL, "demo/a": b"x"})
    ):
        wheel = build(tmp_path / f"w{order}", "1.0", {**BASE_FILES, **extra})
        assert not pip_install(wheel, tmp_path / f"t{order}").ok
        assert audit_code(wheel) == (1, {"W616"})


def test_names_apart_everywhere_pass(tmp_path: Path) -> None:
    """`demo/a.py` beside `demo/a/b.py`, `demo/ab` beside `demo/a/b.py`: no name alike."""
    files = {"demo/a.py": b"", "demo/a/b.py": b"", "demo/ab": b"", "demo/longnamefoo.py": b""}
    wheel = build(tmp_path, "1.0", {**BASE_FILES, **files, "demo/LONGNA~1/x.py": b""})
    assert audit_code(wheel) == (0, set())
