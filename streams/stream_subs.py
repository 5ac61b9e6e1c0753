"""FastStream's ``StreamSub`` without a copy per look-up.

FastStream 0.7's stream subscriber reads its ``stream_sub`` property several times per
read and per message (the stream's name, group, consumer, ``no_ack``, the log context),
and the property returns ``StreamSub.add_prefix(prefix)``: a ``deepcopy`` of the
subscription every time, ~28 µs each on this project's 2-core machine, paid by every
reader and claimer of every partition. With an empty prefix (Orrery's brokers have
none) the copy equals the original, and FastStream never changes the object it gets,
so the original is returned; a non-empty prefix is still copied. Installed once, when
:mod:`streams.subscribers` is imported.
"""

from __future__ import annotations

from typing import Any

from faststream.redis import StreamSub

_copying_add_prefix = StreamSub.add_prefix


def _add_prefix(self: Any, prefix: str) -> Any:
    return self if not prefix else _copying_add_prefix(self, prefix)


def share_unprefixed_stream_subs() -> None:
    """Make ``StreamSub.add_prefix("")`` return the subscription itself."""
    StreamSub.add_prefix = _add_prefix  # type: ignore[method-assign]
