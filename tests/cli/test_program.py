"""The program k3diff's printed commands start with (`k3diff.program`): bare `k3diff` only
where that name on PATH is the program running (the CLI test is in
`tests/triage/test_next_step.py`)."""

from __future__ import annotations

import sys
from pathlib import Path

from k3diff.program import resolve


def test_bare_only_where_path_finds_the_same_program(tmp_path: Path) -> None:
    ours = tmp_path / "a b" / "k3diff"
    other = tmp_path / "other" / "k3diff"
    for script in (ours, other):
        script.parent.mkdir()
        script.write_text("")
    python = str(ours.parent / "python")
    assert resolve(str(ours), str(ours), python) == "k3diff"
    assert resolve(str(ours), str(other), python) == f"'{ours}'"
    assert resolve(str(ours), None, python) == f"'{ours}'"
    main = str(Path(sys.modules["k3diff"].__file__ or "").with_name("__main__.py"))
    assert resolve(main, str(ours), python) == "k3diff"  # python -m, the venv's own script
    assert resolve(main, str(other), python) == f"'{python}' -m k3diff"
