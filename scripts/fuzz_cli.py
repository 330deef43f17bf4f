"""Hostile-input campaign against the k3diff CLI as a user calls it (a subprocess per run).

    python scripts/demo.py /tmp/demo                 # the seed corpus (wheels, captures, logs,
                                                     # samples, every JSON document)
    nice -n 10 python scripts/fuzz_cli.py /tmp/demo --runs 2000 --seed 69 [--only audit,wheels]
                                                     [--findings DIR] [--minutes 50]

Each run takes one seed input of one target (below), applies one mutator of
`scripts/fuzz_mutators.py` drawn from a `random.Random(seed)` (so a campaign is reproduced by
its seed), runs the command under `/usr/bin/time` and classifies it: exit code, last stderr
line, whether a traceback appeared, seconds and peak RSS. A finding is a traceback or an
"internal error" line (the CLI's wording for an exception no reader named), an exit code
outside 0-2, exit 2 with more than one stderr line, more than 10 s of CPU or 500 MB, or an oracle
failing: `audit` or `wheels` exiting 0 on an archive whose entries CPython's `zipfile` no longer
reads as the seed's (names, and content outside `.dist-info/`) (a wheel pip would see differently never passes). Findings are written to
DIR (default: fuzz-findings/) with the input that caused them; the summary counts runs and
distinct findings (by target, kind and last stderr line with numbers masked).

Not run by `make test`: minutes of CPU, one process at a time.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import fuzz_mutators as mut
from fuzz_target import Target
from fuzz_targets70 import prepare70
from fuzz_targets71 import prepare71
from fuzz_targets72 import prepare72

K3DIFF = Path(sys.executable).parent / "k3diff"
WHEEL = "engine-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
SECONDS_CAP = 10.0
RSS_CAP_KB = 500 * 1024


def _again(inputs: list[str]) -> Callable[[Path, Path], list[str]]:
    """`report DOCUMENT INPUTS...`, run in the copy of the corpus (inputs named as recorded)."""
    return lambda corpus, document: ["report", document.name, *inputs, "--out", "again"]


def _targets() -> list[Target]:
    whl = f"base/{WHEEL}"
    return [
        Target("audit", whl, lambda c, f: ["audit", str(f)], mut.ZIP_MUTATORS, True),
        Target("audit-z64", "z64/" + WHEEL, lambda c, f: ["audit", str(f)], mut.ZIP_MUTATORS, True),
        Target("audit-dd", "dd/" + WHEEL, lambda c, f: ["audit", str(f)], mut.ZIP_MUTATORS, True),
        Target(
            "wheels",
            whl,
            lambda c, f: ["wheels", str(c / whl), str(f)],
            mut.ZIP_MUTATORS,
            True,
        ),
        Target(
            "wheels-dd",
            "dd64/" + WHEEL,
            lambda c, f: ["wheels", str(c / whl), str(f)],
            mut.ZIP_MUTATORS,
            True,
        ),
        Target(
            "wheelset",
            "patch/" + WHEEL,
            lambda c, f: ["wheels", str(c / "base"), str(f.parent)],
            mut.ZIP_MUTATORS,
            True,
        ),
        Target(
            "responses",
            "responses/base.jsonl",
            lambda c, f: ["responses", str(f), str(c / "responses/patch.jsonl")],
            mut.JSONL_MUTATORS,
        ),
        Target(
            "responses-eval",
            "eval/base.eval",
            lambda c, f: ["responses", str(f), str(c / "eval/patch.eval")],
            [*mut.ZIP_MUTATORS, mut.zip_json_entry, mut.zip_json_entry, mut.zip_json_entry],
        ),
        Target(
            "responses-sse",
            "sse/base.sse",
            lambda c, f: ["responses", str(f), str(c / "sse/patch.sse"), "--by-order"],
            [*mut.TEXT_MUTATORS, mut.jsonl_text],
        ),
        Target(
            "audit-manifest",
            "manifest/SHA256SUMS",
            lambda c, f: ["audit", str(c / whl), "--manifest", str(f)],
            mut.TEXT_MUTATORS,
        ),
        Target(
            "audit-waivers",
            "manifest/waivers.toml",
            lambda c, f: ["audit", str(c / f"tampered/{WHEEL}"), "--waivers", str(f)],
            mut.TEXT_MUTATORS,
        ),
        Target(
            "report-rederive",
            "patch/" + WHEEL,
            lambda c, f: [
                "report",
                str(c / "wheels.json"),
                str(c / whl),
                str(f),
                "--out",
                str(f.parent / "b"),
            ],
            mut.ZIP_MUTATORS,
        ),
        Target(
            "sample-prompts",
            "responses/base.jsonl",
            lambda c, f: [
                *("sample", "--base", "http://127.0.0.1:9", "--prompts", str(f)),
                *("--repeats", "1", "--out", str(f.parent / "run")),
            ],
            mut.JSONL_MUTATORS,
            seed_exit=2,  # the prompts are read before any server is asked
        ),
        Target(
            "responses-lmeval",
            "lmeval/samples_gsm8k_base.jsonl",
            lambda c, f: ["responses", str(f), str(c / "lmeval/samples_gsm8k_patch.jsonl")],
            mut.JSONL_MUTATORS,
        ),
        Target(
            "triage-samples",
            "run/samples.jsonl",
            lambda c, f: ["triage", str(c / "cmp.json"), str(f)],
            [*mut.JSONL_MUTATORS, mut.samples_amplified],
        ),
        Target(
            "triage-cmp",
            "cmp.json",
            lambda c, f: ["triage", str(f), str(c / "run/samples.jsonl")],
            mut.JSON_MUTATORS,
        ),
        Target(
            "telemetry", "run/samples.jsonl", lambda c, f: ["telemetry", str(f)], mut.JSONL_MUTATORS
        ),
        Target(
            "telemetry-perf",
            "perf/perf_metrics.jsonl",
            lambda c, f: ["telemetry", str(f.parent / "samples.jsonl")],
            mut.JSONL_MUTATORS,
        ),
        Target(
            "logs",
            "servers/base.log",
            lambda c, f: ["logs", str(f), str(c / "servers/patch.log")],
            mut.LOG_MUTATORS,
        ),
        *[
            Target(
                f"report-{name.split('.')[0].split('/')[-1]}",
                name,
                lambda c, f: ["report", str(f), "--out", str(f.parent / "bundle")],
                mut.JSONL_MUTATORS if name.endswith("jsonl") else mut.JSON_MUTATORS,
            )
            for name in (
                "wheels.json",
                "cmp.json",
                "triage.json",
                "audit.json",
                "logs.json",
                "telemetry.json",
                "run/samples.jsonl",
            )
        ],
        *[
            Target(
                f"report-again-{name.split('.')[0]}",
                name,
                _again(inputs),
                mut.JSON_MUTATORS,
                rederived=True,
            )
            for name, inputs in (
                ("cmp.json", ["responses/base.jsonl", "responses/patch.jsonl"]),
                ("logs.json", ["servers/base.log", "servers/patch.log"]),
                ("audit.json", [f"base/{WHEEL}", f"patch/{WHEEL}"]),
                ("wheels.json", [f"base/{WHEEL}", f"patch/{WHEEL}"]),
                ("telemetry.json", ["run/samples.jsonl"]),
            )
        ],
        *[
            Target(
                f"report-fail-{name.split('.')[0]}",
                f"failing/{name}",
                lambda c, f: ["report", str(f), "--out", str(f.parent / "bundle")],
                mut.JSON_MUTATORS,
                fails=True,
            )
            for name in (
                "wheels.json",
                "triage.json",
                "audit.json",
                "logs.json",
                "telemetry.json",
                "cmp.json",
            )
        ],
    ]


def prepare(corpus: Path) -> None:
    """Derive the seeds the demo does not write: the base wheel with a ZIP64 end record, as a
    stream (data descriptors, with and without ZIP64 extras), an lm-eval pair and a perf log."""
    base = (corpus / "base" / WHEEL).read_bytes()
    for folder, data in (
        ("z64", mut.with_zip64_end(base)),
        ("dd", mut.with_data_descriptors(base)),
        ("dd64", mut.with_data_descriptors(base, zip64=True)),
    ):
        (corpus / folder).mkdir(exist_ok=True)
        (corpus / folder / WHEEL).write_bytes(data)
    lmeval = corpus / "lmeval"
    lmeval.mkdir(exist_ok=True)
    for side, answers in (("base", ["42", "41", "7"]), ("patch", ["42", "40", "7"])):
        lines = []
        for doc_id, answer in enumerate(answers):
            question = f"What is {doc_id} plus 42?"
            lines.append(
                json.dumps(
                    {
                        "doc_id": doc_id,
                        "doc": {"question": question, "answer": "42"},
                        "target": "42",
                        "arguments": {
                            "gen_args_0": {"arg_0": question, "arg_1": {"until": ["\n"]}}
                        },
                        "resps": [[answer]],
                        "filtered_resps": [answer],
                        "filter": "none",
                        "metrics": ["exact_match"],
                        "prompt_hash": hashlib.sha256(question.encode()).hexdigest(),
                        "exact_match": float(answer == "42"),
                    }
                )
            )
        (lmeval / f"samples_gsm8k_{side}.jsonl").write_text("\n".join(lines) + "\n")
    _extra_seeds(corpus)
    _failing_seeds(corpus)
    perf = corpus / "perf"
    perf.mkdir(exist_ok=True)
    shutil.copy(corpus / "run" / "samples.jsonl", perf / "samples.jsonl")
    metrics = {
        "request_id": 7,
        "status": "finished",
        "perf_metrics": {
            "first_iter": 1,
            "last_iter": 9,
            "speculative_decoding": {
                "acceptance_rate": 0.5,
                "total_accepted_draft_tokens": 4,
                "total_draft_tokens": 8,
            },
            "kv_cache_metrics": {"num_reused_blocks": 3, "num_missed_blocks": 1},
        },
    }
    lines = [
        json.dumps({"side": s, "mode": "serial", "metrics": [metrics]}) for s in ("base", "patch")
    ]
    (perf / "perf_metrics.jsonl").write_text("\n".join(lines) + "\n")


def _extra_seeds(corpus: Path) -> None:
    """inspect_ai `.eval` logs, SSE transcripts, a manifest and a waivers file."""
    for folder in ("eval", "sse", "manifest"):
        (corpus / folder).mkdir(exist_ok=True)
    for side, answer in (("base", "42"), ("patch", "41")):
        with zipfile.ZipFile(corpus / "eval" / f"{side}.eval", "w", zipfile.ZIP_DEFLATED) as log:
            start = {"version": 2, "eval": {"task": "gsm8k", "model": "m", "run_id": "r1"}}
            log.writestr("_journal/start.json", json.dumps(start))
            for sample_id in (1, 2):
                sample = {
                    "id": sample_id,
                    "epoch": 1,
                    "input": f"What is {sample_id}?",
                    "target": "42",
                    "output": {
                        "completion": answer,
                        "choices": [
                            {
                                "message": {"role": "assistant", "content": answer},
                                "stop_reason": "stop",
                            }
                        ],
                        "usage": {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4},
                    },
                    "scores": {
                        "match": {"value": "C" if answer == "42" else "I", "answer": answer}
                    },
                }
                log.writestr(f"samples/{sample_id}_epoch_1.json", json.dumps(sample))
            log.writestr("header.json", json.dumps({**start, "status": "success"}))
        events = []
        for n, piece in enumerate(("The answer", " is ", answer)):
            chunk = {"id": "c1", "object": "text_completion", "created": 1, "model": "m",
                     "choices": [{"index": 0, "text": piece, "finish_reason": "stop" if n == 2 else None}]}  # fmt: skip
            events.append(f"data: {json.dumps(chunk)}\n\n")
        (corpus / "sse" / f"{side}.sse").write_text("".join(events) + "data: [DONE]\n\n")
    digest = hashlib.sha256((corpus / "base" / WHEEL).read_bytes()).hexdigest()
    (corpus / "manifest" / "SHA256SUMS").write_text(f"{digest}  {WHEEL}\n")
    (corpus / "manifest" / "waivers.toml").write_text(
        '[[waiver]]\ncode = "A103"\npath = "engine/_kernels.cpython-311-x86_64-linux-gnu.so"\n'
        'reason = "reviewed"\nexpires = 2099-01-31\nartifact = "engine-*.whl"\n\n'
        '[[waiver]]\ncode = "W201"\npath = "*"\nreason = "glob"\n'
    )


def _failing_seeds(corpus: Path) -> None:
    """A failing document of each kind (exit 1 from `report`): the tampered wheel compared, a
    wheel whose content contradicts its RECORD audited, a CUDA error new in the patch's log,
    telemetry expecting speculation the run never did, triage from the tests' recorded run."""
    failing = corpus / "failing"
    (failing / "w").mkdir(parents=True, exist_ok=True)
    with (
        zipfile.ZipFile(corpus / "base" / WHEEL) as source,
        zipfile.ZipFile(failing / "w" / WHEEL, "w", zipfile.ZIP_DEFLATED) as out,
    ):
        for info in source.infolist():
            edit = b"# edited\n" if info.filename == "engine/config.py" else b""
            out.writestr(info, source.read(info) + edit)
    log = (corpus / "servers" / "patch.log").read_text()
    (failing / "patch.log").write_text(
        log + 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    shutil.copy(corpus / "cmp.json", failing / "cmp.json")
    root = Path(__file__).resolve().parent.parent
    shutil.copy(root / "tests/bundle/data/triage_31411530/sampled/triage.json", failing)
    for argv in (
        ["wheels", f"base/{WHEEL}", f"tampered/{WHEEL}", "-o", "failing/wheels.json"],
        ["audit", f"failing/w/{WHEEL}", "-o", "failing/audit.json"],
        ["logs", "servers/base.log", "failing/patch.log", "-o", "failing/logs.json"],
        [
            "telemetry",
            "run/samples.jsonl",
            "--expect",
            "speculation",
            "-o",
            "failing/telemetry.json",
        ],
    ):
        done = subprocess.run(
            [str(K3DIFF), *argv, "--format", "json"], cwd=corpus, capture_output=True
        )
        if done.returncode != 1:
            raise SystemExit(f"seed {argv}: exit {done.returncode}, expected 1")


def zip_view(data: bytes) -> object:
    """What pip installs: every entry's name, and the content of each outside `.dist-info/`
    (metadata text edited to something still valid may pass), or why zipfile cannot read it."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return sorted(
                (i.filename, b"" if ".dist-info/" in i.filename else archive.read(i))
                for i in archive.infolist()
            )
    except Exception as exc:  # any failure is a view that differs
        return f"unreadable: {type(exc).__name__}"


@dataclass(frozen=True)
class Outcome:
    target: str
    label: str
    exit_code: int
    last_line: str
    traceback: bool
    stderr_lines: int
    seconds: float
    rss_kb: int
    size: int
    problems: tuple[str, ...]


def unchanged(data: bytes, rng: random.Random) -> mut.Mutation:
    """The seed itself: each target's baseline run."""
    return data, "seed"


def run_one(
    target: Target, corpus: Path, rng: random.Random, work: Path, baseline: bool = False
) -> tuple[Outcome, bytes]:
    seed = (corpus / target.seed).read_bytes()
    mutator = unchanged if baseline else rng.choice(target.mutators)
    try:
        data, label = mutator(seed, rng)
    except (ValueError, KeyError, IndexError, zipfile.BadZipFile) as exc:
        data, label = mut.byte_noise(seed, rng)
        label += f" (after {mutator.__name__}: {type(exc).__name__})"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(corpus / Path(target.seed).parent, work, ignore=shutil.ignore_patterns(".git"))
    mutated = work / Path(target.seed).name
    mutated.write_bytes(data)
    if target.setup:
        try:
            target.setup(work, mutated)
        except (OSError, subprocess.CalledProcessError, AssertionError) as exc:
            label += f" (setup failed: {type(exc).__name__}: {str(exc)[:80]})"
    timing = work.parent / "time.txt"
    argv = [
        "/usr/bin/time",
        "-f",
        "%e %U %S %M",
        "-o",
        str(timing),
        str(K3DIFF),
        *target.argv(corpus, mutated),
    ]
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=120, cwd=work, check=False)
        code, err = proc.returncode, proc.stderr.decode("utf-8", "replace")
        out = proc.stdout.decode("utf-8", "replace")
        _, user, system, rss_text = timing.read_text().split()[-4:]
        # CPU seconds: the machine is shared, so wall time would measure the neighbours too.
        seconds, rss = float(user) + float(system), int(rss_text)
    except subprocess.TimeoutExpired:
        code, err, out, seconds, rss = -9, "timeout", "", 120.0, 0
    lines = [line for line in err.splitlines() if line.strip()]
    problems = []
    if "Traceback" in err:
        problems.append("traceback")
    if "internal error" in err:  # what the CLI prints for an exception no reader named
        problems.append("internal error")
    if code not in (0, 1, 2):
        problems.append(f"exit {code}")
    if code == 2 and len(lines) > 1:
        problems.append("exit 2 with several stderr lines")
    if seconds > SECONDS_CAP:
        problems.append(f"{seconds:.1f} s")
    if rss > RSS_CAP_KB:
        problems.append(f"{rss // 1024} MB")
    if target.rederived and code != 2 and label.startswith("json-") and _edited(seed, data):
        problems.append("review: an edited document accepted beside its inputs")
    if target.review and code == 0 and (why := target.review(seed, data)):
        problems.append(why)
    if target.fails and code == 0 and not (target.excused and target.excused in out):
        problems.append("exit 0 on a mutated failing document")
    if target.zip_oracle and code == 0 and zip_view(data) != zip_view(seed):
        problems.append("exit 0 on an archive zipfile reads differently")
    last = lines[-1] if lines else ""
    outcome = Outcome(target.name, label, code, last[:300], "traceback" in problems, len(lines),
                      seconds, rss, len(data), tuple(problems))  # fmt: skip
    return outcome, data


