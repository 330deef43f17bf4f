"""`audit`, `wheels` and `responses` load what their run uses and nothing else (issue 41): `--help`
loads none of the command's implementation, and the text report of a run on a wheel with an ELF
library loads neither pyelftools (the audit reads loader tables with `struct`), nor a document
writer, nor (for `audit`) a table writer, nor the CI finding model, nor the waiver reader and its
TOML parser (nor so `Waiver`/`WaiverSet`) without `--waivers`, nor the `.pth` reader for a wheel
without a `.pth` file, nor (for `audit`) the comparison's proofs, nor (for `wheels`) the
whole-file hasher with `--no-file-hash` or the JSON writers of `--explain` and `--source` without
them, nor numpy, scipy or matplotlib; `responses` loads deepdiff
for a record whose fields differ, but not the numpy it would probe for. Each run is
a fresh interpreter (this test process has everything loaded) that reports which of the watched
modules `sys.modules` holds afterwards; the probe's own check shows that a run which needs one
of them (`--format json`, `markdown`, `sarif`, `--waivers`) does load it, so the assertions
cannot pass on a probe that sees nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit
from wheel.rawwheel import write_wheel

WATCHED = (
    "elftools",
    "packaging",
    "tabulate",
    "jsonschema",
    "tomllib",
    "tempfile",
    "zipfile",
    "importlib.metadata",
    "json",
    "concurrent.futures",
    "k3diff.audit",
    "k3diff.documents",
    "k3diff.documents.native",
    "k3diff.documents.provenance",
    "k3diff.filehash",
    "k3diff.native.model",
    "k3diff.provenance",
    "k3diff.report",
    "k3diff.report.cifindings",
    "k3diff.report.sarif",
    "k3diff.wheel",
    "k3diff.wheel.abi3use",
    "k3diff.wheel.bytecode",
    "k3diff.wheel.collision",
    "k3diff.wheel.metachange",
    "k3diff.wheel.sbomdoc",
    "k3diff.wheel.waivers",
    "k3diff.wheel.pth",
    "k3diff.wheel.policy",
    "k3diff.wheels",
    "k3diff.wheels.filtered",
    "k3diff.wheels.model",
    "k3diff.wheels.proof",
    "k3diff.zip",
    "deepdiff",
    "docutils",
    "readme_renderer",
    "k3diff.wheel.rstchild",
    "numpy",
    "pandas",
    "scipy",
    "matplotlib",
)
"""Modules (a package counts with any submodule of it) the probe reports when loaded."""

HELP_LOADS_NONE = WATCHED
"""`--help` needs click and the command's options: every watched module is left alone."""

HEAVY = ("numpy", "pandas", "scipy", "matplotlib")
"""Array, frame, statistics and plotting libraries: no wheel or response comparison needs one."""

RENDERERS = ("docutils", "readme_renderer")
"""What renders a reStructuredText description as twine check does (A122/W624): 70-140 ms to
import, loaded in the child `k3diff.wheel.rstchild` starts (review75e: docutils' time is not
bounded by the text's length), never in k3diff's process."""

RARE_MODELS = (
    "k3diff.wheel.abi3use",
    "k3diff.wheel.bytecode",
    "k3diff.wheel.collision",
    "k3diff.wheel.metachange",
    "k3diff.wheel.sbomdoc",
    "k3diff.wheels.filtered",
)
"""Result types only some wheels need (an abi3 extension, a `.pyc`, two entries that install as
one file, an identity change, an SBOM, findings hidden by `--select`/`--ignore`): each in a module
of its own, imported where one is built, so that a run without them defines none of their
dataclasses (≈ 1 ms each)."""

RUN_LOADS_NONE = (
    "elftools",
    "jsonschema",
    "tomllib",
    "k3diff.documents",
    "k3diff.native.model",
    "k3diff.report.cifindings",
    "k3diff.report.sarif",
    "k3diff.wheel.waivers",
    "k3diff.wheel.pth",
    "deepdiff",
    "json",
    *RENDERERS,
    *RARE_MODELS,
    *HEAVY,
)
"""What a text report of `audit` or `wheels` without --waivers, on wheels without a `.pth`
file, does not need: `json` is imported by the first JSON document read (`bounded.loads`) or
written. (`tempfile` comes with `importlib.metadata`, which parses `entry_points.txt`.)"""

TEXT_LOADS_NONE = (*RUN_LOADS_NONE, "tabulate", "k3diff.wheels.proof")
"""What the audit's text report does not need (no table; it proves no entry pair)."""

