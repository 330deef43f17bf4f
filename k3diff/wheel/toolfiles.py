"""Data files that make code run when a tool of the same environment starts.

pip installs `NAME.data/data/X` to `PREFIX/X`, and in a virtual environment (the common case)
`PREFIX` is `sys.prefix`, where these tools look by default:

* IPython (`IPython.core.application`: `ENV_CONFIG_DIRS` is `sys.prefix/etc/ipython`, searched
  for `ipython_config.py` and each app's own config file, `ipython_kernel_config.py`, at every
  IPython or IPython kernel start; a `.py` is run as Python, a `.json` sets options such as
  `exec_lines` and `extensions`). Only files directly in it: the profile's `startup/` is in
  `~/.ipython`, never under `sys.prefix`;
* Jupyter (`jupyter_core.paths`: `ENV_CONFIG_PATH` is `sys.prefix/etc/jupyter`, every app's
  `jupyter_*_config.py` run as Python at its start, its `.json` and `*_config.d/*.json` options,
  server extensions it imports among them, `nbconfig/` front-end extensions it loads;
  `ENV_JUPYTER_PATH` is `sys.prefix/share/jupyter`, read by `jupyter_path()` for `kernels/`
  (a notebook runs `kernel.json`'s `argv`), `labextensions/` and `nbextensions/` (JavaScript
  run in the browser page);
* pip (`pip._internal.configuration`: the site file `sys.prefix/pip.conf`, `pip.ini` on
  Windows, read at every pip run: an `index-url` there makes the next install fetch, and run,
  another index's code);
* the interpreter itself: `pyvenv.cfg` at the prefix is the virtual environment's own, read at
  every start (`home`, `include-system-site-packages`);
* bash-completion (2.12's `_comp_load`: for every `PATH` directory ending in `bin`, and the
  command's own, it sources `../share/bash-completion/completions/CMD`, `CMD.bash` or `_CMD`
  when the user completes `CMD`): with the environment's `bin/` on `PATH` (activated), a
  completion file the wheel installs runs in the user's shell;
* conda (`conda.activate`, and mamba, micromamba and pixi alike): pip installs into a conda
  environment as into a virtual one, `sys.prefix` its `CONDA_PREFIX`, and every `conda activate`
  sources each script of `etc/conda/activate.d/` in the user's shell (`deactivate.d/` at
  `conda deactivate`) and exports the variables `etc/conda/env_vars.d/*.json` name
  (`LD_PRELOAD`, `PYTHONSTARTUP`: code run). review64b: such a script passed `wheels`.

Directories are matched without regard to case, as `bin/` is (`installed.on_command_path`):
macOS's and Windows' file systems make `ETC/Jupyter/` the tools' `etc/jupyter/`.
"""

from __future__ import annotations

import re

from k3diff.lazyre import lazy

_TOOL_FILE = lazy(
    r"(?:(?P<ipython>etc/ipython/[^/]+)|(?P<jupyter>etc/jupyter/.+)"
    r"|(?P<kernel>share/jupyter/kernels/[^/]+/.+)|(?P<lab>share/jupyter/labextensions/.+)"
    r"|(?P<nb>share/jupyter/nbextensions/.+)|(?P<pip>pip\.(?:conf|ini))|(?P<venv>pyvenv\.cfg)"
    r"|(?P<completion>share/bash-completion/completions/[^/]+)"
    r"|(?P<conda>etc/conda/(?:de)?activate\.d/.+)|(?P<condavars>etc/conda/env_vars\.d/.+))",
    re.IGNORECASE,
)
"""An installed path one of the tools reads (see the module's docstring), by tool."""

_FOUND = lazy(
    r"\0(?i:etc/(?:ipython|jupyter|conda)/|share/(?:jupyter|bash-completion)/|pip\.(?:conf|ini)\0"
    r"|pyvenv\.cfg\0)"
)
"""What `first_tool_file` looks for in the installed paths joined between NULs."""

_HOW = {
    "ipython": "IPython config, loaded at every IPython and IPython kernel start (Python run)",
    "jupyter": "Jupyter config, loaded at a Jupyter app's start (Python run, extensions loaded)",
    "kernel": "Jupyter kernel spec: a notebook runs kernel.json's argv (kernel.js in its page)",
    "lab": "JupyterLab extension: JavaScript run in the browser page",
    "nb": "notebook extension: JavaScript run in the browser page",
    "pip": "pip's site configuration, read at every pip run (the index it installs from)",
    "venv": "the virtual environment's pyvenv.cfg, read by the interpreter at every start",
    "completion": "bash completion, sourced in the user's shell when completing the command",
    "conda": "conda activation script, sourced in the user's shell at every conda activate",
    "condavars": "conda environment variables, exported at every conda activate",
}


def first_tool_file(joined: str) -> int | None:
    """Where in `joined` (installed paths between NULs) the first path that may be a tool's file
    starts (the NUL before it), None when none may be: one regular-expression search, so that a
    wheel of twelve thousand files pays no step per file."""
    found = _FOUND.search(joined)
    return None if found is None else found.start()


def tool_file(path: str) -> str | None:
    """What a tool of the environment does with the file installed at `path`, or None."""
    match = _TOOL_FILE.fullmatch(path)
    return None if match is None or match.lastgroup is None else _HOW[match.lastgroup]
