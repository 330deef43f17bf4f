"""left66: a comparison of TensorRT-LLM records read one beam of each (`--beam`, resp66 said so
in `responses`' own outputs and its `beams` object); `triage` and the bundle, which read that
comparison, repeated its `--ignore-field` qualification but not this one, so a triage verdict
or a bundle row over those records read as covering every beam. Both now say it, in the
comparison's words; an edited `beams` object is refused as any other field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from triage.helpers import S, write_samples

from .engines import trtllm_record
from .fixtures import write_jsonl

SAID = (
    "only beam 0 compared: 2 records in base and 2 in patch hold 2 beams (--beam 0 or 1 "
    "possible): a record it calls a match may differ in the other beams"
)


def _inputs(tmp_path: Path) -> None:
    """Two TensorRT-LLM records a side, two beams each; the patch's second record differs in
    beam 0 (a regression candidate for triage to judge), and the run sampled each key."""
    texts = {"base": [" now", " then"], "patch": [" soon", " then"]}
    for side in ("base", "patch"):
        records = [
            dict(trtllm_record("Hello", [(" world", [995]), (" there", [727])]), key="k0"),
            dict(
                trtllm_record("Bye", [(t, [len(t) + n]) for n, t in enumerate(texts[side])]),
                key="k1",
            ),
        ]
        write_jsonl(tmp_path / f"{side}.jsonl", records)
    made = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--key", "key", "--format", "json",
        "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    samples = [
        S(side, key, text)
        for key, text in (("k0", "Hello world"), ("k1", "Bye now"))
        for side in ("base", "patch")
        for _ in range(3)
    ]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)


def test_triage_and_the_bundle_repeat_the_beams_not_compared(tmp_path: Path) -> None:
    _inputs(tmp_path)
    for fmt in ("text", "markdown", "json"):
        out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", fmt, cwd=tmp_path)
        assert out.exit_code in (0, 1), out.stderr
        assert SAID in out.stdout, fmt
    run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    assert SAID in json.loads((tmp_path / "t.json").read_text())["qualifications"]
    for inputs in (("cmp.json",), ("cmp.json", "run/samples.jsonl", "t.json")):
        bundle = run_k3diff("report", *inputs, "--out", "b", cwd=tmp_path)
        assert bundle.exit_code == 1, bundle.stderr
        summary = json.loads((tmp_path / "b" / "summary.json").read_text())
        assert SAID[0].upper() + SAID[1:] in summary["qualifications"]
        assert SAID[0].upper() + SAID[1:] in (tmp_path / "b" / "REPORT.md").read_text()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("beams_per_record", [1]),  # no record held another beam
        ("beams_per_record", [3, 2]),
        ("compared", 2),  # a beam the two-beam records lack
        ("possible", [0]),
    ],
)
def test_an_edited_beams_object_is_refused(tmp_path: Path, field: str, value: Any) -> None:
    _inputs(tmp_path)
    document = json.loads((tmp_path / "cmp.json").read_text())
    document["beams"][field] = value
    (tmp_path / "cmp.json").write_text(json.dumps(document))
    for command in (("triage", "cmp.json", "run/samples.jsonl"), ("report", "cmp.json")):
        result = (
            run_k3diff(*command, "--out", "b", cwd=tmp_path)
            if command[0] == "report"
            else (run_k3diff(*command, cwd=tmp_path))
        )
        assert result.exit_code == 2, (command, result.stdout)
        (line,) = result.stderr.splitlines()
        assert line.startswith("k3diff: error: cmp.json: field 'beams.") and "Traceback" not in line
