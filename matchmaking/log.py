"""The matchmaking log in Redis: reading a game's log, and the one script that appends a
batch of decisions together with everything they change (the log's meta and command
cursor, what players read, the answers), after checking that the caller still holds the
game's lease and the log is where it left it. Keys: orrery_contracts.keys (tag {mm}).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matchmaking.queue import GENESIS
from orrery_contracts import keys
from orrery_contracts.matchmaking import QueueEntry, queue_entry_decoder, queue_entry_encoder

APPEND = (Path(__file__).parent / "log_append.lua").read_text()

LEASE = (Path(__file__).parent / "log_lease.lua").read_text()

RELEASE = (Path(__file__).parent / "log_release.lua").read_text()


@dataclass
class Batch:
    """What one append writes: log entries, the new cursor, and the writes beside them
    (``set`` key value ttl_ms, ``zadd`` key member score, ``zkeep`` key count)."""

    game: str
    expected_seq: int
    entries: list[QueueEntry] = field(default_factory=list)
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


async def read_log(redis: Any, game: str, after: int = 0) -> list[QueueEntry]:
    """The game's log entries after seq ``after``, in order."""
    found: list[QueueEntry] = []
    start = f"{after + 1}-0"
    while True:
        rows = await redis.xrange(keys.queue_log(game), min=start, count=1000)
        if not rows:
            return found
        for _, fields in rows:
            found.append(queue_entry_decoder.decode(fields[b"e"]))
        start = "(" + rows[-1][0].decode()


async def append(redis: Any, owner: str, batch: Batch) -> str:
    """Append ``batch``: "ok", "lease_lost" or "conflict" (nothing written then)."""
    if batch.empty():
        return "ok"
    game = batch.game
    key_list = [
        keys.queue_log(game),
        keys.queue_meta(game),
        keys.queue_lease(game),
        keys.queue_command_stream(game),
    ]
    index: dict[str, int] = {}
    writes: list[str] = []
    for op, key, a, b in batch.writes:
        if key not in index:
            key_list.append(key)
            index[key] = len(key_list)
        writes += [op, str(index[key]), a, b]
    last = batch.entries[-1] if batch.entries else None
    new_seq = last.seq if last else batch.expected_seq
    head = await _head(redis, game) if last is None else last.hash
    args: list[Any] = [
        owner,
        batch.expected_seq,
        new_seq,
        head,
        batch.cursor,
        len(batch.entries),
    ]
    for entry in batch.entries:
        args += [f"{entry.seq}-0", queue_entry_encoder.encode(entry)]
    args += writes
    result = await redis.eval(APPEND, len(key_list), *key_list, *args)
    return result.decode() if isinstance(result, bytes) else str(result)


async def _head(redis: Any, game: str) -> str:
    raw = await redis.hget(keys.queue_meta(game), "head")
    return raw.decode() if raw else GENESIS


async def cursor_of(redis: Any, game: str) -> str:
    raw = await redis.hget(keys.queue_meta(game), "cursor")
    return raw.decode() if raw else "0-0"


async def lease(redis: Any, game: str, owner: str, ms: int) -> int:
    return int(await redis.eval(LEASE, 1, keys.queue_lease(game), owner, ms))


async def release(redis: Any, game: str, owner: str) -> None:
    await redis.eval(RELEASE, 1, keys.queue_lease(game), owner)
