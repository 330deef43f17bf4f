"""`-o FILE` never destroys an input, gets the umask's mode, and the verdict still shows."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import wheelkit

FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/_C.so": wheelkit.elf_bytes(b"\x90" * 64),
}


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    changed = dict(FILES, **{"engine/_C.so": wheelkit.elf_bytes(b"\xcc" * 64)})
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", changed)
    return base, patch


def _responses(tmp_path: Path) -> tuple[Path, Path]:
    base, patch = tmp_path / "base.jsonl", tmp_path / "patch.jsonl"
    base.write_text('{"id": "a", "text": "hello"}\n')
    patch.write_text('{"id": "a", "text": "hello"}\n')
    return base, patch


@pytest.mark.parametrize("side", [0, 1])
def test_output_equal_to_an_input_is_refused_and_the_input_survives(
    k3diff_cli: Any, tmp_path: Path, side: int
) -> None:
    inputs = _pair(tmp_path)
    before = inputs[side].read_bytes()
    result = k3diff_cli("wheels", *inputs, "-o", inputs[side])
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert "is the input" in result.stderr
    assert inputs[side].read_bytes() == before


def test_output_through_a_symlink_or_hard_link_to_an_input_is_refused(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    base, patch = _pair(tmp_path)
    before = patch.read_bytes()
    symlink, hardlink = tmp_path / "report-sym.txt", tmp_path / "report-hard.txt"
    symlink.symlink_to(patch)
    os.link(patch, hardlink)
    for target in (symlink, hardlink):
        result = k3diff_cli("wheels", base, patch, "-o", target)
        assert result.exit_code == 2, target
        assert "is the input" in result.stderr
    assert patch.read_bytes() == before


def test_responses_output_equal_to_an_input_is_refused(k3diff_cli: Any, tmp_path: Path) -> None:
    base, patch = _responses(tmp_path)
    # Spelled differently (through '..'): the resolved path is still the input.
    other = tmp_path / "sub" / ".." / "patch.jsonl"
    (tmp_path / "sub").mkdir()
    result = k3diff_cli("responses", base, patch, "-o", other)
    assert result.exit_code == 2
    assert patch.read_text() == '{"id": "a", "text": "hello"}\n'


def test_report_file_gets_the_umask_mode_and_the_verdict_goes_to_stderr(
    k3diff_cli: Any, tmp_path: Path
) -> None:
    base, patch = _pair(tmp_path)
    out = tmp_path / "report.txt"
    result = k3diff_cli("wheels", base, patch, "-o", out)
    assert result.exit_code == 1
    assert result.stdout == ""
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask
    assert result.stderr.splitlines() == [
        f"k3diff: report written to {out}; Verdict: FAIL (exit 1): 1 × W101"
    ]


def test_json_report_to_a_file_still_says_the_verdict(k3diff_cli: Any, tmp_path: Path) -> None:
    base, patch = _responses(tmp_path)
    out = tmp_path / "report.json"
    result = k3diff_cli("responses", base, patch, "--format", "json", "-o", out)
    assert result.exit_code == 0
    assert out.read_text().startswith("{")
    assert result.stderr.splitlines() == [
        f"k3diff: report written to {out}; result: no paired record differs (exit 0)"
    ]


def test_json_report_to_a_file_says_what_the_run_left_out(k3diff_cli: Any, tmp_path: Path) -> None:
    # A CI log of a JSON run shows the verdict line the text report ends with, ignored fields
    # included: "OK (exit 0)" alone would hide what was not compared.
    base, patch = _responses(tmp_path)
    out = tmp_path / "report.json"
    result = k3diff_cli(
        "responses", base, patch, "--format", "json", "-o", out, "--ignore-field", "model"
    )
    assert result.exit_code == 0
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"k3diff: report written to {out}; ")
    assert "--ignore-field model" in line and line.endswith("(exit 0)")


def test_bare_k3diff_prints_the_help_as_help_and_exits_2(k3diff_cli: Any) -> None:
    result = k3diff_cli()
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("Usage:")
    assert "Commands:" in lines
    assert any(line.strip().startswith("wheels") for line in lines)


def test_output_to_dev_null_writes_to_the_device_and_never_replaces_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-o /dev/null` (keep only the exit code) once replaced the device with a regular file,
    which as root breaks every program that reads /dev/null. The device is written to; with
    `os.replace` and `os.open` (the temporary file's) refused here, this test can never replace
    it itself."""
    from k3diff.output import write_atomic

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a character device must not be replaced")

    monkeypatch.setattr(os, "replace", refuse)
    monkeypatch.setattr(os, "open", refuse)
    write_atomic(Path("/dev/null"), "report\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_output_to_a_fifo_is_refused_and_the_fifo_kept(tmp_path: Path) -> None:
    from k3diff.errors import OutputError
    from k3diff.output import write_atomic

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="not a regular file"):
        write_atomic(fifo, "report\n")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_report_file_is_written_through_a_new_private_temporary_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The temporary file is created as `tempfile.mkstemp` would (mode 0600, O_EXCL, beside the
    report, `.<name>.<random>.tmp`), a name already taken is tried again with another, and none
    is left behind."""
    from k3diff import output

    report = tmp_path / "report.json"
    taken = tmp_path / f".report.json.{'00' * 6}.tmp"
    taken.write_text("someone else's\n")
    draws = iter([b"\0" * 6, b"\1" * 6])
    monkeypatch.setattr(os, "urandom", lambda n: next(draws))
    created: list[tuple[str, int]] = []
    real_open = os.open

    def spy(path: str, flags: int, mode: int = 0o777) -> int:
        created.append((path, mode))
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", spy)
    output.write_atomic(report, "report\n")
    assert report.read_text() == "report\n"
    assert taken.read_text() == "someone else's\n"  # never opened for writing over
    assert created == [
        (str(taken), 0o600),
        (str(tmp_path / f".report.json.{'01' * 6}.tmp"), 0o600),
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [taken.name, "report.json"]


def test_no_unused_temporary_name_is_an_output_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from k3diff import output
    from k3diff.errors import OutputError

    (tmp_path / f".report.json.{'00' * 6}.tmp").write_text("")
    monkeypatch.setattr(os, "urandom", lambda n: b"\0" * n)
    with pytest.raises(OutputError, match="cannot write report: no unused temporary file name"):
        output.write_atomic(tmp_path / "report.json", "report\n")
    assert not (tmp_path / "report.json").exists()


def test_writing_a_report_file_loads_no_tempfile(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from k3diff.output import write_atomic\n"
        f"write_atomic(Path({str(tmp_path / 'r.txt')!r}), 'report\\n')\n"
        "assert 'tempfile' not in sys.modules\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    assert (tmp_path / "r.txt").read_text() == "report\n"


def test_output_dash_is_standard_output(k3diff_cli: Any, tmp_path: Path) -> None:
    # Found by the new-user trial: `-o -` (the Unix spelling of stdout, as in
    # `k3diff wheels a b --format json -o - | jq`) wrote a file named "-" and left stdout empty.
    base, patch = _pair(tmp_path)
    plain = k3diff_cli("wheels", base, patch, "--format", "json", cwd=tmp_path)
    dash = k3diff_cli("wheels", base, patch, "--format", "json", "-o", "-", cwd=tmp_path)
    assert dash.exit_code == plain.exit_code == 1
    assert dash.stdout == plain.stdout and dash.stdout.startswith("{")
    assert not (tmp_path / "-").exists()


def test_only_a_bare_dash_is_standard_output(k3diff_cli: Any, tmp_path: Path) -> None:
    """`-o ./-` names a file called "-" (the way to write one): it was read as `-o -` (pathlib
    makes `./-` and `-` equal), so the report went to stdout and no file was written."""
    base, patch = _pair(tmp_path)
    plain = k3diff_cli("wheels", base, patch, "--format", "json", cwd=tmp_path)
    named = k3diff_cli("wheels", base, patch, "--format", "json", "-o", "./-", cwd=tmp_path)
    assert named.exit_code == plain.exit_code == 1
    assert named.stdout == ""
    assert (tmp_path / "-").read_text() == plain.stdout


def test_a_failed_chmod_closes_the_temporary_file_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`os.fchmod` failing (a file system that refuses modes) once left the temporary file's
    descriptor open: each report written in a long-lived process leaked one."""
    from k3diff import output
    from k3diff.errors import OutputError

    opened: list[int] = []
    new_temporary = output._new_temporary

    def spy(*args: Any) -> Any:
        fd, name = new_temporary(*args)
        opened.append(fd)
        return fd, name

    def refuse(*_args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(output, "_new_temporary", spy)
    monkeypatch.setattr(os, "fchmod", refuse)
    with pytest.raises(OutputError, match="cannot write report: Operation not permitted"):
        output.write_atomic(tmp_path / "r.json", "report\n")
    (fd,) = opened
    with pytest.raises(OSError):
        os.fstat(fd)  # closed
    assert list(tmp_path.iterdir()) == []
