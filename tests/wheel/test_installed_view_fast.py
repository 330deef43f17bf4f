"""The installed view's quick paths (every file a root file, folded paths compared in one
call, needed directories found a level at a time) reach the verdict of the per-entry code."""

from __future__ import annotations

import unicodedata
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel import installed
from k3diff.wheel.collision import Collision, CollisionKind
from k3diff.wheel.installed import InstalledFile, installed_view
from k3diff.zip.directory import ZipEntry

_PARTS = ["pkg", "Pkg", "a", "A", ".", "..", "", "x.data", "data", "e\u0301", "\u00e9", "B.py"]


def _entries(names: list[str]) -> list[ZipEntry]:
    return [ZipEntry(name, i, 8, 0, 0, 1, 1, i * 100, 0, 3, name.encode()) for i, name in
            enumerate(names)]  # fmt: skip


def _names() -> st.SearchStrategy[list[str]]:
    name = st.lists(st.sampled_from(_PARTS), min_size=1, max_size=4).map("/".join)
    return st.lists(name, max_size=8)


def _old_collisions(files: tuple[InstalledFile, ...]) -> tuple[Collision, ...]:
    """The collision check before the quick path (folding each path on its own)."""
    by_path: dict[str, list[InstalledFile]] = defaultdict(list)
    by_fold: dict[str, list[InstalledFile]] = defaultdict(list)
    for file in files:
        by_path[file.path].append(file)
        by_fold[installed.fold(file.path)].append(file)
    found = [
        Collision(group[-1].path, CollisionKind.SAME_PATH, tuple(f.entry for f in group))
        for group in by_path.values()
        if len({f.entry for f in group}) > 1
    ]
    for group in by_fold.values():
        if len({file.path for file in group}) < 2:
            continue
        nfc = {unicodedata.normalize("NFC", file.path) for file in group}
        kind = CollisionKind.NORMALIZATION if len(nfc) == 1 else CollisionKind.CASE
        found.append(Collision(group[-1].path, kind, tuple(f.entry for f in group)))
    return tuple(sorted(found, key=lambda collision: collision.path))


def _old_conflicts(files: tuple[InstalledFile, ...]) -> list[tuple[str, str]]:
    """The file/directory check before the quick path (every ancestor of every path)."""
    directories: dict[str, str] = {}
    for file in files:
        cut = file.path.rfind("/")
        while cut > 0:
            directories.setdefault(file.path[:cut], file.entry)
            cut = file.path.rfind("/", 0, cut)
    return [
        (file.entry, f"installs the file {file.path}, where {directories[file.path]!r} needs a "
         "directory")
        for file in files
        if file.path in directories
    ]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(_names(), st.booleans(), st.lists(st.sampled_from(["tool", "x/y", "A"]), max_size=2))
def test_quick_view_is_the_per_entry_view(
    names: list[str], purelib: bool, generated: list[str]
) -> None:
    entries = _entries(names)
    quick = installed_view(entries, root_is_purelib=purelib, dist_name="d", generated=generated)
    saved = installed._has_data_directory
    installed._has_data_directory = lambda names, joined: True
    try:
        slow = installed_view(entries, root_is_purelib=purelib, dist_name="d", generated=generated)
    finally:
        installed._has_data_directory = saved
    assert quick == slow
    assert quick.collisions == _old_collisions(quick.files)
    conflicts = [problem for problem in quick.problems if "needs a directory" in problem[1]]
    assert conflicts == _old_conflicts(quick.files)


@pytest.mark.parametrize(
    ("names", "data"),
    [
        (["pkg/a.py"], False),
        (["x.data/scripts/t"], True),
        (["x.data"], True),
        (["x.data/"], True),
        (["pkg/x.data/a"], False),  # `.data` below the top: a root file
        (["a.datab/x"], False),
    ],
)
def test_data_directory_is_a_first_component_ending_in_data(names: list[str], data: bool) -> None:
    assert installed._has_data_directory(names, "\0".join(names)) is data


def test_version_numbers_of_thousands_of_digits_are_no_python_not_a_traceback() -> None:
    """Python refuses to convert over 4,300 digits: a hostile path or tag must not end the run."""
    from k3diff.wheel.abi3 import abi3_baseline
    from k3diff.wheel.targets import NO_SUCH_VERSION, target_pythons

    huge = "3" * 5000
    name = f"demo-1.0.data/data/lib/python3.{huge}/site-packages/evil.pth"
    view = installed_view(_entries([name]), root_is_purelib=True, dist_name="demo")
    assert [path for path, _ in view.partial] == [name]  # W627 still says where it lands
    assert target_pythons([f"cp3{huge}-cp3{huge}-linux_x86_64"]).describe()
    assert abi3_baseline([f"cp3{huge}-abi3-linux_x86_64"]) == (3, NO_SUCH_VERSION)
