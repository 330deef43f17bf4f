"""Bundle inputs made by the real commands: a wheel pair through `k3diff wheels`, and the seed
scenario through `k3diff responses`, `k3diff sample` and `k3diff triage`, either sampled from the
scripted engines (`sampled_seed`) or with a log written in the contract's format (`seed`: its
bytes, latencies included, are fixed, as the golden REPORT.md needs; and it can make the base
stable)."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import scripted_server
import wheelkit
from cli_support import run_k3diff
from triage.helpers import S, compare_texts, side, write_samples

MISMATCHED = [f"q{n}" for n in range(4)]
MATCHED = [f"q{n}" for n in range(4, 8)]
BASE_FILES = {
    "pkg/__init__.py": b"VERSION = '1.0'\n",
    "pkg/sampler.py": b"def sample(x):\n    return x\n",
    "pkg/_native.so": wheelkit.elf_bytes(b"\x90" * 64),
}


def current_header(log: Path) -> None:
    """A fixture log written before samples71 given the header fields `k3diff sample` writes
    now (`log_format`, `keys`: the records its lines hold, in order), so a test of an older
    document reads evidence triage can clear: a log without them holds every record
    (tests/triage/test_lines_owed.py)."""
    lines = log.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    keys = [json.loads(line)["key"] for line in lines[1:]]
    servers = header["run"]["servers"]
    connects = {side: {"url": url, "addresses": []} for side, url in servers.items() if url}
    header["run"] |= {"keys": list(dict.fromkeys(keys)), "log_format": 2}
    header["run"].setdefault("connects_to", connects)
    command = header["run"].get("command") or []
    if "--repeats" in command:  # the fixture's helper wrote 3 whatever the run's repeats
        command[command.index("--repeats") + 1] = str(header["run"]["repeats"])
    log.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))


def wheels_json(tmp_path: Path, native_changed: bool = False, name: str = "wheels.json") -> str:
    """A real `k3diff wheels --format json` document of a small pair (relative to tmp_path).

    The wheels are stored uncompressed: the golden REPORT.md shows their SHA-256 and size (and
    the document's), which a deflated wheel would take from the machine's zlib build."""
    patch_files = dict(BASE_FILES, **{"pkg/sampler.py": b"def sample(x):\n    return x + 0\n"})
    if native_changed:
        patch_files["pkg/_native.so"] = wheelkit.elf_bytes(b"\xcc" * 72)
    stored = zipfile.ZIP_STORED
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", BASE_FILES, method=stored)
    wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", patch_files, method=stored)
    wheel = "pkg-1.0-py3-none-any.whl"
    result = run_k3diff(
        "wheels", f"base/{wheel}", f"patch/{wheel}", "--format", "json", "-o", name, cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    return name


def seed(
    tmp_path: Path, base_stable: bool = False, sample_mismatched: bool = True
) -> tuple[str, str, str]:
    """The 8-record, 4-mismatch scenario: comparison, samples log, triage (names in tmp_path).
    A follow-up of 3 serial requests a side: on the differing records the base gives 3 distinct
    outputs, one of them the patch's, and the patch 1 (or, `base_stable`, the base 1 other).

    Without `sample_mismatched` the differing records get no samples (triage: inconclusive,
    unsampled, failing)."""
    captured = {key: (f"base {key} #0", f"patch {key}") for key in MISMATCHED}
    captured |= {key: (f"same {key}", f"same {key}") for key in MATCHED}
    compare_texts(tmp_path, captured)
    samples: list[S] = []
    for key in MISMATCHED if sample_mismatched else []:
        flaky = [f"base {key} #1", f"patch {key}", f"base {key} #2"]
        base = [f"base {key} #0"] * 3 if base_stable else flaky
        samples += side(key, "base", base) + side(key, "patch", [f"patch {key}"] * 3)
    for key in MATCHED:
        samples += side(key, "base", [f"same {key}"] * 3) + side(key, "patch", [f"same {key}"] * 3)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    result = run_k3diff(
        "triage",
        "cmp.json",
        "run/samples.jsonl",
        "--format",
        "json",
        "-o",
        "triage.json",
        cwd=tmp_path,
    )
    assert result.exit_code in (0, 1), result.stderr
    return "cmp.json", "run/samples.jsonl", "triage.json"


def sampled_seed(tmp_path: Path, engines: dict[str, str]) -> tuple[str, str, str]:
    """The seed scenario from the scripted engines: one capture per prompt from each, compared by
    `k3diff responses`, 3 serial samples per side by `k3diff sample`, then `k3diff triage`
    (comparison, samples log, triage; names in tmp_path)."""
    scripted_server.capture(engines, tmp_path / "responses")
    result = run_k3diff(
        "responses", "responses/base.jsonl", "responses/patch.jsonl", "--format", "json",
        "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    result = run_k3diff(
        "sample",
        "--base",
        engines["base"],
        "--patch",
        engines["patch"],
        "--prompts",
        "responses/base.jsonl",
        "--repeats",
        "3",
        "--out",
        "run",
        cwd=tmp_path,
    )
    assert result.exit_code == 0, result.stderr
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return "cmp.json", "run/samples.jsonl", "triage.json"


def pkg_source_repo(tmp_path: Path) -> Path:
    """`tmp_path/src`: a git repository of one commit holding `pkg/__init__.py` (empty), the
    source a `pkg` wheel's `--source src --commit HEAD` is checked against."""
    repo = tmp_path / "src"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    return repo
