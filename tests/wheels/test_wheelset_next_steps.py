"""A release set's per-pair next steps say what remains for the set (report66): a pair whose
native findings are all `--allow-native-changes` relaxes "then passes", but the set it belongs
to may still fail on wheels on one side only, misnamed files or other pairs. Each claim is held
to the run the step suggests: the set run again with the option."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from .wheelset_support import CP311, LIB, release_sets, write

ALLOW = "--allow-native-changes"


def _step(text: str) -> str:
    """The `--allow-native-changes` step of the one pair whose next steps the report shows."""
    (line,) = [line for line in text.splitlines() if line.strip().startswith(ALLOW)]
    return line.strip()


def test_a_pair_that_then_passes_says_the_set_still_fails_on_its_unpaired_wheel(
    tmp_path: Path,
) -> None:
    release_sets(tmp_path, native_change=True)
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert _step(result.stdout).endswith(
        "(1 × W101); nothing else fails, so this pair then passes; the set still fails on "
        "1 unpaired wheel"
    ), result.stdout
    markdown = run_k3diff("wheels", "base", "patch", "--format", "markdown", cwd=tmp_path)
    assert "so this pair then passes; the set still fails on 1 unpaired wheel" in markdown.stdout
    # As the step says: with the option the pair passes, and the set still fails.
    allowed = run_k3diff("wheels", "base", "patch", ALLOW, cwd=tmp_path)
    assert allowed.exit_code == 1, allowed.stderr
    assert (
        allowed.stdout.rstrip()
        .splitlines()[-1]
        .startswith(
            "Verdict: FAIL (exit 1): 1 unpaired (only on one side) (3 pairs, 0 failing, 1 unpaired)"
        )
    ), allowed.stdout
    # The bundle's step for the set's pair says the same.
    made = run_k3diff("wheels", "base", "patch", "--format", "json", "-o", "set.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    bundled = run_k3diff("report", "set.json", "--out", "bundle", cwd=tmp_path)
    assert bundled.exit_code == 1, bundled.stderr
    steps = json.loads((tmp_path / "bundle/summary.json").read_text())["next_steps"]
    (option,) = [s["step"] for s in steps if f" {ALLOW}: " in s["step"]]
    assert option.endswith("so this pair then passes; the set still fails on 1 unpaired wheel")


def test_a_pair_whose_set_then_passes_says_so(tmp_path: Path) -> None:
    release_sets(tmp_path, native_change=True, solo=False)
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert _step(result.stdout).endswith(
        "(1 × W101); nothing else fails, so this pair then passes, and the set with it"
    ), result.stdout
    assert run_k3diff("wheels", "base", "patch", ALLOW, cwd=tmp_path).exit_code == 0


def test_another_pair_the_option_leaves_failing_is_counted(tmp_path: Path) -> None:
    """The cp311 patch wheel adds a `.pth` file (new code run at start-up: no native finding,
    so the option leaves it failing): the cp312 pair then passes, the set does not."""
    release_sets(tmp_path, native_change=True, solo=False)
    write(
        tmp_path / "patch",
        "engine",
        "1.1",
        CP311,
        {
            "engine/__init__.py": b"VERSION = '1.1'\n",
            "engine/model.py": b"def run(x):\n    return x + 1\n",
            "engine/_C.so": LIB,
            "engine-hook.pth": b"import engine\n",
        },
    )
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert _step(result.stdout).endswith(
        "(1 × W101); nothing else fails, so this pair then passes; the set still fails on "
        "1 other pair the option leaves failing"
    ), result.stdout
    allowed = run_k3diff("wheels", "base", "patch", ALLOW, cwd=tmp_path)
    assert allowed.exit_code == 1, allowed.stdout
    assert "(3 pairs, 1 failing, 0 unpaired)" in allowed.stdout.splitlines()[-1]
