"""A sample's output is more than its text. A patch that ends its answers otherwise than the
base (every answer cut at `length` where the base's stopped), or gives the base's text as other
token ids, is held (`finish-reason-shift`, `token-ids-differ`) and fails triage. Triage told
outputs apart by their text alone, so (hunt73) a greedy patch giving the base's text with
`length` read as a `match`, a sampled patch (temperature 1) whose answers all ended `length`
against a base's all `stop` as `both-nondeterministic` (the MMD test compares texts, and at
temperature 1 no text is shared to compare finish reasons on), and a greedy patch giving the
base's text as other token ids (`k3diff responses`: tokens-differ, exit 1) as a `match`: each
exit 0. A patch whose finish reasons and token ids stay the base's passes as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples

KEYS = ("p1", "p2", "p3")


def _triage(tmp_path: Path, log: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("triage", "cmp.json", str(log), "--format", "json", *extra, cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return result.exit_code, document


def _sampled(tmp_path: Path, patch_finish: str, length_every: int = 0) -> Path:
    """Temperature-1 samples of three prompts, 24 a side: every answer new, both sides drawn
    from one distribution of texts; the base ends each `stop` (or `length` every
    `length_every`-th), the patch each `patch_finish`."""
    rng = np.random.default_rng(7)
    letters = list("abcdefghijklmnopqrstuvwxyz")

    def answers() -> list[str]:
        return ["The answer is " + "".join(rng.choice(letters, 10)) for _ in range(25)]

    texts = {key: (answers(), answers()) for key in KEYS}
    compare_texts(tmp_path, {key: (base[0], patch[0]) for key, (base, patch) in texts.items()})
    samples = [
        S(
            side,
            key,
            text,
            finish=patch_finish
            if side == "patch"
            else ("length" if length_every and i % length_every == 0 else "stop"),
        )
        for key, pair in texts.items()
        for side, sent in zip(("base", "patch"), pair, strict=True)
        for i, text in enumerate(sent[1:])
    ]
    return write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})


def test_a_sampled_patch_whose_answers_all_end_at_length_fails(tmp_path: Path) -> None:
    code, document = _triage(tmp_path, _sampled(tmp_path, "length"))
    assert code == 1, [r["reason"] for r in document["records"]]
    assert document["summary"]["held"] == 3
    for record in document["records"]:
        assert record["category"] == "inconclusive"
        assert "finish-reason-shift" in record["flags"]
        assert (
            'the finish reasons moved (serial: base "stop" 24; patch "length" 24'
            in (record["reason"])
        )
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert "ends its answers otherwise than the base (finish-reason-shift)" in text.stdout


def test_a_sampled_patch_ending_as_the_base_does_passes(tmp_path: Path) -> None:
    # Every answer new at 24 a side: the MMD test's honest figure (mmdpower75) is above the
    # default 35 %; this test is about finish reasons, so it is judged at --shift 0.9.
    code, document = _triage(tmp_path, _sampled(tmp_path, "stop", length_every=6), "--shift", "0.9")
    assert code == 0, [r["reason"] for r in document["records"]]
    assert {r["category"] for r in document["records"]} == {"both-nondeterministic"}
    assert not any("finish-reason-shift" in r["flags"] for r in document["records"])


def _greedy(tmp_path: Path, base: list[S], patch: list[S], captured: tuple[str, str]) -> Path:
    compare_texts(tmp_path, {"q": captured})
    return write_samples(tmp_path / "run" / "samples.jsonl", [*base, *patch])


def test_a_greedy_patch_giving_the_bases_text_cut_at_length_is_no_match(tmp_path: Path) -> None:
    base = [S("base", "q", "A") for _ in range(4)]
    patch = [S("patch", "q", "A", finish="length") for _ in range(4)]
    code, document = _triage(tmp_path, _greedy(tmp_path, base, patch, ("A", "A")))
    (record,) = document["records"]
    assert code == 1, record["reason"]
    assert record["category"] == "inconclusive"
    assert {"finish-reason-differs", "finish-reason-shift"} <= set(record["flags"])
    assert record["reason"].startswith(
        "finish-reason-shift: serial: the patch gave a text the base also gave with finish "
        'reason "length" (4 of its samples), which the base never gave it with (the base: '
        '"stop")'
    )
    # The headline counts outputs: serially the patch did not reproduce the base.
    assert record["serial_parity"] is False
    assert document["summary"]["serial_agree"] == 0
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert "serially, the patch reproduces the base on 0 of 1 records" in text.stdout


def test_a_patch_inside_a_flaky_base_but_ending_otherwise_is_not_excused(tmp_path: Path) -> None:
    base = [S("base", "q", text) for text in ("A", "B", "A", "B")]
    patch = [S("patch", "q", "A", finish="length") for _ in range(4)]
    code, document = _triage(tmp_path, _greedy(tmp_path, base, patch, ("A", "B")))
    (record,) = document["records"]
    assert code == 1, record["reason"]
    assert record["category"] == "inconclusive"
    assert "finish-reason-shift" in record["flags"]


def test_a_patch_ending_a_text_as_the_flaky_base_once_did_is_excused(tmp_path: Path) -> None:
    base = [S("base", "q", "A"), S("base", "q", "B"), S("base", "q", "A", finish="length")]
    base += [S("base", "q", "B")]
    patch = [S("patch", "q", "A", finish="length"), *(S("patch", "q", "A") for _ in range(3))]
    code, document = _triage(tmp_path, _greedy(tmp_path, base, patch, ("A", "B")))
    (record,) = document["records"]
    assert code == 0, record["reason"]
    assert record["category"] == "base-nondeterminism"
    assert "finish-reason-shift" not in record["flags"]


def _with_token_ids(log: Path, ids: dict[str, str | None]) -> Path:
    """`log` with each answer's token ids digest set per side (None: the server gave none)."""
    lines = log.read_text().splitlines()
    rows = [json.loads(line) for line in lines[1:]]
    written = [json.dumps(row | {"token_ids_xxh3": ids[row["side"]]}) for row in rows]
    log.write_text("\n".join([lines[0], *written]) + "\n")
    return log


