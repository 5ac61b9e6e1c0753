"""The entries a handler receives: a :class:`Batch` of raw ``__data__`` bytes.

Readers (streams/readers.py) build their batches from ``XREADGROUP``'s rows; a
claimer's one entry comes through FastStream, whose decoder :func:`to_batch` turns it
into the same :class:`Batch`, so one handler serves both. The handler's only parameter
is that decoded body: a ``message`` context parameter would make fast_depends resolve it
in a worker thread per delivery.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

DATA_FIELD = b"__data__"


@dataclass(frozen=True, slots=True)
class Entry:
    """One stream entry: its id and its ``__data__`` field (empty when it has none)."""

    id: bytes
    data: bytes

    @property
    def text_id(self) -> str:
        return self.id.decode()

    @property
    def time_ms(self) -> int:
        """When the server added the entry (the first part of its id)."""
        return int(self.id.split(b"-")[0])


@dataclass(frozen=True, slots=True)
class Batch:
    """Entries of one stream, in stream order."""

    stream: str
    entries: tuple[Entry, ...]

    @property
    def ids(self) -> list[bytes]:
        return [entry.id for entry in self.entries]

    @classmethod
    def of(cls, stream: str, rows: Iterable[tuple[Any, Any]]) -> Batch:
        """From ``(id, fields)`` rows as redis-py returns them (``XREADGROUP``, ``XRANGE``)."""
        return cls(stream, tuple(_entry(entry_id, fields) for entry_id, fields in rows))


def _entry(entry_id: Any, fields: Any) -> Entry:
    raw_id = entry_id if isinstance(entry_id, bytes) else str(entry_id).encode()
    return Entry(raw_id, bytes((fields or {}).get(DATA_FIELD, b"")))


async def to_batch(message: Any) -> Batch:
    """The claimers' decoder: a claimed entry (``data`` its fields) as a batch of one
    (a list of entries, as FastStream's batch readers deliver, is taken too)."""
    raw = message.raw_message
    data = raw["data"]
    rows = data if isinstance(data, list) else [data]
    return Batch.of(raw["channel"], zip(raw["message_ids"], rows, strict=True))
