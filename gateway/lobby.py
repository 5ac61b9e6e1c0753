"""The lobby: create a table, list the tables, one table's summary, join, start and
leave. Create, join, start and leave answer once the lobby and the views show them, so
the very next request finds the table as it answered.
"""

from __future__ import annotations

import secrets
from typing import Any

import msgspec

from gateway import crypto
from gateway.bodies import integral
from gateway.erased import shown_records
from gateway.errors import ApiError
from gateway.models import TableDetail, TableList, TableMade
from gateway.tables import (
    CURSOR,
    MAX_LIST,
    PROJECTION_WAIT_S,
    Tables,
    outcome_document,
    outcome_status,
    seat_of,
    summary,
)
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Duplicate, Rejection, decode_entry
from orrery_contracts.lobby import LISTED_STATES, gateway_table_key, lobby_list_key
from orrery_contracts.table import CreateTable, LeaveTable, OnAbandon, StartTable


class _PublicStatus(msgspec.Struct):
    """What the table summary reads from the spectator's view."""

    seq: int = 0
    phase: str = ""
    game_phase: str = ""
    round: int = 0
    to_move: list[int] = []


_public_status = msgspec.json.Decoder(_PublicStatus)
_PHASES = {"open": "lobby", "playing": "playing", "finished": "finished", "closed": "closed"}


