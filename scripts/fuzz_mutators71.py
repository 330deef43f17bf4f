"""Stop 71's mutators for `scripts/fuzz_cli.py`: the backends' package settings in
pyproject.toml (flit, pdm-backend, poetry-core, scikit-build-core), `setup.py`'s
`setuptools_scm.get_version(...)` call, a version module's tuple and commit id, the modules a
`.pth` line imports (and what they import), a log line over the 1 MiB scanned, and inspect_ai
score values.

As in `fuzz_mutators`, each takes the seed's bytes and a `random.Random` and returns the
mutated bytes and a label.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections.abc import Callable

import fuzz_mutators as mut
import fuzz_mutators70 as m70

Mutation = tuple[bytes, str]
Mutator = Callable[[bytes, random.Random], Mutation]

# --- backends' package settings --------------------------------------------------------------

BACKEND_VALUES = [
    b'"pkg"', b'"legacy.pkg"', b'"src.pkg"', b'"pkg.sub"', b'"1pkg"', b'"pkg."', b'".pkg"',
    b'"pkg..x"', b'"__init__"', b'"p\xc3\xa9kg"', b'"pkg\\u0000"', b'"' + b"a." * 3000 + b'a"',
    b'"src"', b'"legacy"', b'"src/"', b'"./src"', b'"src/pkg/.."', b'"../src"',
    b'["src/pkg", "legacy/pkg"]', b'["legacy/pkg"]', b'["src/*"]', b'["src/pkg", ""]',
    b'["src/pkg", 1]', b'[["src/pkg"]]', b'["/src/pkg"]', b'["src\\\\pkg"]',
    b'[{include = "pkg", from = "legacy"}]', b'[{include = "pkg", from = "../legacy"}]',
    b'[{include = "pkg", from = "src", format = "sdist"}]',
    b'[{include = "pkg", from = "src", format = ["sdist", "wheel"]}]',
    b'[{include = "pkg", from = "src", format = []}]', b'[{include = "pkg/*.py", from = "src"}]',
    b'[{include = "pkg", from = "src"}, {include = "pkg", from = "legacy"}]',
    b'[{include = "pkg", from = "src", to = "/"}]', b'[{include = "pkg", to = "x"}]',
    b'[{include = ".", from = "src"}]', b'[{include = "", from = "src"}]', b'[{from = "src"}]',
    b'[{include = "auth.py", from = "src/pkg"}]', b'[{include = "pkg", from = "src"}, "x"]',
    b'{pkg = "legacy/pkg"}', b'{"" = "src"}', b'{pkg = "src/pkg", Pkg = "legacy/pkg"}',
    b'{"pkg/sub" = "src/pkg"}', b'{".." = "src/pkg"}', b'{pkg = "src/pkg/auth.py"}',
    b'{pkg = 1}', b'{pkg = ["src/pkg"]}', b'["src/pkg/auth.py"]', b'["src/pkg/"]',
]  # fmt: skip
BACKEND_LINES = [
    b'build-backend = "flit_core.buildapi"', b'build-backend = "pdm.backend"',
    b'build-backend = "poetry.core.masonry.api"', b'build-backend = "scikit_build_core.build"',
    b'build-backend = "setuptools.build_meta"', b'backend-path = ["."]',
    b"[tool.flit.module]", b'name = "legacy.pkg"', b'name = "pkg"', b"[tool.flit]",
    b"[tool.pdm.build]", b'package-dir = "legacy"', b'package-dir = "src"',
    b'includes = ["legacy/pkg"]', b'includes = ["src/pkg", "legacy/pkg"]', b'excludes = ["src"]',
    b"[tool.pdm]", b"[tool.poetry]", b'packages = [{include = "pkg", from = "legacy"}]',
    b'packages = [{include = "pkg", from = "src", format = "sdist"}]',
    b"[[tool.poetry.packages]]", b'include = "pkg"', b'from = "legacy"', b'format = "wheel"',
    b"[tool.scikit-build]", b"[tool.scikit-build.wheel]", b'wheel.packages = ["legacy/pkg"]',
    b'wheel.packages = {pkg = "legacy/pkg"}', b'packages = ["legacy/pkg"]',
    b'packages = {pkg = "legacy/pkg"}', b'wheel.install-dir = "legacy"',
    b"[tool.setuptools.package-dir]", b'pkg = "legacy/pkg"', b"[tool.hatch.build.targets.wheel]",
    b'packages = ["legacy/pkg"]', b"[tool.maturin]", b'python-source = "legacy"',
]  # fmt: skip


def backend_value(data: bytes, rng: random.Random) -> Mutation:
    return m70._values(data, rng, BACKEND_VALUES + m70.TOML_VALUES[::3])


def backend_structure(data: bytes, rng: random.Random) -> Mutation:
    return m70._structure(data, rng, BACKEND_LINES + m70.TOML_LINES[::4])


BACKEND_MUTATORS: list[Mutator] = [
    backend_value, backend_value, backend_value, backend_value, backend_structure,
    backend_structure, mut.text_lines, mut.byte_noise, m70.link,
]  # fmt: skip

# --- setup.py's get_version(...) -------------------------------------------------------------

_CALL = re.compile(rb"get_version\((.*?)\)\n", re.S)
SCM_ARGUMENTS = [
    b'write_to="src/realname/_version.py"', b'write_to="legacy/pkg/_version.py"',
    b'write_to="pkg/_version.py"', b'write_to="../_version.py"', b'write_to="/etc/_version.py"',
    b'write_to="src/realname/_version.py\\x00"', b'write_to="src\\\\realname\\\\_version.py"',
    b'write_to="src/realname/"', b'write_to=""', b'write_to="."', b'write_to=None',
    b'write_to=b"src/realname/_version.py"', b'write_to=f"src/realname/_version.py"',
    b'write_to="src/" "realname/_version.py"', b'write_to="src/realname/_version.py".strip()',
    b'".", write_to="src/realname/_version.py"', b'"src", write_to="realname/_version.py"',
    b'"..", write_to="src/realname/_version.py"', b'root="/", write_to="src/realname/_version.py"',
    b'root="legacy", write_to="pkg/_version.py"', b'root=1, write_to="src/realname/_version.py"',
    b'".", ".", write_to="src/realname/_version.py"',
    b'*a, write_to="src/realname/_version.py"', b'write_to="src/realname/_version.py", **kw',
    b'relative_to=__file__, write_to="src/realname/_version.py"',
    b'relative_to="setup.py", write_to="src/realname/_version.py"',
    b'relative_to=__file__, version_file="src/realname/_version.py"',
    b'version_file="src/realname/_version.py"',
    b'relative_to=__file__, version_file="legacy/pkg/_version.py"',
    b'relative_to=__file__, write_to="a.py", version_file="src/realname/_version.py"',
    b'write_to="src/realname/_version.py", write_to="x"',
    b'write_to="' + b"a/" * 3000 + b'_version.py"', b'write_to="' + b"x" * 300_000 + b'"',
    b'write_to="src/realname/_version.py", root=' + b"(" * 200 + b'"."' + b")" * 200,
    b'write_to=get_version(write_to="src/realname/_version.py")',
    b"get_version(" * 300 + b")" * 300, b'write_to=("src/realname/_version.py")',
    b"write_to=", b'write_to="src/realname/_version.py",', b'write_to="\\udcff"', b"",
    b'write_to="src/realname/_version.py", local_scheme="no-local-version"',
    b'write_to="src/realname/_version.py" if 1 else None', b"lambda: 0",
]  # fmt: skip
SCM_LINES = [
    b"import setuptools_scm", b"import setuptools_scm as scm", b"from setuptools_scm import *",
    b"from setuptools_scm import get_version as gv", b"from .setuptools_scm import get_version",
    b'scm.get_version(write_to="legacy/pkg/_version.py")', b'gv(write_to="legacy/_version.py")',
    b'setuptools_scm.get_version(write_to="src/realname/_version.py")',
    b'get_version = lambda **k: "1.0"', b"def get_version(**k):\n    return '1.0'",
    b'if False:\n    get_version(write_to="legacy/pkg/_version.py")',
    b'def f():\n    get_version(write_to="x/_version.py")', b"del get_version",
    b"x = " + b"[" * 3000 + b"]" * 3000, b"x = " + b"(" * 100_000, b"def f(:",
    b'get_version(write_to="src/realname/_version.py")\n' * 5000, b"# coding: utf-16",
    b"\xff\xfe", b"\x00", b"get_version(write_to=" + b"x" * 100_000,
]  # fmt: skip


def scm_call(data: bytes, rng: random.Random) -> Mutation:
    """The `get_version(...)` call's arguments replaced, or the call nested or wrapped."""
    match = _CALL.search(data)
    if match is None:
        return mut.byte_noise(data, rng)
    arguments = rng.choice(SCM_ARGUMENTS)
    if rng.random() < 0.15:  # the call wrapped: nested in an expression, an if, a function
        wrap = rng.choice([b"str(%s)", b"(%s)", b"[%s][0]", b"%s if True else None"])
        call = wrap % (b"get_version(" + arguments + b")")
        edited = data[: match.start()] + call + b"\n" + data[match.end() :]
        return edited, f"scm-wrap:{wrap[:12]!r}:{arguments[:30]!r}"
    edited = data[: match.start(1)] + arguments + data[match.end(1) :]
    return edited, f"scm-args:{arguments[:40]!r}"