def _tokens_differ(tmp_path: Path, ids: dict[str, str | None]) -> tuple[int, dict[str, Any]]:
    """A comparison of one text captured as other token ids (`tokens-differ`), and greedy
    samples of that text on both sides whose token ids are `ids` per side."""
    for name, tokens in (("base", [9906]), ("patch", [39, 9907])):
        row = {"key": "q", "prompt": "q", "text": "Hello", "token_ids": tokens}
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(row) + "\n")
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 1, compared.stderr
    assert json.loads((tmp_path / "cmp.json").read_text())["records"][0]["status"] == (
        "tokens-differ"
    )
    samples = [S(side, "q", "Hello") for side in ("base", "patch") for _ in range(4)]
    log = _with_token_ids(write_samples(tmp_path / "run" / "samples.jsonl", samples), ids)
    return _triage(tmp_path, log)


def test_a_greedy_patch_giving_the_bases_text_as_other_token_ids_fails(tmp_path: Path) -> None:
    code, document = _tokens_differ(tmp_path, {"base": "a" * 32, "patch": "b" * 32})
    (record,) = document["records"]
    assert code == 1, record["reason"]
    assert record["category"] == "inconclusive"
    assert "token-ids-differ" in record["flags"]
    assert record["reason"].startswith(
        "token-ids-differ: serial: the patch gave a text the base also gave as token ids the "
        "base never gave it as (4 of its samples; the base: 1 token-id sequence(s))"
    )


def test_captured_token_ids_that_differ_are_not_cleared_by_samples_of_texts(
    tmp_path: Path,
) -> None:
    code, document = _tokens_differ(tmp_path, {"base": None, "patch": None})
    (record,) = document["records"]
    assert code == 1, record["reason"]
    assert record["category"] == "inconclusive" and "token-ids-differ" in record["flags"]
    assert "no mode's samples log token ids on both sides" in record["reason"]
    assert record["more_samples"] is None


