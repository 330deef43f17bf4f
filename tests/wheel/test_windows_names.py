"""Entries Windows installs somewhere else, or not at all (W619): pip writes `pkg/nul.py`,
`pkg/CON`, `pkg/COM¹.txt` into a DOS device on Windows 10 and the Servers built on it (or
fails), `pkg/util.py.` as `pkg/util.py` (a module where Linux has inert data), `pkg/util.py:x`
into a data stream of `pkg/util.py` and `pkg/a?.py` not at all. Before stop 65 each passed
both commands (exit 0: W203 or W501, informational): the installed tree on Windows lacked a
file RECORD lists, or held a module nobody compared. Like W615's Windows names they fail
whatever the tags say (a `manylinux` wheel is installed onto Windows file systems too:
`pip install --platform ... --target`), in either wheel, and no waiver covers them. pip on
Linux installs each as named, so on Linux k3diff's other claims still hold."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff

from wheel.pipinstall import pip_install
from wheel.test_installed_view import BASE_FILES, EVIL, audit_code, wheels_json
from wheel.tricks import build


def _w619(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == "W619"]


DEVICES = [
    "demo/CON",
    "demo/nul.py",
    "demo/COM1.txt",
    "demo/LPT9",
    "demo/AUX.pyd",
    "demo/Prn.tar.gz",
    "demo/con .py",  # spaces before the extension: CON
    "demo/nul ",
    "demo/COM\u00b9",  # superscript one: ntdll's iswdigit counts it
    "demo/lpt\u00b3.py",
    "demo/CONIN$",
    "demo/conout$.txt",
    "demo/CON/util.py",  # a directory component: makedirs makes the device
    "demo-2.0.data/data/share/aux/readme.txt",
]


@pytest.mark.parametrize("name", DEVICES)
def test_a_device_name_fails_both_commands(tmp_path: Path, name: str) -> None:
    """Built by Info-ZIP's `zip`, but for the superscripts: it writes a UTF-8 name without
    the flag that says so, which zipfile (and so pip) reads as cp437."""
    tool = "zip" if name.isascii() else "zipfile"
    base = wheelkit.make_wheel(tmp_path / "b", "demo", "1.0", BASE_FILES, tool=tool)
    files = {**BASE_FILES, name: EVIL}
    patch = wheelkit.make_wheel(tmp_path / "p", "demo", "2.0", files, tool=tool)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    (finding,) = _w619(report)
    assert finding["path"] == name and finding["severity"] == "error"
    assert "DOS device name" in finding["detail"] and "in the patch wheel" in finding["detail"]
    assert audit_code(patch) == (1, {"W619"})


ELSEWHERE = [
    ("demo/util2.py.", "ends in a dot or a space", "'util2.py'"),
    ("demo/util2.py ", "ends in a dot or a space", "'util2.py'"),
    ("demo. /util2.py", "ends in a dot or a space", "'demo'"),
    ("demo/util2.py:$DATA", "holds a colon", "data stream"),
    ("demo/util2.py::$DATA", "holds a colon", "data stream"),
    ("demo/util.py:hidden", "holds a colon", "data stream"),
    ("demo:stream", "holds a colon", "data stream"),
    ("demo/a?.py", "holds '?'", "refuses"),
    ("demo/a*.py", "holds '*'", "refuses"),
    ('demo/"q".py', "holds '\"'", "refuses"),
    ("demo/a|b.py", "holds '|'", "refuses"),
    ("demo/<a>.py", "holds '<'", "refuses"),
]


@pytest.mark.parametrize(("name", "why", "what"), ELSEWHERE)
def test_a_name_windows_writes_elsewhere_or_refuses_fails(
    tmp_path: Path, name: str, why: str, what: str
) -> None:
    """Alone, with no entry it would alias (W615 needs two): `demo/util2.py.` is inert data on
    Linux and the module `demo/util2.py` on Windows."""
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, name: EVIL})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    (finding,) = _w619(report)
    assert finding["path"] == name and why in finding["detail"] and what in finding["detail"]
    audit_exit, found = audit_code(patch)
    assert audit_exit == 1 and "W619" in found


def test_linux_pip_installs_them_as_named(tmp_path: Path) -> None:
    """The finding is Windows': on Linux pip writes each entry under its own name."""
    extra = {"demo/nul.py": EVIL, "demo/util2.py.": EVIL, "demo/util.py:x": EVIL}
    wheel = build(tmp_path / "w", "2.0", {**BASE_FILES, **extra})
    installed = pip_install(wheel, tmp_path / "target")
    assert installed.ok, installed.output
    assert {f"site-packages/{name}" for name in extra} <= set(installed.tree)


ALLOWED = [
    "demo/com0.py",  # COM0 and LPT0 are no devices: ntdll reads 1-9 and three superscripts
    "demo/lpt0",
    "demo/com10.py",
    "demo/COM\u2074.py",  # superscript four: no digit to ntdll
    "demo/console.py",
    "demo/conf/nul_check.py",
    "demo/auxiliary.py",
    "demo/prn1.py",
    "demo/util.py.bak",
    "demo/.hidden",
    "demo/a b.py",
]


