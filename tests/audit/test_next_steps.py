"""`audit`'s failing findings say what to do next, as `wheels`' do (words73: a stale RECORD, a
manifest line that does not match, an unsound archive or a missing file said what was wrong
and never what to do).

Each kind of failing finding gets a command or an action (rebuild with `python -m build`,
repack with `wheel pack`, pin anew with `--write-manifest`, ...) before the verdict line; then
the waiver stanzas of those a waiver takes, naming their artifact, which, pasted with a reason,
waive exactly those findings. The bundle says the same steps from the audit document."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from k3diff.wheel.codes import WAIVER_PLACEHOLDER_REASON

FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/model.py": b"def run(x):\n    return x\n",
}


def _stale(directory: Path, version: str = "1.0") -> Path:
    """A wheel whose `engine/model.py` was edited after the build (RECORD as it was): A103,
    A104."""
    built = wheelkit.wheel_files("engine", version, FILES)
    built["engine/model.py"] += b"# patched\n"
    path = directory / f"engine-{version}-py3-none-any.whl"
    return wheelkit.write_zip(path, built)


def _steps(stdout: str) -> list[str]:
    """The lines of the text report's "Next steps" section, the verdict line left out."""
    section = stdout.split("\nNext steps\n", 1)[1]
    return section.splitlines()[:-1]


def test_a_stale_record_says_how_to_rebuild_or_repack(tmp_path: Path) -> None:
    wheel = _stale(tmp_path)
    result = run_k3diff("audit", wheel.name, cwd=tmp_path)
    assert result.exit_code == 1
    steps = _steps(result.stdout)
    assert steps[0].startswith("  1 × A103, 1 × A104 on 1 file: RECORD does not describe the")
    assert "python -m build --wheel, or pip wheel --no-deps -w dist ." in steps[0]
    assert "repack with wheel pack DIR/engine-1.0, which writes RECORD anew" in steps[0]
    assert steps[0].endswith("then audit the new wheel")
    assert steps[1].startswith(
        "  or accept each reviewed file with a waiver, one [[waiver]] per code and path and "
        "artifact in a TOML file given with --waivers FILE (each stanza below names one exact "
        "path and its artifact):"
    )
    assert result.stdout.endswith("FAIL: 2 errors, 0 warnings; 1 artifact audited (exit 1)\n")


def test_the_suggested_waivers_waive_what_they_name(tmp_path: Path) -> None:
    """The stanzas, with a reason written in, make the run pass: `artifact` names the file."""
    _stale(tmp_path)
    clean = wheelkit.make_wheel(tmp_path, "other", "1.0", {"other/__init__.py": b""})
    result = run_k3diff("audit", "engine-1.0-py3-none-any.whl", clean.name, cwd=tmp_path)
    stanzas = [line.strip() for line in _steps(result.stdout) if line.startswith("    ")]
    assert 'artifact = "engine-1.0-py3-none-any.whl"' in stanzas
    reviewed = "\n".join(stanzas).replace(WAIVER_PLACEHOLDER_REASON, "reviewed by the release team")
    (tmp_path / "waivers.toml").write_text(reviewed + "\n")
    again = run_k3diff(
        "audit", "engine-1.0-py3-none-any.whl", clean.name, "--waivers", "waivers.toml",
        cwd=tmp_path,
    )  # fmt: skip
    assert again.exit_code == 0, again.stdout
    assert "Next steps" not in again.stdout


def test_each_artifact_names_its_own_steps(tmp_path: Path) -> None:
    _stale(tmp_path)
    _stale(tmp_path, "2.0")
    names = ["engine-1.0-py3-none-any.whl", "engine-2.0-py3-none-any.whl"]
    steps = _steps(run_k3diff("audit", *names, cwd=tmp_path).stdout)
    assert steps[0].startswith("  engine-1.0-py3-none-any.whl: 1 × A103, 1 × A104")
    assert "wheel pack DIR/engine-1.0" in steps[0]
    assert steps[1].startswith("  engine-2.0-py3-none-any.whl: 1 × A103, 1 × A104")
    assert "wheel pack DIR/engine-2.0" in steps[1]


