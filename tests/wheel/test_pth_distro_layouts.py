"""`.pth` path lines in the Linux layouts beside a venv's `lib/python3.X/site-packages`: a 64-bit
Linux venv's `lib64` is a link to `lib` (as Fedora's platlib `lib64/python3.X/site-packages`
is a site-packages), and Debian's pip as root installs by `posix_local`, into
`/usr/local/lib/python3.X/dist-packages`. A line naming site-packages through either
(`../../../lib64/python3.11/site-packages/demo_extra`, `../../python3.11/dist-packages/demo_extra`)
names the wheel's `demo_extra/`, whose `sitecustomize` `site` then imports. Before (pth71), each
such patch passed `wheels` (exit 0; W706 for the path line, informational)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wheel.test_pth_leaving_site import PY, RUNS, _runs_in_a_venv, _w702, _wheels

MODULE = "demo_extra/sitecustomize.py"
DEBIAN = Path("/usr/bin/python3")


@pytest.mark.skipif(
    importlib.util.find_spec("sitecustomize") is not None or not sys.platform.startswith("linux"),
    reason="site imports this Python's own sitecustomize first; a venv links lib64 on Linux",
)
def test_a_line_through_a_venvs_lib64_names_site_packages(tmp_path: Path) -> None:
    line = f"../../../lib64/python{PY}/site-packages/demo_extra\n"
    code, report, new = _wheels(tmp_path, {"demo.pth": line.encode(), MODULE: RUNS})
    assert _runs_in_a_venv(tmp_path, new)
    assert (tmp_path / "venv" / "lib64").is_symlink()  # the venv's link to lib
    assert code == 1
    assert "sitecustomize: imported by site at every start" in _w702(report)[MODULE]


def _debian_version() -> str | None:
    """The `3.N` of a Debian Python whose sysconfig has `posix_local`, None where none is."""
    if not DEBIAN.exists():
        return None
    probe = (
        "import sysconfig; "
        "print('posix_local' in sysconfig.get_scheme_names(), sysconfig.get_python_version())"
    )
    done = subprocess.run([DEBIAN, "-c", probe], capture_output=True, text=True, timeout=60)
    local, _, version = done.stdout.partition(" ")
    return version.strip() if done.returncode == 0 and local == "True" else None


def _debian_site_runs(
    tmp_path: Path, wheel: Path, version: str, prefix: str | None = None, site_dir: str = ""
) -> bool:
    """pip 26 installs `wheel` for the Debian Python under `--root` (its `posix_local` layout,
    or `--prefix`'s, nothing outside the root written); that Python's `site` reads the installed
    dist-packages (or `site_dir`) as a site directory, and its import system finds
    `sitecustomize` there or in a directory the `.pth` added."""
    root = tmp_path / "root"
    more = ["--prefix", prefix] if prefix else []
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", DEBIAN, "install", "--no-deps", "--no-index",
         "--quiet", "--disable-pip-version-check", "--break-system-packages", "--root", root,
         *more, wheel],
        check=True, capture_output=True, timeout=300,
        env={**os.environ, "PIP_NO_INPUT": "1", "PIP_CONFIG_FILE": os.devnull},
    )  # fmt: skip
    site = root / (site_dir or f"usr/local/lib/python{version}/dist-packages")
    probe = (
        "import importlib.machinery, site, sys; before = list(sys.path); "
        f"site.addsitedir({str(site)!r}); added = [p for p in sys.path if p not in before]; "
        "print(importlib.machinery.PathFinder.find_spec('sitecustomize', added) is not None)"
    )
    done = subprocess.run(
        [DEBIAN, "-S", "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.strip() == "True"


def test_a_line_through_debians_dist_packages_names_site_packages(tmp_path: Path) -> None:
    version = _debian_version()
    if version is None:
        pytest.skip("no Debian Python with sysconfig's posix_local here")
    line = f"../../python{version}/dist-packages/demo_extra\n"
    code, report, new = _wheels(tmp_path, {"demo.pth": line.encode(), MODULE: RUNS})
    assert _debian_site_runs(tmp_path, new, version)
    assert code == 1
    assert "sitecustomize: imported by site at every start" in _w702(report)[MODULE]


@pytest.mark.parametrize(
    ("data", "prefix", "site_dir"),
    [
        ("lib/python{v}/dist-packages", None, ""),  # pip's default there: `/usr/local`
        ("lib/python3/dist-packages", "/usr", "usr/lib/python3/dist-packages"),
        ("local/lib/python{v}/dist-packages", "/usr", ""),
    ],
)
def test_a_data_file_in_debians_dist_packages_is_w627(
    tmp_path: Path, data: str, prefix: str | None, site_dir: str
) -> None:
    """pip writes `.data/data/` under the prefix, and on Debian and Ubuntu site-packages is
    `dist-packages` there: a `sitecustomize` (or anything) in it is site-packages on those
    installs alone, W627. Before (hooks72), a patch adding one passed, exit 0, W203 alone."""
    version = _debian_version()
    if version is None:
        pytest.skip("no Debian Python with sysconfig's posix_local here")
    module = f"demo-2.0.data/data/{data.format(v=version)}/sitecustomize.py"
    code, report, new = _wheels(tmp_path, {module: RUNS})
    assert _debian_site_runs(tmp_path, new, version, prefix, site_dir)
    assert code == 1
    [w627] = [f for f in report["findings"] if f["code"] == "W627"]
    assert w627["path"] == module and "Debian and Ubuntu" in w627["detail"]
