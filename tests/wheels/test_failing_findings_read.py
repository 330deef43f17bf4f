"""What the reviewer reads on a failing pair (stop 63, found by new-user trials at stop 62):

* the failing-findings table is sorted by severity, code and path (JSON keeps the run's order);
* a rebuilt native executable pip copies into `bin/` (z3_solver's `bin/z3`) is one row naming
  W101 and W708 with both reasons, counted once in the verdict, and still fails without
  `--allow-native-changes`;
* a failing native pair names its next steps: `--explain` (when a native changed and it was not
  asked), `--allow-native-changes` (what it lets pass, what still fails) and a waiver whose TOML
  is the one `--waivers` reads, for every failing finding a waiver takes (newuser64b: a W717
  Jupyter config beside a W101 was left out, and alone got no next steps at all).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

SO = wheelkit.elf_program(b"\x55\x48\x89\xe5" * 512)
SO_CHANGED = wheelkit.elf_program(b"\x31\xc0\xc3\x90" * 512)
TAG = "cp311-cp311-linux_x86_64"
ALLOW = "--allow-native-changes"
PLACEHOLDER = "why this change is expected, and who reviewed it"
"""The reason a suggested waiver carries (`wheel.codes.WAIVER_PLACEHOLDER_REASON`), as printed."""


def _files(version: str, so: bytes, *, extra: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """`engine` with a native library, a native executable pip copies into bin/, and a text
    script pip copies into bin/ (whose W708 sorts before the W101s in the run's order)."""
    return {
        "engine/__init__.py": b"",
        "engine/_core.so": so,
        f"engine-{version}.data/scripts/engine-solver": so,
        f"engine-{version}.data/scripts/aa-tool": f"#!/bin/sh\necho {version}\n".encode(),
        **(extra or {}),
    }


def _pair(tmp_path: Path, base: dict[str, bytes], patch: dict[str, bytes]) -> tuple[Path, Path]:
    return (
        wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", base, tag=TAG),
        wheelkit.make_wheel(tmp_path / "patch", "engine", "2.0", patch, tag=TAG),
    )


def _native_pair(tmp_path: Path) -> tuple[Path, Path]:
    return _pair(tmp_path, _files("1.0", SO), _files("2.0", SO_CHANGED))


def _table(text: str) -> list[str]:
    """The failing-findings table's rows (text report), without its header and rule."""
    lines = text.split("Failing findings (", 1)[1].split("\n\n", 1)[0].splitlines()
    return lines[3:]


def test_the_table_is_sorted_by_code_then_path_and_the_json_keeps_the_run_order(
    tmp_path: Path,
) -> None:
    base, patch = _native_pair(tmp_path)
    code, document = run_json("wheels", base, patch)
    assert code == 1
    failing = [(f["code"], f["path"]) for f in document["findings"] if f["severity"] == "error"]
    assert failing[0][0] == "W708", failing  # the run's order: the surfaces' findings first
    text = run_k3diff("wheels", base, patch).stdout
    rows = [(row.split()[0].rstrip(","), row.split()[-1]) for row in _table(text)]
    assert [row.split("  ")[0] for row in _table(text)] == ["W101, W708", "W101", "W708"]
    # By code, then path: `engine-2.0.data/…` sorts before `engine/…` ('-' before '/').
    assert "engine-solver" in _table(text)[0] and "engine/_core.so" in _table(text)[1]
    assert rows == sorted(rows, key=lambda row: row[0])
    markdown = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
    body = markdown.split("### Failing findings (3)", 1)[1].split("\n\n")[1].splitlines()[2:]
    assert [line.split("|")[1].strip() for line in body] == ["W101, W708", "W101", "W708"]


def test_a_rebuilt_native_script_is_one_row_naming_both_codes(tmp_path: Path) -> None:
    base, patch = _native_pair(tmp_path)
    result = run_k3diff("wheels", base, patch)
    assert result.exit_code == 1  # not weakened: W101 and W708 both fail
    [row] = [r for r in _table(result.stdout) if r.startswith("W101, W708")]
    assert "engine-2.0.data/scripts/engine-solver" in row
    assert "native entry changed; file pip copies into bin/ added or changed" in row
    assert "changed: copied to bin/engine-solver, a native executable" in row
    verdict = result.stdout.strip().splitlines()[-1]
    assert verdict == "Verdict: FAIL (exit 1): 2 × W101 (1 also W708), 1 × W708", verdict
    _, document = run_json("wheels", base, patch)
    codes = [f["code"] for f in document["findings"] if f["path"].endswith("engine-solver")]
    assert sorted(codes) == ["W101", "W708"]  # JSON keeps both findings


def test_the_pair_still_fails_when_only_one_of_the_two_is_ignored(tmp_path: Path) -> None:
    base, patch = _native_pair(tmp_path)
    for ignored in ("W101", "W708"):
        result = run_k3diff("wheels", base, patch, "--ignore", ignored)
        assert result.exit_code == 1, ignored
    allowed = run_k3diff("wheels", base, patch, ALLOW)
    assert allowed.stdout.strip().splitlines()[-1].startswith("Verdict: FAIL (exit 1): 1 × W708")
    assert "W101, W708" not in allowed.stdout  # the text script's W708 alone still fails


def test_a_native_pair_names_its_next_steps(tmp_path: Path) -> None:
    base, patch = _native_pair(tmp_path)
    text = run_k3diff("wheels", base, patch).stdout
    steps = text.split("Next steps (native code differs)\n", 1)[1].split("\n\nVerdict:")[0]
    assert "--explain: what changed in each changed native entry" in steps
    assert "2 changed native entries" in steps
    assert (
        "--allow-native-changes: reports the native changes without failing on them "
        "(2 × W101 (1 also W708)); 1 × W708 still fails"
    ) in steps
    assert "one [[waiver]] per code and path in a TOML file given with --waivers FILE" in steps
    waiver = "\n".join(line.removeprefix("    ") for line in steps.splitlines()[3:])
    parsed = tomllib.loads(waiver)
    assert parsed["waiver"][0] == {
        "code": "W101",
        "path": "engine-2.0.data/scripts/engine-solver",
        "reason": PLACEHOLDER,
    }
    # Pasted as printed, the placeholder reason is refused: a paste is not a review.
    (tmp_path / "w.toml").write_text(waiver)
    pasted = run_k3diff("wheels", base, patch, "--waivers", tmp_path / "w.toml")
    assert pasted.exit_code == 2
    assert "'reason' is still the suggested placeholder" in pasted.stderr
    # Every pasted stanza is named in the one refusal line, not only the first (newuser63b).
    [refusal] = pasted.stderr.strip().splitlines()
    assert "w.toml: waivers 1-4: in all 4, 'reason' is still the suggested placeholder" in refusal
    one_left = waiver.replace(PLACEHOLDER, "rebuilt with gcc 14, reviewed by A", 3)
    (tmp_path / "w.toml").write_text(one_left)
    pasted = run_k3diff("wheels", base, patch, "--waivers", tmp_path / "w.toml")
    assert pasted.exit_code == 2
    assert "w.toml: waiver 4: 'reason' is still the suggested placeholder" in pasted.stderr
    # With a reason written in, the waivers shown are ones `--waivers` takes, each waiving its
    # finding.
    reviewed = waiver.replace(PLACEHOLDER, "rebuilt with gcc 14, reviewed by A")
    (tmp_path / "w.toml").write_text(reviewed)
    _, document = run_json("wheels", base, patch, "--waivers", tmp_path / "w.toml")
    [script] = [f for f in document["findings"] if f["code"] == "W101" and "solver" in f["path"]]
    assert script["severity"] == "info" and script["waiver"]["number"] == 1
    [core] = [f for f in document["findings"] if f["path"] == "engine/_core.so"]
    assert core["severity"] == "info" and core["waiver"]["number"] == 3


def test_waived_findings_are_listed_and_counted_as_the_failing_table(tmp_path: Path) -> None:
    """Waivers given in scrambled order are listed in the failing table's order (code, path),
    the W708 its W101 implies right after it, and counted as the verdict counts (newuser63b)."""
    base, patch = _native_pair(tmp_path)
    stanza = '[[waiver]]\ncode = "{}"\npath = "engine-2.0.data/scripts/{}"\nreason = "{}"\n'
    waivers = [
        stanza.format("W708", "aa-tool", "r1"),
        stanza.format("W708", "engine-solver", "r2"),
        '[[waiver]]\ncode = "W101"\npath = "engine/_core.so"\nreason = "r3"\n',
        stanza.format("W101", "engine-solver", "r4"),
    ]
    (tmp_path / "w.toml").write_text("".join(waivers))
    result = run_k3diff("wheels", base, patch, "--waivers", tmp_path / "w.toml")
    assert result.exit_code == 0
    section = result.stdout.split("Waivers from ", 1)[1].split("\n\n", 1)[0].splitlines()
    assert section[0].endswith(": 4 findings waived (2 × W101 (1 also W708), 1 × W708)")
    listed = [(line.split()[2], line.split()[3], line.rsplit(": ", 1)[1]) for line in section[1:]]
    assert listed == [
        ("W101", "engine-2.0.data/scripts/engine-solver", "r4"),
        ("W708", "engine-2.0.data/scripts/engine-solver", "r2"),
        ("W101", "engine/_core.so", "r3"),
        ("W708", "engine-2.0.data/scripts/aa-tool", "r1"),
    ]


def test_the_steps_name_only_what_applies(tmp_path: Path) -> None:
    base, patch = _native_pair(tmp_path)
    explained = run_k3diff("wheels", base, patch, "--explain").stdout
    assert "Next steps (native code differs)" in explained
    assert "--explain: what changed" not in explained  # asked already
    # A native library only added: nothing changed to explain; the pair then passes.
    files = {"engine/__init__.py": b""}
    base, patch = _pair(tmp_path / "added", files, {**files, "engine/_new.so": SO})
    text = run_k3diff("wheels", base, patch).stdout
    assert "--explain" not in text
    assert "(1 × W103); nothing else fails, so the pair then passes" in text
    assert 'code = "W103"' in text and 'path = "engine/_new.so"' in text
    # No native finding fails: no native options, only the waiver of what fails (newuser64b).
    base, patch = _pair(tmp_path / "text", _files("1.0", SO), _files("2.0", SO))
    text = run_k3diff("wheels", base, patch).stdout
    assert "Verdict: FAIL" in text and "Next steps (native code differs)" not in text
    steps = text.split("Next steps\n", 1)[1].split("\n\nVerdict:")[0]
    assert "--allow-native-changes" not in steps and "--explain" not in steps
    assert [(w["code"], w["path"]) for w in tomllib.loads(_pasted(steps))["waiver"]] == [
        ("W708", "engine-2.0.data/scripts/aa-tool")
    ]


def test_markdown_gives_the_steps_and_the_waiver_as_toml(tmp_path: Path) -> None:
    base, patch = _native_pair(tmp_path)
    markdown = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
    steps = markdown.split("### Next steps (native code differs)\n\n", 1)[1]
    assert steps.startswith("- `--explain`: what changed")
    block = steps.split("```toml\n", 1)[1].split("\n```", 1)[0]
    assert tomllib.loads(block)["waiver"][0]["path"] == "engine-2.0.data/scripts/engine-solver"


Z3 = Path("/opt/pypi/files")
Z3_PAIR = (
    Z3 / "z3_solver-4.16.0.0-py3-none-manylinux_2_27_x86_64.whl",
    Z3 / "z3_solver-5.1.0.0-py3-none-manylinux_2_27_x86_64.whl",
)


@pytest.mark.skipif(not all(p.exists() for p in Z3_PAIR), reason="the real z3_solver wheels")
def test_the_real_z3_solver_release_reads_bin_z3_once() -> None:
    result = run_k3diff("wheels", *Z3_PAIR, "--no-file-hash")
    assert result.exit_code == 1
    rows = _table(result.stdout)
    assert [r.split()[0].rstrip(",") for r in rows] == ["W101", "W101", "W102", "W103"]
    [z3] = [r for r in rows if "bin/z3" in r]
    assert z3.startswith("W101, W708  z3_solver-5.1.0.0.data/data/bin/z3")
    verdict = result.stdout.strip().splitlines()[-1]
    assert verdict.startswith("Verdict: FAIL (exit 1): 2 × W101 (1 also W708), 1 × W102, 1 × W103")


@pytest.mark.parametrize("path", ['a"b.so', "c\\d.so", "x\x1b[2Ky\n\x7f.so", "café.so", "\\u0041"])
def test_the_waiver_s_path_reads_back_as_the_finding_s_path(path: str) -> None:
    """A hostile name is a TOML string that reads back as written (and shows no raw control
    character: the text report escapes what is left)."""
    from k3diff.report.stepwords import toml_string

    quoted = toml_string(path)
    assert tomllib.loads(f"path = {quoted}")["path"] == path
    assert not any(ord(c) < 0x20 or ord(c) == 0x7F for c in quoted)


def _pasted(steps: str) -> str:
    """The waiver TOML of a text report's next steps, as a reviewer pastes it into a file and
    writes the review's reason in (the placeholder as printed is refused)."""
    intro = "--waivers FILE (each stanza below names one exact path):\n"
    lines = steps.split(intro, 1)[1].splitlines()
    pasted = "\n".join(line.removeprefix("    ") for line in lines if line.startswith("    "))
    return pasted.replace(PLACEHOLDER, "rebuilt with gcc 14, reviewed by A")


def test_the_waivers_shown_cover_every_failing_native_row_in_one_paste(tmp_path: Path) -> None:
    """newuser63: z3_solver 4.16 -> 5.1 showed one stanza for four failing rows, so pasting what
    was shown took five runs (the W708 of the `W101, W708` row surfaced last). Every failing
    native finding now has its stanza, in the table's order, and so has every other failing
    finding a waiver takes (the text script's W708, newuser64b): one paste waives them all."""
    base, patch = _native_pair(tmp_path)
    text = run_k3diff("wheels", base, patch).stdout
    steps = text.split("Next steps (native code differs)\n", 1)[1].split("\n\nVerdict:")[0]
    waivers = tomllib.loads(_pasted(steps))["waiver"]
    solver = "engine-2.0.data/scripts/engine-solver"
    assert [(w["code"], w["path"]) for w in waivers] == [
        ("W101", solver),
        ("W708", solver),
        ("W101", "engine/_core.so"),
        ("W708", "engine-2.0.data/scripts/aa-tool"),
    ]
    (tmp_path / "w.toml").write_text(_pasted(steps))
    result = run_k3diff("wheels", base, patch, "--waivers", tmp_path / "w.toml")
    assert result.exit_code == 0
    verdict = result.stdout.strip().splitlines()[-1]
    assert verdict.startswith("Verdict: OK (exit 0): nothing fails the policy; 4 findings"), verdict
    assert "Next steps" not in result.stdout  # nothing fails any more


def test_past_ten_failing_natives_the_rest_are_counted_in_a_toml_comment(tmp_path: Path) -> None:
    files = {"engine/__init__.py": b""}
    added = {f"engine/_k{n:02}.so": SO for n in range(12)}
    base, patch = _pair(tmp_path, files, {**files, **added})
    text = run_k3diff("wheels", base, patch).stdout
    steps = text.split("Next steps (native code differs)\n", 1)[1].split("\n\nVerdict:")[0]
    pasted = _pasted(steps)
    assert [w["path"] for w in tomllib.loads(pasted)["waiver"]] == sorted(added)[:10]
    assert pasted.splitlines()[-1] == (
        "# … 2 more failing native findings, one [[waiver]] each: "
        "--format json lists every finding's code and path"
    )
    markdown = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
    block = markdown.split("```toml\n", 1)[1].split("\n```", 1)[0]
    assert block.replace(PLACEHOLDER, "rebuilt with gcc 14, reviewed by A") == pasted


@pytest.mark.parametrize("code", ["W101", "W628", "W708"])
@pytest.mark.parametrize("path", ["pkg/lib[1].so", "pkg-1.0.data/scripts/z3[!x]", "pkg/a]b[.so"])
def test_a_waiver_shown_for_a_bracketed_path_waives_that_path_only(code: str, path: str) -> None:
    """review63c: W628 and W708 waivers are globs, and `[1]` in a glob is a character class: the
    stanza shown for `pkg/lib[1].so` waived `pkg/lib1.so` and not the finding it was shown for.
    A path with `[` is now shown with `literal = true`, as one with `*` or `?` is."""
    from k3diff.report.stepwords import _waiver
    from k3diff.wheel.codes import Code, Finding
    from k3diff.wheel.waivers import checked_waiver

    finding = Finding(Code[code], path, "d", native=True)
    table = tomllib.loads(_waiver(finding).replace(PLACEHOLDER, "reviewed by A"))["waiver"][0]
    waiver = checked_waiver("w.toml", 1, table)
    assert waiver.covers(finding, ["pkg-1.0-py3-none-any.whl"])
    sibling = Finding(Code[code], path.replace("[", "").replace("]", ""), "d", native=True)
    assert not waiver.covers(sibling, ["pkg-1.0-py3-none-any.whl"])


JUPYTER = "engine-2.0.data/data/etc/jupyter/jupyter_server_config.d/x.json"


def test_a_failing_tool_config_gets_its_waiver_alone_or_beside_a_native(tmp_path: Path) -> None:
    """newuser64b: a patch that adds a Jupyter server config (W717, what runs at a Jupyter
    app's start) failed with no next steps, and beside a changed library the steps said
    "1 × W717 still fails" and gave the library's waiver only. Each failing finding's stanza is
    shown, and the reviewed paste is one `--waivers` takes: the pair then passes."""
    config = {JUPYTER: b'{"ServerApp": {"jpserver_extensions": {"x": true}}}\n'}
    files = {"engine/__init__.py": b"", "engine/_core.so": SO}
    for label, patch_so in (("alone", SO), ("beside", SO_CHANGED)):
        patch_files = {**files, "engine/_core.so": patch_so, **config}
        base, patch = _pair(tmp_path / label, files, patch_files)
        text = run_k3diff("wheels", base, patch).stdout
        assert "W717" in _table(text)[-1], text
        title = "Next steps (native code differs)\n" if label == "beside" else "Next steps\n"
        steps = text.split(title, 1)[1].split("\n\nVerdict:")[0]
        shown = [(w["code"], w["path"]) for w in tomllib.loads(_pasted(steps))["waiver"]]
        expected = [("W101", "engine/_core.so")] if label == "beside" else []
        assert shown == [*expected, ("W717", JUPYTER)], label
        (tmp_path / label / "w.toml").write_text(_pasted(steps))
        waived = run_k3diff("wheels", base, patch, "--waivers", tmp_path / label / "w.toml")
        assert waived.exit_code == 0, waived.stdout
        markdown = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
        block = markdown.split("```toml\n", 1)[1].split("\n```", 1)[0]
        assert tomllib.loads(block)["waiver"][-1]["code"] == "W717", label