def test_a_weak_hash_says_to_rebuild_not_repack(tmp_path: Path) -> None:
    row = f"engine/model.py,md5=AAAAAAAAAAAAAAAAAAAAAA,{len(FILES['engine/model.py'])}"
    wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES, record_overrides={"engine/model.py": row})
    steps = _steps(run_k3diff("audit", "engine-1.0-py3-none-any.whl", cwd=tmp_path).stdout)
    assert steps[0].startswith("  1 × A108 on 1 file: the wheel's RECORD or METADATA vouches")
    assert "rebuild it from its source with a current build backend" in steps[0]
    assert "repacking these bytes would vouch for content no hash checked" in steps[0]


def test_manifest_findings_say_how_to_pin(tmp_path: Path) -> None:
    wheel = wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES)
    (tmp_path / "NOTES.txt").write_text("notes\n")
    sums = "0" * 64 + f"  {wheel.name}\n" + "1" * 64 + "  gone.whl\n"
    (tmp_path / "SUMS").write_text(sums)
    result = run_k3diff("audit", wheel.name, "NOTES.txt", "--manifest", "SUMS", cwd=tmp_path)
    assert result.exit_code == 1
    steps = _steps(result.stdout)
    assert steps[0].startswith(f"  1 × A201 ({wheel.name}): not the file SUMS pins")
    assert f"k3diff wheels PINNED.whl {wheel.name}" in steps[0]
    assert (
        f"k3diff audit {wheel.name} NOTES.txt --write-manifest SUMS (the files audited; add the "
        "files it pins that this run did not audit; written only when the audit passes)"
    ) in steps[0]
    assert steps[1].startswith("  1 × A202 (gone.whl): SUMS pins files this run did not audit")
    assert "--ignore-missing" in steps[1]
    assert steps[2].startswith("  1 × A203 (NOTES.txt): SUMS does not pin these files")
    assert "pin each once reviewed, sha256sum NOTES.txt >> SUMS (or the" in steps[2]
    assert len(steps) == 3  # a pin is not waived: no stanza


def test_an_unsound_archive_and_a_file_that_is_no_zip(tmp_path: Path) -> None:
    unsafe = wheelkit.make_wheel(tmp_path, "engine", "1.0", {**FILES, "../escape.py": b"x\n"})
    (tmp_path / "cut-1.0-py3-none-any.whl").write_bytes(unsafe.read_bytes()[:100])
    result = run_k3diff("audit", unsafe.name, "cut-1.0-py3-none-any.whl", cwd=tmp_path)
    steps = _steps(result.stdout)
    assert steps[0].startswith(f"  {unsafe.name}: 1 × W601: no waiver accepts it")
    assert steps[0].endswith("then audit the rebuilt wheel")
    assert steps[1].startswith("  cut-1.0-py3-none-any.whl: 1 × A001: no waiver accepts it")
    assert "copy it again from where it was built" in steps[1]
    assert "sha256sum cut-1.0-py3-none-any.whl" in steps[1]


def test_a_passing_audit_has_no_next_steps(tmp_path: Path) -> None:
    wheel = wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES)
    result = run_k3diff("audit", wheel.name, cwd=tmp_path)
    assert result.exit_code == 0
    assert "Next steps" not in result.stdout


def test_markdown_shows_the_commands_as_code(tmp_path: Path) -> None:
    _stale(tmp_path)
    text = run_k3diff(
        "audit", "engine-1.0-py3-none-any.whl", "--format", "markdown", cwd=tmp_path
    ).stdout
    steps = text.split("## Next steps\n", 1)[1]
    assert "`python -m build --wheel`" in steps and "`wheel pack DIR/engine-1.0`" in steps
    assert '```toml\n[[waiver]]\ncode = "A103"' in steps
    assert steps.index("```toml") < steps.index("**FAIL")