WHEELS_TEXT_LOADS_NONE = RUN_LOADS_NONE
"""What the text report of `wheels` on two wheels does not need (its summary is a table)."""

_PROBE = """
import contextlib, io, sys
from k3diff.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
watched = {watched!r}
loaded = sorted(w for w in watched if any(m == w or m.startswith(w + ".") for m in sys.modules))
import json  # after the look: the probe's own answer is no run's import
print(json.dumps({{"code": code, "loaded": loaded}}))
"""

SO_NAME = "engine/_C.cpython-311-x86_64-linux-gnu.so"
ENTRY_POINTS = b"[console_scripts]\nengine = engine.model:run\n"
SYSTEM_LIBRARY = Path("/usr/lib/x86_64-linux-gnu/libz.so.1")


def _loaded(*argv: str | Path) -> tuple[int, set[str]]:
    """(exit code, watched modules loaded) of `k3diff ARGV` in a fresh interpreter."""
    script = _PROBE.format(watched=WATCHED)
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return int(answer["code"]), set(answer["loaded"])


def _library() -> bytes:
    """A real shared library where the machine has one (its loader tables are what the audit
    reads), else a small well-formed ELF."""
    if SYSTEM_LIBRARY.exists():
        return SYSTEM_LIBRARY.read_bytes()
    return wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 4096)


def _wheel(tmp_path: Path, side: str, version: str, model: bytes) -> Path:
    files = {
        "engine/__init__.py": f"VERSION = {version!r}\n".encode(),
        "engine/model.py": model,
        SO_NAME: _library(),
        f"engine-{version}.dist-info/entry_points.txt": ENTRY_POINTS,
    }
    return wheelkit.make_wheel(
        tmp_path / side, "engine", version, files, tag="cp311-cp311-manylinux_2_28_x86_64"
    )


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp_path = tmp_path_factory.mktemp("wheels")
    base = _wheel(tmp_path, "base", "1.0", b"def run(x):\n    return x + 1\n")
    patch = _wheel(tmp_path, "patch", "1.0", b"def run(x):\n    return x + 2\n")
    return base, patch


# report: a label helper in bundle/model once made `report --help` load the document readers.
@pytest.mark.parametrize("command", ["", "audit", "wheels", "report"])
def test_help_loads_none_of_the_commands_implementation(command: str) -> None:
    code, loaded = _loaded(*command.split(), "--help")
    assert code == 0
    assert not loaded & set(HELP_LOADS_NONE), sorted(loaded)


def test_the_audits_text_report_loads_only_what_it_uses(wheels: tuple[Path, Path]) -> None:
    code, loaded = _loaded("audit", wheels[0])
    assert code == 0
    assert not loaded & set(TEXT_LOADS_NONE), sorted(loaded & set(TEXT_LOADS_NONE))
    # the probe sees the run's own modules: it is not blind
    assert {"k3diff.audit", "k3diff.zip", "packaging", "concurrent.futures"} <= loaded


def test_the_comparisons_text_report_loads_only_what_it_uses(wheels: tuple[Path, Path]) -> None:
    code, loaded = _loaded("wheels", *wheels)
    assert code == 0
    assert not loaded & set(WHEELS_TEXT_LOADS_NONE), sorted(loaded & set(WHEELS_TEXT_LOADS_NONE))
    assert {"k3diff.wheels.model", "k3diff.zip"} <= loaded


def test_a_failing_native_pair_s_text_report_loads_no_json(tmp_path: Path) -> None:
    """Its next steps write a waiver's TOML (stop 63) without `json`: a text report of a
    failing pair needs no more than a passing one's."""
    base = _wheel(tmp_path, "base", "1.0", b"X = 1\n")
    files = {
        "engine/__init__.py": b"",
        "engine/model.py": b"X = 1\n",
        SO_NAME: wheelkit.elf_bytes(b"\x90" * 64),
    }
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "engine", "1.0", files, tag="cp311-cp311-manylinux_2_28_x86_64"
    )
    code, loaded = _loaded("wheels", base, patch)
    assert code == 1
    assert not loaded & set(WHEELS_TEXT_LOADS_NONE), sorted(loaded & set(WHEELS_TEXT_LOADS_NONE))


