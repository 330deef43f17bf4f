"""A `.whl` whose file name is no wheel filename (fewer than four dashes: a renamed copy) is
finding A126 in `audit`, and fails it: pip, twine and PyPI refuse such a file, and its name,
version and tags cannot be checked. `wheels` still compares renamed copies. So is a name
ending in `.whl` twice, which PyPI refuses and a release set does not pair."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import run_k3diff
from wheel.pipinstall import pip_install
from wheelkit import make_wheel

from audit.helpers import all_findings, audit_json, codes

FILES = {"demo/__init__.py": b"VALUE = 1\n"}


@pytest.mark.parametrize(
    "name", ["copy.whl", "demo-1.0.whl", "demo-1.0-py3-none.whl", "Copy.WHL", "a-b-c-d.whl"]
)
def test_a_renamed_wheel_is_a_failing_finding(tmp_path: Path, name: str) -> None:
    built = make_wheel(tmp_path / "built", "demo", "1.0", FILES)
    renamed = shutil.copy(built, tmp_path / name)
    code, report = audit_json(renamed)
    assert code == 1
    assert codes(report) == {"A126": 1}
    [finding] = all_findings(report)
    assert finding["path"] == ""
    assert finding["detail"] == (
        f"{name!r} does not read as NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl: pip, "
        "twine and PyPI refuse it, and its name, version and tags cannot be checked"
    )
    assert report["verdict"]["ok"] is False
    text = run_k3diff("audit", renamed)
    assert text.exit_code == 1 and "A126" in text.stdout


def test_a_wheel_filename_is_no_a126_and_renamed_copies_still_compare(tmp_path: Path) -> None:
    built = make_wheel(tmp_path, "demo", "1.0", FILES)
    code, report = audit_json(built)
    assert (code, all_findings(report)) == (0, [])
    base = shutil.copy(built, tmp_path / "base.whl")
    patch = shutil.copy(built, tmp_path / "patch.whl")
    compared = run_k3diff("wheels", base, patch)
    assert compared.exit_code == 0, compared.stdout + compared.stderr


@pytest.mark.parametrize("name", ["copy.whl", "demo-1.0-cp311-cp311-linux_x86_64.whl"])
def test_a_truncated_wheel_is_a001_and_a126_when_misnamed_too(tmp_path: Path, name: str) -> None:
    """A file cut in half is A001; a misnamed one is A126 as well (each finding whenever it
    applies: a reader of the report fixes both, not one and then the other)."""
    built = make_wheel(tmp_path / "built", "demo", "1.0", FILES).read_bytes()
    cut = tmp_path / name
    cut.write_bytes(built[: len(built) // 2])
    code, report = audit_json(cut)
    assert code == 1
    expected = {"A001": 1, "A126": 1} if name == "copy.whl" else {"A001": 1}
    assert codes(report) == expected


def test_a_name_ending_in_whl_twice_is_a126_though_pip_installs_it(tmp_path: Path) -> None:
    """`demo-1.0-py3-none-any.whl.whl` (a download saved twice over): pip 26 installs it (the
    platform tag `any.whl` reads as the tag set `any` and `whl`), so `wheels` compares two such
    files; but no build tool writes the tag `whl` and PyPI refuses it, and a release set lists
    the file as misnamed, failing (its report says "audit: A126"). `audit` passed it, exit 0."""
    built = make_wheel(tmp_path / "built", "demo", "1.0", FILES)
    doubled = Path(shutil.copy(built, tmp_path / f"{built.name}.whl"))
    assert pip_install(doubled, tmp_path / "installed").ok  # pip 26 takes it
    code, report = audit_json(doubled)
    assert code == 1
    assert codes(report) == {"A126": 1}
    [finding] = all_findings(report)
    assert finding["detail"] == (
        "'demo-1.0-py3-none-any.whl.whl' ends in '.whl' twice: its platform tag reads "
        "'any.whl', which no build tool writes and PyPI refuses; rename it to "
        "'demo-1.0-py3-none-any.whl' if it is that wheel"
    )
    (tmp_path / "patch").mkdir()
    other = shutil.copy(doubled, tmp_path / "patch" / doubled.name)
    compared = run_k3diff("wheels", doubled, other)
    assert compared.exit_code == 0, compared.stdout + compared.stderr
