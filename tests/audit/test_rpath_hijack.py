"""A native whose DT_RPATH/DT_RUNPATH makes the loader search a directory someone else may fill
(empty component, relative path, a build machine's absolute path, `$ORIGIN` out of the
environment) fails `audit` (A139) and `wheels --explain` (W632); before, both passed, exit 0.
The loader's truth is held here too: a wheel pip installs into a venv, whose extension's RPATH
is `.` or has an empty component, loads a library planted in the working directory."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from cli_support import run_k3diff
from wheel.rawwheel import write_wheel
from wheel.test_installed_view import audit_code, codes, wheels_json

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")

TAG = "py3-none-manylinux_2_17_x86_64"


def library(
    directory: Path,
    rpath: str | None,
    *,
    runpath: bool = False,
    source: str = "int plain(void) { return 1; }\n",
    links: tuple[str, ...] = (),
) -> bytes:
    """A shared object built by gcc with `rpath` as DT_RPATH (DT_RUNPATH with `runpath`)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "src.c").write_text(source)
    target = directory / "out.so"
    dtags = "--enable-new-dtags" if runpath else "--disable-new-dtags"
    flags = [f"-Wl,{dtags},-rpath,{rpath}"] if rpath is not None else []
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-o", str(target), str(directory / "src.c"), *flags, *links],
        check=True,
        capture_output=True,
    )
    return target.read_bytes()


def demo_wheel(directory: Path, version: str, files: dict[str, bytes]) -> Path:
    return write_wheel(directory, "demo", version, {"demo/__init__.py": b"", **files}, tag=TAG)


RISKY = [
    # (rpath, RUNPATH?, entry, what the detail says)
    (".", False, "demo/_ext.so", "relative, not anchored at $ORIGIN"),
    ("lib", True, "demo/_ext.so", "relative, not anchored at $ORIGIN"),
    ("$LIB", False, "demo/_ext.so", "relative, not anchored at $ORIGIN"),
    (":$ORIGIN", True, "demo/_ext.so", "empty"),
    ("$ORIGIN:", False, "demo/_ext.so", "empty"),
    ("$ORIGIN::$ORIGIN/../demo.libs", False, "demo/_ext.so", "empty"),
    ("/tmp/build/lib", True, "demo/_ext.so", "someone other than root writes"),
    ("/home/runner/work/demo/lib", False, "demo/_ext.so", "someone other than root writes"),
    ("/usr/lib/../../tmp", False, "demo/_ext.so", "climbs with '..'"),
    # review75g: these passed as system paths (exit 0); RHEL links /usr/tmp to /var/tmp
    ("/usr/tmp/lib", False, "demo/_ext.so", "someone other than root writes"),
    ("/usr//tmp", True, "demo/_ext.so", "someone other than root writes"),
    ("/tmp$ORIGIN", False, "demo/_ext.so", "someone other than root writes"),
    ("/run/user/1000/lib", False, "demo/_ext.so", "someone other than root writes"),
    ("/dev/shm", True, "demo/_ext.so", "someone other than root writes"),
    ("/var/run/user/1000/lib", False, "demo/_ext.so", "someone other than root writes"),
    ("/var/run/lock", True, "demo/_ext.so", "someone other than root writes"),
    ("$ORIGIN/../../../../../tmp", True, "demo/_ext.so", "climbs out of the environment"),
    ("$ORIGIN/x" + "/.." * 7, False, "demo/sub/_ext.so", "climbs out of the environment"),
    ("$ORIGIN/../../../../..", False, "demo-1.0.data/platlib/demo/_ext.so", "climbs out"),
    ("$ORIGIN/../..", False, "demo-1.0.data/data/lib/libx.so", "climbs out"),
]


@pytest.mark.parametrize(("rpath", "runpath", "entry", "why"), RISKY)
def test_a_hijackable_search_path_fails_audit(
    tmp_path: Path, rpath: str, runpath: bool, entry: str, why: str
) -> None:
    so = library(tmp_path / "c", rpath, runpath=runpath)
    wheel = demo_wheel(tmp_path / "w", "1.0", {entry: so})
    assert audit_code(wheel) == (1, {"A139"})
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    (finding,) = report["artifacts"][0]["findings"]
    tag = "RUNPATH" if runpath else "RPATH"
    assert finding["path"] == entry and finding["severity"] == "error"
    assert finding["detail"].startswith(f"{tag} component ") and why in finding["detail"]


