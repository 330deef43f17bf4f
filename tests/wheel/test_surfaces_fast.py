"""The execution-surface scan's quick paths (the files that may be surfaces found by substring
searches of every path at once, top-level names found from each first (top, slash) key, looked
up in the joined paths) reach the per-file verdict."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel import surfacepaths, surfaces, toplevel
from k3diff.wheel.installed import InstalledFile, installed_view
from k3diff.wheel.surfacekinds import Surface, SurfaceKind
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
            f"top-level name {name!r} ({surfaces._imported(name)})", executable=False,
        )  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(_PARTS), min_size=1, max_size=3).map("/".join), max_size=8)
)
def test_top_level_names_and_screen_are_the_per_file_ones(names: list[str]) -> None:
    entries = [ZipEntry(n, i, 8, 0, 0, 1, 1, 0, 0, 3, n.encode()) for i, n in enumerate(names)]
    view = installed_view(entries, root_is_purelib=True, dist_name="d", generated=["tool"])
    files = [file for file in view.files if not file.generated]
    _assert_quick_paths_agree(files)


def _assert_quick_paths_agree(files: list[InstalledFile]) -> None:
    paths = [file.path for file in files]
    joined = "\0" + "\0".join(paths) + "\0"
    tops = toplevel.top_level_names(paths, joined)
    assert list(surfaces._top_level_surfaces(files, tops)) == list(_old_top_level(files))
    assert toplevel._first_tops(paths, joined) == toplevel._first_tops_per_path(paths)
    said = surfacepaths.surface_paths(files)
    assert said.surfaced == [i for i, file in enumerate(files) if surfacepaths.may_be_surface(file)]
    assert said.points == [i for i, path in enumerate(paths) if path.endswith("/entry_points.txt")]
    assert said.tops == tops


_SEGMENT = st.text(alphabet="ab./_-\u00e9", max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["site-packages/", "bin/", "include/site/", "", "site-packages//"]),
            st.lists(
                st.sampled_from([*_PARTS, "customize.py", "x.pyo", "y.pth"]) | _SEGMENT,
                min_size=1,
                max_size=3,
            ).map("/".join),
            st.sampled_from(["purelib", "platlib", "scripts", "data", "headers"]),
        ),
        max_size=12,
    ),
    st.integers(min_value=0, max_value=70),
)
def test_quick_paths_on_any_installed_paths(
    rows: list[tuple[str, str, str]], extra_tops: int
) -> None:
    """Paths as any view may give them (site-packages or not, any scheme, empty segments,
    names beyond ASCII), and wheels with more top-level names than are looked up one by one."""
    paths = [prefix + rest for prefix, rest, _ in rows]
    paths += [f"site-packages/top{k}.py" for k in range(extra_tops)]
    schemes = [scheme for _, _, scheme in rows] + ["purelib"] * extra_tops
    files = [
        InstalledFile(f"entry{k}", scheme, path, k, False)
        for k, (path, scheme) in enumerate(zip(paths, schemes, strict=True))
    ]
    _assert_quick_paths_agree(files)


def test_tops_that_interleave_reach_the_per_path_answer() -> None:
    """Groups passed over whole, a top scattered between others, and so many scattered paths
    that the per-path way takes over: each gives the per-path answer."""
    shapes = [
        [f"site-packages/{top}/m{k}.py" for top in ("a", "b", "c") for k in range(50)],
        [
            "site-packages/a/first.py",
            *(f"site-packages/d.dist-info/f{k}" for k in range(5)),
            *(f"site-packages/b/m{k}.py" for k in range(40)),
            *(f"site-packages/a/m{k}.py" for k in range(30)),
            "bin/tool",
            "site-packages/six.py",
        ],
        [f"site-packages/{'ab'[k % 2]}/m{k}.py" for k in range(600)],
    ]
    for paths in shapes:
        files = [InstalledFile(f"e{k}", "purelib", p, k, False) for k, p in enumerate(paths)]
        _assert_quick_paths_agree(files)
