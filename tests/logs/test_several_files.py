"""A side of several log files on the command line (logs64): `--base FILE --patch FILE`, each
repeated, as `wheels --base/--patch` takes a release's wheels. The library and `report` took a
side as several files; `k3diff logs` took one path a side, so an engine's log and its API
server's log kept apart could not be one side. The JSON records every file read (name, SHA-256,
size) and `report` runs `logs` again on the files, wherever they are given from."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .logs_support import clean, run_json, write

ENGINE_OOM = (
    "ERROR 05-12 10:07:05 [gpu_worker.py:90] torch.OutOfMemoryError: CUDA out of memory. Tried "
    "to allocate 20.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 3.19 MiB is free.\n"
)


def _logs(tmp_path: Path) -> None:
    """b/ and p/ each an API server log and an engine log; the patch's engine ran out of memory."""
    write(tmp_path / "b" / "api.log", clean())
    write(tmp_path / "b" / "engine.log", "INFO 05-12 10:00:01 [core.py:70] engine up\n")
    write(tmp_path / "p" / "api.log", clean(pid=9))
    write(
        tmp_path / "p" / "engine.log", "INFO 05-12 10:00:02 [core.py:70] engine up\n" + ENGINE_OOM
    )


SIDES = (
    *("--base", "b/api.log", "--base", "b/engine.log"),
    *("--patch", "p/api.log", "--patch", "p/engine.log"),
)


def test_each_side_of_several_files_is_read_and_recorded(tmp_path: Path) -> None:
    _logs(tmp_path)
    result = run_k3diff("logs", *SIDES, cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert result.stdout.startswith(
        "Base:  b/api.log, b/engine.log: 2 files, 7 lines\n"
        "Patch: p/api.log, p/engine.log: 2 files, 8 lines\n"
    )
    assert result.stdout.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): 1 error finding new on the patch (out-of-memory)"
    )
    code, doc = run_json(*SIDES, cwd=tmp_path)
    assert code == 1
    for side, letter in (("base", "b"), ("patch", "p")):
        names = [f"{letter}/api.log", f"{letter}/engine.log"]
        assert doc[side]["paths"] == names
        assert doc[side]["read"] == [
            {
                "name": name,
                "sha256": hashlib.sha256((tmp_path / name).read_bytes()).hexdigest(),
                "size": (tmp_path / name).stat().st_size,
            }
            for name in names
        ]
        assert "sha256" not in doc[side]  # one file's tie only for a side of one file
    (oom,) = [f for f in doc["findings"] if f["rule"] == "out-of-memory"]
    assert oom["examples"][0]["file"] == "p/engine.log"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("b/api.log", "p/api.log", "--base", "b/engine.log"), "not both"),
        (("--base", "b/api.log"), "--base needs --patch"),
        (("--patch", "p/api.log"), "--patch needs --base"),
        (("--base", "b", "--patch", "p/api.log"), "--base b: a directory"),
        (
            ("--base", "b/api.log", "--base", "b/../b/api.log", "--patch", "p/api.log"),
            "--base b/../b/api.log: given twice (also as b/api.log)",
        ),
        (("b/api.log",), "give BASE and PATCH"),
    ],
)
def test_a_side_given_wrong_is_a_usage_error(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    _logs(tmp_path)
    result = run_k3diff("logs", *args, cwd=tmp_path)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_report_runs_logs_again_on_the_files_given_from_elsewhere(tmp_path: Path) -> None:
    """The files given to report from another directory: each side's `read` names were the paths
    report was given, so the document was refused as not following from its own logs."""
    _logs(tmp_path)
    made = run_k3diff("logs", *SIDES, "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    (tmp_path / "copy").mkdir()
    for name in ("b/api.log", "b/engine.log", "p/api.log", "p/engine.log"):
        copy = tmp_path / "copy" / name.replace("/", "-")
        copy.write_bytes((tmp_path / name).read_bytes())
    copies = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "copy").iterdir())
    result = run_k3diff("report", "d.json", *copies, "--out", "o", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    (row,) = [r for r in summary["matrix"] if r["evidence"] == "runtime logs"]
    assert row["documents"][0]["label"] == "d.json (cross-checked; logs run again)"
    assert row["finding"].endswith("; new on the patch: out-of-memory"), row["finding"]
    # The patch's engine log edited since: named, refused; the edited copy, tied to no
    # document now, is said in the same refusal (left67), not left for the next run.
    (tmp_path / "copy" / "p-engine.log").write_text("INFO engine up\n")
    result = run_k3diff("report", "d.json", *copies, "--out", "o2", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    head, *lines = result.stderr.splitlines()
    assert head.startswith("k3diff: error: 1 input missing since the documents"), head
    assert lines[0].startswith("  (1) p/engine.log: missing (d.json records it as a patch log"), (
        result.stderr
    )
    assert lines[1].startswith("  (2) copy/p-engine.log: "), result.stderr
    assert len(lines) == 2, result.stderr
    assert not (tmp_path / "o2").exists()
