"""What the reader tests share: a written document edited in place, the one-line refusal
`k3diff report` gives for it, and the triage document every reader test can seed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bundle.helpers import seed
from cli_support import run_k3diff

Edit = Callable[[dict[str, Any]], None]


def edited(tmp_path: Path, name: str, edit: Edit) -> Path:
    path = tmp_path / name
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document))
    return path


def refused(tmp_path: Path, name: str, message: str) -> None:
    result = run_k3diff("report", name, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr == f"k3diff: error: {name}: {message}\n"


def triage_json(tmp_path: Path) -> str:
    return seed(tmp_path)[2]
