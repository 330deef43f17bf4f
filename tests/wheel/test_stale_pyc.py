"""A timestamp `.pyc` changed beside its unchanged source (wheels61 item 5, numpy 2.2.6 ->
2.3.5's `conv_template.cpython-311.pyc`, whose code holds another build path). It is W716,
informational, only when no install can make it current: its header's source size is not the
source's (the import system checks the size beside the mtime). A header whose size matches is
W705, failing, whatever its mtime (wheels62): unzip stamps the source with the entry's zip date,
read in the local time zone, and uv installs every file with the time
it unpacked the wheel into its cache (uv 0.13.9, measured), a past time an attacker can predict.
A hash-based pyc, or one without its source, stays W705 too."""

from __future__ import annotations

import datetime
import importlib.util
import json
import marshal
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from wheelkit import FIXED_DATE

SOURCE = b"print('source')\n"
PYC = "demo/__pycache__/__init__.cpython-311.pyc"
PAST = 1730561100


OTHER_SIZE = len(SOURCE) + 1  # a header no install of SOURCE makes current
ZIP_DATE_UTC = int(datetime.datetime(*FIXED_DATE, tzinfo=datetime.UTC).timestamp())
"""The wheels' entries' zip date (`wheelkit.FIXED_DATE`) read in UTC."""


def _pyc(flags: int, stamp: int, shown: str, size: int = len(SOURCE)) -> bytes:
    """A real pyc whose code prints `shown`, with a header for a source of `size` at `stamp`."""
    code = compile(f"print({shown!r})\n", "demo/__init__.py", "exec")
    header = flags.to_bytes(4, "little")
    if flags == 0:
        header += stamp.to_bytes(4, "little") + size.to_bytes(4, "little")
    else:
        header += bytes(8)
    return importlib.util.MAGIC_NUMBER + header + marshal.dumps(code)


def _pair(tmp_path: Path, base_pyc: bytes, patch_pyc: bytes, source: bool = True) -> list[Path]:
    files = {"demo/__init__.py": SOURCE} if source else {"demo/util.py": b""}
    return [
        wheelkit.make_wheel(tmp_path / v, "demo", v, {**files, PYC: pyc})
        for v, pyc in (("1.0", base_pyc), ("2.0", patch_pyc))
    ]


def _installed_runs(wheel: Path, target: Path, *pip_options: str, mtime: int | None = None) -> str:
    """Install `wheel` with pip 26 into `target`, stamp its source `mtime` when given (as an
    install from a uv cache unpacked then would), import it and say what it printed."""
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q"]
    done = subprocess.run([*command, *pip_options, "--target", str(target), str(wheel)])
    assert done.returncode == 0
    if mtime is not None:
        os.utime(target / "demo/__init__.py", (mtime, mtime))
    code = f"import sys; sys.path.insert(0, {str(target)!r}); import demo"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def _codes(base: Path, patch: Path) -> tuple[int, set[str]]:
    result = run_k3diff("wheels", base, patch, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    findings = json.loads(result.stdout)["findings"]
    return result.exit_code, {f["code"] for f in findings if f["path"] == PYC}


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="a cpython-311 pyc")
@pytest.mark.parametrize("compile_option", ["--no-compile", None])
def test_pip_26_never_runs_a_w716_pyc_whatever_the_source_s_mtime(
    tmp_path: Path, compile_option: str | None
) -> None:
    """The evidence for W716: install the patch as pip 26 does, with and without compiling
    (`--no-compile`), and import it, the source stamped as pip left it or with the header's
    own mtime: the source runs, never the shipped code, as the header's size is not its."""
    shipped = _pyc(0, PAST, "shipped", size=OTHER_SIZE)
    wheel = _pair(tmp_path, _pyc(0, PAST - 1, "base"), shipped)[1]
    options = () if compile_option is None else (compile_option,)
    for index, mtime in enumerate((None, PAST)):
        target = tmp_path / f"target{index}"
        assert _installed_runs(wheel, target, *options, mtime=mtime) == "source\n"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="a cpython-311 pyc")
def test_a_pyc_of_the_source_s_size_runs_where_the_source_has_its_mtime(tmp_path: Path) -> None:
    """The evidence for W705 (threat: a predicted install time): pip 26 `--no-compile` leaves
    the shipped pyc, and where the source carries the header's mtime (uv installs every file
    with the time it unpacked the wheel into its cache: uv 0.13.9, measured), it runs."""
    wheel = _pair(tmp_path, _pyc(0, PAST - 1, "base"), _pyc(0, PAST, "shipped"))[1]
    assert _installed_runs(wheel, tmp_path / "t", "--no-compile", mtime=PAST) == "shipped\n"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="a cpython-311 pyc")
