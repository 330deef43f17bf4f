"""Root cause first (logs64). A vLLM V1 engine core dying of an out-of-memory error is logged as
the engine core's traceback, then, from the API server, `AsyncLLM output_handler failed.` and a
traceback ending in `EngineDeadError: … See stack trace (above) for the root cause.`, one more per
request in flight, the engine core process's own re-raise and `Engine core proc … died
unexpectedly`. The findings listed the EngineDeadError first (most frequent, then by rule name),
the verdict named `crash, out-of-memory`, and the re-raise, printed without vLLM's logger prefix,
lost its frames' indent to the worker prefix and read as a `traceback` finding whose message was
a frame. Now the engine core's exception leads, the engine's death follows it, marked as its
consequence (still a finding of its own: no exit code moves towards passing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .logs_support import run_json, write

START = """\
(APIServer pid={api}) INFO 05-01 14:30:00 [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000
(APIServer pid={api}) INFO:     Started server process [{api}]
(APIServer pid={api}) INFO:     Application startup complete.
"""

CORE = "(EngineCore_DP0 pid={core}) ERROR 05-01 14:39:06 [core.py:710] "
API = "(APIServer pid={api}) ERROR 05-01 14:39:06 [async_llm.py:480] "
CHAT = "(APIServer pid={api}) ERROR 05-01 14:39:06 [serving_chat.py:1136] "
SITE = "/usr/local/lib/python3.12/dist-packages/vllm"
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {mib}.00 MiB. GPU 0 has a "
    "total capacity of 23.56 GiB of which 21.75 MiB is free."
)
DEAD = (
    "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack "
    "trace (above) for the root cause."
)

ENGINE_CORE_CRASH = [
    CORE + "EngineCore encountered a fatal error.",
    CORE + "Traceback (most recent call last):",
    CORE + f'  File "{SITE}/v1/engine/core.py", line 701, in run_engine_core',
    CORE + "    engine_core.run_busy_loop()",
    CORE + OOM,
]
OUTPUT_HANDLER = [
    API + "AsyncLLM output_handler failed.",
    API + "Traceback (most recent call last):",
    API + f'  File "{SITE}/v1/engine/async_llm.py", line 439, in output_handler',
    API + "    outputs = await engine_core.get_output_async()",
    API + "              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    API + f'  File "{SITE}/v1/engine/core_client.py", line 845, in get_output_async',
    API + "    raise self._format_exception(outputs) from None",
    API + DEAD,
]
REQUEST = [
    CHAT + "Error in chat completion stream generator.",
    CHAT + "Traceback (most recent call last):",
    CHAT + f'  File "{SITE}/v1/engine/output_processor.py", line 87, in get',
    CHAT + "    raise output",
    CHAT + DEAD,
    '(APIServer pid={api}) INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 500 '
    "Internal Server Error",
]
RE_RAISE = [  # the engine core process's own, printed by multiprocessing without a logger
    "(EngineCore_DP0 pid={core}) Process EngineCore_DP0:",
    "(EngineCore_DP0 pid={core}) Traceback (most recent call last):",
    '(EngineCore_DP0 pid={core})   File "/usr/lib/python3.12/multiprocessing/process.py", line '
    "314, in _bootstrap",
    "(EngineCore_DP0 pid={core})     self.run()",
    "(EngineCore_DP0 pid={core}) " + OOM,
]
DIED = [
    "(APIServer pid={api}) ERROR 05-01 14:39:07 [core_client.py:564] Engine core proc "
    "EngineCore_DP0 died unexpectedly, shutting down client.",
]


def v1_log(*parts: list[str], api: int = 1, core: int = 104, mib: int = 50) -> str:
    """vLLM V1's server log: its start, then `parts`."""
    lines = [line for part in parts for line in part]
    return START.format(api=api) + "".join(
        line.format(api=api, core=core, mib=mib) + "\n" for line in lines
    )


CRASH = (ENGINE_CORE_CRASH, OUTPUT_HANDLER, REQUEST, RE_RAISE, DIED)


def _patch_errors(doc: dict[str, Any]) -> list[tuple[str, str, Any]]:
    return [
        (f["rule"], f["message"], f.get("consequence_of"))
        for f in doc["findings"]
        if f["side"] == "patch" and f["severity"] == "error"
    ]


def test_the_engine_core_exception_leads_and_the_engine_death_follows_it(tmp_path: Path) -> None:
    base = write(tmp_path / "base.log", v1_log())
    patch = write(tmp_path / "patch.log", v1_log(*CRASH, api=7, core=230))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): 3 error findings new on the patch (out-of-memory, then crash as "
        "its consequence)"
    )
    heads = [line for line in result.stdout.splitlines() if line.startswith("  ") and "×" in line]
    assert [h.split(": ", 1)[0] for h in heads] == [
        "  out-of-memory (error, ×2)",  # the engine core's, and its process's re-raise
        "  crash (error, ×2, consequence of out-of-memory)",
        "  crash (error, ×1, consequence of out-of-memory)",
    ]
    code, doc = run_json(base, patch)
    assert code == 1
    oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate <n> MiB. GPU <n> has a "
        "total capacity of <n> GiB of which <n> MiB is free. (in a traceback)"
    )
    root = {"rule": "out-of-memory", "message": oom}
    assert _patch_errors(doc) == [
        ("out-of-memory", oom, None),
        ("crash", DEAD.replace("v1", "v<n>") + " (in a traceback)", root),
        (
            "crash",
            "Engine core proc EngineCore_DP<n> died unexpectedly, shutting down client.",
            root,
        ),
    ]
    (first,) = [f for f in doc["findings"] if f["side"] == "patch" and f["message"] == oom]
    # Located at the engine core's exception line, the re-raise's second; no `traceback` finding
    assert [e["line"] for e in first["examples"]] == [8, 27]
    assert {r["name"]: r["patch"] for r in doc["rules"]}["traceback"] == 0
    # The report row names the cause first.
    (tmp_path / "d.json").write_text(json.dumps(doc))
    made = run_k3diff("report", "d.json", "--out", "o", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    (row,) = [r for r in summary["matrix"] if r["evidence"] == "runtime logs"]
    assert row["finding"].endswith(
        "; new on the patch: out-of-memory; as a consequence of out-of-memory: crash"
    ), row["finding"]
    markdown = run_k3diff("logs", base, patch, "--format", "markdown").stdout
    assert "| crash, consequence of out-of-memory | error | 2 |" in markdown


def test_a_consequence_still_fails_where_the_base_crashed_without_it(tmp_path: Path) -> None:
    """The same out-of-memory crash on the base, which logged no EngineDeadError (an engine
    stopped before the API server noticed): the patch's EngineDeadError is new and fails, as it
    did before it was marked a consequence."""
    base = write(tmp_path / "base.log", v1_log(ENGINE_CORE_CRASH, mib=20))
    patch = write(tmp_path / "patch.log", v1_log(ENGINE_CORE_CRASH, OUTPUT_HANDLER, api=7))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): 1 error finding new on the patch (crash as a consequence of "
        "out-of-memory)"
    )
    # The whole crash on both sides passes, and --strict fails on it.
    base = write(tmp_path / "base2.log", v1_log(*CRASH, mib=20))
    patch = write(tmp_path / "patch2.log", v1_log(*CRASH, api=7, core=230))
    assert run_k3diff("logs", base, patch).exit_code == 0
    assert run_k3diff("logs", base, patch, "--strict").exit_code == 1