def _edited(seed: bytes, data: bytes) -> bool:
    """Whether `data` reads as another JSON value than `seed` (an edit may write the same)."""
    try:
        return bool(json.loads(seed) != json.loads(data))
    except ValueError:
        return True


def signature(outcome: Outcome) -> str:
    """A finding's identity: target, problems and the last line with numbers and paths masked."""
    line = re.sub(r"\d+", "N", outcome.last_line)
    line = re.sub(r"/tmp/\S+", "PATH", line)
    if outcome.exit_code == 0:  # a pass to review: one per kind of edit, not one per target
        line = re.split(r"[:@]", outcome.label)[0]
    return f"{outcome.target} | {', '.join(outcome.problems)} | {line[:160]}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path, help="a directory written by scripts/demo.py")
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=69)
    parser.add_argument("--only", default="", help="comma-separated target names")
    parser.add_argument("--minutes", type=float, default=50.0, help="stop after this long")
    parser.add_argument("--findings", type=Path, default=Path("fuzz-findings"))
    parser.add_argument("--log", type=Path, help="one JSON line per run")
    args = parser.parse_args()
    corpus = args.corpus.resolve()
    prepare(corpus)
    every = [*_targets(), *prepare70(corpus, K3DIFF), *prepare71(corpus), *prepare72(corpus)]
    targets = [t for t in every if not args.only or t.name in args.only.split(",")]
    rng = random.Random(args.seed)
    args.findings.mkdir(parents=True, exist_ok=True)
    seen: Counter[str] = Counter()
    codes: Counter[tuple[str, int]] = Counter()
    deadline = time.monotonic() + args.minutes * 60
    log = args.log.open("a") if args.log else None
    runs = 0
    with tempfile.TemporaryDirectory(prefix="k3fuzz-") as tmp:
        for target in targets:  # each seed as it is: exit 1 where it fails, else 0, no problem
            outcome, _ = run_one(target, corpus, rng, Path(tmp) / "work", baseline=True)
            expected = {target.seed_exit} if target.seed_exit else {1} if target.fails else {0, 1}
            if outcome.exit_code not in expected or outcome.problems:
                raise SystemExit(f"seed of {target.name} is not sound: {outcome}")
        for runs in range(1, args.runs + 1):
            target = targets[(runs - 1) % len(targets)]
            outcome, data = run_one(target, corpus, rng, Path(tmp) / "work")
            codes[(target.name, outcome.exit_code)] += 1
            if log:
                log.write(json.dumps(outcome.__dict__) + "\n")
            if outcome.problems:
                key = signature(outcome)
                if not seen[key]:
                    name = hashlib.sha256(key.encode()).hexdigest()[:12]
                    saved = args.findings / f"{target.name}-{name}"
                    saved.mkdir(exist_ok=True)
                    (saved / Path(target.seed).name).write_bytes(data)
                    (saved / "outcome.json").write_text(json.dumps(outcome.__dict__, indent=1))
                    print(f"FINDING {key}  [{outcome.label[:80]}] -> {saved}", flush=True)
                seen[key] += 1
            if time.monotonic() > deadline:
                break
    print(f"{runs} runs, {len(seen)} distinct findings ({sum(seen.values())} runs)")
    for (name, code), count in sorted(codes.items()):
        print(f"  {name:22} exit {code:3}: {count}")
    return 1 if seen else 0


if __name__ == "__main__":
    sys.exit(main())
