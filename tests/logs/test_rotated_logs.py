"""Rotated logs of one server are one stream: a restart is counted across them.

`server.log.2.gz`, `server.log.1` and `server.log` (logrotate's and RotatingFileHandler's
numbering, the highest N the oldest) are read oldest first and their start announcements added
up, so a server that started once in `server.log.1` and again in `server.log` restarted, as it
would read in the two files joined (found by the new-user trial: per-file counting missed it,
exit 0).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from cli_support import run_k3diff

from k3diff.logs.files import in_stream_order, stream_of

START = "INFO:     Application startup complete.\n"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_pieces_belong_to_their_stream_oldest_highest() -> None:
    assert stream_of(Path("d/server.log")) == ("d/server.log", 0)
    assert stream_of(Path("d/server.log.1")) == ("d/server.log", 1)
    assert stream_of(Path("d/server.log.12.gz")) == ("d/server.log", 12)
    assert stream_of(Path("d/server.log.0")) == ("d/server.log.0", 0)  # logrotate starts at 1
    assert stream_of(Path("d/server.log.gz")) == ("d/server.log.gz", 0)
    files = [
        (Path(f"d/{name}"), name)
        for name in ("a.log", "server.log", "server.log.1", "server.log.10", "server.log.2.gz")
    ]
    ordered = [shown for _, shown in in_stream_order(files)]
    assert ordered == ["a.log", "server.log.10", "server.log.2.gz", "server.log.1", "server.log"]


def test_a_restart_across_rotated_files_is_a_restart(tmp_path: Path) -> None:
    base = _write(tmp_path / "base" / "server.log", START + "INFO: serving\n")
    patch = tmp_path / "patch"
    _write(patch / "server.log.1", START + "INFO: serving\n")
    _write(patch / "server.log", START + "INFO: serving again\n")
    result = run_k3diff("logs", base, patch, "--format", "json")
    assert result.exit_code == 1, result.stdout
    doc = json.loads(result.stdout)
    (restart,) = [f for f in doc["findings"] if f["rule"] == "restart"]
    assert restart["side"] == "patch" and restart["new"]
    assert restart["message"] == "server started <n> times in one log"
    (where,) = restart["examples"]
    assert where["text"].endswith(
        ": " + ", ".join(str(patch / n) for n in ("server.log.1", "server.log")) + " (rotated)"
    )
    joined = _write(tmp_path / "joined" / "server.log", (START + "INFO: x\n") * 2)
    assert run_k3diff("logs", base, joined).exit_code == 1


def test_the_same_restart_cut_differently_matches_the_base(tmp_path: Path) -> None:
    base = _write(tmp_path / "base" / "server.log", (START + "INFO: x\n") * 2)
    patch = tmp_path / "patch"
    patch.mkdir()
    with gzip.open(patch / "server.log.2.gz", "wt") as out:
        out.write(START)
    _write(patch / "server.log.1", "INFO: nothing started here\n")
    _write(patch / "server.log", START)
    assert run_k3diff("logs", base, patch).exit_code == 0


def test_other_servers_logs_are_other_streams(tmp_path: Path) -> None:
    base = _write(tmp_path / "base" / "a.log", START)
    patch = tmp_path / "patch"
    _write(patch / "a.log", START)
    _write(patch / "b.log", START)
    _write(patch / "b.log.1", "INFO: rotated, no start\n")
    assert run_k3diff("logs", base, patch).exit_code == 0
