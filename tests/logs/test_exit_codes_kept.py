"""A worker's exit code or signal number says how it ended, so the logs comparison keeps it when
it masks every other number: a base worker that exited with code 1 does not excuse a patch
worker killed by SIGSEGV (review64 noticed both read `exit code <n>`: one finding, excused)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_json, run_k3diff

START = "INFO 12-05 10:00:00 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000\n"


def _logs(tmp_path: Path, base_line: str, patch_line: str) -> tuple[Path, Path]:
    base, patch = tmp_path / "base.log", tmp_path / "patch.log"
    base.write_text(START + base_line + "\n")
    patch.write_text(START + patch_line + "\n")
    return base, patch


@pytest.mark.parametrize(
    ("base_line", "patch_line"),
    [
        (
            "ERROR 12-05 10:00:05 [multiproc.py:12] Worker proc VllmWorker-0 died unexpectedly, "
            "exit code 1",
            "ERROR 12-05 10:00:07 [multiproc.py:12] Worker proc VllmWorker-3 died unexpectedly, "
            "exit code 139",
        ),
        ("ERROR worker 12 killed by signal 9", "ERROR worker 40 killed by signal 11"),
    ],
)
def test_another_exit_code_on_the_patch_is_new(
    tmp_path: Path, base_line: str, patch_line: str
) -> None:
    result = run_k3diff("logs", *_logs(tmp_path, base_line, patch_line))
    assert result.exit_code == 1, result.stdout
    assert "new on the patch" in result.stdout
    new = result.stdout.split("New on the patch:")[1].split("Only on the base:")[0]
    assert patch_line.rsplit(" ", 1)[1] in new  # the patch's code, kept in the message


def test_the_same_exit_code_in_other_workers_and_runs_is_one_message(tmp_path: Path) -> None:
    line = "ERROR 12-05 10:00:0{} [multiproc.py:12] Worker proc VllmWorker-{} died unexpectedly, "
    line += "exit code 1"
    code, document = run_json("logs", *_logs(tmp_path, line.format(5, 0), line.format(9, 7)))
    assert code == 0
    messages = {(f["side"], f["message"]) for f in document["findings"]}
    expected = "Worker proc VllmWorker-<n> died unexpectedly, exit code 1"
    assert messages == {("base", expected), ("patch", expected)}


def test_a_long_run_of_spaces_after_signal_is_scanned_within_the_time_budget(
    tmp_path: Path,
) -> None:
    """review64b: the separator `\\s*[=:]?\\s*` split a run of n spaces n ways, so an error line
    holding `signal` and a long run of spaces (any text a server logs: a prompt echoed into a
    warning) took quadratic time: 50,000 spaces some 30 s, a megabyte of them hours, in one
    line, before `--max-seconds` is looked at again (the next block: the patch's first). Both
    sides are read within the budget, and the patch's other signal is new."""
    spaces = " " * 50_000
    base, patch = _logs(
        tmp_path,
        f"ERROR worker 12 got signal{spaces}while decoding",
        "ERROR worker 40 got signal 11 while decoding",
    )
    result = run_k3diff("logs", str(base), str(patch), "--max-seconds", "10")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "1 error finding new on the patch" in result.stdout


def test_a_message_holding_the_private_marker_keeps_its_exit_code(tmp_path: Path) -> None:
    """review64b: the numbers kept stood for U+E000 while the masks ran, and a message that held
    that character kept none, so a line quoting it (a server logging text it was given) made
    the base's exit code 1 excuse the patch's 139 again: both read `exit code <n>`, exit 0."""
    line = "ERROR worker 12 died unexpectedly, exit code {} (last output: '\ue000')"
    result = run_k3diff("logs", *_logs(tmp_path, line.format(1), line.format(139)))
    assert result.exit_code == 1, result.stdout
    assert "1 error finding new on the patch" in result.stdout
