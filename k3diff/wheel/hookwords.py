"""The names each piece of code run at start spells, so that a meta path finder's module reads as
constant only what no other piece may change (`finders.module_constants` sees its own module
alone). review73f: a kept hook putting a finder whose `find_spec` imported `demo_inner` where
`fullname in MAPPING`, and another module it imports doing `demo_hook.MAPPING['sitecustomize'] =
1`, passed `wheels` (exit 0) while a venv's `python -c pass` ran `demo_inner`.

A name another piece (a module followed, or a `.pth` line) spells, as a word of its source
(`demo_hook.MAPPING[k] = v`, `from demo_hook import MAPPING`, `setattr(m, 'MAPPING', v)`,
`operator.setitem(m.MAPPING, ...)`, words of strings and comments alike: more, never less), may
change the finder module's global so named; a piece that spells what reaches a namespace by a
name it may compute (`_OPAQUE`: `getattr`, `setattr`, `vars`, `__dict__`, `__globals__`,
`gc.get_objects`, ...), or whose source is not UTF-8, may change any. Words are read after NFKC
normalisation, as Python reads identifiers (`ＭAPPING` is `MAPPING`)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from k3diff.wheel.boundnames import Module

CHANGED = "="
"""What starts a request of a finder's module that a global of it may be changed elsewhere
(`=MAPPING`; `=*`: any): no function's name does."""
ANY = "*"
MOST = 1024
"""Words of a finder module another piece spells too, at most, each asked on its own (past them,
any global of it may change: a hostile wheel's 256 modules sharing 100,000 words)."""
_WORD = re.compile(r"\w+")
_OPAQUE = frozenset({
    "getattr", "setattr", "delattr", "vars", "__dict__", "globals", "locals", "exec", "eval",
    "compile", "__setattr__", "__getattribute__", "__delattr__", "getmembers",
    "getmembers_static", "__globals__", "f_globals", "f_locals", "get_objects", "get_referents",
    "get_referrers", "attrgetter", "methodcaller", "getattr_static", "resolve_name",
    "get_field", "resolve_dotted_attribute",
})  # fmt: skip
"""What takes or changes an object's names by a name computed, or every object (`gc`'s;
review74c: `inspect.getattr_static(m, 'MAP' + 'PING')`, `pkgutil.resolve_name('demo_hook:MAP' +
'PING')`, `string.Formatter().get_field('0.MAP' + 'PING', [m], {})` passed, exit 0, while a venv
ran the branch)."""


def words(source: str | bytes) -> frozenset[str] | None:
    """The words `source` spells, None where it is no UTF-8 (its words are not read here)."""
    try:
        text = source.decode() if isinstance(source, bytes) else source
    except UnicodeDecodeError:
        return None
    text = text if text.isascii() else unicodedata.normalize("NFKC", text)
    return frozenset(_WORD.findall(text))


@dataclass
class Spelt:
    """The words of the pieces of code followed: which piece spells each (one, or several:
    None), the pieces that may change any name, and each finder module's words another piece
    spells too (past `MOST`, any of its globals)."""

    by: dict[str, Module | None] = field(default_factory=dict)
    opaque: set[Module] = field(default_factory=set)
    shared: dict[Module, set[str]] = field(default_factory=dict)
    read: set[Module] = field(default_factory=set)

    def add(self, piece: Module, source: str | bytes, finder: bool) -> None:
        """Read the words of a module followed (`piece`; every `.pth` line is `()`, no
        module's name), `finder`: it defines a finder's method."""
        if piece in self.read:
            return  # a module parsed again: the same words (each line is read)
        self.read.update([piece] if piece else [])
        found = words(source)
        if finder:  # its words unread: any of its globals may change
            self.shared.setdefault(piece, set()).update([ANY] if found is None else [])
        if found is None or not found.isdisjoint(_OPAQUE):
            self.opaque.add(piece)
        found = found or frozenset()
        known = found & self.by.keys()
        self.by.update(dict.fromkeys(found - known, piece))
        for word in known:
            other = self.by[word]
            if other == piece:
                continue
            self.by[word] = None  # spelt by several pieces: a finder module's global may change
            for module in (piece,) if other is None else (other, piece):
                if module in self.shared:
                    self.shared[module].add(word)

    def changed(self, module: Module) -> frozenset[str]:
        """The requests of a finder's `module` for its globals another piece may change
        (`=MAPPING`)."""
        shared = self.shared.get(module)
        if shared is None:
            return frozenset()
        if self.opaque - {module} or len(shared) > MOST:
            return frozenset({CHANGED + ANY})
        return frozenset(CHANGED + word for word in shared)
