"""``setup.cfg``'s ``[global] command_packages``: packages of the project setuptools looks in
for a command it does not know (distutils' ``get_command_class``), run where ``[aliases]``
names it in a command the build runs (``bdist_wheel = cmakeinstall bdist_wheel``).

holds78: with ``[global] command_packages = tools``, ``tools/cmakeinstall.py`` running
``cmake --install`` over ``pkg/auth.py`` was never read, and a wheel keeping the commit's old
file matched, exit 0 (setuptools 84 building from ``setup.py``, PEP 517's legacy path, ran
the project's command; a command class named in ``cmdclass`` stops the check, `configstops`).
setuptools sets every ``[global]`` option on the distribution (``_parse_config_files``), by
its name as written (``command-packages`` or ``Command_Packages`` set nothing, and setuptools 84
then fails on the alias: either is taken here, a stop where nothing builds). Which modules
such a command loads is not read: the check stops (command_packages is rare; ``[aliases]``
alone, ``test = pytest``, chains commands setuptools knows, and is not).

``setup.py`` sets it too (review78a: ``setup(command_packages="tools")``, or
``setup(options={"global": {"command_packages": "tools"}})``, whose ``[global]`` setuptools
sets on the distribution as setup.cfg's, beside the same ``[aliases]``: setuptools 84 ran
``tools/cmakeinstall.py``, and the check passed, exit 0): a ``setup()`` keyword of that name,
whatever its value, or an ``options`` dict whose ``"global"`` entry is no dict, or names it,
stops the check as setup.cfg's does. A value a ``**`` mapping carries is not read.
"""

from __future__ import annotations

import ast

from k3diff.escape import shortened
from k3diff.provenance.setupcfg import SetupCfg
from k3diff.provenance.setuptoolsconfig import names_setup, setup_names

_NAME = "command_packages"


def command_packages(config: SetupCfg, label: str) -> str | None:
    """Why the project of ``setup.cfg`` `config` (the file `label`) is not read where its
    ``[global]`` names ``command_packages``; None where it does not."""
    for name, value in config.sections.get("global", {}).items():
        if name.replace("-", "_").casefold() == "command_packages" and value.strip():
            return (
                f"{label} [global] command_packages names {shortened(repr(value.strip()), 200)}, "
                "packages whose modules setuptools runs as commands ([aliases] runs them in the "
                "build), not read"
            )
    return None


def setup_py_command_packages(module: ast.Module, label: str) -> str | None:
    """Why the project of ``setup.py`` `module` (the file `label`) is not read where a
    ``setup()`` call sets ``command_packages`` (a keyword, or ``options``'s ``"global"``);
    None where none does."""
    names, modules = setup_names(module)
    for node in ast.walk(module):
        if not (isinstance(node, ast.Call) and names_setup(node.func, names, modules)):
            continue
        for keyword in node.keywords:
            if keyword.arg == _NAME or (keyword.arg == "options" and _global_names(keyword.value)):
                return (
                    f"{label} sets command_packages in setup() (line {keyword.value.lineno}), "
                    "packages whose modules setuptools runs as commands ([aliases] runs them "
                    "in the build), not read"
                )
    return None


def _global_names(options: ast.expr) -> bool:
    """Whether the dict `options` of ``setup(options=…)`` may set ``command_packages`` in
    its ``"global"`` entry (one that is no dict literal, or a key not a string, may)."""
    if not isinstance(options, ast.Dict):
        return False  # computed: not read, as a ``**`` mapping is not
    for key, value in zip(options.keys, options.values, strict=True):
        if not (isinstance(key, ast.Constant) and key.value == "global"):
            continue
        if not isinstance(value, ast.Dict):
            return True
        keys = value.keys
        if any(not isinstance(k, ast.Constant) or k.value == _NAME for k in keys):
            return True
    return False
