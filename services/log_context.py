"""The log context of the entry being handled: structlog context variables, bound cheaply.

``structlog.contextvars.bound_contextvars`` first copies the whole context to find the
values it will restore (``get_contextvars``: every context variable of the task,
FastStream's included), which costs ~15 µs per use; a consumer binds twice per entry.
:func:`bound` binds the same variables and restores them from the tokens ``bind``
returns (``reset_contextvars``): the same lines, the same restore semantics. (The
projector could use it too; ``streams`` may not import structlog, so it lives here.)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog


@contextmanager
def bound(**values: Any) -> Iterator[None]:
    """Bind ``values`` to the log context for the block, then restore what was there."""
    tokens = structlog.contextvars.bind_contextvars(**values)
    try:
        yield
    finally:
        structlog.contextvars.reset_contextvars(**tokens)