def test_the_bundle_says_the_audits_steps(tmp_path: Path) -> None:
    _stale(tmp_path)
    document = tmp_path / "audit.json"
    args = ("audit", "engine-1.0-py3-none-any.whl", "--format", "json", "-o", document)
    assert run_k3diff(*args, cwd=tmp_path).exit_code == 1
    assert run_k3diff("report", document, "--out", tmp_path / "bundle").exit_code == 1
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    steps = [s for s in summary["next_steps"] if s["evidence"] == "audit"]
    assert steps[0]["step"].startswith("1 × A103, 1 × A104 on 1 file: RECORD does not describe")
    assert "wheel pack DIR/engine-1.0" in steps[0]["step"]
    assert steps[1]["step"].startswith("or accept each reviewed file with a waiver")
    assert 'artifact = "engine-1.0-py3-none-any.whl"' in steps[1]["toml"]
    html = (tmp_path / "bundle" / "report.html").read_text()
    assert "wheel pack DIR/engine-1.0" in html


def test_a_file_name_holding_shell_syntax_is_quoted_in_every_command(tmp_path: Path) -> None:
    wheel = _stale(tmp_path)
    hostile = wheel.rename(tmp_path / "engine$(touch pwned)-1.0-py3-none-any.whl")
    steps = "\n".join(_steps(run_k3diff("audit", hostile.name, cwd=tmp_path).stdout))
    assert "wheel pack 'DIR/engine$(touch pwned)-1.0'" in steps
    assert "pack DIR/engine$(" not in steps


def test_a_file_name_its_metadata_contradicts_says_to_rebuild_or_rename(tmp_path: Path) -> None:
    built = wheelkit.wheel_files("engine", "1.0", FILES)
    wheelkit.write_zip(tmp_path / "engine-2.0-py3-none-any.whl", built)
    steps = _steps(run_k3diff("audit", "engine-2.0-py3-none-any.whl", cwd=tmp_path).stdout)
    assert steps[0].startswith("  1 × W605: the file's name and the wheel's metadata disagree")
    assert "rebuild it (python -m build --wheel: the build names the file" in steps[0]
    assert (
        "unzip -p engine-2.0-py3-none-any.whl '*.dist-info/WHEEL' -x '*/*/*' lists the tags"
        in steps[0]
    )


def test_a_manifest_that_pins_none_of_the_files_says_nothing_was_verified(tmp_path: Path) -> None:
    (tmp_path / "NOTES.txt").write_text("notes\n")
    (tmp_path / "SUMS").write_text("1" * 64 + "  gone.whl\n")
    args = ("audit", "NOTES.txt", "--manifest", "SUMS", "--ignore-missing")
    steps = _steps(run_k3diff(*args, cwd=tmp_path).stdout)
    assert steps[0].startswith("  1 × A202: SUMS pins none of the files audited, so nothing")
    assert "sha256sum -c SUMS checks them too" in steps[0]


