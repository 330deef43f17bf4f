"""The execution-surface scan's quick paths (files screened by substring tests of every path at
once, top-level names found from each first (top, slash) key) reach the per-file verdict."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel import surfaces
from k3diff.wheel.installed import InstalledFile, installed_view
from k3diff.wheel.surfaces import Surface, SurfaceKind
from k3diff.zip.directory import ZipEntry

_PARTS = ["pkg", "mod.py", "x.pth", "a.pyc", "bin", "sitecustomize.py", "z.libs", "m.dist-info",
          "__pycache__", "", "d.data", "scripts", "c.so"]  # fmt: skip


def _old_top_level(files: list[InstalledFile]) -> Iterator[Surface]:
    """The per-file top-level scan before the quick path."""
    names: dict[str, str] = {}
    for file in files:
        inner = file.path.removeprefix("site-packages/")
        if inner == file.path:
            continue
        top = inner.split("/", 1)[0]
        if top.endswith((".dist-info", ".pth")) or top == "__pycache__":
            continue
        if "/" in inner and top.endswith(".libs"):
            continue
        name = top.split(".", 1)[0] if "/" not in inner else top
        names.setdefault(name, file.entry)
    for name, entry in sorted(names.items()):
        yield Surface(
            SurfaceKind.TOP_LEVEL, f"site-packages/{name}", entry,
            f"top-level name {name!r} (import {name})", executable=False,
        )  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(_PARTS), min_size=1, max_size=3).map("/".join), max_size=8)
)
def test_top_level_names_and_screen_are_the_per_file_ones(names: list[str]) -> None:
    entries = [ZipEntry(n, i, 8, 0, 0, 1, 1, 0, 0, 3, n.encode()) for i, n in enumerate(names)]
    view = installed_view(entries, root_is_purelib=True, dist_name="d", generated=["tool"])
    files = [file for file in view.files if not file.generated]
    paths = [file.path for file in files]
    assert list(surfaces._top_level_surfaces(files, paths)) == list(_old_top_level(files))
    if not surfaces._may_hold_file_surfaces(files, paths):
        assert not any(surfaces._may_be_surface(file) for file in files)
