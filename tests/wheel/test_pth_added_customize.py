"""A `sitecustomize` or `usercustomize` module in a directory a `.pth` path line adds to
`sys.path` runs at every interpreter start, as one at the top of site-packages does: `site`
appends the directory (`addpackage`, the line joined to site-packages) before it imports
`sitecustomize`. Before (review69d), W702 read the top of site-packages alone, so a patch adding
`demo.pth` naming `demo_extra` and `demo_extra/sitecustomize.py` passed `wheels` (exit 0; a
venv's `python -c pass` ran it)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.tricks import build

BASE = {"demo/__init__.py": b"X = 1\n"}
RUNS = b"import os\nos.environ['DEMO'] = '1'\n"


def _findings(
    tmp_path: Path, files: dict[str, bytes], base: dict[str, bytes] = BASE
) -> tuple[int, set[tuple[str, str]], Path]:
    old = build(tmp_path / "b", "1.0", base)
    new = build(tmp_path / "p", "2.0", {**BASE, **files})
    result = run_k3diff("wheels", old, new, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    found = {(f["code"], f["path"]) for f in json.loads(result.stdout)["findings"]}
    return result.exit_code, found, new


@pytest.mark.parametrize(
    ("line", "module"),
    [
        (b"demo_extra\n", "demo_extra/sitecustomize.py"),
        (b"./demo_extra/ \n", "demo_extra/sitecustomize/__init__.py"),
        (b"# paths\nlib/../demo_extra\n", "demo_extra/sitecustomize.pyc"),
    ],
)
def test_a_customize_module_on_a_pth_path_fails(tmp_path: Path, line: bytes, module: str) -> None:
    code, found, new = _findings(tmp_path, {"demo.pth": line, module: RUNS})
    assert code == 1
    assert ("W702", module) in found
    audit = run_k3diff("audit", new)
    assert f"customize site-packages/{module}" in audit.stdout


def test_a_customize_module_added_under_a_kept_pth_path_fails(tmp_path: Path) -> None:
    kept = {"demo.pth": b"demo_extra\n", "demo_extra/x.py": b"Y = 1\n"}
    code, found, _ = _findings(
        tmp_path, {**kept, "demo_extra/sitecustomize.py": RUNS}, {**BASE, **kept}
    )
    assert code == 1 and ("W702", "demo_extra/sitecustomize.py") in found


@pytest.mark.parametrize(
    "files",
    [
        {"demo.pth": b"demo_extra\n", "demo_extra/helper.py": RUNS},
        {"demo.pth": b"demo_extra\n", "other/sitecustomize.py": RUNS},
        {"demo.pth": b"demo_extra\n", "demo_extra/deeper/sitecustomize.py": RUNS},
        {"demo_extra/sitecustomize.py": RUNS},
    ],
)
def test_a_customize_name_site_never_imports_passes(
    tmp_path: Path, files: dict[str, bytes]
) -> None:
    """Not on `sys.path`: no `.pth` names its directory (site adds the named one alone, not
    what is below it)."""
    code, found, _ = _findings(tmp_path, files)
    assert code == 0, found
    assert not {path for c, path in found if c == "W702"}


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_file_a_pth_path_line_names_fails_when_added_or_changed(tmp_path: Path) -> None:
    """`zipimport` reads a file on `sys.path` as an archive whatever its name: a venv's
    `python -c pass` ran the `sitecustomize.py` of `demo_extra.dat` (review69d); k3diff does
    not read inside it, so the file counts, kept unchanged or not."""
    held = {"demo.pth": b"demo_extra.dat\n", "demo_extra.dat": _zip({"sitecustomize.py": RUNS})}
    code, found, _ = _findings(tmp_path / "added", held)
    assert code == 1 and ("W702", "demo_extra.dat") in found
    code, found, _ = _findings(tmp_path / "kept", held, {**BASE, **held})
    assert code == 0, found


def test_a_line_naming_a_customize_package_is_one_surface(tmp_path: Path) -> None:
    code, found, _ = _findings(
        tmp_path, {"demo.pth": b"sitecustomize\n", "sitecustomize/sitecustomize.py": RUNS}
    )
    assert code == 1 and ("W702", "sitecustomize/sitecustomize.py") in found


@pytest.mark.parametrize("name", ["İx", "ǅx", "demo_ß"])
def test_a_customize_module_under_a_name_folding_lengthens_fails(tmp_path: Path, name: str) -> None:
    """Failed on 1a89c882 for `İx` (exit 0): the module's name was cut from the path by the
    length of the folded directory, and `'İ'.lower()` is two characters, so `sitecustomize.py`
    was read as `itecustomize.py`; the line names the directory as written, so Linux runs it."""
    module = f"{name}/sitecustomize.py"
    code, found, _ = _findings(tmp_path, {"demo.pth": f"{name}\n".encode(), module: RUNS})
    assert code == 1 and ("W702", module) in found, found