def scm_structure(data: bytes, rng: random.Random) -> Mutation:
    return m70._structure(data, rng, SCM_LINES)


SETUP_PY_MUTATORS: list[Mutator] = [
    scm_call, scm_call, scm_call, scm_call, scm_structure, scm_structure, m70.py_value,
    mut.text_lines, mut.byte_noise,
]  # fmt: skip

# --- a version module's tuple and commit id --------------------------------------------------

_TUPLE_LINE = re.compile(rb"^(__version_tuple__ = version_tuple = )(.*)$", re.M)
_COMMIT_LINE = re.compile(rb"^(__commit_id__ = commit_id = )(.*)$", re.M)
_VERSION_LINE = re.compile(rb"^(__version__ = version = )(.*)$", re.M)
TUPLES = [
    b"(9, 9)", b"(1, 0)", b"(1, '0')", b"('1', '0')", b"('1.0',)", b"(0, 0, 0)", b"(1,)",
    b"(1, 0, 0)", b"(1, 0, 'dev0')", b"(1, 0, 'cu128')", b"(1, 0, '+cu128')", b"(True, 0)",
    b"(1.0,)", b"(1, 0, None)", b"(-1, 0)", b"(0x1, 0b0)", b"()", b"(1, 0) + (0,)", b"[1, 0]",
    b"(1, 0)," , b"(" + b"1, " * 10_000 + b")", b"(1, " + b"9" * 5000 + b")", b"(1, 0, 'x' * 9)",
    b"('1!', 1, 0)", b"(1, 0, 'post1')", b"(1, 0, 'rc1')", b"(1, (0,))", b"(1, 0, b'x')",
    b"(1, 0, '\\udcff')", b"version_tuple", b"tuple((1, 0))", b"(1, 0)  # (9, 9)",
]  # fmt: skip
COMMITS = [
    b"'main'", b"'unknown'", b"None", b"''", b"'g'", b"'g123'", b"'g1234'", b"'g12345678'",
    b"'G12345678'", b"'g" + b"0" * 40 + b"'", b"'g" + b"0" * 41 + b"'", b"'" + b"a" * 64 + b"'",
    b"'" + b"a" * 63 + b"'", b"'g1234567\\n'", b"' g1234567'", b"'g1234567 '", b"'gABCDEF0'",
    b"'g\xef\xbc\x91\xef\xbc\x92\xef\xbc\x93\xef\xbc\x94'", b"b'g1234567'", b"1234567",
    b"'g1234567' 'x'", b"'g1234567'.lower()", b"'g12345z7'", b"'g" + b"f" * 5000 + b"'",
]  # fmt: skip
VERSIONS = [
    b"'1.0'", b"'1.0+cu128'", b"'1.0+cu128.precompiled'", b"'1.0+precompiled'", b"'1.0.0'",
    b"'1'", b"'v1.0'", b"'1.0.dev0'", b"'1.0+'", b"'1.0+cu128+x'", b"'1.1'", b"'0!1.0'",
    b"'" + b"9" * 5000 + b"'", b"'1." + b"9" * 5000 + b"'", b"'1.0+" + b"a." * 3000 + b"a'",
    b"'1.0+cu128.'", b"'1.0+CU128'", b"'1.0+cu_128'", b"' 1.0'", b"'1.0\\n'",
]  # fmt: skip


