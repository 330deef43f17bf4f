"""One crash is one finding (polish63, from stop 62's trial): a vLLM engine dying of a CUDA
out-of-memory error read as two error findings (a traceback and an out-of-memory line), located
at the `Traceback` line rather than the exception line a reader greps for, and the
"EngineCore encountered a fatal error." line before it appeared nowhere. Now the crash is one
finding of the rule that names its exception, at the exception line, with its `Traceback` line
and the line announcing it quoted beside it; never fewer findings than crashes, and no exit
code moves towards passing (a base that logged the error without crashing excuses no crash)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .logs_support import clean, run_json, write

OOM_CRASH = """\
ERROR 05-12 10:{minute}:05 [core.py:588] EngineCore encountered a fatal error.
ERROR 05-12 10:{minute}:05 [core.py:588] Traceback (most recent call last):
ERROR 05-12 10:{minute}:05 [core.py:588]   File "/usr/lib/python3/vllm/v1/engine/core.py", line 579, in run_engine_core
ERROR 05-12 10:{minute}:05 [core.py:588]     engine_core.run_busy_loop()
ERROR 05-12 10:{minute}:05 [core.py:588] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {mib}.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 3.19 MiB is free.
"""
"""vLLM V1's engine core dying of an OOM, as `run_engine_core` logs it."""

CUDA_CRASH = """\
ERROR 05-12 10:{minute}:09 [core.py:588] EngineCore encountered a fatal error.
ERROR 05-12 10:{minute}:09 [core.py:588] Traceback (most recent call last):
ERROR 05-12 10:{minute}:09 [core.py:588]   File "/usr/lib/python3/vllm/v1/worker/gpu_model_runner.py", line 1200, in execute_model
ERROR 05-12 10:{minute}:09 [core.py:588]     hidden = self.model(input_ids)
ERROR 05-12 10:{minute}:09 [core.py:588] RuntimeError: CUDA error: an illegal memory access was encountered
"""

OOM_LINE = (
    "ERROR 05-12 10:00:07 [gpu_worker.py:90] torch.OutOfMemoryError: CUDA out of memory. Tried "
    "to allocate 20.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 3.19 MiB is free.\n"
)
"""The same error logged without a crash (a worker that caught it and went on)."""


def _errors(doc: dict[str, Any], side: str = "patch") -> list[dict[str, Any]]:
    return [f for f in doc["findings"] if f["side"] == side and f["severity"] == "error"]


def test_an_oom_crash_is_one_finding_at_its_exception_line(tmp_path: Path) -> None:
    base = write(tmp_path / "base.log", clean())
    patch = write(tmp_path / "patch.log", clean(pid=9) + OOM_CRASH.format(minute="07", mib=20))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): 1 error finding new on the patch (out-of-memory)"
    )
    lines = result.stdout.splitlines()
    head = next(
        i for i, line in enumerate(lines) if line.startswith("  out-of-memory (error, ×1): ")
    )
    assert lines[head].endswith("of which <n> MiB is free. (in a traceback)")
    assert lines[head + 1] == (
        f"    {patch}:11: ERROR 05-12 10:07:05 [core.py:588] torch.OutOfMemoryError: CUDA out of "
        "memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which "
        "3.19 MiB is free."
    )
    assert lines[head + 2] == (
        "      announced by line 7: ERROR 05-12 10:07:05 [core.py:588] EngineCore encountered a "
        "fatal error."
    )
    assert lines[head + 3] == (
        "      traceback from line 8: ERROR 05-12 10:07:05 [core.py:588] Traceback (most recent "
        "call last):"
    )
    assert "traceback (error" not in result.stdout  # no second finding for the same crash
    _code, doc = run_json(base, patch)
    (crash,) = _errors(doc)
    assert crash["rule"] == "out-of-memory" and crash["count"] == 1
    rules = {r["name"]: (r["base"], r["patch"]) for r in doc["rules"]}
    assert rules["out-of-memory"] == (0, 1) and rules["traceback"] == (0, 0)


def test_two_crashes_are_never_fewer_findings(tmp_path: Path) -> None:
    base = write(tmp_path / "base.log", clean())
    two_kinds = (
        clean(pid=9) + OOM_CRASH.format(minute="07", mib=20) + CUDA_CRASH.format(minute="08")
    )
    patch = write(tmp_path / "patch.log", two_kinds)
    code, doc = run_json(base, patch)
    assert code == 1
    assert sorted(f["rule"] for f in _errors(doc)) == ["cuda-error", "out-of-memory"]
    assert all(f["count"] == 1 and f["new"] for f in _errors(doc))
    # The same crash twice is one message seen twice, as any finding: counted, both places kept.
    twice = (
        clean(pid=9) + OOM_CRASH.format(minute="07", mib=20) + OOM_CRASH.format(minute="09", mib=64)
    )
    code, doc = run_json(base, write(tmp_path / "twice.log", twice))
    assert code == 1
    (crash,) = _errors(doc)
    assert crash["count"] == 2
    assert [e["line"] for e in crash["examples"]] == [11, 16]


