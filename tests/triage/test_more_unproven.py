"""An unproven mode (no running-requests gauge reading proves its batches) clears nothing, and
more samples would not decide it: the "more" column reads "—" (JSON `more_samples` null) there,
not the count that would bound a stable side (56 beside four agreeing samples, which read as
"sample 56 more and it passes" against the qualification's "more samples would not decide")."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from .helpers import S, compare_texts, write_samples


def test_unproven_mode_more_is_a_dash(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"q": ("a", "a")})
    samples = [
        S(side, "q", "a", mode)
        for side in ("base", "patch")
        for mode in ("serial", "concurrent")
        for _ in range(4)
    ]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, modes=("serial", "concurrent"))
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for line in lines[1:]:
        if line["mode"] == "concurrent":  # as `sample` logs a batch no gauge reading proved
            line.update(
                batch=f"concurrent:{line['side']}:q:0",
                in_flight=1,
                overlap_proof="unproven",
                sent=1_735_689_601.0,
                first_byte=1_735_689_601.5,
                ended=1_735_689_602.0,
            )
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert out.exit_code == 1, out.stderr
    (record,) = json.loads(out.stdout)["records"]
    modes = {mode["mode"]: mode for mode in record["modes"]}
    assert "unproven" in modes["concurrent"]["flags"], modes["concurrent"]
    assert modes["concurrent"]["more_samples"] is None
    assert record["more_samples"] is None
    assert modes["serial"]["more_samples"] == 56  # the stable serial sides' bound still counts


def test_unproven_mode_whose_outputs_lie_outside_the_base_asks_for_none(tmp_path: Path) -> None:
    """newuser67, on a real `transformers serve` pair at temperature 1: every answer new on
    both sides, the concurrent mode unproven (no gauge: HTTP 404). Its novelty test left it
    undecided, and that branch asked for "4 more" anyway, so the record's `more` read 4 and
    `next:` told the user to grow the run to 46 repeats, after which the mode was as unproven
    and the record as inconclusive as before."""
    compare_texts(tmp_path, {"q": ("the same answer 0", "the same answer 9")})
    samples = [  # every answer new, each alike: no distribution test could tell the sides apart
        S(side, "q", f"the same answer {mode[0]}{n + 4 * (side == 'patch')}", mode)
        for side in ("base", "patch")
        for mode in ("serial", "concurrent")
        for n in (0, 2, 4, 6)
    ]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, modes=("serial", "concurrent"))
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for line in lines[1:]:
        if line["mode"] == "concurrent":  # as `sample` logs a batch no gauge reading proved
            line.update(
                batch=f"concurrent:{line['side']}:q:0",
                in_flight=1,
                overlap_proof="unproven",
                sent=1_735_689_601.0,
                first_byte=1_735_689_601.5,
                ended=1_735_689_602.0,
            )
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert out.exit_code == 1, out.stderr
    (record,) = json.loads(out.stdout)["records"]
    modes = {mode["mode"]: mode for mode in record["modes"]}
    assert "unproven" in modes["concurrent"]["flags"], modes["concurrent"]
    assert modes["concurrent"]["category"] == "inconclusive", modes["concurrent"]
    assert modes["concurrent"]["more_samples"] is None, modes["concurrent"]
