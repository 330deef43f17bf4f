"""`with`-statement support for objects that own a file and release it in `close()`."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closeable:
    """Mixin: `with obj:` calls `obj.close()` on the way out, whatever happened inside."""

    def close(self) -> None:
        """Release what the object holds (subclasses override)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
