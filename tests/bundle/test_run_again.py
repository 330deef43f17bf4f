"""A document that no longer follows from the inputs given with it is refused (exit 2, one line;
several, one line each under a line that counts them: report67) naming the command that brings
it up to date (report65): a triage written before `sample
--resume` grew its run, or any document edited since. The command is shell-quoted, names the
inputs as given to `report` and the settings the document records, and writes the document
anew: run as printed, `report` takes the document it wrote."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import click
import pytest
import wheelkit
from cli_support import run_k3diff
from triage.helpers import compare_texts, side, write_samples

from bundle.helpers import BASE_FILES, wheels_json
from k3diff.bounded import DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_RECORD_BYTES
from k3diff.responses.scoregate import DEFAULT_TOLERANCE_POINTS

COMMAND = re.compile(r"run `k3diff (.+)` again to bring it up to date$")


def _refused(cwd: Path, *inputs: str) -> tuple[str, list[str]]:
    """`report` on `inputs` refused with one line: the line and the command it names (without
    the program)."""
    result = run_k3diff("report", *inputs, "--out", "refused", cwd=cwd)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    found = COMMAND.search(line)
    assert found is not None, line
    return line, shlex.split(found.group(1))


def _follows_once_run_again(cwd: Path, command: list[str], *inputs: str) -> None:
    """The command as printed writes the document anew, and `report` then takes it."""
    made = run_k3diff(*command, cwd=cwd)
    assert made.exit_code in (0, 1), made.stderr
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=cwd)
    assert result.exit_code in (0, 1), result.stderr


def _sample(engines: dict[str, str], cwd: Path, repeats: int, *resume: str) -> None:
    args = (
        "--base",
        engines["base"],
        "--patch",
        engines["patch"],
        "--prompts",
        "responses/base.jsonl",
    )
    made = run_k3diff("sample", *args, "--repeats", str(repeats), "--out", "run", *resume, cwd=cwd)
    assert made.exit_code == 0, made.stderr


def test_a_triage_of_a_run_grown_since_names_the_triage_to_run_again(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    import scripted_server

    scripted_server.capture(engines, tmp_path / "responses")
    made = run_k3diff(
        "responses", "responses/base.jsonl", "responses/patch.jsonl", "--format", "json",
        "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    _sample(engines, tmp_path, 3)
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--bound", "0.2", "--near-tie", "0.05",
        "--format", "json", "-o", "triage.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    _sample(engines, tmp_path, 5, "--resume")  # the run grown: triage.json is the 3-repeat run's

    inputs = ("cmp.json", "run/samples.jsonl", "triage.json")
    line, command = _refused(tmp_path, *inputs)
    assert line.startswith(
        "k3diff: error: triage.json: does not follow from the evidence given with it (triage "
        "run again on run/samples.jsonl: from cmp.json: records["
    ), line
    assert "give the comparison and logs it was made from, or run `k3diff triage" in line, line
    # Its settings kept (the defaults left unsaid), written over the stale document.
    assert command == [
        "triage", "cmp.json", "run/samples.jsonl", "--bound", "0.2", "--near-tie", "0.05",
        "--format", "json", "-o", "triage.json",
    ]  # fmt: skip
    _follows_once_run_again(tmp_path, command, *inputs)
    assert json.loads((tmp_path / "triage.json").read_text())["bound"] == 0.2


def _edited(path: Path, where: str) -> None:
    """A field the command never writes added to the document (`where`: the object, dotted,
    list items by index): it follows from nothing."""
    document = json.loads(path.read_text())
    edited = document
    for step in filter(None, where.split(".")):
        edited = edited[int(step) if step.isdigit() else step]
    edited["edited"] = True
    path.write_text(json.dumps(document))


def _logs(cwd: Path) -> tuple[list[str], tuple[str, ...]]:
    (cwd / "base.log").write_text("INFO engine started\n")
    (cwd / "patch.log").write_text("INFO engine started\nBOOM at 3\nWARN slow\n")
    options = ["--rule", "boom=BOOM at", "--warn-rule", "slow=WARN slow", "--ignore-rule"]
    options += ["nan-inf", "--strict", "--max-seconds", "60"]
    made = run_k3diff(
        "logs", "base.log", "patch.log", *options, "--format", "json", "-o", "d.json", cwd=cwd
    )
    assert made.exit_code == 1, made.stderr
    return ["logs", "base.log", "patch.log", *options[:-1], "60.0"], (
        "d.json",
        "base.log",
        "patch.log",
    )


def _responses(cwd: Path) -> tuple[list[str], tuple[str, ...]]:
    compare_texts(cwd, {"k1": ("a b", "a b  "), "k2": ("same", "same")})
    options = [
        "--normalize",
        "trailing-whitespace",
        "--near-tie",
        "0.2",
        "--max-record-bytes",
        "1048576",
    ]
    made = run_k3diff(
        "responses",
        "base.jsonl",
        "patch.jsonl",
        *options,
        "--format",
        "json",
        "-o",
        "d.json",
        cwd=cwd,
    )
    assert made.exit_code in (0, 1), made.stderr
    return ["responses", "base.jsonl", "patch.jsonl", *options], (
        "d.json",
        "base.jsonl",
        "patch.jsonl",
    )


def _telemetry(cwd: Path) -> tuple[list[str], tuple[str, ...]]:
    write_samples(
        cwd / "run" / "samples.jsonl",
        side("k1", "base", ["a"] * 3) + side("k1", "patch", ["a"] * 3),
    )
    options = ["--alpha", "0.1"]
    made = run_k3diff(
        "telemetry", "run/samples.jsonl", *options, "--format", "json", "-o", "d.json", cwd=cwd
    )
    assert made.exit_code == 0, made.stderr
    return ["telemetry", "run/samples.jsonl", *options], ("d.json", "run/samples.jsonl")


def _audit(cwd: Path) -> tuple[list[str], tuple[str, ...]]:
    wheels_json(cwd)
    wheels = ["base/pkg-1.0-py3-none-any.whl", "patch/pkg-1.0-py3-none-any.whl"]
    made = run_k3diff("audit", *wheels, "--format", "json", "-o", "d.json", cwd=cwd)
    assert made.exit_code in (0, 1), made.stderr
    return ["audit", *wheels], ("d.json", *wheels)


def _wheels(cwd: Path) -> tuple[list[str], tuple[str, ...]]:
    wheels_json(cwd, native_changed=True)
    wheels = ["base/pkg-1.0-py3-none-any.whl", "patch/pkg-1.0-py3-none-any.whl"]
    options = ["--allow-native-changes", "--explain", "--ignore", "W201,W405"]
    made = run_k3diff("wheels", *wheels, *options, "--format", "json", "-o", "d.json", cwd=cwd)
    assert made.exit_code in (0, 1), made.stderr
    return ["wheels", *wheels, *options], ("d.json", *wheels)


def _wheelset(cwd: Path) -> tuple[list[str], tuple[str, ...]]:
    for side_name in ("base", "patch"):
        wheelkit.make_wheel(cwd / side_name, "pkg", "1.0", BASE_FILES)
    wheelkit.make_wheel(cwd / "patch", "extra", "1.0", {"extra/__init__.py": b""})
    made = run_k3diff(
        "wheels", "base", "patch", "--allow-unpaired", "--format", "json", "-o", "d.json", cwd=cwd
    )
    assert made.exit_code == 0, made.stderr
    return ["wheels", "base", "patch", "--allow-unpaired"], ("d.json", "base", "patch")


Made = Callable[[Path], tuple[list[str], tuple[str, ...]]]
MADE: dict[str, tuple[Made, str]] = {
    "logs": (_logs, ""),
    "responses": (_responses, ""),
    "telemetry": (_telemetry, ""),
    "audit": (_audit, ""),
    "wheels": (_wheels, ""),
    "wheelset pair": (_wheelset, "pairs.0.wheels"),
    "wheelset listing": (_wheelset, "only_patch.0"),
}
"""Per kind: a document made with settings other than the defaults, the command that made it
(the options as `report` spells them) and the inputs `report` runs it again on; and the object
edited (a release set: one pair's document, or a row of its listing)."""


@pytest.mark.parametrize("kind", sorted(MADE))
def test_an_edited_document_names_the_command_that_made_it(tmp_path: Path, kind: str) -> None:
    make, where = MADE[kind]
    made_by, inputs = make(tmp_path)
    _edited(tmp_path / "d.json", where)
    line, command = _refused(tmp_path, *inputs)
    assert line.startswith("k3diff: error: d.json"), line
    assert "does not follow from the " in line and "edited: only in the document" in line, line
    assert command == [*made_by, "--format", "json", "-o", "d.json"], line
    _follows_once_run_again(tmp_path, command, *inputs)


def test_the_defaults_left_unsaid_are_each_commands_own() -> None:
    from k3diff.bundle.runagain import DEFAULTS  # report65's
    from k3diff.cli import COMMANDS

    for name, defaults in DEFAULTS.items():
        module, attribute = COMMANDS[name]
        command = getattr(__import__(module, fromlist=[attribute]), attribute)
        options: dict[str, object] = {
            opt: param.default
            for param in command.params
            if isinstance(param, click.Option)
            for opt in param.opts
        }
        for option, default in defaults.items():
            assert option in options, (name, option)
            said = options[option]
            if option.startswith("--max-") and said is None:  # the input caps: `bounded`
                said = {"--max-record-bytes": DEFAULT_MAX_RECORD_BYTES}.get(
                    option, DEFAULT_MAX_DOCUMENT_BYTES
                )
            elif option == "--score-tolerance":  # its POINTS, when none is given
                said = DEFAULT_TOLERANCE_POINTS
            said = int(str(said)) if option == "--max-inflated-bytes" else said
            assert said == default, (name, option, said, default)


def test_a_file_named_like_an_option_is_named_as_a_path(tmp_path: Path) -> None:
    """A comparison given as `-cmp.json` (after `--`): pasted as it stood, the command would
    read it as options; it names `./-cmp.json`, the same file."""
    compare_texts(tmp_path, {"k1": ("a", "b")})
    (tmp_path / "cmp.json").rename(tmp_path / "-cmp.json")
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("k1", "base", ["a", "b", "a"]) + side("k1", "patch", ["b"] * 3),
    )
    inputs = ("--", "-cmp.json", "run/samples.jsonl", "t.json")
    made = run_k3diff("triage", "--format", "json", "-o", "t.json", *inputs[:3], cwd=tmp_path)
    assert made.exit_code in (0, 1), made.stderr
    _edited(tmp_path / "t.json", "")
    result = run_k3diff("report", "--out", "refused", *inputs, cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    found = COMMAND.search(result.stderr.strip())
    assert found is not None, result.stderr
    command = shlex.split(found.group(1))
    assert command[:3] == ["triage", "./-cmp.json", "run/samples.jsonl"], command
    assert run_k3diff(*command, cwd=tmp_path).exit_code in (0, 1)
    result = run_k3diff("report", "--out", "bundle", *inputs, cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr


def _pasted(line: str) -> list[str]:
    """The words bash reads from the command `line` names, pasted as printed."""
    found = re.search(r"run `(.+)` again to bring it up to date$", line)
    assert found is not None, line
    done = subprocess.run(
        ["bash", "-c", f"printf '%s\\0' {found.group(1)}"], capture_output=True, check=True
    )
    return done.stdout.decode("utf-8", "surrogateescape").split("\0")[1:-1]


@pytest.mark.skipif(shutil.which("bash") is None, reason="the command is pasted into bash")
def test_a_rule_the_one_line_error_would_fold_is_pasted_as_given(tmp_path: Path) -> None:
    """A rule of two spaces and a tab, a log under a name of two spaces: the refusal's line
    folds whitespace runs, so the command printed `'boom=BOOM at'`, a rule that no longer
    matched, and as pasted wrote a passing document over the failing one (review65b). Pasted
    into bash as printed, the command is the one that made the document, and it still fails."""
    (tmp_path / "base.log").write_text("INFO engine started\n")
    (tmp_path / "patch  run.log").write_text("INFO engine started\nBOOM  at\t3\n")
    rule = "boom=BOOM  at\t3"
    made_by = ["logs", "base.log", "patch  run.log", "--rule", rule]
    made = run_k3diff(*made_by, "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    _edited(tmp_path / "d.json", "")
    inputs = ("d.json", "base.log", "patch  run.log")
    result = run_k3diff("report", *inputs, "--out", "refused", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    (line,) = result.stderr.splitlines()
    command = _pasted(line)
    assert command == [*made_by, "--format", "json", "-o", "d.json"], line
    again = run_k3diff(*command, cwd=tmp_path)
    assert again.exit_code == 1, again.stderr  # the rule still matches: still failing
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr


@pytest.mark.parametrize("where", ["pairs.0.wheels", "only_patch.0"])
def test_a_release_set_of_files_names_the_wheels_given_not_those_it_records(
    tmp_path: Path, where: str
) -> None:
    """A release set records the files `wheels` was given (`base.inputs`): paths on the machine
    that ran it, or whatever its writer put there. The command named them (review65b: an edited
    set printed `--base /elsewhere/old/pkg…whl`, a wheel never given, which the pasted command
    compared instead); it names the wheels given to `report`, by the SHA-256 the set records."""
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", BASE_FILES)
    changed = dict(BASE_FILES, **{"pkg/sampler.py": b"def sample(x):\n    return x + 0\n"})
    wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", changed)
    wheelkit.make_wheel(tmp_path / "patch", "extra", "1.0", {"extra/__init__.py": b""})
    wheels = ["base/pkg-1.0-py3-none-any.whl", "patch/pkg-1.0-py3-none-any.whl"]
    extra = "patch/extra-1.0-py3-none-any.whl"
    sides = ["--base", wheels[0], "--patch", wheels[1], "--patch", extra, "--allow-unpaired"]
    made = run_k3diff("wheels", *sides, "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    document = json.loads((tmp_path / "d.json").read_text())
    document["base"]["inputs"] = ["/elsewhere/old/pkg-1.0-py3-none-any.whl"]
    document["patch"]["inputs"] = ["/elsewhere/new/pkg-1.0-py3-none-any.whl", extra]
    (tmp_path / "d.json").write_text(json.dumps(document))
    _edited(tmp_path / "d.json", where)
    _, command = _refused(tmp_path, "d.json", *wheels, extra)
    assert command == ["wheels", *sides, "--format", "json", "-o", "d.json"], command
    _follows_once_run_again(tmp_path, command, "d.json", *wheels, extra)


def test_every_stale_document_is_named_with_its_command_in_one_refusal(tmp_path: Path) -> None:
    """Three documents edited since, given together: the refusal named the first only, and the
    user met the next after running its command (report66). The first line says how many, then
    names each, in the order given, on a line of its own (report67: they were one line), with
    the command that brings it up to date; run as
    printed, every command writes its document anew and `report` takes them all."""
    _, made = _telemetry(tmp_path)  # its log named as it was given: here
    _edited(tmp_path / "d.json", "")
    inputs = list(made)
    for kind in ("logs", "wheels"):
        (tmp_path / kind).mkdir()
        _, made = MADE[kind][0](tmp_path / kind)
        _edited(tmp_path / kind / "d.json", "")
        inputs += [f"{kind}/{path}" for path in made]
    result = run_k3diff("report", *inputs, "--out", "refused", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    # One block (report67): a line that counts them, then one line each.
    head, *lines = result.stderr.splitlines()
    assert head == (
        "k3diff: error: 3 documents do not follow from the inputs given with them, each named "
        "with the command that brings it up to date:"
    ), result.stderr
    named = [re.match(r"  \((\d)\) (\S+): does not follow", line) for line in lines]
    assert [(m.group(1), m.group(2)) if m else None for m in named] == [
        ("1", "d.json"),
        ("2", "logs/d.json"),
        ("3", "wheels/d.json"),
    ], result.stderr
    commands = [shlex.split(found) for line in lines for found in COMMAND.findall(line)]
    assert [command[-1] for command in commands] == [
        "d.json",
        "logs/d.json",
        "wheels/d.json",
    ], result.stderr
    for command in commands:
        again = run_k3diff(*command, cwd=tmp_path)
        assert again.exit_code in (0, 1), again.stderr
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
