"""`k3diff wheels --source/--commits` and `--explain` end to end, on the bundled example."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import make_example_wheels
import pytest
from cli_support import run_json

WHEEL = "engine-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("example")
    make_example_wheels.build(directory)
    return directory


def _sources(report: dict[str, Any]) -> dict[str, str]:
    return {e["path"]: e["source"]["status"] for e in report["entries"] if "source" in e}


def test_patch_matches_the_commit_it_was_built_from(example: Path) -> None:
    code, report = run_json(
        "wheels", example / "base" / WHEEL, example / "patch" / WHEEL,
        "--source", example / "engine-src", "--commit", "HEAD",
    )  # fmt: skip
    assert code == 0
    assert _sources(report) == {
        "engine/config.py": "match",
        "engine/prefix_cache.py": "match",
        "engine/sampler.py": "match",
        "engine/scheduler.py": "match",
    }
    assert report["provenance"]["prefix"] == "python/"
    assert report["provenance"]["prefix_detected"] is True


def test_against_the_parent_commit_edits_mismatch_and_additions_are_absent(example: Path) -> None:
    code, report = run_json(
        "wheels", example / "base" / WHEEL, example / "patch" / WHEEL,
        "--source", example / "engine-src", "--commit", "HEAD~1",
    )  # fmt: skip
    assert code == 1
    assert _sources(report)["engine/prefix_cache.py"] == "absent"
    assert _sources(report)["engine/sampler.py"] == "mismatch"
    codes = sorted(f["code"] for f in report["findings"] if f["severity"] == "error")
    assert codes == ["W401", "W401", "W401", "W402"]


def test_range_flags_a_file_edited_again_after_the_build_as_stale(example: Path) -> None:
    repo = example / "engine-src"
    scratch = example.parent / "stale-repo"
    subprocess.run(["git", "clone", "-q", str(repo), str(scratch)], check=True)
    target = scratch / "python" / "engine" / "config.py"
    target.write_text("DEFAULTS = {'max_batch': 32, 'block_size': 16}\n")
    env_args = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "-C", str(scratch), *env_args, "commit", "-qam", "later"], check=True)
    code, report = run_json(
        "wheels", example / "base" / WHEEL, example / "patch" / WHEEL,
        "--source", scratch, "--commits", "HEAD~2..HEAD",
    )  # fmt: skip
    assert code == 1
    config = next(e for e in report["entries"] if e["path"] == "engine/config.py")
    assert config["source"]["status"] == "stale"
    head_1 = subprocess.run(
        ["git", "-C", str(scratch), "rev-parse", "HEAD~1"], capture_output=True, text=True
    ).stdout.strip()
    assert config["source"]["matched_commit"] == head_1
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["W403"]


def test_option_injection_through_the_revision_is_refused(example: Path, k3diff_cli: Any) -> None:
    result = k3diff_cli(
        "wheels", example / "base" / WHEEL, example / "patch" / WHEEL,
        "--source", example / "engine-src", "--commit=--output=/tmp/pwned",
    )  # fmt: skip
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_source_options_without_source_are_a_usage_error(example: Path, k3diff_cli: Any) -> None:
    result = k3diff_cli(
        "wheels", example / "base" / WHEEL, example / "patch" / WHEEL, "--commit", "HEAD"
    )
    assert result.exit_code == 2
    assert "need --source" in result.stderr


def test_explain_names_the_added_exported_function(example: Path) -> None:
    code, report = run_json(
        "wheels", example / "base" / WHEEL, example / "tampered" / WHEEL, "--explain"
    )
    assert code == 1
    native = next(e for e in report["entries"] if e["kind"] == "native")["native"]
    assert native["format"] == "elf"
    added = [s["name"] for s in native["symbols"]["added"]]
    if "engine_debug_hook" not in added:  # crafted ELF fallback (no C compiler): no dynsym
        pytest.skip("example built without a C compiler")
    assert "symbols" in native["classification"]


def test_data_purelib_files_are_looked_up_at_the_package_root(
    example: Path, tmp_path: Path
) -> None:
    import wheelkit

    repo_files = {
        "engine.data/purelib/engine/sampler.py": (
            example / "engine-src" / "python" / "engine" / "sampler.py"
        ).read_bytes()
    }
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", {})
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", repo_files)
    code, report = run_json(
        "wheels", base, patch, "--source", example / "engine-src", "--commit", "HEAD"
    )
    assert code == 0
    entry = next(e for e in report["entries"] if e["path"].endswith("sampler.py"))
    assert entry["source"]["status"] == "match"
    assert entry["source"]["repo_path"] == "python/engine/sampler.py"


def test_source_all_catches_an_unchanged_file_that_differs_from_the_commit(
    example: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "dirty-repo"
    subprocess.run(["git", "clone", "-q", str(example / "engine-src"), str(repo)], check=True)
    kv_cache = repo / "python" / "engine" / "kv_cache.py"
    kv_cache.write_text(kv_cache.read_text() + "# edited after the build\n")
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "-C", str(repo), *identity, "commit", "-qam", "edit"], check=True)
    args = ("wheels", example / "base" / WHEEL, example / "patch" / WHEEL, "--source", repo)
    code, report = run_json(*args, "--commit", "HEAD~1")
    assert code == 0
    assert "engine/kv_cache.py" not in _sources(report)
    code, report = run_json(*args, "--commit", "HEAD", "--source-all")
    assert code == 1
    assert _sources(report)["engine/kv_cache.py"] == "mismatch"
    assert _sources(report)["engine/sampler.py"] == "match"


def test_a_windows_module_pyw_is_checked_against_the_commit(tmp_path: Path) -> None:
    """`pkg/gui.pyw` is a module Windows imports (`import pkg.gui`) as it does `.py` (review64:
    a `.pyw` changed away from the source commit was an `other` entry, W501, exit 0 under
    --source): it is Python, changed (W201) and checked against the commit (W401)."""
    import wheelkit
    from provenance.repokit import make_repo

    files = {"pkg/__init__.py": b"", "pkg/gui.pyw": b"X = 1\n"}
    make_repo(tmp_path / "repo", [files])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", files)
    changed = {**files, "pkg/gui.pyw": b"import os\nos.system('id')\n"}
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", changed)
    code, report = run_json(
        "wheels", base, patch, "--source", tmp_path / "repo", "--commit", "HEAD"
    )  # fmt: skip
    assert code == 1
    assert _sources(report) == {"pkg/gui.pyw": "mismatch"}
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["W401"]
