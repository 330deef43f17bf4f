"""What a patch's installed paths say of its execution surfaces, taken from its base's where its
files are the base's objects (`wheel.surfacepaths`), is what they say read alone: the files
that may be surfaces, the `entry_points.txt` files, each top-level name's first file and the
first file that may be a tool's, whatever names the patch adds, drops, renames or twins."""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.installed import InstalledFile, installed_view
from k3diff.wheel.installedbeside import installed_view_beside
from k3diff.wheel.namescreens import screen_names
from k3diff.wheel.surfacepaths import SurfacePaths, surface_paths
from k3diff.zip.directory import ZipEntry

_TOPS = ["x.pth", "sitecustomize.py", "six.py", "zz.pth", "pip.conf", "late.py"]
_DIRECTORIES = ["pkg/", "pkg/sub/", "pkg/__pycache__/", "o-1.dist-info/", "z.libs/", "bin/",
                "late/"]  # fmt: skip
_LEAVES = ["m.py", "n.py", "a.pyc", "y.pth", "entry_points.txt", "customize.py"]
_POOL = _TOPS + [directory + leaf for directory in _DIRECTORIES for leaf in _LEAVES]
"""A base's names: no two one file, none a file where another needs a directory, so that a
patch's view may take the base's files; many of them some surface test is true of."""
_TWINS = ["Pkg/m.py", "X.PTH", "SiteCustomize.py", "O-1.DIST-INFO/entry_points.txt", "Bin/t",
          "pkg/six.pyc", "usercustomize.py", "new/m.py", "pkg/m.py/x", "pyvenv.cfg"]  # fmt: skip
"""Names only a patch holds: case twins and near misses of the base's, new top-level names."""
_DATA = ["d-1.data/scripts/run", "d-1.data/data/etc/ipython/c.py", "d-1.data/data/bin/t",
         "d-1.data/data/pip.conf", "d-1.data/headers/h.h"]  # fmt: skip
"""Names whose files install outside site-packages: scripts, a tool's file, headers."""


def _entries(names: list[str]) -> list[ZipEntry]:
    return [ZipEntry(name, i, 8, 0, 0, 1, 1, i * 100, 0, 3, name.encode()) for i, name in
            enumerate(names)]  # fmt: skip


def _name(parts: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(parts), min_size=1, max_size=3).map("/".join)


@st.composite
def _pair(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """The base's names (a few installing outside site-packages, last, as pip orders them) and
    the patch's: the base's own objects, some dropped, a few new or renamed ones anywhere,
    mostly at the end."""
    base = draw(st.lists(st.sampled_from(_POOL), min_size=1, max_size=40, unique=True))
    base += draw(st.lists(st.sampled_from(_DATA), max_size=2, unique=True) | st.just([]))
    patch = list(base)
    for _ in range(draw(st.integers(0, 3))):
        new = draw(st.sampled_from(_POOL + _TWINS + _DATA))
        at = draw(st.integers(0, len(patch)) | st.just(len(patch)))
        if draw(st.booleans()) and at < len(patch):
            patch[at] = new  # renamed in place
        else:
            patch.insert(at, new)
    dropped: int = draw(st.integers(-1, len(patch) - 1))
    if dropped >= 0:
        del patch[dropped]
    return base, patch


def _files(view_files: tuple[InstalledFile, ...]) -> list[InstalledFile]:
    return [file for file in view_files if not file.generated]


@settings(max_examples=500, deadline=None)
@given(pair=_pair(), purelib=st.booleans())
def test_the_paths_beside_the_base_s_say_what_they_say_alone(
    pair: tuple[list[str], list[str]], purelib: bool
) -> None:
    base_names, patch_names = pair
    view = functools.partial(installed_view, dist_name="d", generated=["tool"])
    base_view = view(_entries(base_names), root_is_purelib=purelib)
    base = _files(base_view.files)
    patch_view = installed_view_beside(
        _entries(patch_names),
        base_view,
        root_is_purelib=purelib,
        dist_name="d",
        generated=["tool"],
        screens=screen_names(patch_names),
    )
    patch = _files(patch_view.files)
    said = surface_paths(base)
    alone = surface_paths(patch)
    assert surface_paths(patch, beside=said) == alone
    assert surface_paths(base, beside=said) == said


def _said_beside(base: list[str], patch: list[str]) -> tuple[SurfacePaths, SurfacePaths]:
    """Both wheels' paths read, the patch's beside the base's, its view sharing the base's."""
    view = functools.partial(installed_view, root_is_purelib=True, dist_name="d")
    base_view = view(_entries(base))
    patch_view = installed_view_beside(
        _entries(patch), base_view, root_is_purelib=True, dist_name="d", screens=screen_names(patch)
    )
    said = surface_paths(_files(base_view.files))
    return said, surface_paths(_files(patch_view.files), beside=said)


_MANY = [f"pkg/m{index:02}.py" for index in range(40)]
"""More names than a view beside its base's may add, so the patch's view is shared."""


def test_the_shared_files_answers_are_the_base_s_and_the_others_are_searched() -> None:
    base = ["x.pth", *_MANY, "late/a.py", "etc.pth"]
    patch = ["x.pth", *_MANY, "late/b.py", "late/a.py", "sitecustomize.py"]
    said, beside = _said_beside(base, patch)
    assert beside.files[:41] == said.files[:41]
    assert all(map(lambda a, b: a is b, beside.files[:41], said.files))  # shared, not rebuilt
    assert said.surfaced == [0, 42]  # x.pth, etc.pth
    assert beside.surfaced == [0, 43]  # x.pth; etc.pth is gone, sitecustomize.py is new
    assert said.tops["late"] == 41 and beside.tops["late"] == 41  # late/b.py now gives it
    assert beside.files[41].entry == "late/b.py"
    assert "sitecustomize" in beside.tops and "etc" not in beside.tops


def test_an_entry_points_file_past_the_shared_files_is_the_patch_s_own() -> None:
    base = [*_MANY, "o-1.dist-info/entry_points.txt"]
    patch = [*_MANY, "p-1.dist-info/METADATA"]
    said, beside = _said_beside(base, patch)
    assert said.points == [40]
    assert beside.points == []
    assert beside == surface_paths(beside.files)
