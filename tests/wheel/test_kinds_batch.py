"""`kinds_from_paths` (every path's kind by C-level maps, for a span's thousand entries) says
what `kind_from_path` says of each path."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.kinds import kind_from_path, kinds_from_paths

_PIECES = st.sampled_from(
    [
        "/", ".dist-info", ".DIST-INFO", "pkg", ".py", ".PYI", ".pyc", ".so", ".so.1.2", ".So.x",
        ".pyd", ".dll", ".dylib", ".cubin", ".fatbin", ".a", ".h", "a", "\u0130", "\u00df", "",
        ".data", "\n", ".", "\u017f", ".\u017fo", "\u212a", "\u0131", "/x.dist-info/",
    ]
)  # fmt: skip
paths = st.one_of(st.lists(_PIECES, max_size=6).map("".join), st.text(max_size=12))


@settings(max_examples=600, deadline=None)
@given(st.lists(paths, max_size=12))
def test_the_batch_says_what_each_path_says(names: list[str]) -> None:
    assert kinds_from_paths(names) == [kind_from_path(name) for name in names]


def test_every_kind_and_none() -> None:
    names = ["a-1.dist-info/RECORD", "x.dist-info", "pkg/a.PY", "pkg/_C.so.1", "pkg/a.h", ""]
    assert kinds_from_paths(names) == [kind_from_path(name) for name in names]
    assert [kind and kind.value for kind in kinds_from_paths(names)] == [
        "metadata", None, "python", "native", None, None
    ]  # fmt: skip


def test_a_letter_that_folds_to_ascii() -> None:
    """U+017F (long s) matches `s` case-blind: a batch holding it is searched as each path is."""
    names = ["pkg/_C.\u017fo", "pkg/_C.so", "pkg/_C.SO.1", "pkg/\u212a.a"]
    assert kinds_from_paths(names) == [kind_from_path(name) for name in names]
    assert kinds_from_paths(names)[0] == kind_from_path("pkg/_C.\u017fo")