def test_names_windows_writes_as_named_pass(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **dict.fromkeys(ALLOWED, b"x = 1\n")})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0 and not _w619(report), report["findings"]
    assert audit_code(patch) == (0, set())


def test_a_linux_only_wheel_fails_as_w615_does(tmp_path: Path) -> None:
    """The tags do not excuse it, and a name both wheels hold fails in each, as W615's do."""
    tag = "cp311-cp311-manylinux_2_17_x86_64"
    files = {**BASE_FILES, "demo/aux.py": b"x = 1\n"}
    base = build(tmp_path / "b", "1.0", files, tag=tag)
    patch = build(tmp_path / "p", "2.0", files, tag=tag)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    details = sorted(f["detail"].split(",")[0] for f in _w619(report))
    assert details == ["in the base wheel", "in the patch wheel"]
    assert {f["path"] for f in _w619(report)} == {"demo/aux.py"}


def test_a_generated_script_and_a_projects_headers_directory(tmp_path: Path) -> None:
    """Components the install adds to an entry's name: a console script named `nul` (pip
    writes `Scripts\\nul.exe` on Windows) and the headers directory of a project named `aux`,
    in a wheel whose names hold no such component."""
    entry_points = b"[console_scripts]\nnul = auxpkg:main\n"
    files = {
        "auxpkg/__init__.py": b"def main():\n    pass\n",
        "aux-2.0.data/headers/aux.h": b"int aux;\n",
        "aux-2.0.dist-info/entry_points.txt": entry_points,
    }
    base = wheelkit.make_wheel(tmp_path / "b", "aux", "1.0", {"auxpkg/__init__.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "aux", "2.0", files)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    paths = {f["path"] for f in _w619(report)}
    assert paths == {"bin/nul", "aux-2.0.data/headers/aux.h"}, report["findings"]


@pytest.mark.parametrize(
    ("script", "windows"), [("tool.", None), ("nul.py", "nul.exe"), ("con.pyw", "con.exe")]
)
def test_a_generated_script_is_judged_by_the_name_pip_writes_on_windows(
    tmp_path: Path, script: str, windows: str | None
) -> None:
    """pip writes a console or GUI script on Windows as distlib's launcher, `NAME.exe`, a
    `.py…` extension dropped first: `tool.` is `Scripts\\tool..exe`, which Windows writes as
    named (W619 said Windows drops the dot, and an unwaivable finding failed the wheel:
    review65b); `nul.py` and `con.pyw` are `nul.exe` and `con.exe`, devices."""
    group = "gui_scripts" if script.endswith(".pyw") else "console_scripts"
    files = {
        "demo/__init__.py": b"def main():\n    pass\n",
        "demo-2.0.dist-info/entry_points.txt": f"[{group}]\n{script} = demo:main\n".encode(),
    }
    base = wheelkit.make_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "demo", "2.0", files)
    exit_code, report = wheels_json(base, patch)
    found = _w619(report)
    if windows is None:
        assert (exit_code, found) == (0, []), found
        return
    assert exit_code == 1
    assert [f["path"] for f in found] == [f"bin/{script}"]
    assert f"{windows!r} is the DOS device name" in found[0]["detail"], found


@pytest.mark.parametrize(
    ("second", "windows"),
    [("tool.py", "bin/tool.exe"), ("TOOL.pyw", "bin/TOOL.exe"), ("tool.", None)],
)
def test_two_scripts_are_one_file_on_windows_by_the_name_pip_writes(
    tmp_path: Path, second: str, windows: str | None
) -> None:
    """`tool = demo:main` and `tool.py = demo:evil` are `bin/tool` and `bin/tool.py` on Linux
    and one file on Windows, `Scripts\\tool.exe`, which the later one writes: `tool` runs
    `demo:evil` there (exit 0 before: W707 alone, informational). `tool` and `tool.` are
    `tool.exe` and `tool..exe`, two files, though a name's trailing dot is dropped elsewhere
    (W615 said they were one: review65b)."""
    group = "gui_scripts" if second.endswith(".pyw") else "console_scripts"
    lines = f"[console_scripts]\ntool = demo:main\n[{group}]\n{second} = demo:evil\n"
    files = {
        "demo/__init__.py": b"def main():\n    pass\ndef evil():\n    pass\n",
        "demo-2.0.dist-info/entry_points.txt": lines.encode(),
    }
    base = wheelkit.make_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": b""})
    patch = wheelkit.make_wheel(tmp_path / "p", "demo", "2.0", files)
    exit_code, report = wheels_json(base, patch)
    found = [f for f in report["findings"] if f["code"] in ("W615", "W619")]
    if windows is None:
        assert (exit_code, found) == (0, []), found
        return
    assert exit_code == 1
    assert [(f["code"], f["path"]) for f in found] == [("W615", windows)], found
    assert f"script {second!r}" in found[0]["detail"] and "on Windows" in found[0]["detail"]
    assert audit_code(patch)[0] == 1


def test_waivers_cannot_cover_it(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/nul.py": EVIL})
    waivers = tmp_path / "waivers.toml"
    waivers.write_text(
        '[[waiver]]\ncode = "W619"\npath = "demo/nul.py"\nreason = "reviewed by the release team"\n'
    )
    result = run_k3diff("wheels", base, patch, "--waivers", waivers)
    assert result.exit_code == 2
    assert "W619 (" in result.stderr and "cannot be waived" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_sarif_junit_and_text_carry_it(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, "demo/COM1.py": EVIL})
    sarif = run_k3diff("wheels", base, patch, "--format", "sarif")
    assert sarif.exit_code == 1
    run = json.loads(sarif.stdout)["runs"][0]
    (result,) = [r for r in run["results"] if r["ruleId"] == "W619"]
    assert result["level"] == "error"
    assert result["locations"][0]["logicalLocations"][0]["name"] == "demo/COM1.py"
    junit = run_k3diff("wheels", base, patch, "--format", "junit")
    assert junit.exit_code == 1
    failures = [f for f in ET.fromstring(junit.stdout).iter("failure") if "W619" in (f.text or "")]
    assert failures and "demo/COM1.py" in (failures[0].text or "")
    text = run_k3diff("wheels", base, patch)
    assert text.exit_code == 1
    assert "W619" in text.stdout and "FAIL" in text.stdout.splitlines()[-1]
    assert "[[waiver]]" not in text.stdout  # nothing a waiver takes: no stanza
    audit = run_k3diff("audit", patch)
    assert audit.exit_code == 1 and "W619 demo/COM1.py" in audit.stdout


def test_the_next_steps_offer_no_waiver_for_it(tmp_path: Path) -> None:
    """The waiver step of `wheels`' text and of the bundle names the failing findings a waiver
    takes (a Jupyter config, W717) and not W619, which none takes."""
    config = "pkg-1.0.data/data/etc/jupyter/jupyter_server_config.d/x.json"
    files = {"pkg/__init__.py": b""}
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files)
    extra = {config: b"{}\n", "pkg/nul.py": b"x = 1\n"}
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", {**files, **extra})
    made = run_k3diff("wheels", base, patch, "--format", "json", "-o", tmp_path / "w.json")
    assert made.exit_code == 1, made.stdout + made.stderr
    document = json.loads((tmp_path / "w.json").read_text())
    failing = {f["code"] for f in document["findings"] if f["severity"] == "error"}
    assert failing == {"W619", "W717"}
    bundle = run_k3diff("report", tmp_path / "w.json", "--out", tmp_path / "b")
    assert bundle.exit_code == 1, bundle.stdout + bundle.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    # First the W619's own step (newuser65), then the waiver of what a waiver takes.
    rebuild, waiver = [step["step"] for step in summary["next_steps"]]
    assert rebuild.startswith("1 × W619: no waiver accepts it") and "W717" not in rebuild
    assert f'code = "W717", path = "{config}"' in waiver and "W619" not in waiver
    text = run_k3diff("wheels", base, patch).stdout
    assert 'code = "W717"' in text and 'code = "W619"' not in text