def test_a_base_that_logged_the_error_without_crashing_excuses_no_crash(tmp_path: Path) -> None:
    """Before, the crash's traceback finding was new on the patch and failed it; the crash's
    one finding must too (the exit code never moves towards passing)."""
    base = write(tmp_path / "base.log", clean() + OOM_LINE)
    patch = write(tmp_path / "patch.log", clean(pid=9) + OOM_CRASH.format(minute="07", mib=20))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    assert "1 error finding new on the patch (out-of-memory)" in result.stdout.splitlines()[-1]


def test_the_same_crash_on_both_sides_passes_as_before(tmp_path: Path) -> None:
    base = write(tmp_path / "base.log", clean() + OOM_CRASH.format(minute="01", mib=20))
    patch = write(tmp_path / "patch.log", clean(pid=9) + OOM_CRASH.format(minute="07", mib=4096))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 0, result.stdout
    assert "the patch's 1 error match also occurs on the base" in result.stdout.splitlines()[-1]
    assert run_k3diff("logs", base, patch, "--strict").exit_code == 1
    # The bundle row counts what `logs` counts, and says so: the crash's 5 ERROR lines are one
    # match, not "1 error line" (newuser63b).
    doc = tmp_path / "logs.json"
    assert run_k3diff("logs", base, patch, "--format", "json", "-o", doc).exit_code == 0
    assert run_k3diff("report", doc, "--out", tmp_path / "bundle").exit_code == 0
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "(1 error match on the patch, 1 on the base, each traceback one match;" in report
    assert "error line" not in report


def test_a_crash_no_error_rule_names_stays_a_traceback(tmp_path: Path) -> None:
    crash = OOM_CRASH.format(minute="07", mib=20).replace(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a "
        "total capacity of 79.10 GiB of which 3.19 MiB is free.",
        "KeyError: 'slot'",
    )
    base = write(tmp_path / "base.log", clean())
    patch = write(tmp_path / "patch.log", clean(pid=9) + crash)
    code, doc = run_json(base, patch)
    assert code == 1
    (found,) = _errors(doc)
    assert (found["rule"], found["message"]) == ("traceback", "KeyError: 'slot'")
    assert found["examples"][0]["line"] == 11
    # A warning rule naming the exception never turns the crash into a warning.
    code, doc = run_json(base, patch, "--warn-rule", "slot=KeyError")
    assert code == 1
    assert [f["rule"] for f in _errors(doc)] == ["traceback"]


def _coloured(text: str) -> str:
    """`text` as vLLM's logger writes it to a terminal: each level name in colour."""
    return (
        text.replace("ERROR ", "\x1b[1;31mERROR\x1b[0m ")
        .replace("INFO ", "\x1b[32mINFO\x1b[0m ")
        .replace("WARNING ", "\x1b[33mWARNING\x1b[0m ")
    )


def test_a_log_kept_from_a_terminal_reads_as_the_plain_one(tmp_path: Path) -> None:
    """A log kept from a terminal (`docker run -t`, `script`) holds its colour codes (review64:
    `ESC[1;31mERROR ESC[0m ... EngineCore encountered a fatal error.` and the crash after it
    matched no rule: "No rule matched on either side", exit 0). Each side reads as it would
    have written to a file; a colour code inside a keyword hides nothing either."""
    base = write(tmp_path / "base.log", _coloured(clean()))
    crash = OOM_CRASH.format(minute="07", mib=20)
    patch = write(
        tmp_path / "patch.log",
        _coloured(clean(pid=9) + crash) + "ERR\x1b[0mOR 05-12 10:08:00 [x.py:1] engine dead\n",
    )
    plain = write(
        tmp_path / "plain.log", clean(pid=9) + crash + "ERROR 05-12 10:08:00 [x.py:1] engine dead\n"
    )
    code, doc = run_json(base, patch)
    plain_code, plain_doc = run_json(base, plain)
    assert code == plain_code == 1
    assert _errors(doc) and [(f["rule"], f["message"], f["count"]) for f in _errors(doc)] == [
        (f["rule"], f["message"], f["count"]) for f in _errors(plain_doc)
    ]
    assert {r["name"]: r["patch"] for r in doc["rules"]} == {
        r["name"]: r["patch"] for r in plain_doc["rules"]
    }
    alone = write(
        tmp_path / "alone.log",
        _coloured(clean(pid=9) + "ERROR 05-12 10:08:00 [core.py:588] EngineCore died.\n"),
    )
    assert run_k3diff("logs", base, alone).exit_code == 1  # was 0


def test_an_escape_sequence_left_open_hides_none_of_its_line(tmp_path: Path) -> None:
    """review64b: an OSC (`ESC ]`, a terminal's title or link) was removed up to its terminator
    or, with none, to the line's end, so `ESC ]0;` before a CUDA error removed the error, and
    the patch passed ("No rule matched on either side", exit 0). One left open removes its
    `ESC ]` alone; one closed still removes its text (a title, a link's target)."""
    base = write(tmp_path / "base.log", clean())
    error = "ERROR 05-12 10:08:00 [core.py:1] CUDA error: an illegal memory access was encountered"
    patch = write(tmp_path / "patch.log", f"{clean(pid=9)}\x1b]0;{error}\n")
    code, doc = run_json(base, patch)
    assert code == 1
    assert {f["rule"] for f in _errors(doc)} == {"cuda-error"}
    titled = write(tmp_path / "titled.log", f"{clean(pid=9)}\x1b]0;ERROR title\x07INFO ok\n")
    assert run_k3diff("logs", base, titled).exit_code == 0
