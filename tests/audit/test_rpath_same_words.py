"""A changed native's search path matched to its base's by the component, not by its words
(review78d).

`wheels` holds (W632) only the components the base's search path lacked (review75g, elf78). They
were matched by the finding's words, which quote a component cut at 160 characters and an
over-long search path by its length alone: a patch whose RPATH named another directory under
/tmp, the same for its first 160 characters, or a RUNPATH of as many characters as the base's
over-long one, passed `wheels --allow-native-changes`, exit 0."""

from __future__ import annotations

import itertools
import shutil
import string
from pathlib import Path

import pytest
from wheel.test_installed_view import codes, wheels_json

from audit.test_rpath_hijack import demo_wheel, library
from audit.test_rpath_loader_reads import ALLOW, EXPLAIN

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

LONG = "/tmp/" + "a" * 200


@pytest.mark.parametrize(
    ("old", "new", "runpath"),
    [
        (LONG + "/build", LONG + "/other", False),  # cut alike at 160 characters
        ("/tmp/" + "b" * 70_000, "/tmp/" + "c" * 70_000, True),  # past JUDGED_LENGTH, alike long
    ],
)
def test_a_new_directory_worded_as_the_base_one_fails(
    tmp_path: Path, old: str, new: str, runpath: bool
) -> None:
    base = demo_wheel(tmp_path / "b", "1.0", {"demo/_ext.so": library(tmp_path / "o", old)})
    built = library(tmp_path / "n", new, runpath=runpath)
    patch = demo_wheel(tmp_path / "p", "2.0", {"demo/_ext.so": built})
    for options in (ALLOW, EXPLAIN):
        exit_code, report = wheels_json(base, patch, *options)
        assert exit_code == 1 and "W632" in codes(report), (options, report["findings"])
    kept = demo_wheel(tmp_path / "k", "2.0", {"demo/_ext.so": library(tmp_path / "k", old)})
    exit_code, report = wheels_json(base, kept, *ALLOW)  # the base's own: `audit`'s business
    assert exit_code == 0 and not codes(report) & {"W632", "W633"}, report["findings"]


def _components(letters: str, count: int) -> str:
    """`count` distinct relative components of three of `letters` (each a hijack: W632)."""
    return ":".join(
        "".join(c) for c in itertools.islice(itertools.product(letters, repeat=3), count)
    )


def test_many_components_are_each_judged(tmp_path: Path) -> None:
    """16,000 components a side, none the base's: elf78 matched them pairwise (2.6e8 matches,
    half a minute a native, and a wheel holds many); a set now (under a second). No timing is
    asserted here (the house keeps timings in scripts/ benchmarks): the verdict is."""
    old, new = (
        _components(string.ascii_lowercase, 16_000),
        _components(string.ascii_uppercase, 16_000),
    )
    base = demo_wheel(tmp_path / "b", "1.0", {"demo/_ext.so": library(tmp_path / "o", old)})
    patch = demo_wheel(tmp_path / "p", "2.0", {"demo/_ext.so": library(tmp_path / "n", new)})
    exit_code, report = wheels_json(base, patch, *ALLOW)
    assert exit_code == 1 and "W632" in codes(report), report["findings"]
