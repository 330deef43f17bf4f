"""A bug inside a command (an exception no reader turned into an InputError) ends the run with
exit 2 and one line saying where it broke: never click's exit 1, which reads as "differences
found", and never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff

from k3diff.wheels import compare


def _broken(*_: object, **__: object) -> Any:
    raise ValueError("zip() argument 2 is longer than argument 1")


class _BrokenArchive:
    open = staticmethod(_broken)


@pytest.mark.parametrize("command", ["wheels", "audit"])
def test_an_internal_error_is_exit_2_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    wheel = wheelkit.make_wheel(tmp_path, "pkg", "1.0", {"pkg/__init__.py": b""})
    monkeypatch.setattr(compare, "read_facts", _broken)
    import k3diff.audit.run as audit_run

    monkeypatch.setattr(audit_run, "ZipArchive", _BrokenArchive)
    args = [str(wheel), str(wheel)] if command == "wheels" else [str(wheel)]
    if command == "wheels":
        copy = tmp_path / "copy" / Path(wheel).name
        copy.parent.mkdir()
        copy.write_bytes(Path(wheel).read_bytes())
        args[1] = str(copy)
    result = run_k3diff(command, *args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("k3diff: error: internal error (a bug in k3diff; "), result
    assert "ValueError: zip() argument 2 is longer than argument 1 at " in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
