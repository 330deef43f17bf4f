"""`wheels --source`: what a hatchling before 1.22 leaves out, where the commit pins one.

hatchling 1.21.1 matches one list of its defaults, ``exclude``, then the VCS files' patterns
(1.22 on: the VCS files' before ``exclude``), the last matching pattern deciding, and looks for
a ``.gitignore`` up past the repository's root (1.22 on: not past ``.git``). Real builds
(``python -m build --no-isolation``, hatchling 1.21.1 against 1.33.0) of a commit pinning
``hatchling<1.22``: with ``exclude = ["!src/pkg/testing/"]`` and a ``.gitignore`` naming
``src/pkg/testing/``, 1.21.1 left ``pkg/testing/`` out and 1.33.0 shipped it; with ``exclude =
["src/pkg/testing"]``, no ``.gitignore`` in the repository and one above the checkout saying
``!src/pkg/testing/``, 1.21.1 shipped ``pkg/testing/fake_auth.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_provenance_left_out import BUILT, FILES, HATCH, _check, _failing

FAKE = FILES["pkg/testing/fake_auth.py"]


def _pinned(requirement: bytes) -> bytes:
    return HATCH.replace(b'requires = ["hatchling"]', b'requires = ["' + requirement + b'"]')


@pytest.mark.parametrize("requirement", [b"hatchling<1.22", b"hatchling==1.21.1"])
def test_a_gitignore_read_after_an_exclude_negation_leaves_the_file_out(
    tmp_path: Path, requirement: bytes
) -> None:
    """The patch ships the commit's ``pkg/testing/fake_auth.py``, which 1.21.1 leaves out:
    it matched, exit 0 (k3diff read the negation as taking the ``.gitignore``'s back)."""
    pyproject = _pinned(requirement) + b'exclude = ["!src/pkg/testing/"]\n'
    later: dict[str, bytes | None] = {".gitignore": b"src/pkg/testing/\n"}
    patch = {**BUILT, "pkg/testing/fake_auth.py": FAKE}

    code, report = _check(tmp_path, pyproject, BUILT, patch, later)

    assert code == 1
    assert _failing(report) == [("W412", "pkg/testing/fake_auth.py")]
    assert "hatchling before 1.22, by .gitignore (read after exclude)" in str(report["findings"])


def test_the_newest_hatchling_still_reads_the_exclude_negation_last(tmp_path: Path) -> None:
    pyproject = _pinned(b"hatchling>=1.22") + b'exclude = ["!src/pkg/testing/"]\n'
    later: dict[str, bytes | None] = {".gitignore": b"src/pkg/testing/\n"}
    patch = {**BUILT, "pkg/testing/fake_auth.py": FAKE}

    code, report = _check(tmp_path, pyproject, BUILT, patch, later)

    assert code == 0, _failing(report)


@pytest.mark.parametrize(
    "requirement",
    [b"hatchling<1.22", b'hatchling<1.22; python_version >= \\"3.8\\"'],
    ids=["pinned", "under a marker"],
)
def test_a_module_dropped_by_exclude_alone_is_still_said_where_an_old_hatchling_builds(
    tmp_path: Path, requirement: bytes
) -> None:
    """The patch drops ``pkg/testing/``, which 1.21.1 ships where a ``.gitignore`` above the
    checkout takes ``exclude`` back: it passed (no W410, the exclusion read as certain)."""
    pyproject = _pinned(requirement) + b'exclude = ["src/pkg/testing"]\n'

    code, report = _check(tmp_path, pyproject, FILES, BUILT)

    assert code == 1
    assert ("W410", "pkg/testing/fake_auth.py") in _failing(report)


def test_an_unpinned_hatchling_drops_an_excluded_module_without_w410(tmp_path: Path) -> None:
    pyproject = HATCH + b'exclude = ["src/pkg/testing"]\n'

    code, report = _check(tmp_path, pyproject, FILES, BUILT)

    assert code == 0, _failing(report)
