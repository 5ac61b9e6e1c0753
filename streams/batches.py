"""The entries a handler receives: a :class:`Batch` of raw ``__data__`` bytes.

A reader's delivery goes through :func:`raw_batch_parser`, which hands FastStream its
batch message without the entries (FastStream's own parser would JSON-decode and
re-encode every body, and cannot re-encode a binary msgpack one) and keeps the raw
entries; the decoder :func:`to_batch` turns a reader's batch or a claimer's single
entry into the same :class:`Batch`, so one handler serves both. The handler's only
parameter is that decoded body: a ``message`` context parameter would make
fast_depends resolve it in a worker thread per delivery.
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


async def raw_batch_parser(raw: Any, original: Any) -> Any:
    """FastStream's batch message without its decoded body: :func:`to_batch` reads the
    raw entries (``raw_message["data"]``, ``raw_message["message_ids"]``) itself."""
    message = await original({**raw, "data": []})
    message.raw_message = raw
    return message


async def to_batch(message: Any) -> Batch:
    """The decoder of readers and claimers: a reader's batch (``data`` a list of
    entries) or a claimer's one entry (``data`` the entry's fields)."""
    raw = message.raw_message
    data = raw["data"]
    rows = data if isinstance(data, list) else [data]
    return Batch.of(raw["channel"], zip(raw["message_ids"], rows, strict=True))


async def read_own_pending(
    redis: Any, stream: str, group: str, consumer: str, after: bytes, count: int
) -> Batch:
    """Up to ``count`` entries that this consumer read but has not acknowledged, after
    the id ``after`` (``b"0"``: from the first)."""
    # An id instead of ">": this consumer's own pending entries after that id.
    read = await redis.xreadgroup(group, consumer, {stream: after}, count=count)
    return Batch.of(stream, read[0][1] if read else [])