def version_fields(data: bytes, rng: random.Random) -> Mutation:
    """The module's tuple, commit id or version replaced (each assignment kept in place)."""
    which, pattern, values = rng.choice(
        [("tuple", _TUPLE_LINE, TUPLES), ("tuple", _TUPLE_LINE, TUPLES),
         ("commit", _COMMIT_LINE, COMMITS), ("version", _VERSION_LINE, VERSIONS)]
    )  # fmt: skip
    match = pattern.search(data)
    if match is None:
        return mut.byte_noise(data, rng)
    value = rng.choice(values)
    edited = data[: match.start(2)] + value + data[match.end(2) :]
    return edited, f"{which}={value[:30]!r}"


VERSION_MODULE_MUTATORS: list[Mutator] = [
    version_fields,
    version_fields,
    version_fields,
    version_fields,
    *m70.MODULE_MUTATORS,
]

# --- the modules a .pth line imports ---------------------------------------------------------

PTH_SEP = b"#--pth--\n"
"""Before it in the mutated file: the `.pth`'s content; after it, `demo_hook.py`'s."""

REACHING = [  # statements that import demo_inner (directly or through the wheel's modules)
    b"import demo_inner", b"import os, demo_inner", b"import demo_inner as _i",
    b"from demo_inner import X", b"from demo_inner import *", b"import demo_pkg.c",
    b"from demo_pkg import c", b"from demo_pkg.c import *", b"from demo_pkg import *",
    b"__import__('demo_inner')", b"__import__('demo_pkg', fromlist=['c'])",
    b"__import__('demo_pkg', globals(), locals(), ['c'], 0)",
    b"import importlib\nimportlib.import_module('demo_inner')",
    b"import importlib\nimportlib.import_module('.c', 'demo_pkg')",
    b"from importlib import import_module as im\nim('demo_inner')",
    b"import demo_pkg.boot\ndemo_pkg.boot.start()", b"from demo_pkg.boot import start\nstart()",
    b"from demo_pkg import boot\nboot.start()", b"__import__('demo_pkg.boot').boot.start()",
    b"def _boot():\n    import demo_inner\n_boot()", b"class K:\n    import demo_inner",
    b"try:\n    import demo_inner\nexcept ImportError:\n    pass",
    b"if True:\n    import demo_inner\nelse:\n    pass", b"with open(__file__):\n    import demo_inner",
    b"for _ in [1]:\n    import demo_inner", b"def f(x=__import__('demo_inner')):\n    pass",
    b"@__import__('demo_pkg.c').c.deco\ndef f():\n    pass", b"import demo_pkg.cycle_a",
    b"import demo_pkg.deep.d1", b"lambda: 0\nimport demo_inner",
    b"import runpy\nrunpy.run_module('demo_inner')", b"import pkgutil\npkgutil.resolve_name('demo_inner:X')",
    b"import importlib.util as u\ns = u.find_spec('demo_inner')\ns.loader.exec_module(u.module_from_spec(s))",
    b"imp = __import__\nimp('demo_inner')", b"from demo_pkg.boot import *\nstart()",
    b"import demo_pkg.boot\nf = demo_pkg.boot.start\nf()", b"def _b():\n    import demo_inner\ng = _b\ng()",
    b"def _b():\n    import demo_inner\nimport atexit\nlist(map(lambda f: f(), [_b]))",
]  # fmt: skip
OTHER = [  # statements that import nothing of the wheel's changed module (or fail)
    b"import os", b"import sys", b"from . import x", b"from .. import x", b"from ... import x",
    b"from .demo_inner import X", b"import demo_pkg", b"import demo_pkg.a", b"import nothing",
    b"import " + b"a." * 7000 + b"a", b"from " + b"." * 300 + b" import x",
    b"__import__('demo_inner', level=1)", b"import importlib\nimportlib.import_module('..c', 'x')",
    b"import importlib\nimportlib.import_module('.' * 50)", b"__import__(1)",
    b"def g():\n    import demo_inner", b"x = " + b"(" * 90 + b"1" + b")" * 90,
    b"x = " + b"a." * 3000 + b"b", b"x = " + b"f(" * 2000 + b")" * 2000,
    b"__import__(" + b"'x' + " * 2000 + b"'y')", b"import demo_pkg.c as c_alias",
    b"if False:\n    import demo_inner", b"pass", b'"""doc"""', b"global g",
]  # fmt: skip
PTH_FORMS = [
    b"import demo_hook\n", b"import demo_hook; demo_hook.install()\n",
    b"import os, demo_hook\n", b"import demo_pkg.boot; demo_pkg.boot.start()\n",
    b"import sys; exec('import demo_inner')\n", b"import\tdemo_hook\n", b"import demo_hook\r\n",
    b"demo\nimport demo_hook\n", b"import demo_hook" + b" " * 5000 + b"\n",
    b"import demo_hook; " + b"x = 1; " * 2000 + b"\n", b"import demo_hook\n" * 3000,
    b"import demo_pkg.cycle_a\n", b"import demo_pkg.deep.d1\n",
]  # fmt: skip