def test_two_wheels_pip_reads_as_one_say_to_keep_one(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    for tag in ("py3-none-any", "py2.py3-none-any"):
        wheelkit.make_wheel(dist, "engine", "1.0", FILES, tag=tag)
    steps = _steps(run_k3diff("audit", "dist", cwd=tmp_path).stdout)
    assert steps[0].startswith("  dist/engine-1.0-py2.py3-none-any.whl: 1 × A128: another wheel")
    assert "keep one of them in the release directory" in steps[0]
    # --remove: `wheel tags` keeps the original beside the renamed wheel, and the directory
    # failed A128 as before once the step was followed (review73c, with wheel 0.48)
    assert "wheel tags --remove --build 1 dist/engine-1.0-py2.py3-none-any.whl" in steps[0]
    assert steps[1].startswith("  dist/engine-1.0-py3-none-any.whl: 1 × A128: another wheel")


def _stale_entry(directory: Path, entry: str) -> Path:
    """A wheel whose entry `entry` was edited after the build (A103, A104 on it)."""
    built = wheelkit.wheel_files("engine", "1.0", {**FILES, entry: b"x = 1\n"})
    built[entry] += b"# patched\n"
    return wheelkit.write_zip(directory / "engine-1.0-py3-none-any.whl", built)


def _reviewed(toml: str) -> str:
    return toml.replace(WAIVER_PLACEHOLDER_REASON, "reviewed by the release team") + "\n"


LINE_BREAKING = "engine/a\x85b\u2028c\x9bd.py"
"""An entry name holding characters `str.splitlines` breaks at (NEL, U+2028) and a C1 control
`escape.text` shows as `\\x9b`, an escape TOML does not read (review73c)."""


def test_a_waiver_for_a_name_holding_a_line_separator_loads_from_the_text_report(
    tmp_path: Path,
) -> None:
    wheel = _stale_entry(tmp_path, LINE_BREAKING)
    result = run_k3diff("audit", wheel.name, cwd=tmp_path)
    stanzas = [line[4:] for line in _steps(result.stdout) if line.startswith("    ")]
    assert len(stanzas) == 10, stanzas  # two stanzas of five lines: none split
    (tmp_path / "waivers.toml").write_text(_reviewed("\n".join(stanzas)))
    again = run_k3diff("audit", wheel.name, "--waivers", "waivers.toml", cwd=tmp_path)
    assert again.exit_code == 1, again.stderr  # the waiver file loads: W614 alone fails
    assert "2 findings waived: A103 engine/a\\x85b\\u2028c\\x9bd.py" in again.stdout
    assert again.stdout.endswith("FAIL: 1 error, 0 warnings; 1 artifact audited; 2 findings "
                                 "waived: A103 engine/a\\x85b\\u2028c\\x9bd.py — reviewed by the "
                                 "release team (and 1 more) (exit 1)\n")  # fmt: skip


def test_a_waiver_for_a_name_holding_a_c1_control_loads_from_the_markdown_report(
    tmp_path: Path,
) -> None:
    wheel = _stale_entry(tmp_path, LINE_BREAKING)
    text = run_k3diff("audit", wheel.name, "--format", "markdown", cwd=tmp_path).stdout
    toml = text.split("```toml\n", 1)[1].split("\n```", 1)[0]
    (tmp_path / "waivers.toml").write_text(_reviewed(toml))
    again = run_k3diff("audit", wheel.name, "--waivers", "waivers.toml", cwd=tmp_path)
    assert again.exit_code == 1, again.stderr
    assert "2 findings waived" in again.stdout


def test_a_waiver_names_a_file_holding_a_backslash_as_the_reader_matches_it(
    tmp_path: Path,
) -> None:
    """A backslash is a character of a POSIX file name: the stanza for `x\\engine-1.0-…` named
    `engine-1.0-…`, which waived nothing of it and the same findings of the file so named."""
    hostile = _stale(tmp_path).rename(tmp_path / "x\\engine-1.0-py3-none-any.whl")
    _stale(tmp_path)
    names = (hostile.name, "engine-1.0-py3-none-any.whl")
    result = run_k3diff("audit", *names, cwd=tmp_path)
    stanzas = "\n".join(line[4:] for line in _steps(result.stdout) if line.startswith("    "))
    mine = [s for s in stanzas.split("[[waiver]]\n") if "x\\\\engine" in s]
    assert len(mine) == 3, stanzas  # A103, A104, W605
    (tmp_path / "waivers.toml").write_text(_reviewed("".join(f"[[waiver]]\n{s}" for s in mine)))
    again = run_k3diff("audit", *names, "--waivers", "waivers.toml", cwd=tmp_path)
    assert "3 findings waived" in again.stdout, again.stdout
    assert "unused" not in again.stdout
    assert "- waived A103 engine/model.py in x\\engine-1.0-py3-none-any.whl by" in again.stdout
    assert "in engine-1.0-py3-none-any.whl by" not in again.stdout  # the other file's stay
    assert "FAIL: 4 errors" in again.stdout  # its A103, A104 and the first file's two W616


def test_a_file_named_like_an_option_is_named_as_a_path_in_each_command(tmp_path: Path) -> None:
    """`audit .` names `-cut.whl` so: pasted as printed, `sha256sum -cut.whl` read it as
    options (`-c`: check a list) and hashed nothing (review73c)."""
    (tmp_path / "-cut.whl").write_bytes(b"PK\x03\x04 cut short")
    steps = "\n".join(_steps(run_k3diff("audit", ".", cwd=tmp_path).stdout))
    found = re.search(r"check that (sha256sum \S+) gives the hash", steps)
    assert found is not None, steps
    words = shlex.split(found.group(1))
    assert words == ["sha256sum", "./-cut.whl"]
    hashed = subprocess.run(words, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert hashed.returncode == 0, hashed.stderr
    assert "unzip -p ./-cut.whl '*.dist-info/WHEEL'" in steps


def test_a_wheel_with_a_build_tag_is_given_a_higher_one(tmp_path: Path) -> None:
    """`--build 1` on a wheel whose build tag is 1 already renames it to itself."""
    dist = tmp_path / "dist"
    for tag in ("py3-none-any", "py2.py3-none-any"):
        name = f"engine-1.0-1-{tag}.whl"
        wheelkit.make_wheel(dist, "engine", "1.0", FILES, tag=tag, filename=name)
    steps = _steps(run_k3diff("audit", "dist", cwd=tmp_path).stdout)
    assert steps[0].startswith("  dist/engine-1.0-1-py2.py3-none-any.whl: 1 × A128: another")
    assert "wheel tags --remove --build N dist/engine-1.0-1-py2.py3-none-any.whl" in steps[0]
    assert "N above its build number" in steps[0]


@pytest.mark.skipif(shutil.which("unzip") is None, reason="the step's command is unzip's")
def test_the_served_metadata_step_writes_the_wheels_own_metadata(tmp_path: Path) -> None:
    """unzip's `*` crosses `/`: `'*.dist-info/METADATA'` printed a vendored package's METADATA
    first, and the file the step wrote served its name, version and requirements (review73c)."""
    vendored = b"Metadata-Version: 2.1\nName: evil\nVersion: 9\nRequires-Dist: evil\n"
    files = {**FILES, "engine/_vendor/evil-9.dist-info/METADATA": vendored}
    wheel = wheelkit.make_wheel(tmp_path, "engine", "1.0", files)
    served = b"Metadata-Version: 2.1\nName: engine\nVersion: 1.0\nRequires-Dist: evil\n"
    Path(f"{wheel}.metadata").write_bytes(served)
    steps = "\n".join(_steps(run_k3diff("audit", ".", cwd=tmp_path).stdout))
    found = re.search(r"from the wheel \((unzip -p .+? > \S+)\)", steps)
    assert found is not None, steps
    subprocess.run(["bash", "-c", found.group(1)], cwd=tmp_path, check=True)
    again = run_k3diff("audit", ".", cwd=tmp_path)
    assert again.exit_code == 0, again.stdout


def test_a_manifest_in_another_directory_is_pinned_there(tmp_path: Path) -> None:
    """The step said `sha256sum NAME >> dist/SUMS run in the manifest's directory`: run there,
    it named `dist/dist/SUMS`; run here, a line naming `dist/NOTES.txt`, which
    `sha256sum -c SUMS` in its directory does not find (review73c)."""
    dist = tmp_path / "dist"
    wheel = wheelkit.make_wheel(dist, "engine", "1.0", FILES)
    (dist / "NOTES.txt").write_text("notes\n")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (dist / "SUMS").write_text(f"{digest}  {wheel.name}\n")
    args = ("audit", "dist/NOTES.txt", f"dist/{wheel.name}", "--manifest", "dist/SUMS")
    steps = "\n".join(_steps(run_k3diff(*args, cwd=tmp_path).stdout))
    found = re.search(r"pin each once reviewed, (.+?) \(or the manifest anew", steps)
    assert found is not None, steps
    assert found.group(1) == "(cd dist && sha256sum NOTES.txt >> SUMS)"
    subprocess.run(["bash", "-c", found.group(1)], cwd=tmp_path, check=True)
    assert run_k3diff(*args, cwd=tmp_path).exit_code == 0
    subprocess.run(["sha256sum", "-c", "SUMS"], cwd=dist, check=True, capture_output=True)


def test_files_not_pinned_are_named_in_the_pasted_command(tmp_path: Path) -> None:
    """The A203 step said `(cd dist && sha256sum NAME >> SUMS), NAME the file's name` for the
    files it had just named (newuser74): pasted, `sha256sum: NAME: No such file`. It names them
    where they lie in the manifest's directory; a file elsewhere keeps NAME (its name there is
    the user's to choose)."""
    dist = tmp_path / "dist"
    wheel = wheelkit.make_wheel(dist, "engine", "1.0", FILES)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (dist / "SUMS").write_text(f"{digest}  {wheel.name}\n")
    (dist / "-notes {x}.txt").write_text("notes\n")
    (dist / "b.txt").write_text("b\n")
    (tmp_path / "elsewhere.txt").write_text("e\n")
    args = ("audit", "dist", "--manifest", "dist/SUMS")
    steps = "\n".join(_steps(run_k3diff(*args, cwd=tmp_path).stdout))
    found = re.search(r"pin each once reviewed, (.+?) \(or the manifest anew", steps)
    assert found is not None, steps
    assert found.group(1) == "(cd dist && sha256sum './-notes {x}.txt' b.txt >> SUMS)"
    subprocess.run(["bash", "-c", found.group(1)], cwd=tmp_path, check=True)
    assert run_k3diff(*args, cwd=tmp_path).exit_code == 0
    outside = ("audit", "dist", "elsewhere.txt", "--manifest", "dist/SUMS")
    steps = "\n".join(_steps(run_k3diff(*outside, cwd=tmp_path).stdout))
    assert "(cd dist && sha256sum NAME >> SUMS), NAME the file's name" in steps


def test_a_wheel_named_in_upper_case_is_renamed_and_then_passes(tmp_path: Path) -> None:
    """W616 for a file name pip refuses said to rebuild the wheel without the entries named,
    and named none (audit74): the file's name is what pip refuses, and renaming it fixes it."""
    wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES, filename="engine-1.0-py3-none-any.WHL")
    steps = _steps(run_k3diff("audit", ".", cwd=tmp_path).stdout)
    assert steps == [
        "  1 × W616: no waiver accepts it (pip refuses the wheel by its file name, the detail "
        "says why): rename it with '.whl' in lower case (mv -n engine-1.0-py3-none-any.WHL "
        "engine-1.0-py3-none-any.whl.renamed && mv -n engine-1.0-py3-none-any.whl.renamed "
        "engine-1.0-py3-none-any.whl), then audit it again"
    ]
    found = re.search(r"\((mv -n .+?)\), then", steps[0])
    assert found is not None
    subprocess.run(["bash", "-c", found.group(1)], cwd=tmp_path, check=True)
    again = run_k3diff("audit", ".", cwd=tmp_path)
    assert again.exit_code == 0, again.stdout


def test_a_build_number_pip_refuses_says_to_rename_the_file(tmp_path: Path) -> None:
    wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES, filename="engine-1.0-x-py3-none-any.whl")
    steps = _steps(run_k3diff("audit", ".", cwd=tmp_path).stdout)
    assert len(steps) == 1 and "rebuild it without it" not in steps[0]
    assert steps[0].startswith(
        "  1 × W616: no waiver accepts it (pip refuses the wheel by its file name, the detail "
        "says why): rename it to the name its build wrote, "
        "NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl: the project and version its METADATA "
        "gives (unzip -p engine-1.0-x-py3-none-any.whl '*.dist-info/METADATA' -x '*/*/*' | "
        "grep -E '^(Name|Version): ')"
    )
    assert "a build number, if any, starting with a digit" in steps[0]
    (tmp_path / "engine-1.0-x-py3-none-any.whl").rename(tmp_path / "engine-1.0-py3-none-any.whl")
    assert run_k3diff("audit", ".", cwd=tmp_path).exit_code == 0


