"""`k3diff audit` of an sdist whose old setuptools wrote the description as an indented
``Description:`` header (six 1.16.0's: each line after the first indented by 8 spaces) says
to rebuild with a current setuptools (setupstop76).

twine before 6.1 stripped the indent; twine 6.1+ and PyPI render the text as written, and
docutils refuses it (``Error in "image" directive``): A122. The step told the user to fix the
field where the build reads it, which needs no fix; the same text as the file's body renders.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff

from audit.sdistcraft import make_sdist

HEAD = b"Metadata-Version: 1.2\nName: demo\nVersion: 1.0\nSummary: demo\n"
TEXT = [
    b".. image:: https://img.shields.io/pypi/v/six.svg",
    b"   :target: https://pypi.org/project/six/",
    b"   :alt: six on PyPI",
    b"",
    b"Six is a Python 2 and 3 compatibility library.",
]
INDENTED = HEAD + b"Description: " + b"\n".join(b" " * 8 + line for line in TEXT).lstrip() + b"\n"
BODY = HEAD + b"\n" + b"\n".join(TEXT) + b"\n"


def _audited(tmp_path: Path, pkg_info: bytes) -> tuple[int, list[str]]:
    result = run_k3diff("audit", str(make_sdist(tmp_path, pkg_info=pkg_info)))
    return result.exit_code, result.stdout.splitlines()


def test_an_old_setuptools_description_header_says_rebuild_with_a_current_one(
    tmp_path: Path,
) -> None:
    code, lines = _audited(tmp_path, INDENTED)
    assert code == 1
    (finding,) = [line for line in lines if line.startswith("  A122 ")]
    assert "it is the Description: header an old setuptools wrote" in finding
    (step,) = [line for line in lines if "1 × A122" in line]
    assert "rebuild (python -m build --sdist) with a current setuptools" in step
    assert "pip install -U setuptools" in step and "fix the field" not in step


def test_the_same_text_as_the_body_passes(tmp_path: Path) -> None:
    """What a current setuptools writes renders: the rebuild the step names fixes it."""
    code, lines = _audited(tmp_path, BODY)
    assert code == 0, lines


def test_another_refused_field_beside_it_keeps_the_fields_step(tmp_path: Path) -> None:
    code, lines = _audited(tmp_path, INDENTED.replace(b"Summary", b"Requires-Dist: ][\nSummary"))
    assert code == 1
    (step,) = [line for line in lines if "2 × A122" in line]
    assert "fix the field its detail names" in step
    assert "rebuild with a current setuptools (pip install -U setuptools)" in step
