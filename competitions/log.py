"""The tournaments' logs in Redis: reading one, and the one script that appends a
tournament's decisions with the command cursor and what players read, after checking
that the caller still holds the organiser's lease and the log is where it left it.
Keys: orrery_contracts.keys (tag {mm})."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from competitions.events import TournamentEntry, entry_decoder, entry_encoder
from orrery_contracts import keys

APPEND = (Path(__file__).parent / "log_append.lua").read_text()
LEASE = (Path(__file__).parent / "log_lease.lua").read_text()
RELEASE = (Path(__file__).parent / "log_release.lua").read_text()


@dataclass
class Batch:
    tournament_id: str
    expected_seq: int
    head: str
    entries: list[TournamentEntry] = field(default_factory=list)
    cursor: str = ""
    writes: list[tuple[str, str, str, str]] = field(default_factory=list)

    def set(self, key: str, value: bytes | str, ttl_ms: int = 0) -> None:
        text = value.decode() if isinstance(value, bytes) else value
        self.writes.append(("set", key, text, str(ttl_ms)))

    def zadd(self, key: str, member: str, score: int) -> None:
        self.writes.append(("zadd", key, member, str(score)))


async def read_log(redis: Any, tournament_id: str) -> list[TournamentEntry]:
    found: list[TournamentEntry] = []
    start = "1-0"
    while True:
        rows = await redis.xrange(keys.tournament_log(tournament_id), min=start, count=1000)
        if not rows:
            return found
        found += [entry_decoder.decode(fields[b"e"]) for _, fields in rows]
        start = "(" + rows[-1][0].decode()


async def append(redis: Any, owner: str, batch: Batch) -> str:
    """ "ok", "lease_lost" or "conflict" (nothing written then)."""
    key_list = [
        keys.tournament_log(batch.tournament_id),
        keys.tournament_meta(),
        keys.tournament_lease(),
        keys.tournament_command_stream(),
    ]
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
        batch.tournament_id,
        batch.expected_seq,
        last.seq if last else batch.expected_seq,
        last.hash if last else batch.head,
        batch.cursor,
        len(batch.entries),
    ]
    for entry in batch.entries:
        args += [f"{entry.seq}-0", entry_encoder.encode(entry)]
    args += writes
    result = await redis.eval(APPEND, len(key_list), *key_list, *args)
    return result.decode() if isinstance(result, bytes) else str(result)


async def cursor_of(redis: Any) -> str:
    raw = await redis.hget(keys.tournament_meta(), "cursor")
    return raw.decode() if raw else "0-0"


async def tournament_ids(redis: Any) -> list[str]:
    return [m.decode() for m in await redis.zrange(keys.tournaments_index(), 0, -1)]


async def lease(redis: Any, owner: str, ms: int) -> int:
    return int(await redis.eval(LEASE, 1, keys.tournament_lease(), owner, ms))


async def release(redis: Any, owner: str) -> None:
    await redis.eval(RELEASE, 1, keys.tournament_lease(), owner)
