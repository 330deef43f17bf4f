"""An input edited after the document that records it (a response capture, a server log, a
file of a log directory, a wheel, an audited wheel) is named with every other one at once
(report67): each on a line of its own, naming the file, its SHA-256 recorded and now (or that
it is missing, or added to a directory), the document that records it and the command that
writes that document anew from the files as given. Before, responses and logs refused the
first one found without a command, and an edited wheel (or both logs, both captures) was
refused as a file no document names ("base.log: not a k3diff JSON document"). Nothing is
written to --out, and no name given can print a line of its own."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
import wheelkit
from cli_support import pasted, run_k3diff
from triage.helpers import compare_texts

from bundle.helpers import BASE_FILES, wheels_json
from bundle.test_run_again import MADE, _edited

COMMAND = re.compile(r"run `k3diff (.+)` again to bring (\S+) up to date$")
HEAD = re.compile(
    r"^k3diff: error: (.+), each named with the command that brings (?:its document|it) up to date:$"
)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _append(path: Path, data: bytes) -> None:
    path.write_bytes(path.read_bytes() + data)


def _recorded(document: Path) -> set[str]:
    """Each input's SHA-256 as the document records it (read here from the JSON,
    independently of report)."""
    body = json.loads(document.read_text())
    if body["schema"] == "k3diff.audit/2":
        return {a["sha256"] for a in body["artifacts"]}
    return {body[side]["sha256"] for side in ("base", "patch")}


def test_every_changed_input_is_named_at_once_with_its_command(tmp_path: Path) -> None:
    """A responses, a logs, a wheels and an audit document, each given with its inputs, and
    inputs edited since: both captures, the patch log, and the patch wheel that both the
    wheels and the audit document record; and a fifth document edited itself. One refusal
    names all of them, in the order the documents were given, and nothing is written. Run as
    printed, each command writes its document anew, and report takes them all."""
    inputs: list[str] = []
    edited: list[tuple[str, str, str, str]] = []  # file, document, SHA-256 recorded, now
    for kind in ("responses", "logs"):
        (tmp_path / kind).mkdir()
        _, made = MADE[kind][0](tmp_path / kind)
        inputs += [f"{kind}/{path}" for path in made]
    (tmp_path / "w").mkdir()
    wheels_json(tmp_path / "w", native_changed=True)
    wheels = ["base/pkg-1.0-py3-none-any.whl", "patch/pkg-1.0-py3-none-any.whl"]
    audited = run_k3diff(
        "audit", *wheels, "--format", "json", "-o", "audit.json", cwd=tmp_path / "w"
    )
    assert audited.exit_code in (0, 1), audited.stderr
    inputs += ["w/wheels.json", "w/audit.json", *(f"w/{wheel}" for wheel in wheels)]
    for file, documents in (
        ("responses/base.jsonl", ["responses/d.json"]),
        ("responses/patch.jsonl", ["responses/d.json"]),
        ("logs/patch.log", ["logs/d.json"]),
        (f"w/{wheels[1]}", ["w/wheels.json", "w/audit.json"]),
    ):
        before = _sha256(tmp_path / file)
        for document in documents:
            assert before in _recorded(tmp_path / document), (file, document)
        _append(tmp_path / file, b"x" if file.endswith(".whl") else b"\n")
        edited += [(file, document, before, _sha256(tmp_path / file)) for document in documents]
    _, made = MADE["telemetry"][0](tmp_path)  # its log named as it was given: here
    _edited(tmp_path / "d.json", "")
    inputs += made

    result = run_k3diff("report", *inputs, "--out", "refused", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert not (tmp_path / "refused").exists()
    head, *lines = result.stderr.splitlines()
    said = HEAD.match(head)
    assert said is not None, result.stderr
    assert said.group(1) == (
        "5 inputs changed since the documents that record them were written, and 1 document "
        "does not follow from the inputs given with it"
    ), head
    assert len(lines) == 6, result.stderr
    for n, line in enumerate(lines, 1):
        assert line.startswith(f"  ({n}) "), line
    changed = [line for line in lines if ": changed since " in line]
    assert len(changed) == len(edited), changed
    for line, (file, document, before, now) in zip(changed, edited, strict=True):
        assert f"{file}: changed since {document} recorded it as " in line, line
        assert f"(SHA-256 {before[:16]}… recorded, {now[:16]}… now)" in line, line
        command = COMMAND.search(line)
        assert command is not None, line
        assert command.group(2) == document and file in shlex.split(command.group(1)), line
        assert shlex.split(command.group(1))[-2:] == ["-o", document], line
    assert lines[-1].startswith("  (6) d.json: does not follow from the "), lines[-1]

    commands = {c.group(1) for line in lines if (c := COMMAND.search(line)) is not None}
    assert len(commands) == 5, commands  # one per document
    for printed in commands:
        again = run_k3diff(*shlex.split(printed), cwd=tmp_path)
        assert again.exit_code in (0, 1), again.stderr
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr


def test_a_refusal_leaves_the_bundle_there_as_it_was(tmp_path: Path) -> None:
    _, inputs = MADE["logs"][0](tmp_path)
    first = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert first.exit_code == 1, first.stderr
    before = {p.name: p.read_bytes() for p in (tmp_path / "bundle").iterdir()}
    _append(tmp_path / "base.log", b"INFO later\n")
    _append(tmp_path / "patch.log", b"INFO later\n")
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("changed since d.json recorded it as the ") == 2, result.stderr
    assert {p.name: p.read_bytes() for p in (tmp_path / "bundle").iterdir()} == before


@pytest.mark.skipif(shutil.which("bash") is None, reason="the command is pasted into bash")
def test_a_name_cannot_print_a_line_of_its_own(tmp_path: Path) -> None:
    """A log named with a newline and what would read as k3diff's own error line: every line
    of the refusal is escaped as the one line of any error is, so the block is a head and one
    line per input, and the name pasted from the command is the file's."""
    forged = "patch.log\nk3diff: error: nothing changed, exit 0"
    (tmp_path / "base.log").write_text("INFO engine started\n")
    (tmp_path / forged).write_text("INFO engine started\nBOOM at 3\n")
    made = run_k3diff(
        "logs", "base.log", forged, "--rule", "boom=BOOM at", "--format", "json", "-o",
        "d.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    _append(tmp_path / "base.log", b"INFO later\n")
    _append(tmp_path / forged, b"INFO later\n")
    result = run_k3diff("report", "d.json", "base.log", forged, "--out", "o", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 3, result.stderr
    assert lines[0].startswith("k3diff: error: 2 inputs changed since ")
    assert [line[:6] for line in lines[1:]] == ["  (1) ", "  (2) "], result.stderr
    assert not any(line.startswith("k3diff: error: nothing") for line in lines)
    assert lines[2].startswith(  # the newline shown as an escape, not folded into a space
        "  (2) patch.log\\nk3diff: error: nothing changed, exit 0: changed since d.json "
    ), lines[2]
    command = COMMAND.search(lines[2])
    assert command is not None, lines[2]
    words = pasted(command.group(1))
    assert words[:3] == ["logs", "base.log", forged], words
    assert run_k3diff(*words, cwd=tmp_path).exit_code == 1
    result = run_k3diff("report", "d.json", "base.log", forged, "--out", "o", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr


def test_a_release_set_s_wheel_rebuilt_in_its_directory_is_named(tmp_path: Path) -> None:
    """A set made from two directories, the patch's wheel rebuilt since: before, the
    directory no longer tied to the set's patch side and report said the base directory
    "holds the wheels of one side of the release set only"."""
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", BASE_FILES)
    changed = dict(BASE_FILES, **{"pkg/sampler.py": b"def sample(x):\n    return x + 0\n"})
    wheel = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", changed)
    made = run_k3diff("wheels", "base", "patch", "--format", "json", "-o", "s.json", cwd=tmp_path)
    assert made.exit_code in (0, 1), made.stderr
    recorded = json.loads((tmp_path / "s.json").read_text())["pairs"][0]["wheels"]["patch"]
    _append(wheel, b"x")
    result = run_k3diff("report", "s.json", "base", "patch", "--out", "o", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"k3diff: error: patch/{wheel.name}: changed since s.json recorded it as its patch wheel "
        f"(SHA-256 {recorded['sha256'][:16]}… recorded, {_sha256(wheel)[:16]}… now)"
    ), line
    command = COMMAND.search(line)
    assert command is not None, line
    assert shlex.split(command.group(1)) == [
        "wheels", "base", "patch", "--format", "json", "-o", "s.json"
    ], line  # fmt: skip
    assert run_k3diff(*shlex.split(command.group(1)), cwd=tmp_path).exit_code in (0, 1)
    result = run_k3diff("report", "s.json", "base", "patch", "--out", "o", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr


def test_a_document_given_alone_is_not_tied_to_another_s_inputs_by_name(tmp_path: Path) -> None:
    """Two comparisons made in their own directories, both of base.jsonl and patch.jsonl; one
    given with its captures, the other alone: the captures are the first's by their bytes, so
    the second is judged alone, never refused as if they were its own, changed."""
    for directory, texts in (("a", ("x", "y")), ("b", ("p", "q"))):
        (tmp_path / directory).mkdir()
        compare_texts(tmp_path / directory, {"k1": texts})
    inputs = ("a/cmp.json", "b/cmp.json", "b/base.jsonl", "b/patch.jsonl")
    result = run_k3diff("report", *inputs, "--out", "o", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    alone = {row["name"] for row in summary["inputs"] if row.get("judged_alone")}
    assert alone == {"a/cmp.json"}, summary["inputs"]
    # b's capture edited since: b's, named as changed; a stays judged alone.
    _append(tmp_path / "b" / "base.jsonl", b"\n")
    result = run_k3diff("report", *inputs, "--out", "o2", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("k3diff: error: b/base.jsonl: changed since b/cmp.json recorded it"), (
        line
    )


@pytest.mark.parametrize(
    "edited", ["patch/pkg-1.0-py3-none-any.whl", "patch/extra-1.0-py3-none-any.whl"]
)
def test_a_release_set_of_files_names_its_wheel_changed_since(tmp_path: Path, edited: str) -> None:
    """A set made from wheels given one by one, a pair's wheel or one on one side only rebuilt
    since: named with the set's command on the wheels as given (before: the pair's was "the
    wheels of 0 of its 1 pairs given", the other "no wheels document given compares it")."""
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", BASE_FILES)
    changed = dict(BASE_FILES, **{"pkg/sampler.py": b"def sample(x):\n    return x + 0\n"})
    wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", changed)
    wheelkit.make_wheel(tmp_path / "patch", "extra", "1.0", {"extra/__init__.py": b""})
    wheels = ["base/pkg-1.0-py3-none-any.whl", "patch/pkg-1.0-py3-none-any.whl"]
    extra = "patch/extra-1.0-py3-none-any.whl"
    sides = ["--base", wheels[0], "--patch", wheels[1], "--patch", extra, "--allow-unpaired"]
    made = run_k3diff("wheels", *sides, "--format", "json", "-o", "s.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    before = _sha256(tmp_path / edited)
    _append(tmp_path / edited, b"x")
    result = run_k3diff("report", "s.json", *wheels, extra, "--out", "o", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"k3diff: error: {edited}: changed since s.json recorded it as its patch wheel"
    ), line
    assert f"(SHA-256 {before[:16]}… recorded, {_sha256(tmp_path / edited)[:16]}… now)" in line
    command = COMMAND.search(line)
    assert command is not None, line
    assert shlex.split(command.group(1)) == ["wheels", *sides, "--format", "json", "-o", "s.json"]
    assert run_k3diff(*shlex.split(command.group(1)), cwd=tmp_path).exit_code in (0, 1)
    result = run_k3diff("report", "s.json", *wheels, extra, "--out", "o", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr


def test_a_wheel_changed_under_a_source_document_names_the_repository_given(
    tmp_path: Path,
) -> None:
    """newuser67: the demo's report inputs (a wheels document made with `--source src --commit
    HEAD`, both wheels, the repository `src`, a responses document and its captures), then the
    patch wheel and the patch capture edited. report named the wheel alone: the repository
    given, tied to no document run again, stopped every later check, so the capture was met
    only after the wheels command had been run; and that command said `--source REPO` though
    `src` was given. Now both are named at once, the command names `src`, and run as printed
    both commands let report take the inputs."""
    from bundle.helpers import pkg_source_repo

    pkg_source_repo(tmp_path)
    files = {"pkg/__init__.py": b""}
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files)
    wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", {**files, "pkg/new.py": b"x = 1\n"})
    wheels = ["base/pkg-1.0-py3-none-any.whl", "patch/pkg-1.0-py3-none-any.whl"]
    made = run_k3diff(
        "wheels", *wheels, "--source", "src", "--commit", "HEAD", "--format", "json",
        "-o", "wheels.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code in (0, 1), made.stderr
    _, responses = MADE["responses"][0](tmp_path)  # d.json, base.jsonl, patch.jsonl
    inputs = ["wheels.json", *wheels, "src", *responses]
    _append(tmp_path / wheels[1], b"x")
    _append(tmp_path / "patch.jsonl", b"\n")

    result = run_k3diff("report", *inputs, "--out", "refused", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    head, *lines = result.stderr.splitlines()
    said = HEAD.match(head)
    assert said is not None, result.stderr
    assert said.group(1) == "2 inputs changed since the documents that record them were written"
    assert lines[0].startswith(f"  (1) {wheels[1]}: changed since wheels.json "), lines[0]
    assert lines[1].startswith("  (2) patch.jsonl: changed since d.json "), lines[1]
    commands = [c.group(1) for line in lines if (c := COMMAND.search(line)) is not None]
    assert len(commands) == 2, lines
    wheels_command = shlex.split(commands[0])
    at = wheels_command.index("--source")
    assert wheels_command[at + 1] == "src", commands[0]
    for printed in commands:
        again = run_k3diff(*shlex.split(printed), cwd=tmp_path)
        assert again.exit_code in (0, 1), again.stderr
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr


def test_a_triage_made_from_a_comparison_made_again_is_named_with_it(tmp_path: Path) -> None:
    """newuser67, on the demo: a capture edited after the documents were written. report named
    the capture with cmp.json's command; run as printed, the next report refused triage.json,
    made from the old cmp.json, and only then named triage's command. Now triage.json is named
    in the same refusal, after cmp.json, with its command, and the commands run in the order
    printed let report take the inputs."""
    from bundle.helpers import seed

    comparison, samples, triaged = seed(tmp_path)
    patch = tmp_path / "patch.jsonl"
    assert '"same q4"' in patch.read_text()
    patch.write_text(patch.read_text().replace('"same q4"', '"other q4"'))
    inputs = [comparison, "base.jsonl", "patch.jsonl", samples, triaged]

    result = run_k3diff("report", *inputs, "--out", "refused", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    head, *lines = result.stderr.splitlines()
    said = HEAD.match(head)
    assert said is not None, result.stderr
    assert said.group(1) == (
        "1 input changed since the documents that record them were written, and 1 document "
        "made from one of those documents"
    ), head
    assert lines[0].startswith("  (1) patch.jsonl: changed since cmp.json "), lines[0]
    assert lines[1].startswith("  (2) triage.json: made from cmp.json, "), lines[1]
    commands = [c.group(1) for line in lines if (c := COMMAND.search(line)) is not None]
    assert [shlex.split(c)[0] for c in commands] == ["responses", "triage"], lines
    for printed in commands:
        again = run_k3diff(*shlex.split(printed), cwd=tmp_path)
        assert again.exit_code in (0, 1), again.stderr
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr


def test_a_problem_found_among_the_refusals_is_said_with_them_and_the_rest_gathered(
    tmp_path: Path,
) -> None:
    """left67: a logs document whose patch log changed, a wheel no document names, then a
    responses document given with its base capture changed and without its patch capture.
    The wheel was raised as found, so the refusal found before it was said alone: neither the
    wheel nor the responses document's inputs, checked after it, were. And the first line
    counted a missing input as changed; it now says what each is."""
    for kind in ("logs", "responses"):
        (tmp_path / kind).mkdir()
        MADE[kind][0](tmp_path / kind)
    wheelkit.make_wheel(tmp_path / "stray", "pkg", "1.0", BASE_FILES)
    for file in ("logs/patch.log", "responses/base.jsonl"):
        _append(tmp_path / file, b"\n")
    stray = "stray/pkg-1.0-py3-none-any.whl"
    inputs = ["logs/d.json", "logs/base.log", "logs/patch.log", stray]
    inputs += ["responses/d.json", "responses/base.jsonl"]

    result = run_k3diff("report", *inputs, "--out", "refused", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert not (tmp_path / "refused").exists()
    head, *lines = result.stderr.splitlines()
    assert head == (
        "k3diff: error: 2 inputs changed and 1 missing since the documents that record them "
        "were written, and 1 other problem, each named (each input with the command that "
        "brings its document up to date):"
    ), head
    assert [line.split(": ")[0] for line in lines] == [
        "  (1) logs/patch.log",
        "  (2) responses/base.jsonl",
        "  (3) responses/patch.jsonl",  # where report looked, as its command names it
        f"  (4) {stray}",
    ], lines
    assert ": changed since logs/d.json" in lines[0] and COMMAND.search(lines[0])
    assert ": changed since responses/d.json" in lines[1] and COMMAND.search(lines[1])
    assert ": missing (responses/d.json records it as its patch input" in lines[2]
    assert lines[3].endswith(
        f"{stray}: no wheels document given compares it with another of the wheels given "
        "(give both wheels the document names, by SHA-256, or by file name and size for one "
        "made with --no-file-hash; a wheel is read only to run k3diff wheels again on the two "
        "a document names)"
    ), lines[3]
    # The wheel alone is said as it was: one line.
    alone = run_k3diff("report", "logs/d.json", stray, "--out", "o", cwd=tmp_path)
    assert alone.exit_code == 2
    (line,) = alone.stderr.splitlines()
    assert line.startswith(f"k3diff: error: {stray}: no wheels document given compares it")
