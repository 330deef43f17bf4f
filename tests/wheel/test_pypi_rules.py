"""Core metadata PyPI's upload refuses though `packaging.metadata` and `twine check` accept it
(warehouse's `forklift/metadata.py`, hunt79): each passed `audit`, exit 0. twine, where
installed, is held to accepting them (so the finding names PyPI alone), pip to installing them."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.pipinstall import pip_install
from wheel.rawwheel import metadata, write_wheel
from wheel.test_core_metadata import FILES, twine_refuses
from wheel.test_installed_view import audit_code, codes, wheels_json

REFUSED = {
    "direct dependency": (
        "Requires-Dist: helper @ https://example.invalid/helper-1.0.tar.gz",
        "Can't have direct dependency",
    ),
    "Provides-Dist naming a URL": (
        "Provides-Dist: helper @ https://example.invalid/helper-1.0.tar.gz",
        "Can't have direct dependency",
    ),
    "Obsoletes-Dist that is no requirement": ("Obsoletes-Dist: helper >=", "is invalid"),
    "Summary over 512 characters": ("Summary: " + "s" * 513, "512 characters or less"),
    "Project-URL label over 32 characters": (
        "Project-URL: " + "l" * 33 + ", https://example.invalid/",
        "32 characters or less",
    ),
    "Project-URL with no label": ("Project-URL: , https://example.invalid/", "Must have a label"),
    "License beside License-Expression": (
        "License: MIT\nLicense-Expression: MIT",
        "License is deprecated when License-Expression is present",
    ),
    "Dynamic naming Dynamic": ("Dynamic: Dynamic", "is not a valid dynamic field"),
}
VERSIONS = {"Metadata-Version 2.6": "2.6"}
"""Cases whose line is the Metadata-Version itself: packaging 26 reads 2.6 (twine check passes
it), warehouse's SUPPORTED_METADATA_VERSIONS stops at 2.5 (hunt80: it passed, exit 0)."""
REFUSED["Metadata-Version 2.6"] = ("", "'2.6' is not a valid metadata version")
ACCEPTED = (
    "Requires-Dist: helper >=1.0",
    "Summary: " + "s" * 512,
    "Project-URL: " + "l" * 32 + ", https://example.invalid/",
    "Provides-Dist: helper",
    "License-Expression: MIT",
)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_metadata_pypi_refuses_fails_audit_and_is_listed_by_wheels(
    tmp_path: Path, case: str
) -> None:
    line, said = REFUSED[case]
    lines = (line,) if line else ()
    meta = metadata("demo", "2.0", *lines, metadata_version=VERSIONS.get(case, "2.4"))
    patch = write_wheel(tmp_path / "p", "demo", "2.0", FILES, meta=meta)
    assert twine_refuses(patch, tmp_path) in (False, None)
    assert pip_install(patch, tmp_path / "target").ok
    assert audit_code(patch) == (1, {"A122"})
    shown = run_k3diff("audit", patch).stdout
    assert said in shown and "PyPI refuses it on upload; twine check does not check it" in shown
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0 and "W624" in codes(report)


def test_metadata_within_pypis_limits_passes(tmp_path: Path) -> None:
    meta = metadata("demo", "2.0", *ACCEPTED, metadata_version="2.4")
    wheel = write_wheel(tmp_path, "demo", "2.0", FILES, meta=meta)
    assert audit_code(wheel) == (0, set())


def test_metadata_version_2_5_import_names_pass(tmp_path: Path) -> None:
    """PEP 794's Import-Name and Import-Namespace under Metadata-Version 2.5, the newest PyPI
    takes: twine check and pip take them, and so does audit (a Dynamic naming one too)."""
    lines = ("Import-Name: demo", "Import-Namespace: demo_ns", "Dynamic: Import-Name")
    meta = metadata("demo", "2.0", *lines, metadata_version="2.5")
    wheel = write_wheel(tmp_path, "demo", "2.0", FILES, meta=meta)
    assert twine_refuses(wheel, tmp_path) in (False, None)
    assert pip_install(wheel, tmp_path / "target").ok
    assert audit_code(wheel) == (0, set())


def test_import_name_under_2_4_fails_once(tmp_path: Path) -> None:
    """A 2.5 field under 2.4 is packaging's refusal (twine check's too), said once."""
    meta = metadata("demo", "2.0", "Import-Name: demo", metadata_version="2.4")
    wheel = write_wheel(tmp_path, "demo", "2.0", FILES, meta=meta)
    assert twine_refuses(wheel, tmp_path) in (True, None)
    shown = run_k3diff("audit", wheel).stdout
    assert shown.count("import-name introduced in metadata version 2.5, not 2.4") == 1


def test_next_steps_do_not_leave_a_pypi_rule_to_twine_check(tmp_path: Path) -> None:
    """The fix said for a rule twine check does not apply asks for the audit again, and names
    the waiver for a wheel another index serves (review79a: it said only "check with twine
    check dist/*", which passes the rebuilt wheel whatever its Requires-Dist)."""
    line, _ = REFUSED["direct dependency"]
    meta = metadata("demo", "2.0", line, metadata_version="2.4")
    wheel = write_wheel(tmp_path / "p", "demo", "2.0", FILES, meta=meta)
    steps = run_k3diff("audit", wheel).stdout.split("Next steps", 1)[1]
    assert "twine check does not apply the PyPI upload rules" in steps
    assert "audit the rebuilt wheel again" in steps and "can be waived" in steps


def test_next_steps_say_the_backend_writes_the_metadata_version(tmp_path: Path) -> None:
    """A Metadata-Version PyPI does not take is fixed by the backend release, which writes it:
    no field of pyproject.toml names it (newuser80b: a 2.6 wheel was told only to fix the field
    where the build reads it); a Summary over the limit is told nothing of the backend."""
    meta = metadata("demo", "2.0", metadata_version="2.6")
    wheel = write_wheel(tmp_path / "v", "demo", "2.0", FILES, meta=meta)
    steps = run_k3diff("audit", wheel).stdout.split("Next steps", 1)[1]
    assert "the Metadata-Version is the build backend's" in steps
    assert "pin a backend release that writes 2.5 or older" in steps
    line, _ = REFUSED["Summary over 512 characters"]
    long = metadata("demo", "2.0", line, metadata_version="2.4")
    other = write_wheel(tmp_path / "s", "demo", "2.0", FILES, meta=long)
    assert "build backend's" not in run_k3diff("audit", other).stdout
