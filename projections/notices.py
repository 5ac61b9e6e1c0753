"""The clocks' read side: the deadlines index the timekeeper polls, and "your turn" notices.

Written by the views projector right after a table's views, from the same folded state,
by one script per table that ignores a seq it has already applied (redelivery, a stale
projector and rebuilds are harmless). Choices:

* the index is a projection, not part of the worker's append: it is rebuilt from the logs
  like any read model and costs the write path nothing. It only says when to *ask*: a
  stale or missing member delays an expiry or makes the timekeeper send one the decider
  refuses (``not_expired``); the log's times decide;
* one sorted set per partition (``orrery:{p}:deadlines``, scores in unix ms): member
  ``<table>|<seat>|<turn>`` for a running clock (its deadline), ``<table>|close`` for a
  table in the lobby (created at + ``ORRERY_LOBBY_TTL_S``). A table's current members are
  kept beside it, so its old ones go in the same script;
* a notice per (table, seat, turn), never twice: ``…:notified`` holds the last turn
  notified per seat; it survives rebuilds and goes when the table ends. Notices go to the
  seat's stream (``orrery:{p}:t:<table>:notice:<seat>``) and, for a verified player, to
  ``orrery:notice:<player_id>`` (another hash slot, so written after the script: a crash in
  between loses that copy, never doubles it), and then to the notifiers' input stream
  (``orrery:{ntf}:notices``, with the player: notify/notifier.py). All are capped; the
  player's stream expires when idle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from games.table import TableState, seat_deadline, settle_turns
from orrery_contracts import keys
from orrery_contracts.lobby import BOT_PLAYER_ID
from orrery_contracts.notices import YourTurn
from projections.settings import ProjectorSettings
from projections.writes import NoticesWrite

# A seat's stream at a table keeps its newest few "your turn" notices (only the newest
# is news; a reader behind by more is told the newest); a player's keeps ~1,000, as it
# carries the player's other notices too (invitations, friends, matches).
SEAT_NOTICES_MAXLEN = 16
NOTICES_MAXLEN = 1_000
NOTIFY_MAXLEN = 100_000  # the notifiers' input: read within seconds while one runs
_SCRIPT = (Path(__file__).parent / "notices.lua").read_text()
_json = msgspec.json.Encoder()


def deadline_members(state: TableState, lobby_ttl_ms: int) -> list[tuple[str, int]]:
    """The table's members of the deadlines index, with their due times (unix ms)."""
    t = state.table_id
    if state.phase == "lobby":
        return [(keys.close_member(t), state.created_at + lobby_ttl_ms)] if lobby_ttl_ms > 0 else []
    if state.phase != "playing" or state.clock is None:
        return []
    members = []
    for seat, turn in enumerate(state.turn_seq):
        deadline = seat_deadline(state, seat)
        if turn and deadline is not None:
            members.append((keys.expiry_member(t, seat, turn), deadline))
    return members


class NoticeWriter:
    def __init__(
        self, redis: Any, partitions: int, settings: ProjectorSettings | None = None
    ) -> None:
        settings = settings or ProjectorSettings.from_env()
        self.redis = redis
        self.partitions = partitions
        self.script = redis.register_script(_SCRIPT)
        self.lobby_ttl_ms = round(settings.lobby_ttl_s * 1000)
        self.notice_ttl_s = settings.notice_ttl_s

    async def write(self, state: TableState) -> list[int]:
        """Index the table's deadlines and notify seats whose turn began; returns them."""
        call = self.call(state)
        if call is None:
            return []
        return await self.sent(await call.run(), call.to_players)

    def call(self, state: TableState) -> NoticesWrite | None:
        """The script call, with the candidate seats' turns (None: a table that does
        not exist yet)."""
        if state.phase == "none":
            return None
        settle_turns(state)
        p = keys.partition_of(state.table_id, self.partitions)
        members = deadline_members(state, self.lobby_ttl_ms)
        candidates = []
        if state.phase == "playing":
            candidates = [(s, turn) for s, turn in enumerate(state.turn_seq) if turn]
        argv: list[Any] = [
            state.seq,
            SEAT_NOTICES_MAXLEN,
            "1" if state.phase in ("finished", "closed") else "0",
            len(members),
        ]
        for member, score in members:
            argv += [member, score]
        to_players: dict[int, tuple[str, bytes]] = {}
        for seat, turn in candidates:
            notice = _json.encode(
                YourTurn(
                    table_id=state.table_id,
                    seat=seat,
                    seq=turn,
                    deadline_ms=seat_deadline(state, seat),
                )
            )
            argv += [seat, turn, notice]
            if player := state.player_ids[seat]:
                to_players[seat] = (player, notice)
        script_keys = [
            keys.projection_seq_key(p, state.table_id, keys.NOTICES),
            keys.notified_hash(p, state.table_id),
            keys.deadlines_zset(p),
            keys.table_deadlines_key(p, state.table_id),
            *(keys.notice_stream(p, state.table_id, seat) for seat, _ in candidates),
        ]
        return NoticesWrite(state.table_id, self.script, script_keys, argv, to_players)

    async def sent(self, result: Any, to_players: dict[int, tuple[str, bytes]]) -> list[int]:
        """After the script: the seats it notified, each also told on its verified
        player's own stream (``to_players``: the call's, fixed when it was built)."""
        seats = [int(seat) for seat in result]
        players = [to_players[seat] for seat in seats if seat in to_players]
        if not players:
            return seats
        pipe = self.redis.pipeline(transaction=False)
        for player, notice in players:
            stream = keys.player_notice_stream(player)
            pipe.xadd(stream, {"__data__": notice}, maxlen=NOTICES_MAXLEN, approximate=True)
            pipe.expire(stream, self.notice_ttl_s)
            if not player.startswith(BOT_PLAYER_ID):  # the notifiers' input (notify/notifier.py)
                fields = {"__data__": notice, "player": player}
                pipe.xadd(keys.NOTIFY_STREAM, fields, maxlen=NOTIFY_MAXLEN, approximate=True)
        await pipe.execute()
        return seats
