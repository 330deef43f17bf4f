"""review60a: `k3diff report` given a telemetry document with the samples logs it names runs
`telemetry` again on them and refuses a document it does not reproduce. Before, units edited
consistently with every count beside them (the same totals spread over other units) passed
`report --fail-on acceptance-drop` on a run whose patch dropped acceptance, the run's own
`samples.jsonl` given beside it."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from server_support import loopback_script

FAKE = Path(__file__).with_name("fake_vllm.py")


def _run(tmp_path: Path, patch: tuple[str, ...]) -> Path:
    """A 5-repeat serial run (10 vLLM windows a side), its telemetry document written from
    `tmp_path` with the log's relative path, as CI does."""
    (tmp_path / "prompts.jsonl").write_text(
        '{"id": "p1", "prompt": "The capital of France is"}\n'
        '{"id": "p2", "prompt": "Two plus two is"}\n'
    )
    with loopback_script(FAKE, "0.8,0.65", "1") as b, loopback_script(FAKE, *patch) as p:
        result = run_k3diff(
            "sample", "--base", b, "--patch", p, "--prompts", "prompts.jsonl",
            "--repeats", "5", "--param", "temperature=0", "--out", "run", cwd=tmp_path,
        )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    result = run_k3diff(
        "telemetry", "run/samples.jsonl", "--format", "json", "-o", "telemetry.json", cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    return tmp_path / "telemetry.json"


def _spread(doc: dict[str, Any]) -> None:
    """Each side's totals kept, spread as 9 small units and one that holds the rest: the
    permutations then split on where the two large units fall, and give a large p."""
    for side in doc["acceptance_units"]:
        accepted = sum(t[0] for t in side["tokens"])
        drafted = sum(t[1] for t in side["tokens"])
        side["tokens"] = [[5, 8]] * 9 + [[accepted - 45, drafted - 72]]
        drafts = sum(p[0] for p in side["positions"])
        first = sum(p[1][0] for p in side["positions"])
        second = sum(p[1][1] for p in side["positions"])
        side["positions"] = [[4, [3, 2]]] * 9 + [[drafts - 36, [first - 27, second - 18]]]


def _report(tmp_path: Path, *inputs: str) -> tuple[int, str]:
    result = run_k3diff(
        "report", *inputs, "--out", "bundle", "--fail-on", "acceptance-drop", cwd=tmp_path
    )
    return result.exit_code, result.stderr


def test_units_spread_over_other_units_are_refused_beside_their_logs(tmp_path: Path) -> None:
    telemetry = _run(tmp_path, ("0.8,0.3", "2"))  # the patch drops acceptance at position 2
    assert _report(tmp_path, "telemetry.json", "run/samples.jsonl")[0] == 1  # the gate fails

    doc = json.loads(telemetry.read_text())
    _spread(doc)
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    assert _report(tmp_path, "forged.json")[0] == 0  # read alone: it agrees with itself
    code, stderr = _report(tmp_path, "forged.json", "run/samples.jsonl")
    assert code == 2
    assert (
        "forged.json: does not follow from the samples logs it names, given with it (telemetry "
        "run again on run/samples.jsonl: acceptance_units[0].positions[0][0]: 4, run again 30)"
    ) in stderr


def test_a_removed_counter_reset_is_refused_beside_its_logs(tmp_path: Path) -> None:
    """The patch server restarts inside a window: the reset is removed from the document (the
    gate imposed at report time then passes on the windows left)."""
    telemetry = _run(tmp_path, ("0.8,0.65", "2", "restart=3"))
    assert _report(tmp_path, "telemetry.json", "run/samples.jsonl")[0] == 1  # held

    doc = json.loads(telemetry.read_text())
    assert [r["lost"] for r in doc.pop("counter_resets")] == [True]
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    assert _report(tmp_path, "forged.json")[0] == 0
    code, stderr = _report(tmp_path, "forged.json", "run/samples.jsonl")
    assert code == 2
    assert (
        "forged.json: does not follow from the samples logs it names, given with it (telemetry "
        "run again on run/samples.jsonl: counter_resets: absent from the document, run again 1 "
        "items)"
    ) in stderr


def test_a_document_given_with_other_logs_is_read_alone(tmp_path: Path) -> None:
    """Logs the document does not name (another directory's) do not re-derive it."""
    _run(tmp_path, ("0.8,0.65", "2"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "samples.jsonl").write_bytes((tmp_path / "run/samples.jsonl").read_bytes())
    code, stderr = _report(tmp_path, "telemetry.json", "elsewhere/samples.jsonl")
    assert code in (0, 1), stderr


def test_the_bundle_says_whether_telemetry_was_run_again_on_its_logs(tmp_path: Path) -> None:
    """labels61: a telemetry document given without the logs it names read `(cross-checked)`
    as one run again on them; source62: one run again says against what, as the wheels,
    responses and audit labels do."""
    _run(tmp_path, ("0.8,0.65", "2"))
    for inputs, label in (
        (
            ("telemetry.json", "run/samples.jsonl"),
            "telemetry.json (cross-checked; telemetry run again on its logs)",
        ),
        (("telemetry.json",), "telemetry.json (judged alone: self-consistent)"),
    ):
        code, stderr = _report(tmp_path, *inputs)
        assert code in (0, 1), stderr
        text = (tmp_path / "bundle" / "REPORT.md").read_text()
        assert label in text, inputs


def test_the_logs_are_read_once_and_telemetry_runs_again_on_the_bytes_hashed(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # telemetry63: `report` parsed each samples log twice, once as an input (the bytes it
    # hashes) and again from its path when it ran `telemetry` on it.
    summarize = importlib.import_module("k3diff.telemetry.summarize")
    _run(tmp_path, ("0.8,0.65", "2"))

    def unread(path: Path) -> None:
        raise AssertionError(f"{path} read again")

    monkeypatch.setattr(summarize, "read_samples_log", unread)
    assert _report(tmp_path, "telemetry.json", "run/samples.jsonl")[0] == 0
    bundle = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "telemetry run again on its logs" in bundle