def test_the_comparisons_json_report_loads_no_explanation_or_source_check(
    wheels: tuple[Path, Path],
) -> None:
    # the JSON writers of --explain and --source name those models in annotations only
    code, loaded = _loaded("wheels", *wheels, "--format", "json")
    assert code == 0
    assert "k3diff.documents" in loaded
    assert not loaded & {"k3diff.native.model", "k3diff.provenance"}, sorted(loaded)
    # nor their JSON writers, imported where an entry or the report has such a form
    assert not loaded & {"k3diff.documents.native", "k3diff.documents.provenance"}, sorted(loaded)
    unneeded = set(WHEELS_TEXT_LOADS_NONE) - {"k3diff.documents", "json"}
    assert not loaded & unneeded, sorted(loaded & unneeded)


def test_the_benchmarks_json_run_loads_no_file_hasher_waiver_or_explanation_writer(
    wheels: tuple[Path, Path],
) -> None:
    # the run of issue 41's case e: `wheels BASE PATCH --no-file-hash --format json --output F`
    code, loaded = _loaded("wheels", *wheels, "--no-file-hash", "--format", "json")
    assert code == 0
    # no whole-file hash (`filehash`); no waivers, so `Waiver`/`WaiverSet` (`wheel.waivers`)
    # are never defined: the policy (`wheel.policy`) names them in annotations only
    unneeded = {
        "k3diff.filehash",
        "k3diff.wheel.waivers",
        "k3diff.documents.native",
        "k3diff.documents.provenance",
    }
    assert not loaded & unneeded, sorted(loaded & unneeded)
    assert {"k3diff.wheel.policy", "k3diff.documents"} <= loaded  # the probe is not blind


def test_a_run_that_hashes_whole_files_loads_the_hasher(wheels: tuple[Path, Path]) -> None:
    # the other side of `--no-file-hash`: the default run hashes both wheels
    _, loaded = _loaded("wheels", *wheels, "--format", "json")
    assert "k3diff.filehash" in loaded


def test_a_native_explanation_loads_its_json_writer(tmp_path: Path) -> None:
    # the other side of the JSON run above: `--explain` of a changed library writes its form
    base, patch = (
        wheelkit.make_wheel(
            tmp_path / side,
            "engine",
            "1.0",
            {"engine/__init__.py": b"", SO_NAME: wheelkit.elf_bytes(payload)},
            tag="cp311-cp311-manylinux_2_28_x86_64",
        )
        for side, payload in (("base", b"\x55" * 64), ("patch", b"\x56" * 64))
    )
    _, loaded = _loaded("wheels", base, patch, "--explain", "--format", "json")
    assert "k3diff.documents.native" in loaded


def test_a_wheel_that_needs_the_rare_models_loads_them(tmp_path: Path) -> None:
    # the other side of RARE_MODELS: the probe sees each module once a run needs it
    sbom = b'{"bomFormat": "CycloneDX", "components": [{"name": "zlib", "version": "1"}]}'
    files = {"engine/__init__.py": b"", "engine-1.0.dist-info/sboms/bom.json": sbom}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files)
    patch = wheelkit.make_wheel(
        tmp_path / "patch",
        "engine",
        "1.0",
        {
            **files,
            "engine/__pycache__/mod.cpython-311.pyc": b"\xa7\r\r\n" + bytes(12),
            "Engine/__init__.py": b"",
            "engine/caf\u00e9.py": b"",
            "engine-1.0.dist-info/entry_points.txt": b"[console_scripts]\nno equals sign\n",
        },
        requires=["numpy"],
    )
    _, loaded = _loaded("wheels", base, patch, "--ignore", "W615")
    expected = {*RARE_MODELS, "tabulate", "importlib.metadata", "json"} - {"k3diff.wheel.abi3use"}
    assert expected <= loaded, sorted(expected - loaded)


@pytest.mark.parametrize(
    ("option", "needs"),
    [
        (["--format", "json"], "k3diff.documents"),
        (["--format", "sarif"], "k3diff.report.sarif"),
        (["--waivers", "WAIVERS"], "tomllib"),
        (["--waivers", "WAIVERS"], "k3diff.wheel.waivers"),
    ],
)
def test_a_run_that_needs_a_lazy_module_loads_it(
    wheels: tuple[Path, Path], tmp_path: Path, option: list[str], needs: str
) -> None:
    waivers = tmp_path / "waivers.toml"
    waivers.write_text('[[waiver]]\ncode = "W601"\npath = "nothing/*"\nreason = "probe"\n')
    argv = [str(waivers) if arg == "WAIVERS" else arg for arg in option]
    for command in (["audit", str(wheels[0])], ["wheels", *map(str, wheels)]):
        _, loaded = _loaded(*command, *argv)
        assert needs in loaded, (command, argv)


