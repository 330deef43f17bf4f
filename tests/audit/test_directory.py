"""`k3diff audit DIR`: a release directory stands for the files directly in it, as `DIR/*`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import run_k3diff
from wheelkit import make_wheel


def _release(root: Path) -> Path:
    dist = root / "dist"
    dist.mkdir()
    make_wheel(dist, "demo", "1.0", {"demo/__init__.py": b"x = 1\n"})
    make_wheel(dist, "other", "2.0", {"other/__init__.py": b"y = 2\n"})
    (dist / "notes.txt").write_text("release notes\n")
    (dist / ".hidden").write_text("editor state\n")
    (dist / "old").mkdir()
    make_wheel(dist / "old", "demo", "0.9", {"demo/__init__.py": b"x = 0\n"})
    return dist


def _audited(stdout: str) -> list[str]:
    return [artifact["path"] for artifact in json.loads(stdout)["artifacts"]]


def test_a_directory_is_its_files_in_name_order(tmp_path: Path) -> None:
    dist = _release(tmp_path)
    result = run_k3diff("audit", "dist", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert _audited(result.stdout) == [
        "dist/demo-1.0-py3-none-any.whl",
        "dist/notes.txt",
        "dist/other-2.0-py3-none-any.whl",
    ]
    assert _audited(result.stdout) == [
        f"dist/{p.name}" for p in sorted(dist.iterdir()) if p.is_file() and p.name[0] != "."
    ]  # what the shell's dist/* gives: the hidden file and the subdirectory left out


def test_a_directory_fails_on_a_bad_wheel_in_it(tmp_path: Path) -> None:
    dist = _release(tmp_path)
    (dist / "broken-1.0-py3-none-any.whl").write_bytes(b"PK\x03\x04 not a zip")
    result = run_k3diff("audit", "dist", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 1
    findings = {
        artifact["path"]: [f["code"] for f in artifact["findings"]]
        for artifact in json.loads(result.stdout)["artifacts"]
    }
    assert findings["dist/broken-1.0-py3-none-any.whl"] == ["A001"]


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="needs sha256sum")
def test_the_run_s_own_manifest_and_report_are_not_artifacts(tmp_path: Path) -> None:
    _release(tmp_path)
    for _ in range(2):  # the second run finds SHA256SUMS and audit.json in dist/ and skips them
        result = run_k3diff(
            "audit", "dist", "--write-manifest", "dist/SHA256SUMS", "-o", "dist/audit.json",
            cwd=tmp_path,
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
    manifest = (tmp_path / "dist/SHA256SUMS").read_text()
    assert [line.split("  ", 1)[1] for line in manifest.splitlines()] == [
        "demo-1.0-py3-none-any.whl",  # relative to the manifest's directory, where it is checked
        "notes.txt",
        "other-2.0-py3-none-any.whl",
    ]
    checked = subprocess.run(
        ["sha256sum", "-c", "SHA256SUMS"], cwd=tmp_path / "dist", capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    (tmp_path / "dist/audit.json").unlink()  # a run without -o would audit it as a new file
    result = run_k3diff(
        "audit", "dist", "--manifest", "dist/SHA256SUMS", "--format", "json", cwd=tmp_path
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["manifest"]["missing"] == []
    (tmp_path / "dist/notes.txt").write_text("tampered\n")
    result = run_k3diff(
        "audit", "dist", "--manifest", "dist/SHA256SUMS", "--format", "json", cwd=tmp_path
    )
    assert result.exit_code == 1
    mismatched = json.loads(result.stdout)["manifest"]["mismatched"]
    assert [entry["artifact"] for entry in mismatched] == ["dist/notes.txt"]


def test_a_directory_without_files_is_exit_2_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    (tmp_path / "empty" / ".hidden").write_text("x")
    result = run_k3diff("audit", "empty", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("k3diff: error: empty: no files to audit")


@pytest.mark.parametrize("where", ["outside", "inside", "nowhere"])
def test_a_symbolic_link_in_a_directory_is_refused_never_skipped(
    tmp_path: Path, where: str
) -> None:
    """`dist/*` takes a link's target (twine would upload it), so a link is never skipped in
    silence: the run is refused (exit 2), naming the link and its target."""
    dist = _release(tmp_path)
    targets = {
        "outside": tmp_path / "secret.whl",
        "inside": dist / "demo-1.0-py3-none-any.whl",
        "nowhere": tmp_path / "absent.whl",
    }
    if where == "outside":
        targets[where].write_bytes((dist / "demo-1.0-py3-none-any.whl").read_bytes())
    (dist / "link-1.1-py3-none-any.whl").symlink_to(targets[where])
    result = run_k3diff("audit", "dist", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(
        "k3diff: error: dist/link-1.1-py3-none-any.whl: a symbolic link"
    )
    assert str(targets[where]) in result.stderr


def test_a_hidden_link_and_a_link_given_by_name_are_as_before(tmp_path: Path) -> None:
    dist = _release(tmp_path)
    (dist / ".latest.whl").symlink_to(dist / "demo-1.0-py3-none-any.whl")
    result = run_k3diff("audit", "dist", "--format", "json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert ".latest.whl" not in result.stdout
    named = run_k3diff("audit", "dist/.latest.whl", "--format", "json", cwd=tmp_path)
    # audited as the file it points to, under the name given: no wheel filename (A126)
    assert named.exit_code == 1, named.stderr
    found = json.loads(named.stdout)["artifacts"][0]["findings"]
    assert [f["code"] for f in found] == ["A126"]


def test_an_artifact_given_twice_is_refused(tmp_path: Path) -> None:
    _release(tmp_path)
    wheel = "dist/demo-1.0-py3-none-any.whl"
    for args in ((wheel, wheel), ("dist", wheel), (wheel, f"./{wheel}")):
        result = run_k3diff("audit", *args, cwd=tmp_path)
        assert result.exit_code == 2, args
        assert result.stderr.count("\n") == 1 and "given twice" in result.stderr


def _shell_glob(dist: Path) -> list[str]:
    """What the shell's `dist/*` expands to (relative to dist's parent)."""
    return [f"dist/{p.name}" for p in sorted(dist.iterdir()) if p.is_file() and p.name[0] != "."]


def test_the_manifest_given_is_no_artifact_when_a_glob_names_it(tmp_path: Path) -> None:
    """`audit dist/* --manifest dist/SHA256SUMS` (the glob takes the manifest too) and
    `audit dist/* --write-manifest dist/SHA256SUMS` run again: the manifest is not an extra
    artifact of itself (found by the new-user trial: A203 on dist/SHA256SUMS)."""
    dist = _release(tmp_path)
    first = run_k3diff("audit", "dist", "--write-manifest", "dist/SHA256SUMS", cwd=tmp_path)
    assert first.exit_code == 0, first.stderr
    written = (dist / "SHA256SUMS").read_text()
    glob = _shell_glob(dist)
    assert "dist/SHA256SUMS" in glob
    result = run_k3diff(
        "audit", *glob, "--manifest", "dist/SHA256SUMS", "--format", "json", cwd=tmp_path
    )
    assert result.exit_code == 0, result.stdout
    assert "dist/SHA256SUMS" not in _audited(result.stdout)
    assert json.loads(result.stdout)["manifest"]["extra"] == []
    again = run_k3diff("audit", *glob, "--write-manifest", "dist/SHA256SUMS", cwd=tmp_path)
    assert again.exit_code == 0, again.stderr
    assert (dist / "SHA256SUMS").read_text() == written  # same artifacts, same manifest
    alone = run_k3diff("audit", "dist/SHA256SUMS", "--manifest", "dist/SHA256SUMS", cwd=tmp_path)
    assert alone.exit_code == 2 and "ARTIFACT" in alone.stderr


def test_a_file_named_like_a_manifest_that_is_not_the_manifest_given_is_audited(
    tmp_path: Path,
) -> None:
    """A stray dist/SHA256SUMS is an artifact like any other unless --manifest or
    --write-manifest names that very file: an extra file cannot hide behind the name."""
    dist = _release(tmp_path)
    first = run_k3diff("audit", "dist", "--write-manifest", "SHA256SUMS", cwd=tmp_path)
    assert first.exit_code == 0, first.stderr
    (dist / "SHA256SUMS").write_text("#!/bin/sh\necho planted\n")
    for args in (["dist"], _shell_glob(dist)):
        result = run_k3diff(
            "audit", *args, "--manifest", "SHA256SUMS", "--format", "json", cwd=tmp_path
        )
        assert result.exit_code == 1, result.stderr
        extra = json.loads(result.stdout)["manifest"]["extra"]
        assert extra == ["dist/SHA256SUMS"]
        unpinned = run_k3diff("audit", *args, "--format", "json", cwd=tmp_path)
        assert "dist/SHA256SUMS" in _audited(unpinned.stdout)
    # a file that is no manifest is never replaced by --write-manifest, glob or not
    refused = run_k3diff("audit", *_shell_glob(dist), "--write-manifest", "dist/SHA256SUMS",
                         cwd=tmp_path)  # fmt: skip
    assert refused.exit_code == 2
    assert "is the artifact" in refused.stderr
    assert (dist / "SHA256SUMS").read_text() == "#!/bin/sh\necho planted\n"


@pytest.mark.parametrize("own", ["--manifest", "-o"])
def test_a_link_to_the_run_s_own_file_is_refused_like_any_link(tmp_path: Path, own: str) -> None:
    """A link in the directory to the manifest read or the report written is a link like any
    other, refused (hunt72: it was left out as the run's own file, exit 0, and `twine upload
    dist/*` would take it); the manifest or report itself in the directory, a link or not, is
    still the run's own file."""
    dist = _release(tmp_path)
    listed = subprocess.run(
        ["sha256sum", "demo-1.0-py3-none-any.whl", "other-2.0-py3-none-any.whl", "notes.txt"],
        cwd=dist, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    (tmp_path / "SHA256SUMS").write_text(listed)
    (dist / "sums-1.0-py3-none-any.whl").symlink_to(tmp_path / "out.json")
    if own == "--manifest":
        (dist / "sums-1.0-py3-none-any.whl").unlink()
        (dist / "sums-1.0-py3-none-any.whl").symlink_to(tmp_path / "SHA256SUMS")
    args = ("--manifest", "SHA256SUMS") if own == "--manifest" else ("-o", "out.json")
    result = run_k3diff("audit", "dist", *args, "--format", "json", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith(
        "k3diff: error: dist/sums-1.0-py3-none-any.whl: a symbolic link (to "
    ), result.stderr
    (dist / "sums-1.0-py3-none-any.whl").unlink()
    (dist / "SHA256SUMS").symlink_to(tmp_path / "SHA256SUMS")
    kept = run_k3diff("audit", "dist", "--manifest", "dist/SHA256SUMS", cwd=tmp_path)
    assert kept.exit_code == 0, kept.stdout + kept.stderr
