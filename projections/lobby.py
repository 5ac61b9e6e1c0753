"""The lobby projection: one record per table (game, seats, who sits where, state,
options, creation time) and the public listings per state, for the gateway's lobby.

Folded in the views pass of the projector runner (one fold per table serves views, lobby
and scoreboard), and written *before* the views, so a client that sees a view at seq n
finds the record as it stands at seq n. The record shows the seq of the table's last
lifecycle event (create, join, leave, start, the end, a clock run out, an undo, closed:
``TableState.lifecycle_seq``), not the log's: nothing else changes what the lobby shows,
so a move in play writes no record at all (until 2026-12 each move rewrote the record
for its seq alone, which on a Redis Cluster cost a round trip to the lobby's node per
batch). In the lobby phase every event is a lifecycle event, so there the record is as
new as any view (the gateway's ``_record_at`` waits for that). One script
writes a record, its listings and the per-player indexes, guarded by the seq it shows
(redelivery and stale caches are harmless) and by the seq the caller read the previous
record at (so the player indexes are diffed against the record actually replaced). The
listings are described in :mod:`orrery_contracts.lobby`. Listings and player indexes are
written only when the table's state, privacy or verified players change.

Choices: a table is ``open`` before the start, ``playing``, then ``finished``, or
``closed`` when it was not started within the lobby TTL (``table.closed``) or ended
because every seat left (abandoned); each state is listed (``closed`` too); a private
table (flagged by the gateway before its ``table.create``) is never listed; a seat
joined with the bots' verified identity is marked ``bot`` (with its level), a seat a bot
took over from a player who abandoned it ``taken_over`` (with the bot's level, the
player's id kept: the game stays among theirs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from games.table import TableState, bot_of
from orrery_contracts import keys
from orrery_contracts.envelope import decode_entry
from orrery_contracts.lobby import (
    APPLIED_HASH,
    BOTS_ADDED_STREAM,
    BOTS_SET,
    STATES,
    LobbySeat,
    LobbyState,
    LobbyTable,
    gateway_table_key,
    is_bot_player,
    listing_member,
    lobby_list_key,
    lobby_table_decoder,
    lobby_table_key,
    player_tables_key,
)
from projections.writes import LobbyWrite

_json = msgspec.json.Encoder()

# KEYS: 1 applied hash, 2 record, 3.. listing keys (2 per state, in STATES order),
#       then the player index keys: first the removed players', then the current ones'.
# ARGV: 1 table id, 2 seq, 3 record JSON, 4 member, 5 state, 6 private ("1"/"0"),
#       7 seq of the record the caller read ("0": none), 8 removed player count,
#       9 "1" when the listings and player indexes change ("0": the record only).
_SCRIPT = (Path(__file__).parent / "lobby.lua").read_text()


def lobby_state(state: TableState) -> LobbyState:
    if state.phase == "lobby":
        return "open"
    if state.phase == "playing":
        return "playing"
    if state.phase == "closed":  # not started within the lobby TTL (table.closed)
        return "closed"
    return "closed" if state.left and all(state.left) else "finished"


def lobby_record(state: TableState, created_at: int, private: bool) -> LobbyTable:
    players = []
    for seat in range(state.seats):
        name = state.names[seat]
        if name is None:
            continue
        player = state.player_ids[seat] if seat < len(state.player_ids) else ""
        bot = is_bot_player(player)
        level, since = bot_of(state, seat)
        players.append(
            LobbySeat(
                seat=seat,
                name=name,
                player_id=player if player and not bot else None,
                bot=bot,
                left=state.left[seat],
                bot_level=level,
                taken_over=since is not None,
            )
        )
    return LobbyTable(
        table_id=state.table_id,
        game=state.game,
        seats=state.seats,
        players=players,
        state=lobby_state(state),
        options=dict(state.options),
        created_at=created_at,
        seq=record_seq(state),
        private=private,
    )


def record_seq(state: TableState) -> int:
    """The seq the table's record shows: its last lifecycle event's (a state from a
    snapshot written before that was kept has none: then the table's own)."""
    return state.lifecycle_seq or state.seq


def listing_keys(game: str) -> list[str]:
    return [k for s in STATES for k in (lobby_list_key(s), lobby_list_key(s, game))]


def verified_players(record: LobbyTable | None) -> set[str]:
    if record is None:
        return set()
    return {p.player_id for p in record.players if p.player_id}


def taken_over_members(record: LobbyTable) -> list[str]:
    """The bot runner's members (orrery_contracts.lobby.BOTS_SET) of a playing table's
    seats that bots took over."""
    if record.state != "playing":
        return []
    return [f"{record.table_id}|{p.seat}" for p in record.players if p.taken_over]


class LobbyWriter:
    def __init__(self, redis: Any, partitions: int) -> None:
        self.redis = redis
        self.partitions = partitions
        self.script = redis.register_script(_SCRIPT)
        # Facts of a table that never change once it exists.
        self.fixed: dict[str, tuple[int, bool]] = {}
        # The record this writer wrote last per table: the next write replaces it
        # without reading it back (the script's guard refuses it if another writer
        # wrote since, and the write is then read and tried again).
        self.written: dict[str, LobbyTable] = {}

    async def _fixed(self, table_id: str) -> tuple[int, bool]:
        known = self.fixed.get(table_id)
        if known is None:
            pipe = self.redis.pipeline(transaction=False)
            self._queue_fixed(pipe, table_id)
            known = self._keep_fixed(table_id, *await pipe.execute())
        return known

    def _queue_fixed(self, pipe: Any, table_id: str) -> None:
        p = keys.partition_of(table_id, self.partitions)
        pipe.xrange(keys.log_stream(p, table_id), "1-0", "1-0")
        pipe.hget(gateway_table_key(table_id), "private")

    def _keep_fixed(self, table_id: str, first: Any, private: Any) -> tuple[int, bool]:
        created_at = decode_entry(first[0][1][b"e"]).recorded_at if first else 0
        known = (created_at, private == b"1")
        if len(self.fixed) > 20_000:
            self.fixed.clear()
        self.fixed[table_id] = known
        return known

    async def announce_takeovers(self, writes: list[LobbyWrite]) -> None:
        """Give the bot runner the seats bots took over, before the records that show
        them are written (as the gateway does with a bot's join: none is missed; a
        runner waits for the record). Adding a member twice is harmless."""
        members = [m for w in writes for m in taken_over_members(w.record)]
        if not members:
            return
        if await self.redis.sadd(BOTS_SET, *members):
            await self.redis.xadd(
                BOTS_ADDED_STREAM, {"member": members[0]}, maxlen=1000, approximate=True
            )

    def queue_reads(self, pipe: Any, table_id: str) -> int:
        """Queue what a write needs to read first (the record, the seq it was applied
        at, and once per table its fixed facts; nothing after this writer wrote the
        record); returns the number of replies."""
        if table_id in self.written and table_id in self.fixed:
            return 0
        pipe.get(lobby_table_key(table_id))
        pipe.hget(APPLIED_HASH, table_id)
        if table_id in self.fixed:
            return 2
        self._queue_fixed(pipe, table_id)
        return 4

    def call(self, state: TableState, replies: list[Any]) -> LobbyWrite | None:
        """The script call from the replies of :meth:`queue_reads` (None: nothing to
        write). The script answers -1 when the record changed since the read;
        :meth:`write` then reads and tries again."""
        if state.phase == "none":
            return None
        if replies:
            raw, applied = replies[0], replies[1]
            if len(replies) == 4:
                self._keep_fixed(state.table_id, replies[2], replies[3])
            if applied is not None and int(applied) >= record_seq(state):
                return None
            previous = lobby_table_decoder.decode(raw) if raw else None
        else:
            # The record this writer wrote last; whether it is still there is the
            # script's to check (an archived and restored table lost it, for one). A
            # batch handled beside this one may have forgotten it since the reads were
            # queued: then none is assumed, and the script refuses it unless the table
            # has no record indeed (the write is then read and tried again).
            previous = self.written.get(state.table_id)
            applied = previous.seq if previous is not None else None
            if applied is not None and applied >= record_seq(state) and state.seq > applied:
                # Only moves since the record this writer wrote: nothing the lobby shows
                # changed. (The seq it wrote is the script's to check, as above.)
                return None
        created_at, private = self.fixed[state.table_id]
        record = lobby_record(state, created_at, private)
        member = listing_member(created_at, state.table_id)
        current = verified_players(record)
        removed = sorted(verified_players(previous) - current)
        # Most commands change only the record's seq: its listings and player indexes
        # are rewritten only when its state, privacy or verified players change (the
        # script's guard makes ``previous`` the record it replaces).
        relist = (
            previous is None
            or (previous.state, previous.private) != (record.state, record.private)
            or verified_players(previous) != current
        )
        return LobbyWrite(
            state.table_id,
            self.script,
            [
                APPLIED_HASH,
                lobby_table_key(state.table_id),
                *listing_keys(state.game),
                *(player_tables_key(p) for p in removed),
                *(player_tables_key(p) for p in sorted(current)),
            ],
            [
                state.table_id,
                record.seq,
                _json.encode(record),
                member,
                record.state,
                "1" if private else "0",
                int(applied or 0),
                len(removed),
                "1" if relist else "0",
            ],
            record,
        )

    def wrote(self, write: LobbyWrite, reply: Any) -> None:
        """After the script: remember the record it wrote (reply 1), else forget the
        table's (0: a newer one is there; -1: another writer's record)."""
        if reply == 1:
            if len(self.written) > 20_000:
                self.written.clear()
            self.written[write.table_id] = write.record
        else:
            self.written.pop(write.table_id, None)

    async def write(self, state: TableState) -> bool:
        if state.phase == "none":
            return False
        for _ in range(50):
            pipe = self.redis.pipeline(transaction=False)
            self.queue_reads(pipe, state.table_id)
            call = self.call(state, await pipe.execute())
            if call is None:
                return False
            written = await call.run()
            self.wrote(call, written)
            if written != -1:
                return bool(written)
        raise RuntimeError(f"the lobby record of {state.table_id} kept changing")


async def lobby_keys(redis: Any, table_ids: list[str], games: set[str]) -> list[str]:
    """Every key the lobby projection owns (the gateway's own table records excluded)."""
    found = [APPLIED_HASH]
    for game in sorted(games):
        found += [k for k in listing_keys(game) if k not in found]
    players: set[str] = set()
    for table_id in table_ids:
        found.append(lobby_table_key(table_id))
        raw = await redis.get(lobby_table_key(table_id))
        if raw:
            players |= verified_players(lobby_table_decoder.decode(raw))
    found += [player_tables_key(p) for p in sorted(players)]
    return found