@pytest.mark.parametrize(
    ("content_type", "renders"),
    [("text/markdown", False), ("text/plain", False), ("text/x-rst", True), (None, True)],
)
def test_only_a_restructuredtext_description_loads_docutils(
    tmp_path: Path, content_type: str | None, renders: bool
) -> None:
    # twine check renders reStructuredText (declared, or no type declared) alone
    header = "" if content_type is None else f"Description-Content-Type: {content_type}\n"
    meta = f"Metadata-Version: 2.1\nName: engine\nVersion: 1.0\n{header}\nEngine\n======\n"
    base, patch = (
        write_wheel(
            tmp_path / side, "engine", "1.0", {"engine/__init__.py": b""}, meta=meta.encode()
        )
        for side in ("base", "patch")
    )
    for command in (["audit", str(patch)], ["wheels", str(base), str(patch)]):
        code, loaded = _loaded(*command)
        assert code == 0, command
        assert not set(RENDERERS) & loaded, (command, sorted(loaded))
        assert ("k3diff.wheel.rstchild" in loaded) is renders, (command, sorted(loaded))


def test_the_audits_markdown_report_loads_its_table_writer(wheels: tuple[Path, Path]) -> None:
    _, loaded = _loaded("audit", wheels[0], "--format", "markdown")
    assert "tabulate" in loaded


def test_an_elf_that_the_struct_reader_does_not_model_still_loads_pyelftools() -> None:
    # the other side of "only when an ELF is parsed with it": pyelftools' own reader loads it
    script = (
        "import sys\n"
        "from k3diff.native.platform import read_needs_from_stream\n"
        "assert 'elftools' not in sys.modules\n"
        f"data = open({str(SYSTEM_LIBRARY)!r}, 'rb').read()\n"
        "print(read_needs_from_stream([data], len(data)).glibc)\n"
        "assert 'elftools' in sys.modules\n"
    )
    if not SYSTEM_LIBRARY.exists():
        pytest.skip(f"needs {SYSTEM_LIBRARY}")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_a_wheel_with_a_pth_file_loads_the_pth_reader(tmp_path: Path) -> None:
    base, patch = (
        wheelkit.make_wheel(tmp_path / side, "engine", "1.0", {"engine.pth": line})
        for side, line in (("base", b"import os\n"), ("patch", b"import sys\n"))
    )
    for command in (["audit", str(patch)], ["wheels", str(base), str(patch)]):
        _, loaded = _loaded(*command)
        assert "k3diff.wheel.pth" in loaded, command


def _responses(
    path: Path, finish_reasons: list[str], extra: dict[int, dict[str, object]] | None = None
) -> Path:
    lines = [
        json.dumps(
            {
                "id": f"r{index}",
                "choices": [{"index": 0, "text": f"answer {index}", "finish_reason": reason}],
                **(extra or {}).get(index, {}),
            }
        )
        for index, reason in enumerate(finish_reasons)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_responses_loads_deepdiff_for_a_field_change_but_not_numpy(tmp_path: Path) -> None:
    base = _responses(tmp_path / "base.jsonl", ["stop", "stop", "stop"])
    # a field only the patch has: deepdiff says what changed
    patch = _responses(tmp_path / "patch.jsonl", ["stop", "stop", "stop"], {1: {"seed": [1, 2]}})
    code, loaded = _loaded("responses", base, patch, "--output", tmp_path / "report.txt")
    assert code == 1  # one record differs
    assert "deepdiff" in loaded  # the field comparison ran: the probe sees its library
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_responses_loads_no_deepdiff_where_only_values_changed(tmp_path: Path, fmt: str) -> None:
    """A changed finish reason or token count is listed without deepdiff (`values_changed`),
    and a JSON report loads no table writer."""
    base = _responses(tmp_path / "base.jsonl", ["stop", "stop", "stop"], {2: {"usage": {"n": 1}}})
    patch = _responses(
        tmp_path / "patch.jsonl", ["stop", "length", "stop"], {2: {"usage": {"n": 2}}}
    )
    report = tmp_path / f"report.{fmt}"
    code, loaded = _loaded("responses", base, patch, "--format", fmt, "--output", report)
    assert code == 1  # two records differ
    assert "finish_reason" in report.read_text() and "usage.n" in report.read_text()
    assert "deepdiff" not in loaded
    assert ("tabulate" in loaded) is (fmt == "text")  # the probe sees the table writer
