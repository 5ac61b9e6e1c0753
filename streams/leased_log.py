"""A leased log in Redis: the hash-chained stream of decisions that one process at a
time appends to, for the matchmaker's queues and the tournaments' organiser.

The holder of a lease (a key with an owner and an expiry, taken and renewed by
:func:`lease`) is the only writer; each append is one script that first checks the
lease is still the caller's and the log's seq is where the caller last saw it, then
writes the entries, the meta hash's seq and head, the command cursor (trimming the
command stream up to it), and what readers read beside the log (keys set, sorted sets
added to or trimmed). A writer that lost its lease or raced another gets ``lease_lost``
or ``conflict`` and nothing is written: it reads everything again.

One meta hash may serve many logs (the tournaments' do: their seq and head fields are
named per tournament), so the fields are the caller's to name (:class:`LogKeys`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

_HERE = Path(__file__).parent
APPEND = (_HERE / "leased_log_append.lua").read_text()
LEASE = (_HERE / "lease.lua").read_text()
RELEASE = (_HERE / "lease_release.lua").read_text()


class Entry(Protocol):
    """What the log needs of an entry: its place in the chain."""

    @property
    def seq(self) -> int: ...

    @property
    def hash(self) -> str: ...


E = TypeVar("E", bound=Entry)


@dataclass(frozen=True)
class LogKeys:
    """Where one log lives: its stream of entries, the meta hash (with the names of this
    log's seq and head fields, and the shared ``cursor``), the lease, and the command
    stream the cursor trims."""

    log: str
    meta: str
    lease: str
    commands: str
    seq_field: str = "seq"
    head_field: str = "head"


@dataclass(kw_only=True)
class Batch(Generic[E]):
    """What one append writes: log entries, the new cursor ("": unchanged), and the
    writes beside them (``set`` key value ttl_ms, ``zadd`` key member score, ``zkeep``
    key count)."""

    expected_seq: int
    entries: list[E] = field(default_factory=list)
    cursor: str = ""
    writes: list[tuple[str, str, str, str]] = field(default_factory=list)

    def set(self, key: str, value: bytes | str, ttl_ms: int = 0) -> None:
        text = value.decode() if isinstance(value, bytes) else value
        self.writes.append(("set", key, text, str(ttl_ms)))

    def zadd(self, key: str, member: str, score: int) -> None:
        self.writes.append(("zadd", key, member, str(score)))

    def zkeep(self, key: str, newest: int) -> None:
        """Keep the ``newest`` members of a sorted set (by score), drop the rest."""
        self.writes.append(("zkeep", key, str(newest), "0"))

    def empty(self) -> bool:
        return not self.entries and not self.cursor and not self.writes


async def read_entries(
    redis: Any, stream: str, decode: Callable[[bytes], E], after: int = 0
) -> list[E]:
    """The log's entries after seq ``after``, in order (an entry's stream id is its seq)."""
    found: list[E] = []
    start = f"{after + 1}-0"
    while True:
        rows = await redis.xrange(stream, min=start, count=1000)
        if not rows:
            return found
        found += [decode(fields[b"e"]) for _, fields in rows]
        start = "(" + rows[-1][0].decode()


async def append(
    redis: Any, owner: str, where: LogKeys, batch: Batch[E], encode: Callable[[E], bytes]
) -> str:
    """Append ``batch``: "ok", "lease_lost" or "conflict" (nothing written then)."""
    if batch.empty():
        return "ok"
    key_list = [where.log, where.meta, where.lease, where.commands]
    index: dict[str, int] = {}
    writes: list[str] = []
    for op, key, a, b in batch.writes:
        if key not in index:
            key_list.append(key)
            index[key] = len(key_list)
        writes += [op, str(index[key]), a, b]
    last = batch.entries[-1] if batch.entries else None
    args: list[Any] = [
        owner,
        where.seq_field,
        where.head_field,
        batch.expected_seq,
        last.seq if last else batch.expected_seq,
        last.hash if last else "",
        batch.cursor,
        len(batch.entries),
    ]
    for entry in batch.entries:
        args += [f"{entry.seq}-0", encode(entry)]
    args += writes
    result = await redis.eval(APPEND, len(key_list), *key_list, *args)
    return result.decode() if isinstance(result, bytes) else str(result)


async def meta_field(redis: Any, meta: str, name: str, default: str) -> str:
    """One field of a meta hash (``default`` when the log has not written it)."""
    raw = await redis.hget(meta, name)
    return raw.decode() if raw else default


async def lease(redis: Any, key: str, owner: str, ms: int) -> int:
    """Take or renew the lease for ``ms``: 2 taken now, 1 renewed, 0 another holds it."""
    return int(await redis.eval(LEASE, 1, key, owner, ms))


async def release(redis: Any, key: str, owner: str) -> None:
    """Give the lease up, if it is still ``owner``'s."""
    await redis.eval(RELEASE, 1, key, owner)
