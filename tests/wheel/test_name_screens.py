"""Name screens computed once for a pair of wheels (`namescreens.screen_pair`): the patch's
screens are exactly those of its names screened alone, on near-identical name lists, hostile
ones included (a few names added, removed, renamed or given twice, names differing only in
case, another `.dist-info`, `.data` directories, directories, names that need `normpath` or
climb out, names Windows cannot write); and the checks that take them (`install_check`, `soundness_findings`) reach the
verdict they reach screening on their own."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from wheelkit import make_wheel

from k3diff.wheel import installed, soundness, windowsnames
from k3diff.wheel.installable import install_check
from k3diff.wheel.namescreens import screen_names, screen_pair
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

HOSTILE = [
    "demo/A.py",  # folds to demo/a.py
    "Demo/a.py",
    "demo/a.py",
    "demo/",  # a directory
    "demo//b.py",  # normpath changes it
    "demo/./b.py",
    "./demo/c.py",
    "/abs.py",
    "../up.py",
    "demo/../../up.py",
    "c:/drive.py",
    "\\back.py",
    "demo\\win.py",
    "demo-1.0.data/scripts/run",
    "demo/nul.py",  # a Windows device name
    "demo/Con /x.py",
    "demo/x.py.",  # a name Windows writes as another
    "demo/x.py:s",
    "demo-1.0.data/data/share/AUX",
    "demo-1.0.data/purelib/demo/d.py",
    "Demo-1.0.dist-info/METADATA",  # a second `.dist-info`
    "other-2.0.dist-info/RECORD",
    "top.py",
    ".hidden",
    "",
]
"""Names each screen, or the tops, looks for."""

KINDS = ["insert", "insert", "insert", "replace", "delete", "double"]
"""Edits of the base's names, mostly additions: only a patch that keeps every base name shares
the base's screens."""

_names = st.one_of(
    st.builds("demo/new{}.py".format, st.integers(0, 5)),
    st.sampled_from(HOSTILE),
    st.sampled_from(HOSTILE),
)


def _base(count: int) -> list[str]:
    return [
        "demo-1.0.dist-info/METADATA",
        "demo-1.0.dist-info/RECORD",
        *(f"demo/m{i}.py" for i in range(count)),
    ]


def _edited(names: list[str], edits: list[tuple[str, int, str]]) -> list[str]:
    edited = list(names)
    for kind, at, name in edits:
        index = at % (len(edited) + 1)
        if kind == "insert":
            edited.insert(index, name)
        elif not edited:
            continue
        elif kind == "replace":
            edited[index % len(edited)] = name
        elif kind == "delete":
            del edited[index % len(edited)]
        else:  # "double": a name given twice
            edited.insert(index, edited[index % len(edited)])
    return edited


def _entries(names: list[str]) -> tuple[ZipEntry, ...]:
    return tuple(
        ZipEntry(name, i, 8, 0, 0, 1, 1, 0, 0, 3, name.encode()) for i, name in enumerate(names)
    )


def _one_by_one(names: list[str]) -> tuple[bool, bool, bool, bool, bool]:
    """The screens as "some name has it", each name tested alone: what sharing relies on."""
    joined = ["\0".join([name]) for name in names]
    return (
        any(map(installed._may_need_norm, joined)),
        any(installed._has_data_directory([name], name) for name in names),
        any(name.endswith("/") for name in names),
        any(map(soundness.names_may_be_unsafe, joined)),
        any(map(windowsnames.may_hold_windows_names, joined)),
    )


@settings(max_examples=300, deadline=None)
@given(
    count=st.integers(0, 30),
    base_extra=st.lists(_names, max_size=2),
    edits=st.lists(
        st.tuples(st.sampled_from(KINDS), st.integers(0, 40), _names),
        max_size=4,
    ),
)
def test_the_patchs_screens_are_its_own(
    count: int, base_extra: list[str], edits: list[tuple[str, int, str]]
) -> None:
    base = _base(count) + base_extra
    patch = _edited(base, edits)
    shared = screen_pair(_entries(base), _entries(patch))
    assert shared == (screen_names(base), screen_names(patch))
    for names, screens in zip((base, patch), shared, strict=True):
        assert screens[:5] == _one_by_one(names)
        assert screens.tops == {name.partition("/")[0] for name in names}


def test_a_base_name_gone_takes_its_top_with_it() -> None:
    base = [*_base(3), "extra/x.py"]
    patch = [*_base(3), "demo/new.py"]
    _, screens = screen_pair(_entries(base), _entries(patch))
    assert "extra" not in screens.tops and screens == screen_names(patch)


@settings(max_examples=40, deadline=None)
@given(
    edits=st.lists(
        st.tuples(
            st.sampled_from(KINDS[:-1]),
            st.integers(0, 20),
            st.sampled_from([n for n in HOSTILE if n and not n.endswith("/")]),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_checks_given_the_shared_screens_reach_their_own_verdict(
    tmp_path_factory: object, edits: list[tuple[str, int, str]]
) -> None:
    root = tmp_path_factory.mktemp("pair")  # type: ignore[attr-defined]
    files = {f"demo/m{i}.py": b"x = %d\n" % i for i in range(12)}
    names = _edited(list(files), edits)
    patch_files = {name: files.get(name, b"y\n") for name in names}
    base = make_wheel(Path(root) / "base", "demo", "1.0", files)
    patch = make_wheel(Path(root) / "patch", "demo", "1.0", patch_files)
    with ZipArchive.open(base) as old, ZipArchive.open(patch) as new:
        screens = screen_pair(old.entries, new.entries)
        for archive, side, screen in ((old, "base", screens[0]), (new, "patch", screens[1])):
            assert install_check(archive, side, screens=screen) == install_check(archive, side)
            given_flag = list(soundness.soundness_findings(archive, side, screen.may_be_unsafe))
            assert given_flag == list(soundness.soundness_findings(archive, side))


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.text(alphabet="/.\\: aAn~1", max_size=7)
        | st.sampled_from([*HOSTILE, "d.data/x.py", "x.data", "demo/nul", "x/.data/y", "a..b.py"]),
        max_size=6,
    )
)
def test_every_screen_is_its_own_search_of_the_names_joined(names: list[str]) -> None:
    """The screens as `installed`, `soundness` and `windowsnames` define them, however few
    searches `screen_names` makes: names of slashes, dots, backslashes, colons, spaces, and
    the hostile ones."""
    joined = "\0".join(names)
    assert screen_names(names)[:5] == (
        installed._may_need_norm(joined),
        installed._has_data_directory(names, joined),
        "/\0" in joined or joined.endswith("/"),
        soundness.names_may_be_unsafe(joined),
        windowsnames.may_hold_windows_names(joined),
    )