class Lobby:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.redis = tables.redis
        self.client = tables.client

    async def create(
        self,
        player_id: str,
        game: str,
        seats: int,
        options: dict[str, Any],
        private: bool,
        *,
        rated: bool = True,
        on_abandon: OnAbandon | None = None,
        bot_level: str | None = None,
    ) -> TableMade:
        table_id = "t" + secrets.token_hex(8)
        invite = crypto.new_invite() if private else None
        info = {"creator": player_id, "private": "1" if private else "0"}
        if invite:
            info["invite"] = crypto.invite_hash(invite)
        # Before the create: the lobby projection reads the private flag when it folds it.
        await self.redis.hset(gateway_table_key(table_id), mapping=info)
        # (``2.0`` is an integer option as JSON Schema counts: gateway.bodies.integral)
        create = CreateTable(
            game=game,
            seats=seats,
            options=integral(options),
            rated=rated,
            on_abandon=on_abandon,
            bot_level=bot_level,
        )
        outcome = await self.tables.send(table_id, create)
        if isinstance(outcome, Duplicate):
            outcome = outcome.original
        if isinstance(outcome, Rejection):
            await self.redis.delete(gateway_table_key(table_id))
            raise ApiError(422, outcome.code, outcome.message, extra={"detail": outcome.detail})
        await self.client.wait_projected(table_id, outcome.last_seq, PROJECTION_WAIT_S)
        return TableMade(table_id=table_id, invite=invite)

    async def join(
        self, player_id: str, table_id: str, seat: int | None, invite: str | None
    ) -> int:
        record = await self.tables.record(table_id)
        info = await self.redis.hgetall(gateway_table_key(table_id))
        creator = info.get(b"creator", b"").decode()
        if (
            info.get(b"private") == b"1"
            and creator != player_id
            and info.get(f"invited:{player_id}".encode()) != b"1"  # a friend's invitation
            and not crypto.same_invite(invite, info.get(b"invite", b"").decode())
        ):
            raise ApiError(403, "bad_invite", "this private table needs its invite")
        if seat_of(record, player_id) is not None:
            raise ApiError(409, "already_seated", "you already hold a seat at this table")
        lock = f"orrery:gw:joining:{table_id}:{player_id}"
        if not await self.redis.set(lock, "1", nx=True, px=30_000):
            raise ApiError(409, "busy", "another join of yours at this table is under way")
        try:
            name = await self.tables.accounts.name_of(player_id)
            if name is None:
                raise ApiError(401, "unauthorized", "this account no longer exists")
            return await self.tables.take_seat(record, seat, name, player_id)
        finally:
            await self.redis.delete(lock)

    async def lifecycle(self, player_id: str, table_id: str, body: Any) -> tuple[int, Any]:
        """Start or leave for the caller's seat: (status, outcome document), once the
        lobby and the views show it (like create and join)."""
        _, seat = await self.tables.seated(table_id, player_id)
        outcome = await self.tables.send(
            table_id, body, seat=seat, token=self.tables.seat_token(table_id, seat, player_id)
        )
        applied = outcome.original if isinstance(outcome, Duplicate) else outcome
        if isinstance(applied, Accepted):
            await self.client.wait_projected(table_id, applied.last_seq, PROJECTION_WAIT_S)
        return outcome_status(outcome), outcome_document(outcome)

    async def start(self, player_id: str, table_id: str) -> tuple[int, Any]:
        return await self.lifecycle(player_id, table_id, StartTable())

    async def leave(self, player_id: str, table_id: str) -> tuple[int, Any]:
        return await self.lifecycle(player_id, table_id, LeaveTable())

    async def detail(self, table_id: str) -> TableDetail:
        """The table as the lobby shows it, with its public status (whose turn, …)."""
        (record,) = await shown_records(self.redis, [await self.tables.record(table_id)])
        raw = await self.client.view_raw(table_id, None)
        status = _public_status.decode(raw) if raw is not None else _PublicStatus()
        taken = {p.seat for p in record.players}
        finished_at = None
        if record.state in ("finished", "closed"):
            p = self.client.partition(table_id)
            head = await self.redis.xrevrange(keys.log_stream(p, table_id), count=1)
            if head:
                finished_at = decode_entry(head[0][1][b"e"]).recorded_at
            elif (archived := await self.tables.archived_record(table_id)) is not None:
                finished_at = archived[1]
                replayer = self.tables.replayer
                if raw is None and replayer is not None:
                    found = await replayer.replay(table_id, None)
                    raw = found[1] if found is not None else None
                    if raw is not None:
                        status = _public_status.decode(raw)
        return TableDetail(
            **msgspec.structs.asdict(summary(record)),
            private=record.private,
            bots=[p.seat for p in record.players if p.bot or p.taken_over],
            open_seats=[s for s in range(record.seats) if s not in taken],
            phase=status.phase or _PHASES[record.state],
            game_phase=status.game_phase,
            round=status.round,
            to_move=status.to_move,
            seq=status.seq if raw is not None else record.seq,
            finished_at=finished_at,
        )

    async def listing(
        self, game: str | None, state: str, limit: int, cursor: str | None
    ) -> TableList:
        if state not in LISTED_STATES:
            raise ApiError(422, "bad_state", "state is one of: " + ", ".join(LISTED_STATES))
        if game is not None:
            self.tables.check_game(game)
        if cursor is not None and not CURSOR.match(cursor):
            raise ApiError(422, "bad_cursor", "the cursor is not one this API gave out")
        limit = max(1, min(limit, MAX_LIST))
        if state in ("finished", "closed") and self.tables.archived is not None:
            return await self._ended_listing(game, state, limit, cursor)
        members = await self.redis.zrevrangebylex(
            lobby_list_key(state, game),
            f"({cursor}" if cursor else "+",
            "-",
            start=0,
            num=limit,
        )
        records = await self.tables.records([m.decode().split(":", 1)[1] for m in members])
        records = await shown_records(self.redis, records)
        more = len(members) == limit
        return TableList(
            tables=[summary(r) for r in records],
            next=members[-1].decode() if more else None,
        )

    async def _ended_listing(
        self, game: str | None, state: str, limit: int, cursor: str | None
    ) -> TableList:
        """Ended tables, newest finish first (cursor ``<finished_at:015d>:<table id>``):
        the archived ones from the archive (the private ones left out, as the lobby
        does), those ended less than ``ORRERY_ARCHIVE_AFTER_S`` ago from the lobby."""
        assert self.tables.archived is not None
        after = None
        if cursor is not None:
            finished, _, table_id = cursor.partition(":")
            after = (int(finished), table_id)
        archived, more = await self.tables.archived.ended(game, state, after, limit)
        listed = [
            (finished_at, record)
            for record, finished_at in archived
            if await self.redis.hget(gateway_table_key(record.table_id), "private") != b"1"
        ]
        seen = {record.table_id for _, record in listed}
        members = await self.redis.zrange(lobby_list_key(state, game), 0, -1)
        for record in await self.tables.records([m.decode().split(":", 1)[1] for m in members]):
            p = self.client.partition(record.table_id)
            head = await self.redis.xrevrange(keys.log_stream(p, record.table_id), count=1)
            if not head or record.table_id in seen:
                continue  # being archived: the archive answers for it
            finished_at = decode_entry(head[0][1][b"e"]).recorded_at
            if after is None or (finished_at, record.table_id) < after:
                listed.append((finished_at, record))
        listed.sort(key=lambda item: (item[0], item[1].table_id), reverse=True)
        more = more or len(listed) > limit
        listed = listed[:limit]
        last = listed[-1] if listed else None
        shown = await shown_records(self.redis, [record for _, record in listed])
        return TableList(
            tables=[summary(record) for record in shown],
            next=f"{last[0]:015d}:{last[1].table_id}" if more and last else None,
        )