SAFE = [
    ("$ORIGIN", "demo/_ext.so"),
    ("${ORIGIN}/../demo.libs", "demo/_ext.so"),
    ("$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/cudnn/lib", "torch/lib/libtorch.so"),
    ("$ORIGIN/../../nvidia/cublas/lib", "torch/_C.so"),  # torch 2.5.1 _C
    ("$ORIGIN/../../../../lib", "demo/_ext.so"),  # the environment's own lib/
    ("$ORIGIN/../lib", "demo-1.0.data/data/lib/libx.so"),
    ("$ORIGIN/$LIB:$ORIGIN/.", "demo/_ext.so"),
    ("/usr/lib/x86_64-linux-gnu:/lib64:/usr/local/cuda/lib64", "demo/_ext.so"),
]


@pytest.mark.parametrize(("rpath", "entry"), SAFE)
def test_origin_and_system_search_paths_pass(tmp_path: Path, rpath: str, entry: str) -> None:
    for runpath in (False, True):
        so = library(tmp_path / f"c{runpath}", rpath, runpath=runpath)
        wheel = demo_wheel(tmp_path / f"w{runpath}", "1.0", {entry: so})
        assert audit_code(wheel) == (0, set()), (rpath, runpath)


LEFTOVERS = [
    "/opt/_internal/cpython-3.11.13/lib/python3.11/site-packages/scipy_openblas32/lib",
    "/__w/_temp/conda_environment_1/lib",
    "/root/.triton/llvm/lib",
    "$ORIGIN:/home",
]


@pytest.mark.parametrize("rpath", LEFTOVERS)
def test_a_root_owned_build_path_warns(tmp_path: Path, rpath: str) -> None:
    """review75g (lead's policy): a build machine's directory only root creates (scipy's
    `/opt/_internal`, torchvision's `/__w`, triton's `/root/.triton`) is no hijack: a warning
    (A140), exit 0; before, A139 held it (exit 1)."""
    so = library(tmp_path / "c", rpath)
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": so})
    assert audit_code(wheel) == (0, {"A140"})
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["severity"] == "info" and "build machine's leftover" in finding["detail"]


def test_wheels_fails_only_the_risky_components_a_changed_native_adds(tmp_path: Path) -> None:
    """review75g: a patch whose native kept the base's own risky RPATH failed W632 (exit 1):
    the base's are audit's business; a component the patch adds still fails, and a root-owned
    leftover the patch adds is the warning W633."""
    allow = ("--explain", "--allow-native-changes")
    old = library(tmp_path / "old", "lib:$ORIGIN")
    kept = library(tmp_path / "kept", "lib:$ORIGIN", source="int plain(void) { return 3; }\n")
    more = library(tmp_path / "more", "lib:$ORIGIN:.")
    opt = library(tmp_path / "opt", "lib:$ORIGIN:/opt/_internal/lib")
    base = demo_wheel(tmp_path / "b", "1.0", {"demo/_ext.so": old})
    exit_code, report = wheels_json(
        base, demo_wheel(tmp_path / "p1", "2.0", {"demo/_ext.so": kept}), *allow
    )
    assert exit_code == 0 and not codes(report) & {"W632", "W633"}, report["findings"]
    exit_code, report = wheels_json(
        base, demo_wheel(tmp_path / "p2", "2.0", {"demo/_ext.so": more}), *allow
    )
    (finding,) = (f for f in report["findings"] if f["code"] == "W632")
    assert exit_code == 1 and finding["detail"].startswith("RPATH component '.' is relative")
    exit_code, report = wheels_json(
        base, demo_wheel(tmp_path / "p3", "2.0", {"demo/_ext.so": opt}), *allow
    )
    assert exit_code == 0 and "W633" in codes(report) and "W632" not in codes(report)


def test_wheels_explain_fails_a_changed_or_added_native_with_a_risky_path(
    tmp_path: Path,
) -> None:
    plain = library(tmp_path / "plain", None, source="int plain(void) { return 2; }\n")
    risky = library(tmp_path / "risky", "$ORIGIN:.", runpath=True)
    safe = library(tmp_path / "safe", "$ORIGIN/../demo.libs")
    base = demo_wheel(tmp_path / "b", "1.0", {"demo/_ext.so": plain})
    allow = ("--explain", "--allow-native-changes")
    changed = demo_wheel(tmp_path / "p1", "2.0", {"demo/_ext.so": risky})
    exit_code, report = wheels_json(base, changed, *allow)
    assert exit_code == 1 and "W632" in codes(report)
    (finding,) = (f for f in report["findings"] if f["code"] == "W632")
    assert finding["path"] == "demo/_ext.so" and "RUNPATH component '.'" in finding["detail"]
    added = demo_wheel(tmp_path / "p2", "2.0", {"demo/_ext.so": plain, "demo/_new.so": risky})
    exit_code, report = wheels_json(base, added, *allow)
    assert exit_code == 1 and "W632" in codes(report)
    fine = demo_wheel(tmp_path / "p3", "2.0", {"demo/_ext.so": safe, "demo/_new.so": safe})
    exit_code, report = wheels_json(base, fine, *allow)
    assert exit_code == 0 and "W632" not in codes(report), report["findings"]


