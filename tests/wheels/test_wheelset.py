"""`k3diff wheels BASE_DIR PATCH_DIR`: a release set paired by name and tags, every pair compared,
unpaired wheels listed and failing, ambiguity refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, run_k3diff

from k3diff.wheels.releaseset import SetWheel, pair_wheels, set_wheel

from .wheelset_support import CP311, CP312, SOLO, release_sets, write


def _json(tmp_path: Path, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = run_k3diff("wheels", *args, "--format", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return result, document


def _rows(document: dict[str, Any]) -> dict[str, tuple[str, int]]:
    return {Path(p["base"]).name: (p["verdict"], p["exit_code"]) for p in document["pairs"]}


def test_unpaired_wheel_is_listed_and_fails(tmp_path: Path) -> None:
    release_sets(tmp_path)
    result, document = _json(tmp_path, "base", "patch")
    assert result.exit_code == 1
    assert document["schema"] == "k3diff.wheelset/1"
    assert [w["path"] for w in document["only_base"]] == [f"base/{SOLO}"]
    assert document["only_patch"] == []
    assert document["ignored"] == [
        {"side": "base", "path": "base/README.txt", "reason": "not a wheel"}
    ]
    # Every pair passes: the unpaired wheel alone fails the set.
    assert {verdict for verdict, _ in _rows(document).values()} == {"OK"}
    assert len(document["pairs"]) == 3
    assert document["verdict"]["ok"] is False and document["verdict"]["unpaired"] == 1
    text = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert text.exit_code == 1
    digest = hashlib.sha256((tmp_path / "base" / SOLO).read_bytes()).hexdigest()
    assert document["only_base"][0]["sha256"] == digest
    assert f"- base/{SOLO} (solo 1.0, py3-none-any, sha256 {digest})" in text.stdout
    assert "- base/README.txt (base: not a wheel)" in text.stdout
    assert text.stdout.rstrip().splitlines()[-1].startswith("Verdict: FAIL (exit 1): 1 unpaired")


def test_pairs_ignore_version_and_match_names_and_tags(tmp_path: Path) -> None:
    release_sets(tmp_path, solo=False)
    result, document = _json(tmp_path, "base", "patch")
    assert result.exit_code == 0
    pairs = {(Path(p["base"]).name, Path(p["patch"]).name) for p in document["pairs"]}
    assert pairs == {
        (f"engine-1.0-{CP311}.whl", f"engine-1.1-{CP311}.whl"),
        (f"engine-1.0-{CP312}.whl", f"engine-1.1-{CP312}.whl"),
        # engine-tools / engine_tools normalise alike; py2.py3 shares py3-none-any.
        ("engine_tools-1.0-py2.py3-none-any.whl", "engine_tools-1.1-py3-none-any.whl"),
    }
    assert document["verdict"] == {
        "ok": True,
        "exit_code": 0,
        "failures": [],
        "failing_pairs": [],
        "unpaired": 0,
        "allow_unpaired": False,
    }


def test_native_change_fails_its_pair_only(tmp_path: Path) -> None:
    release_sets(tmp_path, native_change=True, solo=False)
    result, document = _json(tmp_path, "base", "patch")
    assert result.exit_code == 1
    rows = _rows(document)
    assert rows[f"engine-1.0-{CP312}.whl"] == ("FAIL", 1)
    assert rows[f"engine-1.0-{CP311}.whl"] == ("OK", 0)
    failing = next(p for p in document["pairs"] if p["verdict"] == "FAIL")
    assert failing["failing_codes"] == ["W101"]
    assert failing["counts"]["native"]["changed"] == 1
    assert document["verdict"]["failing_pairs"] == [f"patch/engine-1.1-{CP312}.whl"]


def test_options_apply_to_every_pair(tmp_path: Path) -> None:
    release_sets(tmp_path, native_change=True, solo=False)
    result, document = _json(tmp_path, "base", "patch", "--allow-native-changes", "--no-file-hash")
    assert result.exit_code == 0
    for pair in document["pairs"]:
        assert pair["wheels"]["base"]["sha256"] is None
        assert pair["wheels"]["patch"]["sha256"] is None
    ignored = run_k3diff("wheels", "base", "patch", "--ignore", "W101", cwd=tmp_path)
    assert ignored.exit_code == 0, ignored.stdout
    selected = run_k3diff("wheels", "base", "patch", "--select", "W101", cwd=tmp_path)
    assert selected.exit_code == 1


def test_each_pair_holds_the_full_wheels_document(tmp_path: Path) -> None:
    release_sets(tmp_path, native_change=True)
    _, document = _json(tmp_path, "base", "patch")
    for pair in document["pairs"]:
        single = run_k3diff("wheels", pair["base"], pair["patch"], "--format", "json", cwd=tmp_path)
        assert pair["wheels"] == json.loads(single.stdout)
        assert pair["exit_code"] == single.exit_code


def test_ambiguous_candidates_are_an_error_naming_both(tmp_path: Path) -> None:
    release_sets(tmp_path, solo=False)
    write(tmp_path / "patch", "engine", "1.1.post1", CP311, {"engine/__init__.py": b"\n"})
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert f"patch/engine-1.1-{CP311}.whl" in result.stderr
    assert f"patch/engine-1.1.post1-{CP311}.whl" in result.stderr
    assert f"base/engine-1.0-{CP311}.whl" in result.stderr


@pytest.mark.parametrize("extra", [2, 6])
def test_an_ambiguity_names_every_candidate(tmp_path: Path, extra: int) -> None:
    # review64: "3 patch candidates" named only two. Every candidate is named, up to five; past
    # five the message says how many more, so the count and the names always agree.
    release_sets(tmp_path, solo=False)
    posts = [f"1.1.post{n}" for n in range(1, extra + 1)]
    for version in posts:
        write(tmp_path / "patch", "engine", version, CP311, {"engine/__init__.py": b"\n"})
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    message = result.stderr
    names = [f"patch/engine-{v}-{CP311}.whl" for v in ["1.1", *posts]]
    assert f"has {len(names)} patch candidates" in message
    shown = [n for n in names if n in message]
    assert len(shown) == min(len(names), 5)
    if len(names) > 5:
        assert f" and {len(names) - 5} more;" in message


def test_two_base_wheels_for_one_patch_wheel_is_ambiguous_too(tmp_path: Path) -> None:
    release_sets(tmp_path, solo=False)
    write(tmp_path / "base", "engine", "0.9", CP312, {"engine/__init__.py": b"\n"})
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2
    assert f"base/engine-0.9-{CP312}.whl" in result.stderr
    assert f"base/engine-1.0-{CP312}.whl" in result.stderr


def test_repeated_base_and_patch_options(tmp_path: Path) -> None:
    release_sets(tmp_path)
    args = [
        *("--base", f"base/engine-1.0-{CP311}.whl", "--base", f"base/engine-1.0-{CP312}.whl"),
        *("--patch", f"patch/engine-1.1-{CP312}.whl", "--patch", f"patch/engine-1.1-{CP311}.whl"),
    ]
    result, document = _json(tmp_path, *args)
    assert result.exit_code == 0
    assert len(document["pairs"]) == 2 and document["only_base"] == []
    assert document["base"]["inputs"] == [
        f"base/engine-1.0-{CP311}.whl",
        f"base/engine-1.0-{CP312}.whl",
    ]
    one_sided = run_k3diff("wheels", *args, "--base", f"base/{SOLO}", cwd=tmp_path)
    assert one_sided.exit_code == 1
    assert f"base/{SOLO}" in one_sided.stdout


def test_allow_unpaired_accepts_one_sided_wheels_but_not_an_empty_pairing(tmp_path: Path) -> None:
    release_sets(tmp_path)
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 0
    assert f"base/{SOLO}" in allowed.stdout and "accepted by --allow-unpaired" in allowed.stdout
    nothing = run_k3diff(
        "wheels", "--base", f"base/{SOLO}", "--patch", f"patch/engine-1.1-{CP311}.whl",
        "--allow-unpaired", cwd=tmp_path,
    )  # fmt: skip
    assert nothing.exit_code == 1
    assert "nothing paired" in nothing.stdout


@pytest.mark.parametrize("allow", [False, True], ids=["default", "allow-unpaired"])
def test_an_unpaired_wheel_that_cannot_be_read_is_exit_2(tmp_path: Path, allow: bool) -> None:
    """A zero-byte wheel with no partner: never compared, but never passed either (not even
    under --allow-unpaired): exit 2 naming it, as for a paired wheel that cannot be read."""
    release_sets(tmp_path)
    (tmp_path / "patch" / "zero-1.0-py3-none-any.whl").write_bytes(b"")
    args = ["wheels", "base", "patch", *(["--allow-unpaired"] if allow else [])]
    result = run_k3diff(*args, cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "zero-1.0-py3-none-any.whl" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["base", "empty"], "empty: no wheel files"),
        (["base", "notes"], "notes: no wheel files"),
        (["base", "nope"], "nope: no such file or directory"),
        (["base", f"patch/engine-1.1-{CP311}.whl"], "base is a directory but patch/"),
        (["--base", f"base/engine-1.0-{CP311}.whl"], "--base needs --patch"),
        (["--base", "base/README.txt", "--patch", "patch/x.whl"], "not a wheel filename"),
        (["base", "patch", "--base", f"base/{SOLO}"], "not both"),
        (
            ["--base", f"base/{SOLO}", "--base", f"./base/{SOLO}", "--patch", f"base/{SOLO}"],
            "given twice",
        ),
    ],
)
def test_inputs_that_cannot_make_a_release_set_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    release_sets(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes/engine.txt").write_text("not a wheel\n")
    result = run_k3diff("wheels", *args, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert message in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_corrupt_wheel_in_the_set_exits_2_naming_it(tmp_path: Path) -> None:
    release_sets(tmp_path, solo=False)
    target = tmp_path / f"patch/engine-1.1-{CP312}.whl"
    target.write_bytes(target.read_bytes()[:-100])
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 2
    assert f"engine-1.1-{CP312}.whl" in result.stderr


def test_output_file_is_written_and_never_an_input(tmp_path: Path) -> None:
    release_sets(tmp_path)
    result = run_k3diff(
        "wheels", "base", "patch", "--format", "json", "-o", "set.json", cwd=tmp_path
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert "report written to set.json; Verdict: FAIL (exit 1)" in result.stderr
    assert json.loads((tmp_path / "set.json").read_text())["schema"] == "k3diff.wheelset/1"
    wheel = f"base/engine-1.0-{CP311}.whl"
    before = (tmp_path / wheel).read_bytes()
    over = run_k3diff(
        "wheels", "--base", wheel, "--patch", f"patch/engine-1.1-{CP311}.whl", "-o", wheel,
        cwd=tmp_path,
    )  # fmt: skip
    assert over.exit_code == 2 and "writing the report would replace it" in over.stderr
    assert (tmp_path / wheel).read_bytes() == before


def test_pairing_rule_on_names_alone() -> None:
    def wheel(name: str) -> SetWheel:
        parsed = set_wheel(Path(name))
        assert parsed is not None
        return parsed

    base = [wheel("A.b-1-py3-none-any.whl"), wheel("a_b-1-1-cp39-abi3-linux_x86_64.whl")]
    patch = [wheel("a.B-2-py2.py3-none-any.whl"), wheel("a_b-2-cp39-abi3-macosx_11_0_arm64.whl")]
    pairing = pair_wheels(base, patch)
    assert [(b.path.name, p.path.name) for b, p in pairing.pairs] == [
        ("A.b-1-py3-none-any.whl", "a.B-2-py2.py3-none-any.whl")
    ]
    assert [w.path.name for w in pairing.only_base] == ["a_b-1-1-cp39-abi3-linux_x86_64.whl"]
    assert [w.path.name for w in pairing.only_patch] == ["a_b-2-cp39-abi3-macosx_11_0_arm64.whl"]


def test_a_raised_platform_baseline_pairs_by_family(tmp_path: Path) -> None:
    """ninja 1.11.1.1 shipped `manylinux1_x86_64`, 1.11.1.3 `manylinux2010_x86_64`: one wheel a
    side, same architecture, so they pair (the tag change shows in the pair's metadata);
    another architecture never does."""
    import json

    import wheelkit
    from cli_support import run_k3diff

    files = {"tool/__init__.py": b"x = 1\n"}
    wheelkit.make_wheel(tmp_path / "b", "tool", "1.0", files, tag="py3-none-manylinux1_x86_64")
    wheelkit.make_wheel(tmp_path / "p", "tool", "1.1", files, tag="py3-none-manylinux2010_x86_64")
    wheelkit.make_wheel(tmp_path / "p", "tool", "1.1", files, tag="py3-none-manylinux2014_aarch64")
    result = run_k3diff("wheels", tmp_path / "b", tmp_path / "p", "--format", "json")
    doc = json.loads(result.stdout)
    assert len(doc["pairs"]) == 1
    assert doc["pairs"][0]["patch"].endswith("manylinux2010_x86_64.whl")
    assert [w["path"].rsplit("/", 1)[-1] for w in doc["only_patch"]] == [
        "tool-1.1-py3-none-manylinux2014_aarch64.whl"
    ]


@pytest.mark.parametrize(
    "name",
    [
        "copy.whl",
        "Copy.WHL",
        f"engine-1.1-{CP311}.WHL",
        "engine-1.1-x-y-z-py3-none-any.whl",
        f"engine-1.1-{CP311}.whl.whl",  # a download saved twice over: paired before
    ],
)
def test_a_misnamed_whl_in_a_release_directory_fails_the_set(tmp_path: Path, name: str) -> None:
    """A `.whl` pip would refuse by its name is a problem in the release, as `audit` says (A126):
    listed as misnamed, never as an ignored file, and the set fails even though every pair
    passes."""
    release_sets(tmp_path, solo=False)
    copied = tmp_path / "patch" / name
    copied.write_bytes((tmp_path / f"patch/engine-1.1-{CP311}.whl").read_bytes())
    result, document = _json(tmp_path, "base", "patch")
    assert result.exit_code == 1
    assert {verdict for verdict, _ in _rows(document).values()} == {"OK"}
    [misnamed] = document["misnamed"]
    assert (misnamed["side"], misnamed["path"]) == ("patch", f"patch/{name}")
    assert repr(name) in misnamed["reason"]  # pip's refusal of the name, naming it
    assert [i["path"] for i in document["ignored"]] == ["base/README.txt"]
    failure = "1 misnamed .whl file (a name pip or PyPI refuses)"
    assert document["verdict"]["failures"] == [failure]
    text = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert text.exit_code == 1
    assert f"- patch/{name} (patch: " in text.stdout
    said = "Misnamed .whl files (1): pip or PyPI refuses these names, so they fail the set"
    assert said in text.stdout
    assert "Ignored files (1, not wheels)" in text.stdout
    last = text.stdout.rstrip().splitlines()[-1]
    assert last.startswith(f"Verdict: FAIL (exit 1): {failure} (3 pairs")
    markdown = run_k3diff("wheels", "base", "patch", "--format", "markdown", cwd=tmp_path)
    assert markdown.exit_code == 1 and "### Misnamed .whl files (1)" in markdown.stdout


def test_a_set_without_misnamed_files_has_no_misnamed_field(tmp_path: Path) -> None:
    release_sets(tmp_path, solo=False)
    _, document = _json(tmp_path, "base", "patch")
    assert "misnamed" not in document


def test_wheels_saved_twice_over_on_both_sides_are_not_paired(tmp_path: Path) -> None:
    """`NAME.whl.whl` on both sides read as a platform tag `any.whl` and were paired and
    compared: the set passed, exit 0, with two files no index or build tool takes."""
    for side in ("base", "patch"):
        wheel = write(tmp_path / side, "demo", "1.0", "py3-none-any", {"demo.py": b"X = 1\n"})
        wheel.rename(wheel.with_name(wheel.name + ".whl"))
        write(tmp_path / side, "other", "1.0", "py3-none-any", {"other.py": b"X = 1\n"})
    result, document = _json(tmp_path, "base", "patch")
    assert result.exit_code == 1
    assert len(document["pairs"]) == 1
    reasons = [item["reason"] for item in document["misnamed"]]
    assert (
        reasons
        == [
            "'demo-1.0-py3-none-any.whl.whl' ends in '.whl' twice: its platform tag reads 'any.whl', "
            "which no build tool writes and PyPI refuses; rename it to 'demo-1.0-py3-none-any.whl' "
            "if it is that wheel"
        ]
        * 2
    )


@pytest.mark.parametrize(("fmt", "mark"), [("text", ""), ("markdown", "**")])
def test_only_the_set_verdict_carries_an_exit_code(tmp_path: Path, fmt: str, mark: str) -> None:
    """A pair's line says `pair: OK` with no exit code, so it does not read as the command's
    verdict right above the set's `Verdict: FAIL (exit 1)`. Failed on main 44d4101f: each
    pair said `Verdict: OK (exit 0)`."""
    release_sets(tmp_path)
    text = run_k3diff("wheels", "base", "patch", "--format", fmt, cwd=tmp_path)
    assert text.exit_code == 1, text.stderr
    lines = text.stdout.rstrip().splitlines()
    verdicts = [line for line in lines if "(exit " in line and "Verdict" in line]
    assert verdicts == [lines[-1]]
    assert lines[-1].startswith(f"{mark}Verdict: FAIL (exit 1): 1 unpaired")
    assert f"{mark}pair: OK: nothing fails the policy{mark}" in lines