def test_an_engine_death_with_no_crash_before_it_is_no_consequence(tmp_path: Path) -> None:
    """The engine core killed with no traceback of its own (the kernel's OOM killer): the
    EngineDeadError follows from nothing logged, so it is listed as a finding of its own."""
    base = write(tmp_path / "base.log", v1_log())
    patch = write(tmp_path / "patch.log", v1_log(OUTPUT_HANDLER, DIED, api=7))
    code, doc = run_json(base, patch)
    assert code == 1
    assert [(rule, root) for rule, _message, root in _patch_errors(doc)] == [
        ("crash", None),
        ("crash", None),
    ]


def test_a_crash_printed_under_the_worker_prefix_alone_is_a_crash(tmp_path: Path) -> None:
    """The engine core process's traceback as `multiprocessing` prints it, under vLLM's worker
    prefix and no logger prefix: the prefix took its frames' indent, so its first frame closed
    it (a `traceback` finding whose message was that frame, the same for any exception) and its
    exception line read as a plain line. A base that logged the out-of-memory error without
    crashing and whose engine core died of something else excused the patch's out-of-memory
    crash (exit 0). It is one crash, new on the patch."""
    logged = [CORE.replace("core.py:710", "gpu_worker.py:90") + OOM]
    other = [*RE_RAISE[:-1], "(EngineCore_DP0 pid={core}) ValueError: bad block table"]
    base = write(tmp_path / "base.log", v1_log(logged, other))
    patch = write(tmp_path / "patch.log", v1_log(RE_RAISE, api=7, core=230))
    code, doc = run_json(base, patch)
    assert code == 1
    new = [(f["rule"], f["message"]) for f in doc["findings"] if f["side"] == "patch" and f["new"]]
    assert [(rule, message.endswith(" (in a traceback)")) for rule, message in new] == [
        ("out-of-memory", True)
    ]


