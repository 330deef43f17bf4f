"""A patch's installed view built beside its base's is the view built alone
(`wheel.installedbeside`): the same files, collisions, problems and flags, whatever the names
the patch adds (a case-fold twin of a shared path, a file where a shared path needs a directory,
a directory where a shared file is, names Windows reads as others)."""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.installed import InstalledView, installed_view
from k3diff.wheel.installedbeside import installed_view_beside
from k3diff.wheel.namescreens import screen_names
from k3diff.zip.directory import ZipEntry

_PARTS = ["pkg", "a", "b.py", "x", "d", "\u00e9"]
"""Parts of a base's names: mostly a base that no check finds anything in."""
_ODD = ["Pkg", "A", "B.py", "x.", "x y", "c~1", "e\u0301"]
"""Parts only a patch's new names may hold too: case twins, names Windows reads as others."""


def _entries(names: list[str]) -> list[ZipEntry]:
    return [ZipEntry(name, i, 8, 0, 0, 1, 1, i * 100, 0, 3, name.encode()) for i, name in
            enumerate(names)]  # fmt: skip


def _name(parts: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(parts), min_size=1, max_size=4).map("/".join)


@st.composite
def _pair(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """The base's names and the patch's: the base's own objects, some dropped, a few new
    names put anywhere (mostly at the end, as a rebuilt wheel adds them): any name, a shared
    one with another case, a file under a shared file, a shared file's directory."""
    base = draw(st.lists(_name(_PARTS), min_size=1, max_size=40))
    patch = list(base)
    for _ in range(draw(st.integers(0, 3))):
        shared = draw(st.sampled_from(base))
        new = draw(
            _name(_PARTS + _ODD)
            | st.just(shared.swapcase())
            | st.just(f"{shared}/c")
            | st.just(shared.rpartition("/")[0] or "pkg/")
            | st.sampled_from(["pkg/", "pkg/a/", "bin/x", "pkg/b.py/c"])
        )
        at = draw(st.integers(0, len(patch)) | st.just(len(patch)))
        patch.insert(at, new)
    dropped: int = draw(st.integers(-1, len(patch) - 1))
    if dropped >= 0:
        del patch[dropped]
    return base, patch


_GENERATED = st.lists(st.sampled_from(["tool", "x", "pkg", ("Tool", "console script 'T'")]))


@settings(max_examples=400, deadline=None)
@given(pair=_pair(), generated=_GENERATED, purelib=st.booleans(), other=st.booleans())
def test_the_view_beside_the_base_s_is_the_view_alone(
    pair: tuple[list[str], list[str]],
    generated: list[str | tuple[str, str]],
    purelib: bool,
    other: bool,
) -> None:
    base_names, patch_names = pair
    view = functools.partial(installed_view, dist_name="pkg", generated=generated)
    base = view(_entries(base_names), root_is_purelib=purelib != other)  # the other root, or not
    alone = view(_entries(patch_names), root_is_purelib=purelib)
    beside = installed_view_beside(
        _entries(patch_names),
        base,
        root_is_purelib=purelib,
        dist_name="pkg",
        generated=generated,
        screens=screen_names(patch_names),
    )
    assert beside == alone
    assert beside.plain_keys == alone.plain_keys
    assert [file.order for file in beside.files] == list(range(len(beside.files)))


def _beside(names: list[str], base: InstalledView) -> InstalledView:
    return installed_view_beside(
        _entries(names), base, root_is_purelib=True, dist_name="pkg", screens=screen_names(names)
    )


def test_shared_files_are_the_base_s_objects() -> None:
    names = [f"pkg/m{index}.py" for index in range(40)]
    base = installed_view(_entries(names), root_is_purelib=True, dist_name="pkg")
    beside = _beside([*names, "pkg/new.py"], base)
    assert base.plain_keys and beside.plain_keys
    assert all(map(lambda a, b: a is b, beside.files[:40], base.files))
    assert beside.files[40].path == "site-packages/pkg/new.py"


def test_a_new_name_windows_reads_as_another_is_keyed_as_windows_keys_it() -> None:
    names = [f"pkg/m{index}.py" for index in range(40)]
    base = installed_view(_entries(names), root_is_purelib=True, dist_name="pkg")
    patch = [*names, "pkg/m1.py."]  # Windows drops the trailing dot: pkg/m1.py
    alone = installed_view(_entries(patch), root_is_purelib=True, dist_name="pkg")
    assert alone.collisions and not alone.plain_keys
    assert _beside(patch, base) == alone


def test_a_base_with_a_collision_shares_nothing() -> None:
    names = [*(f"pkg/m{index}.py" for index in range(40)), "pkg/M0.py"]
    base = installed_view(_entries(names), root_is_purelib=True, dist_name="pkg")
    assert base.collisions and not base.plain_keys
    beside = _beside(names, base)
    assert beside == base
    assert not any(map(lambda a, b: a is b, beside.files, base.files))


def test_a_base_of_the_other_root_scheme_shares_nothing() -> None:
    names = [f"pkg/m{index}.py" for index in range(40)]
    base = installed_view(_entries(names), root_is_purelib=False, dist_name="pkg")
    patch = [*names, "pkg/new.py"]
    alone = installed_view(_entries(patch), root_is_purelib=True, dist_name="pkg")
    assert _beside(patch, base) == alone
    assert {file.scheme for file in alone.files} == {"purelib"}


def test_a_new_file_named_as_a_shared_directory_in_another_case_is_found() -> None:
    """`pkg/A` added beside the base's `pkg/a/b.py`, or `pkg/a/b.py` beside its `pkg/A`: one
    name on Windows and macOS (W615), which the shared view missed (names78)."""
    names = [f"pkg/m{index}.py" for index in range(40)]
    for shared, new in (("pkg/a/b.py", "pkg/A"), ("pkg/A", "pkg/a/b.py")):
        base = installed_view(_entries([*names, shared]), root_is_purelib=True, dist_name="pkg")
        patch = [*names, shared, new]
        alone = installed_view(_entries(patch), root_is_purelib=True, dist_name="pkg")
        assert alone.alike and not alone.plain_keys
        assert _beside(patch, base) == alone
