"""What `k3diff wheels` says must match what it did: filters named, lists as set diffs,
line-ending-only files marked, directories not counted, counts in agreeing plurals."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_json

SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 256)
FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/model.py": b"def run(x):\n    return x + 1\n",
    "engine/_C.so": SO,
}


def _wheel(tmp_path: Path, side: str, files: dict[str, bytes], **kwargs: Any) -> Path:
    return wheelkit.make_wheel(tmp_path / side, "engine", "1.0", files, **kwargs)


def _native_changed(tmp_path: Path) -> tuple[Path, Path]:
    base = _wheel(tmp_path, "base", FILES)
    patch = _wheel(
        tmp_path, "patch", dict(FILES, **{"engine/_C.so": wheelkit.elf_bytes(b"\xcc" * 64)})
    )
    return base, patch


def test_ignored_failing_findings_are_named_in_the_verdict(k3diff_cli: Any, tmp_path: Path) -> None:
    base, patch = _native_changed(tmp_path)
    result = k3diff_cli("wheels", base, patch, "--ignore", "W101,W302")
    assert result.exit_code == 0
    verdict = result.stdout.rstrip("\n").splitlines()[-1]
    assert verdict.startswith("Verdict: OK (exit 0)")
    assert "filtered out by --select/--ignore: 1 × W101 (would fail)" in verdict
    code, report = run_json("wheels", base, patch, "--ignore", "W1", "--ignore", "W302")
    assert code == 0
    assert report["verdict"]["filtered"] == [{"code": "W101", "count": 1, "would_fail": True}]


def test_allowed_failing_findings_are_named_in_the_verdict(k3diff_cli: Any, tmp_path: Path) -> None:
    # Found by the new-user trial: `--allow-native-changes` ended "nothing fails the policy"
    # without saying W101 passed only because the option relaxed it, unlike `--ignore`.
    base, patch = _native_changed(tmp_path)
    result = k3diff_cli("wheels", base, patch, "--allow-native-changes")
    assert result.exit_code == 0
    verdict = result.stdout.rstrip("\n").splitlines()[-1]
    assert verdict.startswith("Verdict: OK (exit 0)")
    assert verdict.endswith(
        " — 1 finding let pass by --allow-native-changes: 1 × W101 (would fail)"
    )
    both = k3diff_cli("wheels", base, patch, "--allow-native-changes", "--ignore", "W101")
    assert "let pass" not in both.stdout  # a finding left out is named once, as filtered


def test_select_reports_what_it_left_out_in_markdown(k3diff_cli: Any, tmp_path: Path) -> None:
    base, patch = _native_changed(tmp_path)
    result = k3diff_cli("wheels", base, patch, "--select", "W2", "--format", "markdown")
    assert result.exit_code == 0
    assert "1 × W101 (would fail)" in result.stdout.splitlines()[-1]


def test_no_filter_no_filtered_field(tmp_path: Path) -> None:
    base, patch = _native_changed(tmp_path)
    _, report = run_json("wheels", base, patch)
    assert "filtered" not in report["verdict"]
    assert report["verdict"]["exit_code"] == 1


def test_requires_dist_changes_are_a_set_diff(k3diff_cli: Any, tmp_path: Path) -> None:
    common = [f"dep{i}>=1.{i}" for i in range(30)]
    base = _wheel(tmp_path, "base", FILES, requires=[*common, "olddep<2"])
    patch = _wheel(tmp_path, "patch", FILES, requires=[*common, "newdep>=3"])
    result = k3diff_cli("wheels", base, patch)
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) < 200
    assert any("- olddep<2" in line for line in lines)
    assert any("+ newdep>=3" in line for line in lines)
    assert not any("dep7>=1.7" in line for line in lines)
    _, report = run_json("wheels", base, patch)
    (change,) = [c for c in report["metadata_changes"] if c["field"] == "requires_dist"]
    assert change["added"] == ["newdep>=3"]
    assert change["removed"] == ["olddep<2"]
    (finding,) = [f for f in report["findings"] if f["code"] == "W301" and not f["path"]]
    assert finding["detail"] == "requires_dist: -olddep<2, +newdep>=3"


def test_a_requirement_respelt_is_no_change(k3diff_cli: Any, tmp_path: Path) -> None:
    """`certifi (>=2017.4.17)` and `certifi >=2017.4.17` are one requirement (PEP 508, as
    `packaging` reads it): a version bump that only re-spells its Requires-Dist lists no
    removed and re-added dependency; a real change beside it is still listed."""
    base = _wheel(tmp_path, "base", FILES, requires=["certifi (>=2017.4.17)", "idna<4,>=2.5"])
    patch = _wheel(tmp_path, "patch", FILES, requires=["certifi >=2017.4.17", "idna<5,>=2.5"])
    _, report = run_json("wheels", base, patch)
    (change,) = [c for c in report["metadata_changes"] if c["field"] == "requires_dist"]
    assert change["added"] == ["idna<5,>=2.5"]
    assert change["removed"] == ["idna<4,>=2.5"]
    same = _wheel(tmp_path, "same", FILES, requires=["certifi>=2017.4.17", "idna >=2.5, <4"])
    _, report = run_json("wheels", base, same)
    assert not [c for c in report["metadata_changes"] if c["field"] == "requires_dist"]


def test_crlf_only_python_file_is_marked_not_diffed(k3diff_cli: Any, tmp_path: Path) -> None:
    source = b"".join(b"line_%d = %d\n" % (i, i) for i in range(50))
    base = _wheel(tmp_path, "base", dict(FILES, **{"engine/big.py": source}))
    patch = _wheel(
        tmp_path, "patch", dict(FILES, **{"engine/big.py": source.replace(b"\n", b"\r\n")})
    )
    code, report = run_json("wheels", base, patch)
    assert code == 0
    entry = next(e for e in report["entries"] if e["path"] == "engine/big.py")
    assert entry["status"] == "changed"
    assert entry["diff"] == {"added": 0, "removed": 0, "unified": "", "line_endings_only": True}
    result = k3diff_cli("wheels", base, patch)
    assert "line endings only" in result.stdout
    assert "-line_0 = 0" not in result.stdout
    # A real edit next to CRLF is still diffed line by line.
    edited = source.replace(b"\n", b"\r\n").replace(b"line_3 = 3", b"line_3 = 4")
    other = _wheel(tmp_path, "other", dict(FILES, **{"engine/big.py": edited}))
    _, report = run_json("wheels", base, other)
    entry = next(e for e in report["entries"] if e["path"] == "engine/big.py")
    assert "line_endings_only" not in entry["diff"]
    assert entry["diff"]["added"] == 50


def _with_directories(wheel: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(wheel, "a") as archive:
        for name in names:
            archive.writestr(zipfile.ZipInfo(name, date_time=wheelkit.FIXED_DATE), b"")
    return wheel


def test_directory_entries_are_neither_paired_nor_findings(k3diff_cli: Any, tmp_path: Path) -> None:
    base = _with_directories(_wheel(tmp_path, "base", FILES), ["engine/", "engine/old/"])
    patch = _with_directories(_wheel(tmp_path, "patch", FILES), ["engine/", "engine/new/"])
    code, report = run_json("wheels", base, patch)
    assert code == 0
    assert not [e for e in report["entries"] if e["path"].endswith("/")]
    assert report["summary"]["other"]["total"] == 0
    assert report["findings"] == []
    # The header's entry count is the central directory's, and says how many are directories.
    with zipfile.ZipFile(base) as archive:
        total = len(archive.infolist())
    assert report["base"]["entries"] == total
    assert report["base"]["directories"] == 2
    text = k3diff_cli("wheels", base, patch)
    assert f"{total} entries (2 directories)" in text.stdout
    markdown = k3diff_cli("wheels", base, patch, "--format", "markdown")
    assert f"| {total} (2 directories) |" in markdown.stdout


def test_counts_agree_with_their_nouns(k3diff_cli: Any, tmp_path: Path) -> None:
    # RECORD kept the same on both sides, so exactly one entry differs.
    row = {"engine/x.dat": "engine/x.dat,sha256=AAAA,1"}
    base = _wheel(tmp_path, "base", dict(FILES, **{"engine/x.dat": b"1"}), record_overrides=row)
    patch = _wheel(tmp_path, "patch", dict(FILES, **{"engine/x.dat": b"2"}), record_overrides=row)
    result = k3diff_cli("wheels", base, patch)
    assert "Differences (1 entry)" in result.stdout
    for wrong in ("1 entries", "1 bytes", "1 more lines", "1 more diffs"):
        assert wrong not in result.stdout
    added = _wheel(tmp_path, "added", dict(FILES, **{"engine/y.dat": b"1"}))
    _, report = run_json("wheels", _wheel(tmp_path, "plain", FILES), added)
    details = [f["detail"] for f in report["findings"] if f["path"] == "engine/y.dat"]
    assert details == ["other entry only in the patch (1 byte)"]


def test_source_inside_a_repository_names_its_top_level(k3diff_cli: Any, tmp_path: Path) -> None:
    import subprocess

    repo = tmp_path / "src"
    (repo / "python" / "engine").mkdir(parents=True)
    for name in ("model.py", "__init__.py"):
        (repo / "python" / "engine" / name).write_bytes(FILES[f"engine/{name}"])
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "one"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True
        )
    base = _wheel(tmp_path, "base", FILES)
    patch = _wheel(tmp_path, "patch", FILES)
    sub = repo / "python"
    result = k3diff_cli("wheels", base, patch, "--source", sub, "--commit", "HEAD")
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert f"inside {repo.resolve()}: pass --source {repo.resolve()}" in result.stderr
    accepted = k3diff_cli(
        "wheels", base, patch, "--source", repo, "--commit", "HEAD", "--source-all"
    )
    assert accepted.exit_code == 0, accepted.stderr