def hook_module(data: bytes, rng: random.Random) -> Mutation:
    """A hook of a few statements drawn from `REACHING` and `OTHER`, its `.pth` line drawn from
    `PTH_FORMS` now and then; sometimes huge, binary, in another encoding or not parsing."""
    statements = [rng.choice(OTHER if rng.random() < 0.6 else REACHING)
                  for _ in range(rng.randrange(1, 6))]  # fmt: skip
    pth = rng.choice(PTH_FORMS) if rng.random() < 0.3 else b"import demo_hook\n"
    body = b"\n".join(statements) + b"\n"
    twist = rng.choice(["", "", "", "", "syntax", "huge", "binary", "latin-1", "utf-16",
                        "bad-cookie", "bom", "nul", "indent"])  # fmt: skip
    if twist == "syntax":
        body += b"def f(:\n"
    elif twist == "huge":
        body += (b"import os\n" if rng.random() < 0.5 else b"# x\n") * rng.choice(
            [30_000, 110_000, 300_000]
        )
    elif twist == "binary":
        body = bytes(rng.randrange(256) for _ in range(2000)) + body
    elif twist == "latin-1":
        body = b"# -*- coding: latin-1 -*-\n# \xe9\n" + body
    elif twist == "utf-16":
        body = b"# coding: utf-16\n" + body
    elif twist == "bad-cookie":
        body = b"# coding: no-such-codec\n" + body
    elif twist == "bom":
        body = b"\xef\xbb\xbf" + body
    elif twist == "nul":
        body += b"\x00\n"
    elif twist == "indent":
        body = b"  " + body
    label = f"hook:{twist}:{[s[:24] for s in statements]}:{pth[:24]!r}"
    return pth + PTH_SEP + body, label


