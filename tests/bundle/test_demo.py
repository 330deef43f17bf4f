"""`make demo`'s driver (scripts/demo.py) end to end in a temporary directory: every command
echoed with its exit code, the bundle's bottom line, and the scripted engines stopped by pid on
the normal path and when the demo is terminated."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import demo
import pytest
from cli_support import HOSTILE, pasted

from .test_bundle import SEED_LINE

DEMO = Path(__file__).resolve().parents[2] / "scripts/demo.py"
README = DEMO.parents[1] / "README.md"
STARTED = re.compile(r"started the scripted (base|patch) engine: \S+ \(pid (\d+)\)")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop_leftovers(pids: list[int]) -> list[int]:
    """Kill (and name) any engine the demo left running, so a failing test leaks nothing."""
    left = [pid for pid in pids if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def test_the_demo_writes_the_seed_bundle_and_stops_its_engines(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(DEMO), str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    pids = [int(pid) for _, pid in STARTED.findall(proc.stdout)]
    assert _stop_leftovers(pids) == []
    assert proc.returncode == 0, proc.stderr
    assert len(pids) == 2
    commands = re.findall(r"^\$ k3diff (\w+)", proc.stdout, flags=re.M)
    assert commands == [
        "wheels",
        "wheels",
        "wheels",
        "responses",
        "sample",
        "triage",
        "triage",
        "audit",
        "logs",
        "logs",
        "telemetry",
        "report",
    ]
    # Each command's verdict is said once: k3diff's own "(exit N)", sample's too since more80
    # (its `result:` line), so the demo adds its own to none.
    blocks = proc.stdout.split("\n$ k3diff ")[1:]
    assert [len(re.findall(r"\(exit [012][):]", block)) for block in blocks] == [1] * len(commands)
    assert not re.findall(r"^\(exit [012]: ", proc.stdout, flags=re.M)
    assert proc.stdout.rstrip().endswith(
        f"Open {tmp_path}/demo/bundle/report.html in a browser (REPORT.md and summary.json beside it)."
    )
    summary = json.loads((tmp_path / "demo/bundle/summary.json").read_text())
    assert summary["verdict"] == {"ok": True, "exit_code": 0}
    assert summary["missing"] == []
    assert {row["evidence"]: row["status"] for row in summary["matrix"]}["audit"] == "pass"
    # forge62: given its wheels and the source repository, the wheels document is run again
    labels = {d["label"] for row in summary["matrix"] for d in row["documents"]}
    assert any(
        label.startswith("wheels.json (cross-checked; wheels run again with its source at commit ")
        for label in labels
    )
    assert not any("judged" in label for label in labels if label.startswith("wheels.json"))
    # newuser62, stop 62: given its captures and the servers' logs, every document that can be
    # run again is
    assert "cmp.json (cross-checked; responses run again)" in labels
    assert "logs.json (cross-checked; logs run again)" in labels
    # polish63: triage run again on its comparison and logs says so, as the other reruns do
    assert any(
        re.fullmatch(
            r"triage\.json \(run \w{12}, cross-checked; triage run again on cmp\.json "
            r"and its logs\)",
            label,
        )
        for label in labels
    ), labels
    assert not any("judged alone" in label or "not cross-checked" in label for label in labels)
    # newuser62b: the README's tour quotes each label as the bundle writes it ("…" elides)
    tour = " ".join(README.read_text().split())
    quoted = re.findall(r"`(\w+\.json \(cross-checked[^`]*\))`", tour)
    assert len(quoted) >= 3, quoted
    for label in quoted:
        pattern = re.escape(label).replace("…", ".+")
        assert any(re.fullmatch(pattern, written) for written in labels), (label, labels)
    _the_tour_says_what_the_qualifications_are(tour, proc.stdout, summary["qualifications"])
    assert SEED_LINE in summary["bottom_line"]
    assert "48 samples of 8 records (serial): base 24, patch 24; 0 failed" in summary["bottom_line"]
    assert (
        '\ndemo: "captured base output reproduced by 0 of 3 serial samples" means: ' in proc.stdout
    )
    assert not list((tmp_path / "demo/servers").glob("*.pid"))
    _the_next_step_runs_after_the_demo(tmp_path, proc.stdout)


QUALIFIED = {
    "no control was run": "no control was sampled",
    "bounded only by 0.78": "bound the patch's stability only by 0.78",
    "could not detect any shift": "could not have detected every shift",
    "checked no pinned manifest": "audit checked no pinned manifest",
    "not checked by the servers' counters": "could not check that base and patch are two servers",
}
"""Each qualification the demo's bundle carries (a phrase of it) -> how the README's tour says it."""


def _the_tour_says_what_the_qualifications_are(
    tour: str, said: str, qualifications: list[str]
) -> None:
    """newuser68: the bundle ends `OK (exit 0); 4 qualifications` while the tour said only that
    no document is judged alone, which a newcomer read as a contradiction: the tour quotes the
    count the bundle prints and says what each qualification is."""
    count = f"OK (exit 0); {len(qualifications)} qualifications"
    assert count in said
    assert f'"{count}"' in tour
    assert sorted(key for key in QUALIFIED for q in qualifications if key in q) == sorted(
        QUALIFIED
    ), qualifications
    assert len(qualifications) == len(QUALIFIED), qualifications
    assert all(words in tour for words in QUALIFIED.values()), tour


GROW = re.compile(r"^  (\S+) (\S+) --grow (\d+) (\S+)$", flags=re.M)


def _the_next_step_runs_after_the_demo(tmp_path: Path, said: str) -> None:
    """polish63 (newuser62): triage's `next:` line names the demo's engines, gone when it ends,
    so the pasted `sample --resume` failed. The demo says so and names `--grow N`, which starts
    them again at the ports the run logged, grows the run, stops them and triages again."""
    ports = re.findall(
        r"started the scripted (?:base|patch) engine: http://127\.0\.0\.1:(\d+)", said
    )
    assert (
        "next, after the demo: its scripted engines are stopped when it ends, so k3diff sample "
        "--resume against their URLs would fail; to grow the run to 60 samples a side (enough to "
        "bound a stable side by 0.05 at α = 0.05), run where you ran the demo (not in "
        f"{tmp_path / 'demo'}/, where the commands above ran)\n"
    ) in said  # newuser70: its paths are relative to where the demo ran, not to demo/
    assert f"the ports the run logged (base {ports[0]}, patch {ports[1]})" in said
    (step,) = GROW.findall(said)
    # The interpreter as typed in the working directory (relative under it: CI's fresh clone).
    assert (Path(step[0]).absolute(), Path(step[1]).resolve(), step[2:]) == (
        Path(sys.executable).absolute(),
        DEMO,
        ("60", str(tmp_path / "demo")),
    )
    logs = {p.name: p.read_bytes() for p in (tmp_path / "demo/servers").glob("*.log")}
    grown = subprocess.run(
        [step[0], step[1], "--grow", "5", step[3]], capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip
    pids = [int(pid) for _, pid in STARTED.findall(grown.stdout)]
    assert _stop_leftovers(pids) == []
    assert grown.returncode == 0, grown.stdout + grown.stderr
    assert len(pids) == 2
    assert re.findall(r"http://127\.0\.0\.1:(\d+) \(pid", grown.stdout) == ports  # as logged
    assert "--repeats 5 --out run --resume\n" in grown.stdout
    assert "OK: 80 of 80 planned samples taken (run/samples.jsonl, 32 taken now)" in grown.stdout
    triaged = re.findall(r"^result: no regression candidate \(exit 0\)$", grown.stdout, re.M)
    assert len(triaged) == 1  # triaged again
    # The demo's evidence is as it was: the engines started again log elsewhere.
    assert {p.name: p.read_bytes() for p in (tmp_path / "demo/servers").glob("*.log")} == logs
    _the_stale_documents_written_anew_make_the_bundle(tmp_path / "demo", said, grown.stdout)


def _the_stale_documents_written_anew_make_the_bundle(demo: Path, said: str, grown: str) -> None:
    """newuser63b: after `--grow` the demo named triage.json and bundle/ as stale, but not
    telemetry.json (made from the same samples log). newuser65: it named the commands as
    `k3diff triage ... -o triage.json`, and `report` refused the stale documents one at a time.
    `--grow` writes every document made from the run anew, and the bundle from them: its own
    `k3diff report`, run again as the demo ran it, exits 0 on the grown run."""
    assert "triage.json, telemetry.json and bundle/ are written anew from it" in grown
    commands = re.findall(r"^\$ k3diff (\w+)", grown, flags=re.M)
    assert commands == ["sample", "triage", "triage", "telemetry", "report"]
    summary = json.loads((demo / "bundle" / "summary.json").read_text())
    assert "80 samples of 8 records" in json.dumps(summary)  # 5 repeats x 8 records x 2 sides
    done = subprocess.run(
        [sys.executable, "-m", "k3diff",
         *shlex.split(re.findall(r"^\$ k3diff (report .+)$", said, flags=re.M)[0])],
        cwd=demo, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_terminated_demo_stops_its_engines(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, str(DEMO), str(tmp_path / "demo")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    pids: list[int] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        match = STARTED.match(line)
        if match:
            pids.append(int(match.group(2)))
        if len(pids) == 2:
            break
    os.kill(proc.pid, signal.SIGTERM)
    proc.stdout.read()
    code = proc.wait(timeout=60)
    assert _stop_leftovers(pids) == []
    assert len(pids) == 2
    assert code == 143


def test_the_demo_deletes_no_directory_but_its_own(tmp_path: Path) -> None:
    """newuser64: `demo.py DIR` deleted DIR, whatever it held, and rebuilt the demo there, so
    `demo.py --help` wrote a demo into `--help/` and `demo.py .` deleted the checkout it ran in.
    `--help` prints the usage; a directory holding files and no earlier demo is refused, kept."""
    shown = subprocess.run(
        [sys.executable, str(DEMO), "--help"], capture_output=True, text=True, cwd=tmp_path,
        timeout=60, check=False,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("usage: demo.py [-h] [--grow N] [DIR]")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "notes.txt").write_text("kept")
    refused = subprocess.run(
        [sys.executable, str(DEMO), "."], capture_output=True, text=True, cwd=tmp_path,
        timeout=60, check=False,
    )  # fmt: skip
    assert refused.returncode == 2, refused.stdout
    assert refused.stderr == (
        "demo.py: error: . holds files and is no earlier demo's (no engine-src/ repository): it "
        "would be deleted; give a new directory\n"
    )
    assert (tmp_path / "notes.txt").read_text() == "kept"


@pytest.mark.skipif(shutil.which("bash") is None, reason="the command is pasted into bash")
def test_the_grow_command_pastes_as_the_demo_directory_given(tmp_path: Path) -> None:
    """shell65: the `--grow` command printed after triage names the demo's directory; one
    holding a tab, a newline or an ESC was printed raw inside quotes (driving the terminal) and
    one holding a byte not UTF-8 could not be printed at all. Pasted into bash as printed, the
    command grows the directory the demo was given."""
    directory = tmp_path / HOSTILE
    (directory / "run").mkdir(parents=True)
    servers = {"base": "http://127.0.0.1:8001", "patch": "http://127.0.0.1:8002"}
    (directory / demo.SAMPLES).write_text(json.dumps({"run": {"servers": servers}}) + "\n")
    said = "next: to take ... grow the run: k3diff sample --out run --resume --repeats 11 (...)\n"
    step = demo.grow_step(directory, said)
    (command,) = [line[2:] for line in step.splitlines() if line.startswith("  ")]
    assert command.isprintable(), command  # one line, nothing a terminal acts on, encodable
    words = pasted(command)
    assert words[2:] == ["--grow", "11", str(directory)], command
    assert Path(words[0]).samefile(sys.executable) and Path(words[1]).samefile(demo.__file__)


def test_the_demo_says_an_unreproduced_base_capture_in_plain_words() -> None:
    """setupstop76: triage's `captured base output reproduced by 0 of 60 serial samples`
    puzzled a newcomer (the base failing?); the demo says what it means after triage."""
    said = (
        "b: captured base output reproduced by 0 of 60 serial samples; captured patch output "
        "reproduced by 60 of 60 serial samples\n"
    )
    note = demo.capture_note(said)
    assert note is not None
    assert (
        "the answer the base engine gave when step 2 captured that prompt never came back " in note
    )
    assert "in its 60 samples" in note and "base-nondeterminism and not regressions" in note
    assert note.endswith("The patch's capture came back every time.")
    assert demo.capture_note("a: captured base output reproduced by 2 of 3 serial samples") is None