HELPER = "int helper(void) { return 1; }\n"
PLANTED = (
    "#include <stdio.h>\n__attribute__((constructor)) static void planted(void) "
    '{ puts("PLANTED LIBRARY RAN"); fflush(stdout); }\nint helper(void) { return 2; }\n'
)
MODULE = "extern int helper(void);\nvoid *PyInit__ext(void) { return (void *)0 + helper() * 0; }\n"


@pytest.mark.parametrize("rpath", [".:$ORIGIN", ":$ORIGIN", "$ORIGIN/elsewhere:"])
def test_the_loader_loads_a_planted_library_from_the_working_directory(
    tmp_path: Path, rpath: str
) -> None:
    """pip installs the wheel into a venv; `python -c "import demo._ext"` in a directory
    holding a planted `libhelper.so` runs it (the import then fails: no module object). A
    trailing `:` is searched after the others, before the system's directories: a library the
    extension expects from the system (here none ships it) comes from the working directory."""
    helper_dir = tmp_path / "helper"
    helper_dir.mkdir()
    (helper_dir / "h.c").write_text(HELPER)
    helper = helper_dir / "libhelper.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-Wl,-soname,libhelper.so", "-o", str(helper),
         str(helper_dir / "h.c")],
        check=True, capture_output=True,
    )  # fmt: skip
    ext = library(tmp_path / "ext", rpath, source=MODULE, links=(str(helper),))
    shipped = {} if rpath.endswith(":") else {"demo/libhelper.so": helper.read_bytes()}
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": ext, **shipped})
    assert audit_code(wheel) == (1, {"A139"})
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index",
         "--no-deps", "--disable-pip-version-check", "-q", str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    clean = tmp_path / "clean"
    clean.mkdir()
    run = [str(python), "-c", "import demo._ext"]
    quiet = subprocess.run(run, cwd=clean, capture_output=True, text=True)
    assert "PLANTED" not in quiet.stdout  # the wheel's own helper, through $ORIGIN
    attacker = tmp_path / "attacker"
    attacker.mkdir()
    (attacker / "p.c").write_text(PLANTED)
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-Wl,-soname,libhelper.so", "-o",
         str(attacker / "libhelper.so"), str(attacker / "p.c")],
        check=True, capture_output=True,
    )  # fmt: skip
    (attacker / "p.c").unlink()
    hijacked = subprocess.run(run, cwd=attacker, capture_output=True, text=True)
    assert "PLANTED LIBRARY RAN" in hijacked.stdout, hijacked.stderr


def test_a_search_path_too_long_to_judge_fails_whole(tmp_path: Path) -> None:
    """A hostile RUNPATH of 70,000 `:`-separated `$ORIGIN`s and one `.` at its end: held
    unchecked rather than split into 70,000 components (or let pass)."""
    so = library(tmp_path / "c", "$ORIGIN:" * 9000 + ".", runpath=True)
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": so})
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["code"] == "A139" and finding["severity"] == "error"
    assert finding["detail"] == (
        "RUNPATH of 72,001 characters, more than k3diff judges (65,536): its components are "
        "unchecked"
    )


def test_a_search_path_running_past_the_kept_prefix_is_read_whole(tmp_path: Path) -> None:
    """review75g: a RUNPATH of 2 MB (`$ORIGIN:` repeated, `.` at its end), which runs past the
    first MiB k3diff keeps of a native, read as '' (a short read at the kept region's end taken
    for the file's end), so audit passed it, exit 0; `wheels --explain` likewise."""
    rsp = tmp_path / "rsp"
    rsp.write_text("-Wl,--enable-new-dtags,-rpath," + "$ORIGIN:" * 250_000 + ".")
    so = library(tmp_path / "c", None, links=(f"@{rsp}",))
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": so})
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    (finding,) = report["artifacts"][0]["findings"]
    assert finding["code"] == "A139" and "RUNPATH of 2,000,001 characters" in finding["detail"]
    base = demo_wheel(tmp_path / "b", "0.9", {"demo/_ext.so": library(tmp_path / "p", None)})
    exit_code, report = wheels_json(base, wheel, "--explain", "--allow-native-changes")
    assert exit_code == 1 and "W632" in codes(report), report["findings"]