def test_the_pin_anew_step_names_the_files_audited_and_runs_as_printed(tmp_path: Path) -> None:
    """cleanup75: A201's step said `k3diff audit ARTIFACT... --write-manifest SUMS`; it names
    the files audited, shell-quoted: pasted into a shell, a `$(touch pwned)` in a name stays
    text, the manifest is written, and the audit against it passes."""
    wheel = wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES)
    notes = tmp_path / "notes $(touch pwned).txt"
    notes.write_text("notes\n")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (tmp_path / "SUMS").write_text(f"{digest}  {wheel.name}\n" + "0" * 64 + f"  {notes.name}\n")
    args = ("audit", wheel.name, notes.name, "--manifest", "SUMS")
    failed = run_k3diff(*args, cwd=tmp_path)
    assert failed.exit_code == 1
    pattern = r"pin it anew once reviewed, (k3diff audit .+? --write-manifest SUMS) \("
    found = re.search(pattern, failed.stdout)
    assert found is not None, failed.stdout
    assert found.group(1) == f"k3diff audit {wheel.name} '{notes.name}' --write-manifest SUMS"
    shim = f'k3diff() {{ "{sys.executable}" -m k3diff "$@"; }}; '

    subprocess.run(["bash", "-c", shim + found.group(1)], cwd=tmp_path, check=True)

    assert not (tmp_path / "pwned").exists()
    assert run_k3diff(*args, cwd=tmp_path).exit_code == 0


