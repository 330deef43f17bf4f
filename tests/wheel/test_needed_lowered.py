"""`installed._view` asks the directories the installed paths need once (`directorytrie.needed`)
and, where each key is its path in lower case (ASCII paths no Windows rule changes), derives the
keys' from them (`directorytrie.lowered`) instead of walking every key again: the two must be the
directories the lowered paths need, and W615/W616 must be found as when each was walked."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.directorytrie import lowered, needed
from k3diff.wheel.installed import installed_view
from k3diff.zip.directory import ZipEntry

_PATHS = st.lists(st.text(alphabet="aAbB/.", max_size=10), max_size=10)


@settings(max_examples=300, deadline=None)
@given(_PATHS)
def test_lowered_is_what_the_lowered_paths_need(paths: list[str]) -> None:
    assert lowered(needed(paths)) == needed([path.lower() for path in paths])


def _entries(names: list[str]) -> list[ZipEntry]:
    return [ZipEntry(name, i, 8, 0, 0, 1, 1, i * 100, 0, 3, name.encode()) for i, name in
            enumerate(names)]  # fmt: skip


@pytest.mark.parametrize(
    ("names", "alike", "problems"),
    [
        (["demo/A", "demo/a/b.py", "demo/c", "demo/c/d.py", "demo/e/f.py"], ["demo/A"], ["demo/c"]),
        (["demo/A", "demo/a./b.py", "demo/c", "demo/c/d.py"], ["demo/A"], ["demo/c"]),
        (["demo/a", "demo/b/c.py"], [], []),
    ],
    ids=["keys lowered", "keys by Windows' rules", "none"],
)
def test_files_named_as_a_needed_directory_are_found(
    names: list[str], alike: list[str], problems: list[str]
) -> None:
    """W615 from the keys' directories (derived, or walked where Windows' rules made a key more
    than its path lowered), W616 from the paths' own, side by side."""
    view = installed_view(_entries(names), root_is_purelib=True, dist_name="demo")
    assert [path for path, _ in view.alike] == [f"site-packages/{name}" for name in alike]
    assert [entry for entry, _ in view.problems] == problems