def hook_noise(data: bytes, rng: random.Random) -> Mutation:
    """The seed's hook (and `.pth`) through the byte and line mutators."""
    pth, _, body = data.partition(PTH_SEP)
    body, label = rng.choice([mut.byte_noise, mut.text_lines])(body, rng)
    return pth + PTH_SEP + body, label


HOOK_MUTATORS: list[Mutator] = [hook_module, hook_module, hook_module, hook_module, hook_noise]

# --- a log line over the 1 MiB scanned -------------------------------------------------------

MIB = 1 << 20
ERRORS = [
    b"RuntimeError: CUDA error: an illegal memory access was encountered",
    b"CUDA error: out of memory", b"torch.OutOfMemoryError: CUDA out of memory.",
    b"NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970",
    b"Fatal Python error: Segmentation fault", b"RuntimeError: CUDA error: device-side assert",
    b"\x1b[31mCUDA error\x1b[0m: an illegal memory access", b"CUDA \x1b[1merror\x1b[0m: x",
]  # fmt: skip
FILLERS = [
    b"x", b"\rProcessed prompts:  42%|####      | 4200/10000 [00:42<00:58, 99.0 it/s]",
    b"\xe2\x96\x88", b"error ", b"\x1b[2K\r", b"a\xffb", b"memory ", b"\t",
]  # fmt: skip