def _digest(tokens: list[int]) -> str:
    from array import array

    from k3diff.responses.model import TOKEN_ID_TYPECODE, token_ids_digest

    return token_ids_digest(array(TOKEN_ID_TYPECODE, tokens))


def test_samples_that_also_gave_the_patchs_captured_token_ids_clear_it(tmp_path: Path) -> None:
    """Samples of both sides gave the text as the patch's captured ids: they explain it."""
    ids: dict[str, str | None] = {"base": _digest([39, 9907]), "patch": _digest([39, 9907])}
    code, document = _tokens_differ(tmp_path, ids)
    (record,) = document["records"]
    assert code == 0, record["reason"]
    assert record["category"] == "match" and "token-ids-differ" not in record["flags"]


def test_samples_that_never_gave_the_patchs_captured_token_ids_do_not_clear_it(
    tmp_path: Path,
) -> None:
    """review73d: the comparison found the patch giving the base's text as other token ids;
    samples of both sides all gave the base's ids. They speak of other output than the capture
    the user asked about (as `capture-unexplained` for texts): before, a `match`, exit 0."""
    code, document = _tokens_differ(tmp_path, {"base": "a" * 32, "patch": "a" * 32})
    (record,) = document["records"]
    assert code == 1, record["reason"]
    assert record["category"] == "inconclusive" and "token-ids-differ" in record["flags"]
    assert (
        "the patch's captured token ids are ones none of the 8 samples gave" in (record["reason"])
    )


def _thinly(tmp_path: Path, patch_length: int) -> Path:
    """Temperature-1 samples of twelve prompts, 20 a side, texts drawn alike: the base ends 2 of
    each prompt's answers `length`, the patch `patch_length` of them."""
    rng = np.random.default_rng(11)
    letters = list("abcdefghijklmnopqrstuvwxyz")
    keys = [f"p{i}" for i in range(12)]

    def answers() -> list[str]:
        return ["The answer is " + "".join(rng.choice(letters, 10)) for _ in range(21)]

    texts = {key: (answers(), answers()) for key in keys}
    compare_texts(tmp_path, {key: (base[0], patch[0]) for key, (base, patch) in texts.items()})
    cut = {"base": 2, "patch": patch_length}
    samples = [
        S(side, key, text, finish="length" if i < cut[side] else "stop")
        for key, pair in texts.items()
        for side, sent in zip(("base", "patch"), pair, strict=True)
        for i, text in enumerate(sent[1:])
    ]
    return write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})


def test_finish_reasons_moved_thinly_over_every_prompt_fail(tmp_path: Path) -> None:
    """review73d: the patch cut 5 of every prompt's 20 answers at `length`, the base 2: no
    prompt's own test reaches α after correction over the twelve (each p about 0.2), but the
    patch truncated 60 answers of 240 against the base's 24. The mode's pooled count test on
    the finish reasons (stratified by prompt) sees it; before, all twelve passed as
    `both-nondeterministic`, exit 0."""
    code, document = _triage(tmp_path, _thinly(tmp_path, 5))
    assert code == 1, [r["reason"] for r in document["records"]]
    assert document["summary"]["held"] == 12
    for record in document["records"]:
        assert "finish-reason-shift" in record["flags"]
        assert "pooled over the mode's 12 records" in record["reason"]
        assert 'base "length" 24, "stop" 216; patch "length" 60, "stop" 180' in record["reason"]


def test_finish_reasons_as_the_base_spreads_them_over_every_prompt_pass(tmp_path: Path) -> None:
    # 20 a side, every answer new: judged at --shift 0.9, above the MMD test's honest figure.
    code, document = _triage(tmp_path, _thinly(tmp_path, 2), "--shift", "0.9")
    assert code == 0, [r["reason"] for r in document["records"]]
    assert not any("finish-reason-shift" in r["flags"] for r in document["records"])
