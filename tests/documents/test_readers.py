"""Each typed reader reads what its command wrote, and refuses a malformed field with one line
naming the file and the field (exit 2 from `k3diff report`, never a traceback and never a
defaulted value that could pass a failing document). The `sample` summary and the bundle's own
`summary.json` are no `report` inputs: their readers are called directly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bundle.helpers import wheels_json
from cli_support import run_k3diff
from wheels.wheelset_support import release_sets

from documents.readers_support import Edit, edited, refused, triage_json
from k3diff.documents import report, sample, triage, wheelset, wheelsview
from k3diff.errors import InputError
from k3diff.fields import NON_FINITE_WRITTEN, Fields
from k3diff.sample.model import RecordStats, SampleResult


def test_fields_name_the_file_and_the_path() -> None:
    fields = Fields({"summary": {"native": {"identical": "3", "flag": 1}}}, "f.json")
    native = fields.object("summary").object("native")
    with pytest.raises(
        InputError, match=r"^f\.json: field 'summary\.native\.identical' must be an integer$"
    ):
        native.integer("identical")
    with pytest.raises(InputError, match=r"^f\.json: field 'summary\.native\.total' is missing$"):
        native.integer("total")
    with pytest.raises(InputError, match="must be true or false"):
        native.boolean("flag")
    assert native.optional_integer("absent") is None


def test_a_bool_is_no_count() -> None:
    with pytest.raises(InputError, match="'n' must be an integer"):
        Fields({"n": True}, "f.json").integer("n")


def test_the_wheels_reader_reads_what_wheels_wrote(tmp_path: Path) -> None:
    name = wheels_json(tmp_path, native_changed=True)
    body = json.loads((tmp_path / name).read_text())
    view = wheelsview.read(body, name)
    assert view.base.path == body["base"]["path"] and view.patch.size == body["patch"]["size"]
    assert {k: c.as_dict() for k, c in view.summary.items()} == body["summary"]
    assert [e.path for e in view.entries] == [e["path"] for e in body["entries"]]
    assert [(f.code, f.severity) for f in view.findings] == [
        (f["code"], f["severity"]) for f in body["findings"]
    ]
    assert (view.ok, view.exit_code) == (body["verdict"]["ok"], body["verdict"]["exit_code"])
    assert view.provenance is None


WHEELS_ENTRIES = "{entries}"
"""Stands for the document's entry count in a message (filled in by the test)."""

