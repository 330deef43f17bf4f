"""A release set made from wheels given one by one (`k3diff wheels --base F --patch G`) has no
directory to list again: its pairs, its wheels on one side only and its counts were the
document's word even with every pair run again on its wheels (rerun62). Given those wheels and
its unpaired ones too, `report` pairs the set again from the names `wheels` was given them
under (rerun63): a failing pair split into two unpaired wheels under `--allow-unpaired` agreed
with itself and passed; it is now refused. What stays the document's word (which wheels
`wheels` was given) is said."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from wheels.wheelset_support import release_sets


def _files_set(tmp_path: Path, *extra: str) -> Any:
    release_sets(tmp_path, native_change=True)
    given = [
        option
        for side in ("base", "patch")
        for wheel in sorted((tmp_path / side).glob("*.whl"))
        for option in (f"--{side}", str(wheel.relative_to(tmp_path)))
    ]
    made = run_k3diff("wheels", *given, *extra, "--format", "json", "-o", "m.json", cwd=tmp_path)
    assert made.exit_code in (0, 1), made.stderr
    return json.loads((tmp_path / "m.json").read_text())


def _wheels(tmp_path: Path) -> list[str]:
    return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.glob("*/*.whl"))


def _report(tmp_path: Path, document: Any, *inputs: str, out: str = "bundle") -> Any:
    (tmp_path / "set.json").write_text(json.dumps(document))
    return run_k3diff("report", "set.json", *inputs, "--out", out, cwd=tmp_path)


def _label(tmp_path: Path, out: str = "bundle") -> str:
    summary = json.loads((tmp_path / out / "summary.json").read_text())
    (label,) = {
        d["label"] for row in summary["matrix"] for d in row["documents"] if d["name"] == "set.json"
    }
    return str(label)


def _split(document: Any) -> Any:
    """The failing cp312 pair turned into a base and a patch wheel on one side only, each row
    with the SHA-256 of its wheel, the counts and the verdict edited to a pass."""
    forged = json.loads(json.dumps(document))
    (index,) = [i for i, p in enumerate(forged["pairs"]) if p["verdict"] == "FAIL"]
    pair = forged["pairs"].pop(index)
    for side in ("base", "patch"):
        name = pair[side]
        _, version, python, abi, platform = Path(name).stem.split("-")
        forged[f"only_{side}"].append(
            {
                "path": name,
                "name": "engine",
                "version": version,
                "tags": [f"{python}-{abi}-{platform}"],
                "sha256": pair["wheels"][side]["sha256"],
            }
        )
        forged["summary"][f"only_{side}"] += 1
    forged["summary"].update(pairs=len(forged["pairs"]), failing_pairs=0)
    forged["verdict"].update(
        ok=True,
        exit_code=0,
        failures=[],
        failing_pairs=[],
        unpaired=forged["verdict"]["unpaired"] + 2,
    )
    return forged


def test_a_failing_pair_split_into_unpaired_wheels_is_refused(tmp_path: Path) -> None:
    document = _files_set(tmp_path, "--allow-unpaired")
    assert document["verdict"]["exit_code"] == 1  # the cp312 pair's native library changed
    forged = _split(document)
    alone = _report(tmp_path, forged, out="alone")
    assert alone.exit_code == 0, alone.stderr  # it agrees with itself
    result = _report(tmp_path, forged, *_wheels(tmp_path))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert (
        "set.json: does not follow from the wheels given with it (paired again from the wheels "
        "it records it was given: only_base: 2 items, run again 1)" in result.stderr
    ), result.stderr
    assert not (tmp_path / "bundle").exists()


def test_a_genuine_set_of_files_is_paired_again_and_says_what_is_its_word(tmp_path: Path) -> None:
    document = _files_set(tmp_path, "--allow-unpaired")
    result = _report(tmp_path, document, *_wheels(tmp_path))
    assert result.exit_code == 1, result.stderr  # the cp312 pair fails, as it did
    assert (
        _label(tmp_path)
        == "set.json (cross-checked; wheels run again; paired again from the wheels given)"
    )
    said = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert (
        "set.json: made from wheels given one by one (--base/--patch): its pairs run again and "
        "the set paired again from the wheels given; which wheels k3diff wheels was given "
        "(base.inputs, patch.inputs) is the document's word" in said
    ), said
    # Without the wheel on one side only, its pairing is the document's word, and said so.
    paired = [w for w in _wheels(tmp_path) if "solo" not in w]
    result = _report(tmp_path, document, *paired, out="loose")
    assert result.exit_code == 1, result.stderr
    assert _label(tmp_path, "loose") == (
        "set.json (cross-checked; wheels run again; pairing and unpaired wheels judged alone)"
    )
    said = (tmp_path / "loose" / "REPORT.md").read_text()
    assert (
        "its pairing and the 1 wheel on one side only (solo-1.0-py3-none-any.whl) judged from the "
        "document alone" in said
    ), said