def test_past_twenty_files_the_pin_anew_step_says_artifact() -> None:
    from k3diff.report.manifeststeps import manifest_steps

    many = [f"w{i}.whl" for i in range(21)]
    (step,) = manifest_steps([("A201", "w0.whl")], "SUMS", artifacts=many)
    assert (
        "k3diff audit ARTIFACT... --write-manifest SUMS (ARTIFACT... the 21 files audited;" in step
    )


def test_under_ignore_missing_the_pin_anew_step_says_to_add_the_files_not_audited(
    tmp_path: Path,
) -> None:
    """review75c: part of a release audited under `--ignore-missing`, the A201 step named the
    files audited alone: run as printed, the manifest was written without the other files'
    pins, unsaid. It says to add them, in the audit's steps and the bundle's."""
    (tmp_path / "a.txt").write_text("a, rebuilt\n")
    (tmp_path / "b.txt").write_text("b\n")
    b = hashlib.sha256(b"b\n").hexdigest()
    (tmp_path / "SUMS").write_text("0" * 64 + f"  a.txt\n{b}  b.txt\n")
    args = ("audit", "a.txt", "--manifest", "SUMS", "--ignore-missing")

    failed = run_k3diff(*args, cwd=tmp_path)

    assert failed.exit_code == 1
    said = (
        "k3diff audit a.txt --write-manifest SUMS (the files audited; add the files it pins "
        "that this run did not audit; written only when the audit passes)"
    )
    assert said in _steps(failed.stdout)[0]
    assert run_k3diff(*args, "--format", "json", "-o", "audit.json", cwd=tmp_path).exit_code == 1
    bundle = run_k3diff("report", "audit.json", "--out", "bundle", cwd=tmp_path)
    assert bundle.exit_code == 1
    assert said in (tmp_path / "bundle" / "REPORT.md").read_text()