@pytest.mark.skipif(shutil.which("unzip") is None, reason="no unzip")
def test_an_unzip_runs_a_header_of_the_zip_date_and_the_source_size(tmp_path: Path) -> None:
    """The evidence for W705: in a zone 5:30 east of UTC, an `unzip` into site-packages gives
    the source the entry's zip date read there, so a header of that second and the source's
    size is current: the shipped code runs."""
    stamp = ZIP_DATE_UTC - (5 * 3600 + 1800)
    wheel = _pair(tmp_path, _pyc(0, PAST, "base"), _pyc(0, stamp, "shipped"))[1]
    env = {**os.environ, "TZ": "IST-5:30"}
    site = tmp_path / "site"
    subprocess.run(["unzip", "-q", str(wheel), "-d", str(site)], env=env, check=True)
    code = f"import sys; sys.path.insert(0, {str(site)!r}); import demo"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert ran.stdout == "shipped\n", ran.stderr


def test_a_pyc_no_install_makes_current_is_informational(tmp_path: Path) -> None:
    base, patch = _pair(
        tmp_path, _pyc(0, PAST - 1, "base"), _pyc(0, PAST, "shipped", size=OTHER_SIZE)
    )
    code, found = _codes(base, patch)
    assert code == 0 and "W716" in found and "W705" not in found, found


@pytest.mark.parametrize(
    ("flags", "stamp", "source"),
    [
        (0, int(time.time()) + 3600, True),  # stamped for a later second: an install may match
        (3, 0, True),  # checked hash (not the source's): W705 as before
        (1, 0, True),  # unchecked hash: runs instead of the source (W711 too)
        (0, PAST, False),  # no source: the pyc is the module
        (0, 1, True),  # Nix stamps every store file 1: current for the source there
        (0, 315532800, True),  # a zip's 1980-01-01, what normalised images use
        (0, ZIP_DATE_UTC - 19800, True),  # the source's zip date in UTC+5:30 (an unzip there)
        (0, ZIP_DATE_UTC + 12 * 3600, True),  # ... in UTC-12
        (0, PAST, True),  # a past second, the source's size: a uv cache unpacked then
    ],
    ids=[
        "future-stamp", "checked-hash", "unchecked-hash", "no-source", "nix-1", "zip-epoch",
        "zip-date-utc+5:30", "zip-date-utc-12", "past-stamp-source-size",
    ],
)  # fmt: skip
def test_other_changed_bytecode_beside_an_unchanged_source_still_fails(
    tmp_path: Path, flags: int, stamp: int, source: bool
) -> None:
    base, patch = _pair(tmp_path, _pyc(flags, PAST - 1, "base"), _pyc(flags, stamp, "x"), source)
    code, found = _codes(base, patch)
    assert code == 1 and "W705" in found and "W716" not in found, found


def _report_exit(tmp_path: Path, base: Path, patch: Path, forge: bool) -> int:
    """`k3diff report` on the run's document, its W705 relabelled W716 at info when `forge`."""
    run = run_k3diff("wheels", base, patch, "--format", "json", "-o", "a.json", cwd=tmp_path)
    document = json.loads((tmp_path / "a.json").read_text())
    if forge:
        assert run.exit_code == 1
        (finding,) = [f for f in document["findings"] if f["code"] == "W705"]
        finding.update(code="W716", severity="info")
        document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "doc.json").write_text(json.dumps(document))
    return run_k3diff("report", "doc.json", "--out", "bundle", cwd=tmp_path).exit_code


def test_report_takes_a_run_s_w716_and_refuses_one_forged_from_a_w705(tmp_path: Path) -> None:
    shipped = _pyc(0, PAST, "shipped", size=OTHER_SIZE)
    base, patch = _pair(tmp_path / "a", _pyc(0, PAST - 1, "base"), shipped)
    assert _report_exit(tmp_path / "a", base, patch, forge=False) == 0
    base, patch = _pair(tmp_path / "b", _pyc(3, 0, "base"), _pyc(3, 0, "x"))
    assert _report_exit(tmp_path / "b", base, patch, forge=True) == 2
    # A timestamp pyc whose header an install can make current (the source's size and zip date)
    zip_dated = _pyc(0, ZIP_DATE_UTC, "x")
    base, patch = _pair(tmp_path / "c", _pyc(0, PAST - 1, "base"), zip_dated)
    assert _report_exit(tmp_path / "c", base, patch, forge=True) == 2


