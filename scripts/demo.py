"""`make demo`: the bundled example end to end, each command echoed, then its output and exit code.

    python scripts/demo.py [DIR]        (default: demo; DIR is rebuilt from scratch)
    python scripts/demo.py --grow N DIR (after the demo: its run grown to N repeats a side)

1. builds the example engine's repository and wheels (scripts/make_example_wheels.py) and runs
   `k3diff wheels` on them;
2. starts two scripted engines on loopback (scripts/scripted_server.py: the base answers 4 of
   its 8 prompts differently from one request to the next, now and then as the patch does; the
   patch is deterministic), captures one
   response per prompt from each and compares the captures with `k3diff responses`;
3. samples both engines with `k3diff sample` (serial, 3 repeats), stops them (by pid, on every
   path), and classifies the differences with `k3diff triage`;
4. audits the base and patch wheels with `k3diff audit`;
5. writes the evidence bundle with `k3diff report` into DIR/bundle (given the wheels and the
   source repository beside the wheels document, so the comparison is run again, source check
   included) and says where to open it.

Each command's verdict is said once: k3diff's own line, or, where its output states no exit
code (`sample`), the demo's. Exit 0 when every command exited as the example expects, 1 otherwise (naming the command).

The engines are gone when the demo ends, so a `k3diff sample --resume` naming their URLs (what
triage's `next:` line prints) cannot run as it stands: after triage the demo says so and names
`--grow N`, which starts both engines again at the ports the run logged (`sample --resume`
needs the same servers), grows the run to N repeats, stops them by pid, triages again and
writes triage.json, telemetry.json and bundle/ anew from the grown run (polish63: a new user's pasted `next:` line failed on the stopped engines).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import make_example_wheels
import scripted_server

from k3diff import shellwords

WHEEL = "engine-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
MEANING = {
    "wheels": ("nothing fails the policy", "findings that fail the policy"),
    "audit": ("no finding of error severity", "findings of error severity"),
    "responses": ("every record matches", "records differ"),
    "sample": ("every planned sample taken", "failed samples or a vacuous control"),
    "triage": (
        "no regression candidate",
        "a regression candidate, a record the evidence could not clear, or a vacuous control",
    ),
    "logs": ("no failing log finding", "failing log findings"),
    "telemetry": ("every expectation exercised", "an expectation not exercised"),
    "report": ("no row of the bundle fails", "a row of the bundle fails"),
}
"""What exit 0 and exit 1 mean for each command (2 is always bad input or a tool error)."""
TITLE = "engine 1.0 patch: evidence bundle"
REPORT_INPUTS = (
    "wheels.json", f"base/{WHEEL}", f"patch/{WHEEL}", "engine-src",
    "cmp.json", "responses/base.jsonl", "responses/patch.jsonl", "run/samples.jsonl",
    "triage.json", "audit.json", "logs.json", "servers/base.log", "servers/patch.log",
    "telemetry.json",
)  # fmt: skip
"""The bundle's inputs: each document with what it was made from, so `report` runs every command
it can again and the bundle judges alone only what nothing re-derives: the wheels document with
both wheels and the source repository it was checked against (`wheels --source` run again,
forge62), the comparison with its two captures (`responses` run again, newuser62) and the logs document
with both servers' logs (`logs` run again, stop 62)."""


