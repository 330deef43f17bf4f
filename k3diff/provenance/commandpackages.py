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
"""

from __future__ import annotations

from k3diff.escape import shortened
from k3diff.provenance.setupcfg import SetupCfg


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