def long_line(data: bytes, rng: random.Random) -> Mutation:
    """The patch log with one line past the 1 MiB scanned, an error rule's text placed in it
    at a boundary of the pieces the scanner reads (the cut, the 4 KiB overlap, each further
    MiB read), or across the cut; the file sometimes gzip-compressed."""
    error = rng.choice(ERRORS)
    filler = rng.choice(FILLERS)
    boundary = rng.choice([MIB, MIB - 4096, MIB + 4096, 2 * MIB, 2 * MIB - 4096, 3 * MIB, MIB // 2,
                           MIB - len(error), 5 * MIB])  # fmt: skip
    at = max(0, boundary + rng.randrange(-len(error) - 2, 3))
    if rng.random() < 0.3:
        at = rng.randrange(0, 4 * MIB)
    short = b"".join(line for line in data.splitlines(keepends=True) if len(line) < 4096)
    lead = short if rng.random() < 0.7 else b""
    head = (filler * (at // len(filler) + 1))[:at]
    tail = (filler * (rng.randrange(0, 2 * MIB) // len(filler) + 1))[: rng.randrange(0, 2 * MIB)]
    end = rng.choice([b"\n", b"\r\n", b"", b"\n" + short])
    log = lead + head + error + tail + end
    label = f"long:{error[:16]!r}@{at}+{len(lead)}:{filler[:6]!r}:{len(tail)}:{end[:2]!r}"
    if rng.random() < 0.15:
        return gzip.compress(log, compresslevel=1), label + ":gz"
    return log, label


LONG_LINE_MUTATORS: list[Mutator] = [long_line]

# --- inspect_ai score values -----------------------------------------------------------------

SCORE_VALUES: list[object] = [
    "C", "I", "P", "N", "c", " C", "C ", "yes", "Yes", "YES", " yes", "yes ", "true", "True",
    "no", "false", "1", "1.0", "1.", ".0", "0", "0.5", "1e0", " 1", "1 ", "+1", "-1", "1_0",
    "\u0661", "\uff11", "\u00b9", "\u00bd", "\u2460", "1.0.0", "..", ".", "", "nan", "NaN", "inf",
    "Infinity", "1" * 5000, "0" * 5000 + "1", "1." + "0" * 5000, "\u0130", "y\u0307es",
    "\u212a", True, False, 1, 0, 0.5, 1.5, -1, 1e308, 10**400, None, [], [1], {}, {"a": 1},
    {"a": "C", "b": "I"}, {"": 1}, "1\n", "\t1", "1\x00",
]  # fmt: skip


def score_values(data: bytes, rng: random.Random) -> Mutation:
    """The patch's score value of some samples replaced by one value (a few by two)."""
    log = json.loads(data)
    samples = log["samples"]
    value = rng.choice(SCORE_VALUES)
    count = rng.choice([1, 5, 50, len(samples)])
    chosen = rng.sample(range(len(samples)), count)
    second = rng.choice(SCORE_VALUES) if rng.random() < 0.2 else value
    for n, index in enumerate(chosen):
        samples[index]["scores"]["judge"]["value"] = value if n % 2 == 0 else second
    return json.dumps(log, indent=2).encode(
        "utf-8", "surrogatepass"
    ), f"score:{json.dumps(value)[:20]}x{count}"


SCORE_MUTATORS: list[Mutator] = [score_values, score_values, score_values, mut.byte_noise]