def test_a_pair_failing_w619_alone_names_what_to_do(tmp_path: Path) -> None:
    """newuser65: a patch adding `demo/aux.py` failed W619 with no "Next steps" at all (no
    waiver accepts it, and the steps named only waivers), in text, Markdown and the bundle.
    The step says no waiver accepts it and that the wheel must be rebuilt without it."""
    base = wheelkit.make_wheel(tmp_path / "b", "demo", "1.0", BASE_FILES)
    patch = wheelkit.make_wheel(tmp_path / "p", "demo", "2.0", {**BASE_FILES, "demo/aux.py": EVIL})
    step = (
        "1 × W619: no waiver accepts it (pip would not install the wheel as it lists its "
        "entries, or not at all): rebuild it without it, renaming or dropping each entry named"
    )
    text = run_k3diff("wheels", base, patch)
    assert text.exit_code == 1
    assert f"\nNext steps\n  {step}" in text.stdout and "[[waiver]]" not in text.stdout
    markdown = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
    assert f"### Next steps\n\n- {step}" in markdown
    made = run_k3diff("wheels", base, patch, "--format", "json", "-o", tmp_path / "w.json")
    assert made.exit_code == 1
    bundle = run_k3diff("report", tmp_path / "w.json", base, patch, "--out", tmp_path / "out")
    assert bundle.exit_code == 1, bundle.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [s["step"] for s in summary["next_steps"]] == [
        step + " (its detail says what pip or Windows does with it), then compare the rebuilt wheel"
    ]