WHEELS_DAMAGE: list[tuple[str, Edit, str]] = [
    (
        "summary count a string",
        lambda d: d["summary"]["native"].__setitem__("identical", "3"),
        "field 'summary.native.identical' must be an integer",
    ),
    (
        "summary kind missing",
        lambda d: d["summary"].pop("python"),
        "field 'summary.python' is missing",
    ),
    (
        "verdict ok missing",
        lambda d: d["verdict"].pop("ok"),
        "field 'verdict.ok' is missing",
    ),
    (
        "finding severity a number",
        lambda d: d["findings"].insert(0, {"code": "W601", "severity": 2}),
        "field 'findings[0].severity' must be a string",
    ),
    (
        "entry a list",
        lambda d: d["entries"].__setitem__(0, []),
        "field 'entries[0]' must be an object",
    ),
    (
        "side size null",
        lambda d: d["base"].__setitem__("size", None),
        "field 'base.size' must be an integer",
    ),
    (
        "unverified streams a string",
        lambda d: d["verdict"].__setitem__("unverified_streams", "3"),
        "field 'verdict.unverified_streams' must be an integer",
    ),
    (
        "unverified streams beside file hashes",
        lambda d: d["verdict"].__setitem__("unverified_streams", 1),
        "the document disagrees with itself (verdict.unverified_streams is 1 although the wheel "
        "files were hashed, which checks every stream): it was edited or is corrupt; regenerate "
        "it with the command that wrote it",
    ),
    (
        "more unverified streams than entries",
        lambda d: d.update(
            base={**d["base"], "sha256": None},
            patch={**d["patch"], "sha256": None},
            verdict={**d["verdict"], "unverified_streams": 10**6},
        ),
        "the document disagrees with itself (verdict.unverified_streams is 1,000,000 of "
        f"{WHEELS_ENTRIES} entries): it was edited or is corrupt; regenerate it with the command "
        "that wrote it",
    ),
    (
        "verified streams a string",
        lambda d: d["verdict"].__setitem__("verified_streams", "3"),
        "field 'verdict.verified_streams' must be an integer",
    ),
    (
        "verified streams without file hashes",
        lambda d: d.update(
            base={**d["base"], "sha256": None},
            patch={**d["patch"], "sha256": None},
            verdict={**d["verdict"], "verified_streams": 1},
        ),
        "the document disagrees with itself (verdict.verified_streams is 1 although the wheel "
        "files were not hashed (--no-file-hash checks no stream)): it was edited or is corrupt; "
        "regenerate it with the command that wrote it",
    ),
    (
        "more verified streams than entries",
        lambda d: d["verdict"].__setitem__("verified_streams", 10**6),
        "the document disagrees with itself (verdict.verified_streams is 1,000,000 (and "
        f"unverified_streams 0) of {WHEELS_ENTRIES} entries): it was edited or is corrupt; "
        "regenerate it with the command that wrote it",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [d[1:] for d in WHEELS_DAMAGE], ids=[d[0] for d in WHEELS_DAMAGE]
)
def test_a_malformed_wheels_field_is_refused_naming_it(
    tmp_path: Path, edit: Edit, message: str
) -> None:
    name = wheels_json(tmp_path)
    path = edited(tmp_path, name, edit)
    entries = len(json.loads(path.read_text())["entries"])
    refused(tmp_path, name, message.replace(WHEELS_ENTRIES, str(entries)))


def _wheelset_json(tmp_path: Path) -> str:
    release_sets(tmp_path, native_change=True)
    result = run_k3diff(
        "wheels", "base", "patch", "--format", "json", "-o", "set.json", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    return "set.json"


def test_the_wheelset_reader_reads_what_wheels_wrote(tmp_path: Path) -> None:
    name = _wheelset_json(tmp_path)
    body = json.loads((tmp_path / name).read_text())
    view = wheelset.read(body, name)
    assert [(p.base, p.patch) for p in view.pairs] == [
        (p["base"], p["patch"]) for p in body["pairs"]
    ]
    for pair, written in zip(view.pairs, body["pairs"], strict=True):
        assert pair.wheels == wheelsview.read(written["wheels"], name)
    assert view.only_base == tuple(w["path"] for w in body["only_base"]) and view.only_base
    assert (view.ok, view.exit_code) == (False, 1)


WHEELSET_DAMAGE: list[tuple[str, Edit, str]] = [
    (
        "a pair's count a string",
        lambda d: d["pairs"][1]["wheels"]["summary"]["native"].__setitem__("total", "2"),
        "field 'pairs[1].wheels.summary.native.total' must be an integer",
    ),
    (
        "a pair without its document",
        lambda d: d["pairs"][0].pop("wheels"),
        "field 'pairs[0].wheels' is missing",
    ),
    (
        "an unpaired wheel without its path",
        lambda d: d["only_base"][0].pop("path"),
        "field 'only_base[0].path' is missing",
    ),
    (
        "the set's verdict a string",
        lambda d: d["verdict"].__setitem__("ok", "false"),
        "field 'verdict.ok' must be true or false",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [d[1:] for d in WHEELSET_DAMAGE], ids=[d[0] for d in WHEELSET_DAMAGE]
)
def test_a_malformed_wheelset_field_is_refused_naming_it(
    tmp_path: Path, edit: Edit, message: str
) -> None:
    name = _wheelset_json(tmp_path)
    edited(tmp_path, name, edit)
    refused(tmp_path, name, message)


def test_the_triage_reader_reads_what_triage_wrote(tmp_path: Path) -> None:
    name = triage_json(tmp_path)
    body = json.loads((tmp_path / name).read_text())
    view = triage.read(body, name)
    assert (view.alpha, view.bound, view.near_tie) == (
        body["alpha"],
        body["bound"],
        body["near_tie"],
    )
    assert view.summary == body["summary"] and view.comparison == "cmp.json"
    settings = ("correction", "capture_mode", "allow_condition_mismatch", "pool_runs")
    assert [getattr(view, field) for field in settings] == [body[field] for field in settings]
    assert (view.correction, view.pool_runs) == ("holm", False)
    assert [(r.key, r.category) for r in view.records] == [
        (r["key"], r["category"]) for r in body["records"]
    ]
    first = view.records[0]
    assert first.modes and first.deciding() is first.modes[0]
    assert first.modes[0].base.n == body["records"][0]["modes"][0]["base"]["n"]
    assert (view.ok, view.exit_code) == (body["verdict"]["ok"], body["verdict"]["exit_code"])
    assert view.run_ids == (body["runs"][0]["identity"],)


TRIAGE_DAMAGE: list[tuple[str, Edit, str]] = [
    (
        "summary count a string",
        lambda d: d["summary"].__setitem__("records", "8"),
        "field 'summary.records' must be an integer",
    ),
    (
        "regression candidate a string",
        lambda d: d["records"][0].__setitem__("regression_candidate", "no"),
        "field 'records[0].regression_candidate' must be true or false",
    ),
    (
        "a mode's sample count missing",
        lambda d: d["records"][0]["modes"][0]["base"].pop("n"),
        "field 'records[0].modes[0].base.n' is missing",
    ),
    (
        "near-tie missing",
        lambda d: d.pop("near_tie"),
        "field 'near_tie' is missing",
    ),
    (
        "a flag a number",
        lambda d: d["records"][0].__setitem__("flags", [1]),
        "field 'records[0].flags[0]' must be a string",
    ),
    (
        "a run's identity a number",
        lambda d: d["runs"][0].__setitem__("identity", 7),
        "field 'runs[0].identity' must be a string or null",
    ),
    (
        "a bound a list",
        lambda d: d["records"][0]["modes"][0]["patch"].__setitem__("nonmodal_bound", [0.1]),
        "field 'records[0].modes[0].patch.nonmodal_bound' must be a number",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"), [d[1:] for d in TRIAGE_DAMAGE], ids=[d[0] for d in TRIAGE_DAMAGE]
)
def test_a_malformed_triage_field_is_refused_naming_it(
    tmp_path: Path, edit: Edit, message: str
) -> None:
    name = triage_json(tmp_path)
    edited(tmp_path, name, edit)
    refused(tmp_path, name, message)


def test_a_non_finite_number_reads_as_written_where_its_reader_says_so() -> None:
    """Where its writer writes one (a logprob gap: `NON_FINITE_WRITTEN`); elsewhere a number
    with no range named is a finite one (readers72)."""
    fields = Fields({"p": "NaN", "q": "-Infinity", "r": 1}, "t.json")
    assert fields.number("p", NON_FINITE_WRITTEN) != fields.number("p", NON_FINITE_WRITTEN)
    assert fields.number("q", NON_FINITE_WRITTEN) == float("-inf") and fields.number("r") == 1
    with pytest.raises(InputError, match="'q' must be a finite number, not \"-Infinity\""):
        fields.number("q")
    with pytest.raises(InputError, match="'s' must be a number or null"):
        Fields({"s": "0.5"}, "t.json").optional_number("s")


def test_the_sample_summary_reader_reads_what_sample_wrote() -> None:
    rows = (RecordStats("q1", "base", "serial", 3, 0, 2, 2 / 3),)
    result = SampleResult(
        Path("out"), rows, planned=6, taken=5, failed=1, taken_now=5,
        torn_line_dropped=False, perf_metrics=0, run_id="r1",
    )  # fmt: skip
    body = json.loads(sample.write(result))
    view = sample.read(body, "sample.json")
    assert (view.out, view.run_id, view.planned, view.taken, view.failed) == ("out", "r1", 6, 5, 1)
    assert (view.unstable, view.vacuous, view.ok, view.exit_code) == (1, (), False, 1)
    body["summary"]["taken"] = None
    with pytest.raises(
        InputError, match=r"^sample\.json: field 'summary\.taken' must be an integer$"
    ):
        sample.read(body, "sample.json")


def test_the_report_reader_reads_the_bundle_summary(tmp_path: Path) -> None:
    name = wheels_json(tmp_path, native_changed=True)
    assert run_k3diff("report", name, "--out", "bundle", cwd=tmp_path).exit_code == 1
    body = json.loads((tmp_path / "bundle/summary.json").read_text())
    view = report.read(body, "summary.json")
    assert (view.ok, view.exit_code) == (False, 1) and view.bottom_line == tuple(
        body["bottom_line"]
    )
    assert [(r.evidence, r.status, r.sources) for r in view.matrix] == [
        (r["evidence"], r["status"], tuple(r["sources"])) for r in body["matrix"]
    ]
    assert view.matrix[0].status == "FAIL" and view.qualifications == tuple(body["qualifications"])
    del body["matrix"][0]["status"]
    with pytest.raises(InputError, match=r"field 'matrix\[0\]\.status' is missing$"):
        report.read(body, "summary.json")
