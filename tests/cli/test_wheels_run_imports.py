"""A plain `k3diff wheels` run of two ordinary wheels (no entry points, no `--waivers`) loads
only what it uses (issue 41, the imports round of case e): `importlib.metadata` (with the
`zipfile`, `shutil`, `tempfile` and `importlib.resources` it imports) only for a wheel with an
`entry_points.txt` (`wheel.entrypoints`), the waivers section's renderer only with `--waivers`,
the JSON documents' typed readers (`documents.wheelsview`, `documents.findingview`) only where a
document is read, never where one is written, the loader tables' reader and judge
(`wheels.nativeread`, `native.platform` and the modules they import: ≈ 2.2 ms of CPU) only for
a changed native whose loader tables were read (`wheels.findings`: W632/W633), and the
module-level patterns a run may never match stay uncompiled (`k3diff.lazyre`: the paths of a build-specific name, the RECORD blank-line
and entry-point grammars, the row-by-row RECORD digest check, the name checks' control
characters, the non-ASCII escapes).

Each run is a fresh interpreter reporting which watched modules `sys.modules` holds and which
watched patterns compiled; the other side of each assertion (a run that needs the module or
pattern loads it) shows the probe is not blind. `tests/cli/test_startup_imports.py` watches the
command's other lazy modules (documents, CI renderers, rare models, pyelftools, numpy, ...)."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit

WATCHED = (
    "importlib.metadata",
    "zipfile",
    "tabulate",
    "k3diff.wheel.entrypoints",
    "k3diff.wheel.waivers",
    "k3diff.report.waived",
    "k3diff.documents.wheels",
    "k3diff.documents.wheelsview",
    "k3diff.documents.findingview",
    "k3diff.fields",
    "k3diff.wheels.nativeread",
    "k3diff.native.platform",
)
"""Modules the probe reports when loaded (exactly these names)."""

PATTERNS = (
    "k3diff.paths._VERSIONED_DIR",
    "k3diff.paths._AUDITWHEEL_LIB",
    "k3diff.paths._VERSIONED_SONAME",
    "k3diff.wheel.refusals._CALLABLE",
    "k3diff.wheel.refusals._BLANK_LINE",
    "k3diff.wheel.record._URLSAFE_B64",
    "k3diff.wheel.soundness._C0_OR_DEL",
    "k3diff.wheel.soundness._C1_IN_UTF8",
    "k3diff.escape._UNSAFE",
)
"""Lazy module-level patterns (`k3diff.lazyre.lazy`) the probe reports once compiled (a
stand-in holds the compiled pattern's methods after its first use)."""

TEXT_LOADS_NONE = set(WATCHED) - {"importlib.metadata", "zipfile", "tabulate"}
"""What the text report of two wheels without entry points, without --waivers, does not need.
(`importlib.metadata` comes with tabulate 0.10, which asks it for its own version at import.)"""

JSON_LOADS_NONE = set(WATCHED) - {"k3diff.documents.wheels"}
"""What writing the JSON document of those wheels does not need: no table, no entry point, no
document read."""

_PROBE = """
import contextlib, importlib, io, sys
from k3diff.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
loaded = sorted(w for w in {watched!r} if w in sys.modules)
compiled = []
for name in {patterns!r}:
    module, attribute = name.rsplit(".", 1)
    if module in sys.modules and "search" in vars(getattr(sys.modules[module], attribute)):
        compiled.append(name)
import json  # after the look: the probe's own answer is no run's import
print(json.dumps({{"code": code, "loaded": loaded, "compiled": compiled}}))
"""


def _run(*argv: str | Path) -> tuple[int, set[str], set[str]]:
    """(exit code, watched modules loaded, watched patterns compiled) of `k3diff ARGV` in a
    fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(watched=WATCHED, patterns=PATTERNS), *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return int(answer["code"]), set(answer["loaded"]), set(answer["compiled"])


def _pair(tmp_path: Path, extra: dict[str, bytes] | None = None) -> tuple[Path, Path]:
    """Two small wheels of one project, a Python file changed, a native library kept."""
    shared = {
        "engine/__init__.py": b"VERSION = 1\n",
        "engine/_C.cpython-311-x86_64-linux-gnu.so": wheelkit.elf_bytes(b"\x55" * 64),
        **(extra or {}),
    }
    made = []
    for side, body in (("base", b"x + 1"), ("patch", b"x + 2")):
        files = {**shared, "engine/model.py": b"def run(x):\n    return " + body + b"\n"}
        made.append(
            wheelkit.make_wheel(
                tmp_path / side,
                "engine",
                "1.0",
                files,
                tag="cp311-cp311-manylinux_2_28_x86_64",
                requires=["numpy>=1.0"],
            )
        )
    return made[0], made[1]


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _pair(tmp_path_factory.mktemp("plain"))


def test_the_text_report_of_two_plain_wheels_loads_only_what_it_uses(
    plain: tuple[Path, Path],
) -> None:
    code, loaded, compiled = _run("wheels", *plain)
    assert code == 0
    assert not loaded & TEXT_LOADS_NONE, sorted(loaded & TEXT_LOADS_NONE)
    # the text report's own lines go through `escape.text` with a '…' or a '×' in them
    assert compiled <= {"k3diff.escape._UNSAFE"}, sorted(compiled)
    assert "tabulate" in loaded  # the probe sees the run's own modules: it is not blind


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_the_other_reports_of_two_plain_wheels_load_only_what_they_use(
    plain: tuple[Path, Path], fmt: str
) -> None:
    code, loaded, compiled = _run("wheels", *plain, "--format", fmt)
    assert code == 0
    unneeded = JSON_LOADS_NONE if fmt == "json" else TEXT_LOADS_NONE
    assert not loaded & unneeded, sorted(loaded & unneeded)
    assert not compiled, sorted(compiled)
    if fmt == "json":
        assert "k3diff.documents.wheels" in loaded  # the writer


def test_a_wheel_with_entry_points_loads_their_parser(tmp_path: Path) -> None:
    entry_points = {"engine-1.0.dist-info/entry_points.txt": b"[console_scripts]\ne = engine:run\n"}
    base, patch = _pair(tmp_path, entry_points)
    code, loaded, compiled = _run("wheels", base, patch, "--format", "json")
    assert code == 0
    assert {"importlib.metadata", "k3diff.wheel.entrypoints"} <= loaded
    assert "k3diff.wheel.refusals._CALLABLE" in compiled  # the script's `module:callable`


def test_waivers_load_the_waivers_section(plain: tuple[Path, Path], tmp_path: Path) -> None:
    waivers = tmp_path / "waivers.toml"
    waivers.write_text('[[waiver]]\ncode = "W201"\npath = "engine/*"\nreason = "probe"\n')
    _, loaded, _ = _run("wheels", *plain, "--waivers", waivers)
    assert {"k3diff.wheel.waivers", "k3diff.report.waived"} <= loaded


def test_a_name_beyond_ascii_or_a_renamed_dist_info_compiles_what_it_needs(
    tmp_path: Path,
) -> None:
    base, patch = _pair(tmp_path / "one")
    other_base, _ = _pair(tmp_path / "two", {"engine/caf\u00e9.py": b""})
    renamed = wheelkit.make_wheel(
        tmp_path / "renamed",
        "engine",
        "1.1",
        {"engine/__init__.py": b"VERSION = 1\n"},
        tag="cp311-cp311-manylinux_2_28_x86_64",
    )
    _, _, compiled = _run("wheels", other_base, patch, "--format", "markdown")
    assert "k3diff.escape._UNSAFE" in compiled  # a name beyond ASCII in a cell
    _, _, compiled = _run("wheels", base, renamed, "--format", "json")
    assert "k3diff.paths._VERSIONED_DIR" in compiled  # entries paired across the versions


def test_a_record_row_the_plain_path_does_not_take_compiles_the_row_check(
    tmp_path: Path,
) -> None:
    # the other side of the RECORD pattern: a sha512 row is judged row by row
    digest = base64.urlsafe_b64encode(hashlib.sha512(b"VERSION = 1\n").digest()).rstrip(b"=")
    row = f"engine/__init__.py,sha512={digest.decode()},12"
    base, _ = _pair(tmp_path)
    odd = wheelkit.make_wheel(
        tmp_path / "odd",
        "engine",
        "1.0",
        {"engine/__init__.py": b"VERSION = 1\n"},
        tag="cp311-cp311-manylinux_2_28_x86_64",
        record_overrides={"engine/__init__.py": row},
    )
    _, _, compiled = _run("wheels", base, odd, "--format", "json")
    assert "k3diff.wheel.record._URLSAFE_B64" in compiled, sorted(compiled)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")
def test_a_changed_native_read_for_its_loader_tables_loads_their_judge(tmp_path: Path) -> None:
    # the other side of the plain pairs' `k3diff.wheels.nativeread`: a changed native whose
    # loader tables are read (a real shared object) is judged for its search paths (W632/W633)
    made = []
    for side, body in (("base", "1"), ("patch", "2")):
        source = tmp_path / f"{side}.c"
        source.write_text(f"int go(void) {{ return {body}; }}\n")
        library = tmp_path / f"{side}.so"
        command = ["gcc", "-shared", "-fPIC", "-O1", "-o", str(library), str(source)]
        subprocess.run(command, check=True)
        files = {"engine/__init__.py": b"", "engine/_C.so": library.read_bytes()}
        wheel_dir = tmp_path / side
        tag = "cp311-cp311-manylinux_2_28_x86_64"
        made.append(wheelkit.make_wheel(wheel_dir, "engine", "1.0", files, tag=tag))
    code, loaded, _ = _run("wheels", *made, "--allow-native-changes", "--format", "json")
    assert code == 0
    assert {"k3diff.wheels.nativeread", "k3diff.native.platform"} <= loaded, sorted(loaded)
