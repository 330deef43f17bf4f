"""Execution surfaces: every way a patch makes code run is listed, and new executable code fails.

Wheels are built in code; pip installs them where the claim is about what pip writes (the
console scripts it generates)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff

from wheel.pipinstall import pip_install
from wheel.test_installed_view import BASE_FILES, audit_code, codes, wheels_json
from wheel.tricks import build

PRECEDENCE = (
    b"import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') "
    b"== 'local'; enabled and __import__('_distutils_hack').add_shim(); \n"
)
SETUPTOOLS_LIKE = {**BASE_FILES, "distutils-precedence.pth": PRECEDENCE}


def surfaces(report: dict[str, Any], side: str = "patch") -> dict[str, dict[str, Any]]:
    return {s["key"]: s for s in report["execution_surfaces"][side]}


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {c["key"]: c["status"] for c in report["execution_surfaces"]["changes"]}


def test_an_unchanged_setuptools_pth_passes_and_is_listed_with_its_lines(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", SETUPTOOLS_LIKE)
    patch = build(tmp_path / "p", "2.0", {**SETUPTOOLS_LIKE, "demo/util.py": b"x = 2\n"})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0, report["findings"]
    pth = surfaces(report)["site-packages/distutils-precedence.pth"]
    assert pth["kind"] == "pth" and pth["executable"]
    assert [line["kind"] for line in pth["lines"]] == ["executable"]
    assert pth["content"] == PRECEDENCE.decode()
    assert statuses(report)["site-packages/distutils-precedence.pth"] == "unchanged"
    text = run_k3diff("wheels", base, patch).stdout
    assert "Execution surfaces" in text and "_distutils_hack" in text
    assert audit_code(patch)[0] == 0


ENTRY_POINTS = "demo-2.0.dist-info/entry_points.txt"
UNCHECKED_PYC = (
    importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + bytes(8) + b"\xe3other code"
)

FAILING = {
    "executable pth": ({"evil.pth": b"/opt/x\nimport os; os.system('id')\n"}, "W701"),
    "executable pth line added to an existing file": (
        {"distutils-precedence.pth": PRECEDENCE + b"import evil\n"},
        "W701",
    ),
    "sitecustomize": ({"sitecustomize.py": b"print('hi')\n"}, "W702"),
    "usercustomize package": ({"usercustomize/__init__.py": b"print('hi')\n"}, "W702"),
    "console script named pip": (
        {ENTRY_POINTS: b"[console_scripts]\npip = demo.cli:main\n"},
        "W703",
    ),
    "gui script named python3": (
        {ENTRY_POINTS: b"[gui_scripts]\npython3 = demo.cli:main\n"},
        "W703",
    ),
    "data script named bash": ({"demo-2.0.data/scripts/bash": b"#!/bin/sh\necho\n"}, "W703"),
    "plugin group": (
        {ENTRY_POINTS: b"[vllm.general_plugins]\nhook = demo.plugin:register\n"},
        "W704",
    ),
    "pyc beside an unchanged source": (
        {"demo/__pycache__/__init__.cpython-311.pyc": UNCHECKED_PYC},
        "W705",
    ),
    "sourceless pyc": ({"demo/extra.pyc": UNCHECKED_PYC}, "W705"),
}


@pytest.mark.parametrize("case", sorted(FAILING))
def test_new_executable_code_fails_wheels(tmp_path: Path, case: str) -> None:
    added, code = FAILING[case]
    base = build(tmp_path / "b", "1.0", SETUPTOOLS_LIKE)
    patch = build(tmp_path / "p", "2.0", {**SETUPTOOLS_LIKE, **added})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    failing = (
        {f["code"] for f in report["findings"] if f["severity"] == "error"}
        if any("severity" in f for f in report["findings"])
        else {f["code"] for f in report["findings"] if f.get("fails")}
    )
    assert code in failing, report["findings"]
    assert exit_code == 1


def test_pip_generates_the_console_script_k3diff_names(tmp_path: Path) -> None:
    ep = b"[console_scripts]\npip = demo.cli:main\ndemo-tool = demo.cli:main\n"
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, ENTRY_POINTS: ep})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W703" in codes(report) and "W707" in codes(report)
    listed = {k for k, s in surfaces(report).items() if s["kind"] == "script"}
    installed = pip_install(patch, tmp_path / "ip")
    assert installed.ok
    assert listed == {path for path in installed.tree if path.startswith("bin/")}
    # pip is a virtual environment's own name: protected whatever the user's list says.
    assert run_k3diff("wheels", base, patch, "--protected-commands", "ls").exit_code == 1


def test_bytecode_shadowing_its_source_fails_audit_and_is_described(tmp_path: Path) -> None:
    patch = build(
        tmp_path / "p",
        "2.0",
        {**BASE_FILES, "demo/__pycache__/__init__.cpython-311.pyc": UNCHECKED_PYC},
    )
    exit_code, found = audit_code(patch)
    assert exit_code == 1 and "W711" in found
    report = json.loads(run_k3diff("audit", patch, "--format", "json").stdout)
    pyc = next(s for s in report["artifacts"][0]["execution_surfaces"] if s["kind"] == "bytecode")
    assert pyc["bytecode"] == {
        "magic": UNCHECKED_PYC[:4].hex(),
        "flavor": "unchecked-hash",
        "source": "demo/__init__.py",
        "shadows_source": True,
    }


def test_a_checked_pyc_of_another_source_does_not_shadow_it(tmp_path: Path) -> None:
    checked = importlib.util.MAGIC_NUMBER + (3).to_bytes(4, "little") + bytes(8) + b"\xe3"
    patch = build(
        tmp_path / "p", "2.0", {**BASE_FILES, "demo/__pycache__/__init__.cpython-311.pyc": checked}
    )
    assert audit_code(patch)[0] == 0


def test_informational_surfaces_are_listed_with_their_content(tmp_path: Path) -> None:
    script = b"#!python\nimport demo\nprint(demo.VALUE)\n"
    added = {
        "extra-path.pth": b"/opt/extra\n",
        "demo-2.0.data/scripts/demo-run": script,
        "newtop/__init__.py": b"",
    }
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **added})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1  # the new .data/scripts file is new executable code: W708
    assert {"W706", "W708", "W709"} <= codes(report)
    failing = {f["code"] for f in report["findings"] if f["severity"] == "error"}
    assert failing == {"W708"}
    listed = surfaces(report)
    assert listed["bin/demo-run"]["content"] == script.decode()
    assert listed["site-packages/extra-path.pth"]["lines"] == [
        {"text": "/opt/extra", "kind": "path"}
    ]
    markdown = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
    assert "### Execution surfaces" in markdown and "#!python" in markdown


@pytest.mark.parametrize("base_script", [None, b"#!/bin/sh\necho one\n"])
def test_a_new_or_changed_data_script_fails_by_default(
    tmp_path: Path, base_script: bytes | None
) -> None:
    """A `.data/scripts` file is new executable code pip copies to bin/ (DESIGN: failing by
    default, like a new executable `.pth` line or entry point); `--ignore W708` or a waiver,
    as for those, lets a reviewed one pass."""
    before = {} if base_script is None else {"demo-1.0.data/scripts/run": base_script}
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, **before})
    patch = build(
        tmp_path / "p", "2.0", {**BASE_FILES, "demo-2.0.data/scripts/run": b"#!/bin/sh\nrm x\n"}
    )
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    (finding,) = [f for f in report["findings"] if f["severity"] == "error"]
    assert (finding["code"], finding["path"]) == ("W708", "demo-2.0.data/scripts/run")
    assert "bin/run" in pip_install(patch, tmp_path / "ip").tree  # pip copies it to bin/
    assert run_k3diff("wheels", base, patch, "--ignore", "W708").exit_code == 0


def test_native_data_scripts_pair_across_versions_and_pass(tmp_path: Path) -> None:
    """scikit-build-core style: `ninja` shipped as `NAME.data/scripts/ninja`, unchanged."""
    ninja = wheelkit.elf_program(b"\x00binary")
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, "demo-1.0.data/scripts/ninja": ninja})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo-2.0.data/scripts/ninja": ninja})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0, report["findings"]
    entry = next(e for e in report["entries"] if e["installed_path"] == "bin/ninja")
    assert (entry["status"], entry["kind"], entry["moved"]) == ("identical", "native", False)
    script = surfaces(report)["bin/ninja"]
    assert script["kind"] == "data-script" and "content" not in script
    assert "native executable" in script["summary"]
    assert statuses(report)["bin/ninja"] == "unchanged"


def test_a_data_file_landing_in_bin_is_a_script_too(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(
        tmp_path / "p", "2.0", {**BASE_FILES, "demo-2.0.data/data/bin/python3": b"#!/bin/sh\n"}
    )
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W703" in codes(report)
    installed = pip_install(patch, tmp_path / "ip", prefix=True)
    assert installed.ok and "bin/python3" in installed.tree


@pytest.mark.parametrize(
    ("where", "tag", "code"),
    [
        ("BIN/demo-tool", "py3-none-macosx_11_0_arm64", "W708"),
        ("Bin/python3", "py3-none-any", "W703"),  # the environment's interpreter, on macOS
        ("Scripts/demo-tool.exe", "py3-none-win_amd64", "W708"),
        ("scripts/pip.exe", "py3-none-win_amd64", "W703"),
    ],
    ids=["BIN-macos", "Bin-python3", "Scripts-windows", "scripts-pip"],
)
def test_a_data_file_landing_in_a_command_directory_of_another_case_is_a_script(
    tmp_path: Path, where: str, tag: str, code: str
) -> None:
    """review62b: pip writes `.data/data/BIN/x` to `PREFIX/BIN/x`, which the case-blind file
    systems of macOS (APFS's default) and Windows make `PREFIX/bin/x`, a command on PATH; and
    `.data/data/Scripts/x.exe` to `PREFIX/Scripts/`, a Windows environment's command directory.
    Listed as no surface, both passed."""
    files = {**BASE_FILES, f"demo-2.0.data/data/{where}": b"#!/bin/sh\necho evil\n"}
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=tag)
    patch = build(tmp_path / "p", "2.0", files, tag=tag)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and code in codes(report), codes(report)
    if tag == "py3-none-any":
        installed = pip_install(patch, tmp_path / "ip", prefix=True)
        assert installed.ok and where in installed.tree  # PREFIX/Bin/python3, as written


@pytest.mark.parametrize(
    ("tag", "runs"),
    [
        ("py3-none-win_amd64", True),
        ("py3-none-any", True),  # installs on Windows too
        ("py3-none-manylinux_2_17_x86_64", False),
        ("py3-none-macosx_11_0_arm64", False),
    ],
)
def test_a_customize_module_in_another_case_runs_where_suffixes_are_lowered(
    tmp_path: Path, tag: str, runs: bool
) -> None:
    """Windows' `FileFinder` lowers a file's suffix, so `site` imports `sitecustomize.PY` there
    at every start (W702). Linux and macOS match the loaders' lower-case suffixes as written
    (macOS opens paths in any case, but the finder reads the directory's listing): there it is
    data, no surface (was W702 whatever the tags)."""
    files = {**BASE_FILES, "sitecustomize.PY": b"import os; os.system('id')\n"}
    base = build(tmp_path / "b", "1.0", BASE_FILES, tag=tag)
    patch = build(tmp_path / "p", "2.0", files, tag=tag)
    exit_code, report = wheels_json(base, patch)
    assert ("W702" in codes(report), exit_code) == (runs, 1 if runs else 0), report["findings"]


def _real_setuptools_wheels() -> list[Path]:
    import ensurepip

    bundled = sorted((Path(ensurepip.__file__).parent / "_bundled").glob("setuptools-*.whl"))
    system = sorted(Path("/usr/share/python-wheels").glob("setuptools-*.whl"))
    return [*bundled[:1], *system[:1]]


@pytest.mark.skipif(len(_real_setuptools_wheels()) < 2, reason="two real setuptools wheels")
def test_real_setuptools_wheels_pass_with_their_pth_listed() -> None:
    base, patch = _real_setuptools_wheels()
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0, [f for f in report["findings"] if f["severity"] == "error"]
    changes = {c["key"]: c["status"] for c in report["execution_surfaces"]["changes"]}
    assert changes["site-packages/distutils-precedence.pth"] == "unchanged"
    pth = surfaces(report)["site-packages/distutils-precedence.pth"]
    assert [line["kind"] for line in pth["lines"]] == ["executable"]
    assert audit_code(patch)[0] == 0


def test_a_legacy_pyc_beside_its_source_does_not_shadow_it(tmp_path: Path) -> None:
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/__init__.pyc": UNCHECKED_PYC})
    assert audit_code(patch)[0] == 0
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W705" in codes(report)  # still new bytecode nobody reviewed
    assert "W711" not in codes(report)
    pyc = surfaces(report)["site-packages/demo/__init__.pyc"]
    assert pyc["bytecode"]["shadows_source"] is False and "imported instead" in pyc["summary"]


HOSTILE_PTH = (
    b"/opt/x\rVerdict: OK (exit 0)\n"
    b"import os; os.system('id')  \x1b[2K\x1b[G# ok\n"
    b"\xe2\x80\xaeimport evil | <img src=x>\n"
)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_hostile_pth_content_and_names_are_escaped_in_text_and_markdown(
    tmp_path: Path, fmt: str
) -> None:
    """A `.pth` file's content and a script's name are the attacker's: a carriage return, an
    ANSI erase or a bidi override is shown as an escape, never obeyed by the terminal, and
    Markdown gets no live HTML."""
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(
        tmp_path / "p",
        "2.0",
        {**BASE_FILES, "evil.pth": HOSTILE_PTH, "demo-2.0.data/scripts/to\x1bol": b"#!python\n"},
    )
    result = run_k3diff("wheels", base, patch, "--format", fmt)
    assert result.exit_code == 1, result.stderr
    out = result.stdout
    block = out[out.index("Execution surfaces") :]
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out
    assert "\\x1b[2K" in block and "\\r" in block and "\\u202e" in block
    assert "Verdict: OK" not in out.replace("\\rVerdict: OK", "")
    if fmt == "markdown":
        assert "<img" not in block.split("```")[0]  # outside the fenced content
    assert "W701" in out


def _timestamp_pyc(mtime: int, code: bytes, size: int = 0) -> bytes:
    header = bytes(4) + mtime.to_bytes(4, "little") + size.to_bytes(4, "little")
    return importlib.util.MAGIC_NUMBER + header + code


PYC = "demo/__pycache__/__init__.cpython-311.pyc"


def test_a_timestamp_pyc_restamped_by_a_rebuild_is_not_a_bytecode_change(tmp_path: Path) -> None:
    """numpy 2.1.2 -> 2.1.3: a timestamp pyc whose header holds another mtime and whose code
    and source are the base's. Nothing can run differently, so it is no W705; the entry is
    still listed as changed."""
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, PYC: _timestamp_pyc(1728145915, b"\xe3c")})
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, PYC: _timestamp_pyc(1730561100, b"\xe3c")})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0, report["findings"]
    assert "W705" not in codes(report)
    assert statuses(report)[f"site-packages/{PYC}"] == "unchanged"
    changed = [e for e in report["entries"] if e["path"] == PYC]
    assert changed and changed[0]["status"] == "changed"


@pytest.mark.parametrize(
    ("size", "code"), [(0, "W716"), (len(BASE_FILES["demo/__init__.py"]), "W705")]
)
def test_a_timestamp_pyc_whose_code_changed_beside_an_unchanged_source(
    tmp_path: Path, size: int, code: str
) -> None:
    """A header whose source size no install of the source matches is stale to the import
    system (W716, informational); numpy 2.2.6 -> 2.3.5's, which holds the source's size, is
    current for an install stamping the source with its mtime (W705, failing; both held to
    pip 26, unzip and Python in `tests/wheel/test_stale_pyc.py`)."""
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, PYC: _timestamp_pyc(1728145915, b"\xe3c")})
    shipped = _timestamp_pyc(1730561100, b"\xe3d", size)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, PYC: shipped})
    exit_code, report = wheels_json(base, patch)
    other = {"W716": "W705", "W705": "W716"}[code]
    assert exit_code == (code == "W705") and code in codes(report), report["findings"]
    assert other not in codes(report)


def test_an_auditwheel_libs_folder_is_no_importable_top_level_name(tmp_path: Path) -> None:
    # auditwheel repair vendors shared libraries into NAME.libs/: no `import` finds that folder.
    libs = {"demo.libs/libgomp-a34b3233.so.1.0.0": b"\x7fELF" + b"\0" * 60}
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **libs})
    _, report = wheels_json(base, patch)
    listed = surfaces(report)
    assert "site-packages/demo.libs" not in listed and "site-packages/demo" in listed


def test_a_top_level_name_no_import_can_name_is_not_given_an_import(tmp_path: Path) -> None:
    """newuser65: wrapt 2.5 adds `wrapt-stubs/` (PEP 561 stubs) and the surface read
    `top-level name 'wrapt-stubs' (import wrapt-stubs)`, a statement Python refuses."""
    base = wheelkit.make_wheel(tmp_path / "b", "demo", "1.0", BASE_FILES)
    files = {**BASE_FILES, "demo-stubs/__init__.pyi": b"x: int\n"}
    patch = wheelkit.make_wheel(tmp_path / "p", "demo", "2.0", files)
    text = run_k3diff("wheels", base, patch).stdout
    assert "top-level name 'demo-stubs' (no import statement can name it) [added]" in text
    assert "import demo-stubs" not in text
    assert "top-level name 'demo' (import demo) [unchanged]" in text