def test_w711_says_once_that_the_bytecode_runs_instead_of_the_source(tmp_path: Path) -> None:
    """newuser61: '…runs instead of the source; the import system runs it, not the source'."""
    base, patch = _pair(tmp_path, _pyc(1, 0, "base"), _pyc(1, 0, "x"))
    for args in (("wheels", base, patch), ("audit", patch)):
        document = json.loads(run_k3diff(*args, "--format", "json").stdout)
        found = document["findings"] or document["artifacts"][0]["findings"]
        (detail,) = [f["detail"] for f in found if f["code"] == "W711"]
        assert detail.count("instead of the source") == 1, detail
        assert "the import system runs it" not in detail, detail


def _declared_longer(wheel: Path, name: str) -> Path:
    """`wheel` with `name`'s declared size (local header and central directory) one byte over
    its stored content, whose CRC-32 stays right: pip's zipfile writes the content it holds."""
    data = bytearray(wheel.read_bytes())
    headers = ((b"PK\x03\x04", 26, 30, 22), (b"PK\x01\x02", 28, 46, 24))  # local, central
    for signature, length_at, name_at, size_at in headers:
        at = data.find(signature)
        while at != -1:
            length = int.from_bytes(data[at + length_at : at + length_at + 2], "little")
            if data[at + name_at : at + name_at + length] == name.encode():
                size = int.from_bytes(data[at + size_at : at + size_at + 4], "little")
                data[at + size_at : at + size_at + 4] = (size + 1).to_bytes(4, "little")
            at = data.find(signature, at + 4)
    wheel.write_bytes(bytes(data))
    return wheel


def _short_source_pair(tmp_path: Path) -> list[Path]:
    """Both wheels' `demo/__init__.py` declared a byte longer than it is; the patch's pyc
    header gives the size pip installs (the stored bytes'), not the declared one."""
    files = {"demo/__init__.py": SOURCE}
    pair = [
        wheelkit.make_wheel(tmp_path / v, "demo", v, {**files, PYC: pyc}, method=0)
        for v, pyc in (("1.0", _pyc(0, PAST - 1, "base")), ("2.0", _pyc(0, PAST, "shipped")))
    ]
    return [_declared_longer(wheel, "demo/__init__.py") for wheel in pair]


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="a cpython-311 pyc")
def test_pip_installs_a_source_short_of_its_declared_size_and_its_pyc_runs(
    tmp_path: Path,
) -> None:
    """review62b, the evidence: pip 26 writes the 16 bytes the stream holds, not the 17
    declared, so a header of 16 bytes is current where the source has its mtime."""
    patch = _short_source_pair(tmp_path)[1]
    assert _installed_runs(patch, tmp_path / "t", "--no-compile", mtime=PAST) == "shipped\n"
    assert (tmp_path / "t/demo/__init__.py").stat().st_size == len(SOURCE)


def test_a_source_short_of_its_declared_size_makes_no_w716(tmp_path: Path) -> None:
    """review62b: W716 held the header to the declared size (17), so this pyc, current for
    the installed source, was informational; with the corrupt stream's W604 and RECORD's W302
    ignored, the run passed. The size of a source that does not read whole is unknown: W705."""
    base, patch = _short_source_pair(tmp_path)
    result = run_k3diff("wheels", base, patch, "--format", "json", "--ignore", "W604,W302")
    document = json.loads(result.stdout)
    found = {f["code"] for f in document["findings"] if f["path"] == PYC}
    assert result.exit_code == 1 and "W705" in found and "W716" not in found, found


def test_report_refuses_a_w716_relabelled_on_a_source_short_of_its_size(tmp_path: Path) -> None:
    """review62b: the document's entry is `corrupt` (content 16 bytes, 17 declared): its
    declared size is not what pip writes, so a W716 held to it is no run's."""
    base, patch = _short_source_pair(tmp_path)
    options = ("--ignore", "W604,W302", "--format", "json", "-o", "a.json")
    assert run_k3diff("wheels", base, patch, *options, cwd=tmp_path).exit_code == 1
    document = json.loads((tmp_path / "a.json").read_text())
    (finding,) = [f for f in document["findings"] if f["code"] == "W705"]
    finding.update(code="W716", severity="info")
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "doc.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "doc.json", "--out", "bundle", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    assert "names no changed timestamp pyc no install makes current" in refused.stderr