def test_an_error_beside_the_crash_is_not_named_its_cause(tmp_path: Path) -> None:
    """The crash, and an error of another rule the engine's death does not follow from (a
    request refused before it): the verdict read 'engine-error, out-of-memory, then crash as
    their consequence', the unrelated error first and named a cause of the crash, and the
    report row 'engine-error, out-of-memory; as a consequence: crash'. Each consequence now
    names the crash it follows from, and that crash leads."""
    refused = [CHAT + "Error in preprocessing prompt inputs"]
    base = write(tmp_path / "base.log", v1_log())
    patch = write(tmp_path / "patch.log", v1_log(refused, *CRASH, api=7, core=230))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): 4 error findings new on the patch (out-of-memory, engine-error, "
        "then crash as a consequence of out-of-memory)"
    )
    code, doc = run_json(base, patch)
    assert code == 1
    assert [(rule, root and root["rule"]) for rule, _message, root in _patch_errors(doc)] == [
        ("out-of-memory", None),
        ("crash", "out-of-memory"),
        ("crash", "out-of-memory"),
        ("engine-error", None),
    ]
    (tmp_path / "d.json").write_text(json.dumps(doc))
    made = run_k3diff("report", "d.json", "--out", "o", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    (row,) = [r for r in summary["matrix"] if r["evidence"] == "runtime logs"]
    assert row["finding"].endswith(
        "; new on the patch: out-of-memory, engine-error; as a consequence of out-of-memory: crash"
    ), row["finding"]
    # Each count with its side (newuser64: '32 and 3 lines scanned', the patch's first)
    counts = [len(path.read_text().splitlines()) for path in (tmp_path / "patch.log", base)]
    scanned = f"; {counts[0]} lines scanned on the patch, {counts[1]} on the base)"
    assert scanned in row["finding"], row["finding"]


def test_a_finding_quotes_its_line_as_logged_worker_prefix_included(tmp_path: Path) -> None:
    """newuser64: the places quoted a line without vLLM's worker prefix, the one part of it that
    says which process logged it (the engine core or the API server), though a place is the line
    as logged; the message is still read without it, so runs of other pids match."""
    base = write(tmp_path / "base.log", v1_log())
    patch = write(tmp_path / "patch.log", v1_log(*CRASH, api=7, core=230))
    code, doc = run_json(base, patch)
    assert code == 1
    lines = (tmp_path / "patch.log").read_text().splitlines()
    (oom,) = [f for f in doc["findings"] if f["rule"] == "out-of-memory"]
    quoted = [(e["line"], e["text"]) for e in oom["examples"]]
    assert quoted == [(8, lines[7]), (27, lines[26])]
    assert quoted[0][1].startswith("(EngineCore_DP0 pid=230) ERROR 05-01 14:39:06 [core.py:710] ")
    context = [(c["role"], c["line"], c["text"]) for c in oom["examples"][1]["context"]]
    assert context == [("traceback", 24, lines[23])]
    assert not oom["message"].startswith("(")


@pytest.mark.parametrize("repeated", ["Engine core proc ", "worker ", "Assertion `"])
def test_a_line_repeating_a_rule_s_first_words_is_scanned_within_the_time_budget(
    tmp_path: Path, repeated: str
) -> None:
    """review64b: `Engine ?core .*(?:died|failed|dead)`, `worker .*died`, `Assertion [`'"(].*…`
    and the consequence's `Engine ?core proc\\b.*\\bdied unexpectedly` scanned to the line's end
    from each place their first words are, so a line repeating them (any text a server logs)
    took quadratic time: some 300,000 characters of them 30 s and more in one line, before
    `--max-seconds` is looked at again (the next block: the patch's first). Both sides are read
    within the budget, and the patch's out-of-memory crash is new."""
    base, patch = tmp_path / "base.log", tmp_path / "patch.log"
    line = repeated * (300_000 // len(repeated))
    base.write_text(f"{START.format(api=7)}{API.format(api=7)}{line}\n")
    patch.write_text(f"{START.format(api=9)}{CORE.format(core=11)}{OOM.format(mib=20)}\n")
    result = run_k3diff("logs", str(base), str(patch), "--max-seconds", "10")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "1 error finding new on the patch" in result.stdout