class Demo:
    """Runs k3diff commands in the example directory, echoing each, and remembers surprises."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.surprises: list[str] = []

    def section(self, title: str) -> None:
        print(f"\n== {title}", flush=True)

    def k3diff(self, *args: str, expect: int = 0) -> int:
        """Run one command, its output passed through as it comes; say what its exit code means
        only where k3diff's own output did not already state it (one verdict line each)."""
        return self.run_k3diff(args, expect)[0]

    def run_k3diff(self, args: tuple[str, ...], expect: int = 0) -> tuple[int, str]:
        """`k3diff`, returning its exit code and what it printed."""
        print(f"\n$ k3diff {shellwords.join(args)}", flush=True)
        with subprocess.Popen(
            [sys.executable, "-m", "k3diff", *args],
            cwd=self.directory,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as proc:
            assert proc.stdout is not None
            said = []
            for line in proc.stdout:
                print(line, end="", flush=True)
                said.append(line)
        code = proc.returncode
        if f"(exit {code})" not in "".join(said):
            meanings = MEANING.get(args[0], ("passed", "failed"))
            meaning = meanings[code] if code in (0, 1) else "bad input or tool error"
            print(f"(exit {code}: {meaning})", flush=True)
        if code != expect:
            self.surprises.append(f"k3diff {args[0]} exited {code}, the example expects {expect}")
        return code, "".join(said)


@contextmanager
def scripted_engines(
    directory: Path, ports: dict[str, int] | None = None, answered: int = 0
) -> Iterator[dict[str, str]]:
    """Both scripted engines (at `ports`, else free ones; started again after `answered`
    requests per prompt), running while the block runs and stopped by pid afterwards."""
    running: list[scripted_server.Running] = []
    try:
        for role in scripted_server.ROLES:
            port = (ports or {}).get(role, 0)
            server = scripted_server.start(role, directory, port=port, answered=answered)
            running.append(server)
            print(f"started the scripted {role} engine: {server.url} (pid {server.pid})")
        yield {server.role: server.url for server in running}
    finally:
        for server in running:
            scripted_server.stop(server.pid)
            print(f"stopped the scripted {server.role} engine (pid {server.pid})", flush=True)


def run(directory: Path) -> int:
    make_example_wheels.build(directory)
    demo = Demo(directory)
    print(f"example engine, its git history and three wheels written to {directory}/")
    print(f"(commands below run in {directory}/)")
    base, patch, tampered = (f"{side}/{WHEEL}" for side in ("base", "patch", "tampered"))
    source = ("--source", "engine-src", "--commit", "HEAD")

    demo.section("1. Artifacts: the patch wheel against the base wheel, and a tampered one")
    demo.k3diff("wheels", base, patch, *source)
    demo.k3diff("wheels", base, tampered, "--explain", expect=1)
    demo.k3diff("wheels", base, patch, *source, "--format", "json", "-o", "wheels.json")

    demo.section("2. Responses: two scripted engines on loopback, one capture each")
    with scripted_engines(directory / "servers") as urls:
        scripted_server.capture(urls, directory / "responses")
        print(
            "captured one response per prompt from each: responses/base.jsonl, responses/patch.jsonl"
        )
        demo.k3diff(
            "responses", "responses/base.jsonl", "responses/patch.jsonl",
            "--format", "json", "-o", "cmp.json", expect=1,
        )  # fmt: skip
        demo.section("3. Sampling: the same requests again, one in flight at a time")
        demo.k3diff(*sample_args(urls, 3))

    demo.section("4. Triage: what the differences are")
    _code, said = demo.run_k3diff(("triage", "cmp.json", "run/samples.jsonl"))
    _say_captures(said)
    demo.k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json")
    print(f"\n{grow_step(directory, said)}", flush=True)

    demo.section("5. Audit: the wheels' RECORDs, archive soundness and filenames")
    demo.k3diff("audit", base, patch, "--format", "json", "-o", "audit.json")

    demo.section("6. Runtime evidence: the servers' logs and what the run reported")
    demo.k3diff("logs", "servers/base.log", "servers/patch.log")
    demo.k3diff(
        "logs", "servers/base.log", "servers/patch.log", "--format", "json", "-o", "logs.json"
    )
    demo.k3diff("telemetry", "run/samples.jsonl", "--format", "json", "-o", "telemetry.json")

    demo.section("7. The evidence bundle")
    demo.k3diff("report", *REPORT_INPUTS, "--out", "bundle", "--title", TITLE)
    print(
        f"\nOpen {directory}/bundle/report.html in a browser (REPORT.md and summary.json beside it)."
    )
    for surprise in demo.surprises:
        print(f"demo: {surprise}", file=sys.stderr)
    return 1 if demo.surprises else 0


SAMPLES = "run/samples.jsonl"
"""The demo's run, as its commands name it (in DIR)."""


def sample_args(urls: dict[str, str], repeats: int, resume: bool = False) -> tuple[str, ...]:
    """The demo's `k3diff sample` command: the run, or (`resume`) the same run grown."""
    return (
        "sample", "--base", urls["base"], "--patch", urls["patch"],
        "--prompts", "responses/base.jsonl", "--repeats", str(repeats), "--out", "run",
        *(["--resume"] if resume else []),
    )  # fmt: skip


_UNREPRODUCED = re.compile(r"captured base output reproduced by 0 of (\d+) serial samples")
_REPRODUCED = re.compile(r"captured patch output reproduced by (\d+) of \1 serial samples")


def capture_note(triaged: str) -> str | None:
    """Triage's `captured base output reproduced by 0 of N` in plain words, where it printed
    one (setupstop76: a newcomer read it as the base failing): None where it printed none."""
    found = _UNREPRODUCED.search(triaged)
    if found is None:
        return None
    n = found.group(1)
    return (
        f'demo: "captured base output reproduced by 0 of {n} serial samples" means: the answer '
        "the base engine gave when step 2 captured that prompt never came back in its "
        f"{n} samples. The base answers those prompts differently almost every time (its "
        'scripted answers are numbered "(draw n)"), so its capture was one draw among many, not '
        "an answer it keeps giving: the base varies on its own, which is why those records are "
        "base-nondeterminism and not regressions."
        + (" The patch's capture came back every time." if _REPRODUCED.search(triaged) else "")
    )


def _say_captures(triaged: str) -> None:
    if (note := capture_note(triaged)) is not None:
        print(f"\n{note}", flush=True)


def grow_step(directory: Path, triaged: str) -> str:
    """What to run after the demo to take more samples: the engines triage's `next:` line (or a
    run grown by hand) would need are stopped, so `--grow` starts them again at their ports. N
    is the `--repeats` of triage's `next:` line where it printed one, else the samples a side
    that bound a stable side by the triage's bound."""
    asked = re.search(r"^next: .* --repeats (\d+)", triaged, flags=re.M)
    if asked is not None:
        repeats, why = int(asked.group(1)), "the samples triage's next: line asks for"
    else:
        document = json.loads((directory / "triage.json").read_text())
        repeats = document["samples_for_bound"]
        bound, alpha = document["bound"], document["alpha"]
        why = f"enough to bound a stable side by {bound:g} at α = {alpha:g}"
    ports = ", ".join(f"{role} {port}" for role, port in logged_ports(directory).items())
    command = shellwords.join(
        [_shown(sys.executable), _shown(__file__), "--grow", str(repeats), str(directory)]
    )
    return (
        "next, after the demo: its scripted engines are stopped when it ends, so k3diff sample "
        f"--resume against their URLs would fail; to grow the run to {repeats} samples a side "
        f"({why}), run where you ran the demo (not in {directory}/, where the commands above "
        f"ran)\n  {command}\nIt starts both engines again at the ports the run logged "
        f"({ports}), takes the samples with k3diff sample --resume, stops the engines by pid and "
        "triages again."
    )


def _shown(path: str) -> str:
    """`path` relative to the working directory where it lies under it (as typed there)."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def logged_ports(directory: Path) -> dict[str, int]:
    """The port of each side's server, as the run's log header records it."""
    with (directory / SAMPLES).open(encoding="utf-8") as log:
        servers = json.loads(log.readline())["run"]["servers"]
    return {role: int(servers[role].rsplit(":", 1)[1]) for role in scripted_server.ROLES}


def answered(directory: Path) -> int:
    """The requests per prompt each engine answered in the demo: its capture and the samples
    the run logged (the most of any prompt and side)."""
    counts: dict[tuple[str, str], int] = {}
    with (directory / SAMPLES).open(encoding="utf-8") as log:
        for line in list(log)[1:]:
            sample = json.loads(line)
            if "side" in sample and "key" in sample:
                where = (sample["side"], sample["key"])
                counts[where] = counts.get(where, 0) + 1
    return 1 + max(counts.values(), default=0)


def grow(directory: Path, repeats: int) -> int:
    """After the demo: its run grown to `repeats` a side by the engines started again at the
    ports it logged (their own logs kept apart, in DIR/servers-grown, so the demo's evidence
    is unchanged), then triaged again."""
    demo = Demo(directory)
    ports = logged_ports(directory)
    try:
        with scripted_engines(directory / "servers-grown", ports, answered(directory)) as urls:
            demo.k3diff(*sample_args(urls, repeats, resume=True))
    except RuntimeError as exc:
        print(f"demo: {exc}: a port the run logged ({ports}) is taken? run the demo again")
        return 1
    _code, said = demo.run_k3diff(("triage", "cmp.json", SAMPLES))
    _say_captures(said)
    # The documents made from the run, written anew from it: the demo's own `k3diff report`
    # refuses the 3-repeat run's (newuser65: it named one stale document at a time, and the
    # demo's note named the commands as `k3diff triage ... -o triage.json`, not pasteable).
    demo.k3diff("triage", "cmp.json", SAMPLES, "--format", "json", "-o", "triage.json")
    demo.k3diff("telemetry", SAMPLES, "--format", "json", "-o", "telemetry.json")
    demo.k3diff("report", *REPORT_INPUTS, "--out", "bundle", "--title", TITLE)
    print(
        f"\n{SAMPLES} now holds {repeats} repeats a side; triage.json, telemetry.json and bundle/ "
        f"are written anew from it: open {directory}/bundle/report.html"
    )
    for surprise in demo.surprises:
        print(f"demo: {surprise}", file=sys.stderr)
    return 1 if demo.surprises else 0


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="demo.py",
        description="The bundled example end to end (make demo), or its run grown after it.",
    )
    parser.add_argument(
        "directory",
        nargs="?",
        default="demo",
        type=Path,
        metavar="DIR",
        help="where the example is written (default: demo); a demo directory there is rebuilt "
        "from scratch, any other directory that holds files is refused",
    )
    parser.add_argument(
        "--grow",
        type=int,
        metavar="N",
        help="after the demo: start its engines again and grow its run in DIR to N repeats a side",
    )
    return parser.parse_args(argv)


def _not_a_demo(directory: Path) -> str | None:
    """Why `directory` is not one the demo may delete and rebuild (newuser64: `demo.py --help`
    wrote a demo into `--help/`, and `demo.py .` deleted the directory it was given, whatever
    it held): None for one that does not exist, an empty one, or an earlier demo's."""
    if not directory.exists():
        return None
    if not directory.is_dir():
        return f"{directory} is not a directory"
    if not any(directory.iterdir()) or (directory / "engine-src" / ".git").is_dir():
        return None
    return f"{directory} holds files and is no earlier demo's (no engine-src/ repository)"


def main() -> int:
    # SIGTERM unwinds like Ctrl-C, so the engines are stopped on that path too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args = _arguments(sys.argv[1:])
    if args.grow is not None:
        if args.grow < 1:
            print("demo.py: error: --grow N takes N >= 1", file=sys.stderr)
            return 2
        return grow(args.directory, args.grow)
    refused = _not_a_demo(args.directory)
    if refused is not None:
        print(
            f"demo.py: error: {refused}: it would be deleted; give a new directory", file=sys.stderr
        )
        return 2
    return run(args.directory)


if __name__ == "__main__":
    sys.exit(main())
