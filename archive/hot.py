"""The Redis side of archiving: reading an ended table's hot keys, removing them behind a
tombstone, and the queue of ended tables.

A table's keys share its partition's hash tag ``{p}``; the lobby's share ``{lobby}``,
the finished-games record ``{lb}``. Each group is changed by one script (one slot, so
the same calls work on a Redis Cluster), in this order, each step idempotent:

1. :data:`_DELETE` (slot ``{p}``) checks that the table is still ended with the head
   the archive verified and that its chat still ends with the entry the archive holds
   (a message said, or deleted, after the copy: ``chat_changed``, nothing deleted, the
   table is copied again), deletes every hot key of the table, its chat stream
   included, takes it out of the partition's table set and the clocks' deadlines
   index, and writes its tombstone (``head``, ``finished``, ``archived``: well under
   200 bytes). Atomic: a crash leaves either the whole table or its tombstone.
2. :data:`_LOBBY` (slot ``{lobby}``) removes the lobby record, its listing members and
   the players' index members; then the finished-games record (``{lb}``) loses its entry
   (the ratings keep what it gave; history is in the archive).
3. :data:`_DONE` (slot ``{p}``) takes the table out of the ended queue and drops the
   lease. Until then the table stays queued, so an archiver killed between steps
   resumes at the next one (a tombstone with a queue entry means: steps 2 and 3 left).

:data:`_READ` reads the meta hash's head, the log and the chat stream in one script (one
consistent moment); :data:`_RESTORE_CHAT` puts an archived chat back (``orrery archive
restore``). The chat's rate and dedupe keys (``chat:rate:*``, ``chat:said:*``) are not
among the keys a table names (``keys.chat_keys``): they expire on their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from archive.model import ChatEntries
from orrery_contracts import keys
from orrery_contracts.envelope import RawEnvelope, decode_entry
from orrery_contracts.lobby import (
    APPLIED_HASH,
    STATES,
    listing_member,
    lobby_list_key,
    lobby_table_decoder,
    lobby_table_key,
    player_tables_key,
)

ENDED_PHASES = (b"finished", b"closed")
# what restore_chat answers when it wrote nothing
ALREADY_CHATTING = -1
TABLE_IN_REDIS = -2

# KEYS: 1 meta, 2 tombstone, 3 partition tables set, 4 partition deadlines index,
#       5 the table's deadline members, 6 chat stream, 7.. every other key of the table
#       (5 and after: deleted)
# ARGV: 1 table id, 2 seq, 3 head hash, 4 finished (ms), 5 archived (ms),
#       6 the archived chat's last entry id ('': no chat)
_DELETE = (Path(__file__).parent / "hot_delete.lua").read_text()

# The meta hash's head and the log up to it in one reply: the entries concatenated, each
# after its length (4 bytes, big-endian), so a long log is one bulk string, not a
# thousand nested replies for the client to parse.
# The chat comes as XRANGE gives it (at most ``chat.CHAT_CAP`` entries).
# KEYS: 1 meta, 2 log, 3 chat stream
_READ = (Path(__file__).parent / "hot_read.lua").read_text()

# Only into an empty stream of a table not in Redis: a chat is never overwritten, and a
# live table of the same id never gets another's chat.
# KEYS: 1 chat stream, 2 meta; ARGV: id, data, id, data, ... (oldest first)
_RESTORE_CHAT = (Path(__file__).parent / "hot_restore_chat.lua").read_text()

# KEYS: 1 lobby applied hash, 2 lobby record, 3.. listings and players' indexes
# ARGV: 1 table id, 2 listing member
_LOBBY = (Path(__file__).parent / "hot_lobby.lua").read_text()

# KEYS: 1 ended queue, 2 lease; ARGV: 1 table id
_DONE = (Path(__file__).parent / "hot_done.lua").read_text()


def table_keys(p: int, t: str, seats: int) -> list[str]:
    """Every key of table ``t`` in partition ``p`` (its deadlines key included; the
    tombstone and the lease are not the table's)."""
    return [
        keys.meta_hash(p, t),
        keys.log_stream(p, t),
        keys.outcomes_hash(p, t),
        keys.snapshot_key(p, t),
        keys.secret_key(p, t),
        keys.updates_stream(p, t),
        keys.score_key(p, t),
        keys.notified_hash(p, t),
        keys.table_deadlines_key(p, t),
        *keys.chat_keys(p, t),
        keys.view_key(p, t, None),
        *(keys.view_key(p, t, s) for s in range(seats)),
        *(keys.notice_stream(p, t, s) for s in range(seats)),
        *(keys.projection_seq_key(p, t, g) for g in (*keys.PROJECTIONS, keys.NOTICES)),
    ]


@dataclass(frozen=True)
class HotTable:
    """An ended table as Redis holds it (its head from the meta hash, read first), with
    its chat stream's entries."""

    table_id: str
    seq: int
    head_hash: str
    phase: str
    entries: list[RawEnvelope]
    chat: ChatEntries = field(default_factory=list)

    @property
    def chat_top(self) -> str:
        """The chat's last entry id ('': no chat): what the delete checks."""
        return self.chat[-1][0] if self.chat else ""


def chat_entry(row: Any) -> tuple[str, bytes]:
    """One chat stream entry as XRANGE gives it → ``(id, __data__)``."""
    entry_id, fields = row
    pairs = dict(zip(fields[0::2], fields[1::2], strict=True))
    return bytes(entry_id).decode(), bytes(pairs.get(b"__data__", b""))


class HotKeys:
    """The scripts above, registered once per Redis client."""

    def __init__(self, redis: Any, partitions: int) -> None:
        self.redis = redis
        self.partitions = partitions
        self._read = redis.register_script(_READ)
        self._delete = redis.register_script(_DELETE)
        self._lobby = redis.register_script(_LOBBY)
        self._done = redis.register_script(_DONE)
        self._restore_chat = redis.register_script(_RESTORE_CHAT)

    def partition(self, table_id: str) -> int:
        return keys.partition_of(table_id, self.partitions)

    async def read(self, table_id: str) -> HotTable | None:
        """The table's log up to the head its meta hash names (None: no meta hash)."""
        p = self.partition(table_id)
        reply = await self._read(
            keys=[
                keys.meta_hash(p, table_id),
                keys.log_stream(p, table_id),
                keys.chat_stream(p, table_id),
            ]
        )
        if not reply:
            return None
        seq, head, phase, packed, chat_rows = reply
        entries = []
        view, at = memoryview(packed), 0
        while at < len(view):
            size = int.from_bytes(view[at : at + 4], "big")
            entries.append(decode_entry(bytes(view[at + 4 : at + 4 + size])))
            at += 4 + size
        return HotTable(
            table_id=table_id,
            seq=int(seq),
            head_hash=bytes(head).decode(),
            phase=bytes(phase).decode(),
            entries=entries,
            chat=[chat_entry(row) for row in chat_rows],
        )

    async def tombstone(self, table_id: str) -> dict[str, str]:
        p = self.partition(table_id)
        found = await self.redis.hgetall(keys.tombstone_key(p, table_id))
        return {k.decode(): v.decode() for k, v in found.items()}

    async def delete(self, table: HotTable, seats: int, finished_at: int, archived_at: int) -> str:
        """Step 1: ``deleted``, ``gone`` (done before), ``missing`` (no table, no
        tombstone), ``changed`` (not ended, or another head) or ``chat_changed`` (the
        chat moved on since it was read): nothing deleted on the last two."""
        p = self.partition(table.table_id)
        t = table.table_id
        # (KEYS 1, 5 and 6)
        named = {keys.meta_hash(p, t), keys.table_deadlines_key(p, t), keys.chat_stream(p, t)}
        doomed = [k for k in table_keys(p, t, seats) if k not in named]
        reply = await self._delete(
            keys=[
                keys.meta_hash(p, t),
                keys.tombstone_key(p, t),
                keys.tables_set(p),
                keys.deadlines_zset(p),
                keys.table_deadlines_key(p, t),
                keys.chat_stream(p, t),
                *doomed,
            ],
            args=[t, table.seq, table.head_hash, finished_at, archived_at, table.chat_top],
        )
        return reply.decode() if isinstance(reply, bytes) else str(reply)

    async def forget_elsewhere(
        self, table_id: str, game: str, created_at: int, players: set[str]
    ) -> None:
        """Step 2: the lobby's record, listings and players' indexes; the finished-games
        record."""
        raw = await self.redis.get(lobby_table_key(table_id))
        if raw:
            record = lobby_table_decoder.decode(raw)
            created_at, game = record.created_at, record.game
            players |= {p.player_id for p in record.players if p.player_id}
        listings = [k for s in STATES for k in (lobby_list_key(s), lobby_list_key(s, game))]
        await self._lobby(
            keys=[
                APPLIED_HASH,
                lobby_table_key(table_id),
                *listings,
                *(player_tables_key(p) for p in sorted(players)),
            ],
            args=[table_id, listing_member(created_at, table_id)],
        )
        await self.redis.hdel(keys.FINISHED_TABLES, table_id)

    async def restore_chat(self, table_id: str, chat: ChatEntries) -> int:
        """Puts an archived chat back into the chat stream of a table that is not in
        Redis (do it before the log); how many entries, or :data:`ALREADY_CHATTING`
        (the stream has entries, left as they are) or :data:`TABLE_IN_REDIS`."""
        if not chat:
            return 0
        p = self.partition(table_id)
        flat = [part for entry in chat for part in entry]
        found = await self._restore_chat(
            keys=[keys.chat_stream(p, table_id), keys.meta_hash(p, table_id)], args=flat
        )
        return int(found)

    async def done(self, table_id: str) -> None:
        """Step 3: out of the queue, lease dropped."""
        p = self.partition(table_id)
        await self._done(
            keys=[keys.ended_zset(p), keys.archiving_key(p, table_id)], args=[table_id]
        )

    async def lease(self, table_id: str, holder: str, ms: int) -> bool:
        """Takes (or keeps) the table's archiving lease; False: another archiver has it."""
        key = keys.archiving_key(self.partition(table_id), table_id)
        if await self.redis.set(key, holder, nx=True, px=ms):
            return True
        if await self.redis.get(key) == holder.encode():
            await self.redis.pexpire(key, ms)
            return True
        return False

    async def due(self, p: int, before_ms: int, count: int) -> list[tuple[str, int]]:
        rows = await self.redis.zrangebyscore(
            keys.ended_zset(p), "-inf", before_ms, start=0, num=count, withscores=True
        )
        return [(m.decode(), int(score)) for m, score in rows]

    async def backlog(self) -> tuple[int, int | None]:
        """Ended tables not archived yet, and the oldest end time (ms) among them."""
        pipe = self.redis.pipeline(transaction=False)
        for p in range(self.partitions):
            pipe.zcard(keys.ended_zset(p))
            pipe.zrange(keys.ended_zset(p), 0, 0, withscores=True)
        replies = await pipe.execute()
        count = sum(int(n) for n in replies[0::2])
        oldest = [int(rows[0][1]) for rows in replies[1::2] if rows]
        return count, min(oldest) if oldest else None

    async def sweep(self, now_ms: int) -> int:
        """Queues ended tables that are not queued (finished before the queue existed, or
        restored by hand); returns how many."""
        added = 0
        for p in range(self.partitions):
            cursor = 0
            while True:
                cursor, members = await self.redis.sscan(keys.tables_set(p), cursor, count=500)
                ids = [m.decode() for m in members]
                if ids:
                    pipe = self.redis.pipeline(transaction=False)
                    for table_id in ids:
                        pipe.hget(keys.meta_hash(p, table_id), "phase")
                    phases = await pipe.execute()
                    ended = {
                        t: now_ms for t, ph in zip(ids, phases, strict=True) if ph in ENDED_PHASES
                    }
                    if ended:
                        added += int(await self.redis.zadd(keys.ended_zset(p), ended, nx=True))
                if int(cursor) == 0:
                    break
        return added
