"""hatch-vcs' version file named in `hatch.toml` is read as hatchling reads it (src72).

hatchling reads `hatch.toml` beside `pyproject.toml`, each of its tables in place of
`[tool.hatch]`'s of the same name, and the layout reader did so (review71d), but the version
module reader read `pyproject.toml` alone: a real build (hatchling 1.33, hatch-vcs 0.5) of a
project whose `hatch.toml` holds `[build.hooks.vcs] version-file = "src/pkg/_version.py"` wrote
that module, and `--source` failed it W402 (absent), exit 1; and where `hatch.toml`'s `[build]`
replaced a `pyproject.toml` hook, a module the build does not write passed `generated`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from provenance.hatchvcs import HATCH_VCS_PYPROJECT, hatch_vcs_check

PYPROJECT = HATCH_VCS_PYPROJECT
HOOK = b'[version]\nsource = "vcs"\n\n[build.hooks.vcs]\nversion-file = "src/engine/_version.py"\n'
PACKAGES = b'\n[build.targets.wheel]\npackages = ["src/engine"]\n'


def _check(tmp_path: Path, files: dict[str, bytes]) -> tuple[int, dict[str, object]]:
    return hatch_vcs_check(tmp_path, {".gitignore": b"src/engine/_version.py\n", **files})


def _version_source(report: dict[str, object]) -> dict[str, object]:
    entries = report["entries"]
    assert isinstance(entries, list)
    (entry,) = [e for e in entries if e["path"] == "engine/_version.py"]
    source: dict[str, object] = entry["source"]
    return source


def test_a_version_file_hatch_toml_names_is_generated(tmp_path: Path) -> None:
    code, report = _check(tmp_path, {"pyproject.toml": PYPROJECT, "hatch.toml": HOOK + PACKAGES})

    assert code == 0, report["findings"]
    source = _version_source(report)
    assert source["status"] == "generated"
    assert source["generated_by"] == (
        "hatch-vcs (pyproject.toml and hatch.toml [tool.hatch.build.hooks.vcs] version-file)"
    )


def test_hatch_tomls_build_table_replaces_pyprojects_hook(tmp_path: Path) -> None:
    """hatchling takes `hatch.toml`'s `[build]` whole: the `pyproject.toml` hook does not run."""
    pyproject = (
        PYPROJECT + b'\n[tool.hatch.build.hooks.vcs]\nversion-file = "src/engine/_version.py"\n'
    )
    hatch = b'[version]\nsource = "vcs"\n' + PACKAGES

    code, report = _check(tmp_path, {"pyproject.toml": pyproject, "hatch.toml": hatch})

    assert code == 1
    assert _version_source(report)["status"] == "absent"


def test_a_hatch_toml_that_is_not_toml_names_no_version_file(tmp_path: Path) -> None:
    code, report = _check(
        tmp_path, {"pyproject.toml": PYPROJECT, "hatch.toml": HOOK + PACKAGES + b"[[[\n"}
    )

    assert code == 1
    assert _version_source(report)["status"] == "absent"


def test_a_pyproject_with_a_key_of_too_many_parts_stops_before_it_is_parsed(
    tmp_path: Path,
) -> None:
    """The version module reader parsed `pyproject.toml` without the layout reader's cap on
    dots a line holds: a 16,000-part key took 1.5 GB and 5 s (src72); it reads it through that
    cap (`configdocuments.toml_document`), and a file the cap leaves unread now stops the run,
    exit 2, before any reader parses it (cmake77: which backend builds is not known; it was
    said not read and the version file `absent`, exit 1)."""
    key = ".".join(["x"] * 130) + " = 1\n"
    pyproject = PYPROJECT + b"\n[tool.hatch.build.hooks.vcs]\n"
    pyproject += b'version-file = "src/engine/_version.py"\n\n[tool.hatch.build.targets.wheel]\n'
    pyproject += b'packages = ["src/engine"]\n\n[tool.more]\n' + key.encode()

    with pytest.raises(AssertionError, match="has a line of over 128 dots, not read: how the"):
        _check(tmp_path, {"pyproject.toml": pyproject})
