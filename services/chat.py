"""Table chat, the write side: a ``table.say`` command becomes a message in the table's
chat stream, never an event in its log (contract and choices:
``orrery_contracts/chat.py``).

The decider worker hands ``table.say`` here before deciding anything: the author is the
envelope's seat, authenticated by its secret like any command, or a spectator whose
player id the gateway signed into ``identity`` (the gateway also names them). One Lua
script per message does the command-id dedupe (a retry gets the first answer), the
per-author rate limit and the capped append, atomically in the table's hash slot. The
operator's delete lives here too (``orrery chat delete``).
"""

from __future__ import annotations

import time
from pathlib import Path
from secrets import compare_digest
from typing import Any

import msgspec

from games.rejection import Rejected
from games.table import TableState, token_hash
from orrery_contracts import keys
from orrery_contracts.chat import (
    CHAT_CAP,
    CHAT_RATE,
    CHAT_WINDOW_S,
    ChatEntry,
    SayChat,
    entry_encoder,
    normalise_chat_text,
)
from orrery_contracts.envelope import Accepted, CommandEnvelope, Duplicate, Outcome
from orrery_contracts.identity import verified_player
from orrery_contracts.inputs import MAX_NAME, normalise_name

_SAY_LUA = (Path(__file__).parent / "chat.lua").read_text()
_DELETE_LUA = (Path(__file__).parent / "chat_delete.lua").read_text()
SAID_TTL_MS = 3_600_000
_say_json = msgspec.json.Decoder(SayChat)
_say_msgpack = msgspec.msgpack.Decoder(SayChat)


def _author(
    state: TableState, envelope: CommandEnvelope[Any], body: SayChat, identity_key: bytes | None
) -> tuple[str, ChatEntry]:
    """Who posts (the rate limit's author key) and the entry without text and time."""
    seat = envelope.seat
    if seat is not None:
        expected = state.token_hashes[seat] if 0 <= seat < state.seats else None
        token = envelope.token
        if expected is None or token is None or not compare_digest(expected, token_hash(token)):
            raise Rejected("unauthorized", "seat and token do not match a joined seat")
        return f"s{seat}", ChatEntry(seat=seat, name=state.names[seat] or f"seat {seat}")
    player = verified_player(
        identity_key, envelope.table_id, envelope.command_id, envelope.identity
    )
    if not player:
        raise Rejected("unauthorized", "only a seat, or a spectator through the gateway, may chat")
    name = normalise_name(body.name) or "spectator"
    return f"p{player}", ChatEntry(spectator=True, name=name[:MAX_NAME], player=player)


class ChatDesk:
    """Posts and deletes chat messages on one Redis connection (pool)."""

    def __init__(
        self,
        redis: Any,
        partitions: int,
        rate: int = CHAT_RATE,
        window_s: int = CHAT_WINDOW_S,
    ) -> None:
        self.redis = redis
        self.partitions = partitions
        # per author at most ``rate`` messages per ``window_s`` seconds
        self.rate = rate
        self.window_s = window_s
        self._say = redis.register_script(_SAY_LUA)
        self._delete = redis.register_script(_DELETE_LUA)

    async def say(
        self,
        state: TableState,
        envelope: CommandEnvelope[Any],
        as_json: bool,
        identity_key: bytes | None,
    ) -> Outcome:
        table_id = envelope.table_id
        if state.phase == "none":
            raise Rejected("no_such_table", f"table {table_id!r} does not exist")
        try:
            body = (_say_json if as_json else _say_msgpack).decode(envelope.body)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise Rejected("malformed", f"unreadable table.say: {str(error)[:80]}") from None
        author, entry = _author(state, envelope, body, identity_key)
        text = normalise_chat_text(body.text)
        if text is None:
            raise Rejected(
                "bad_text", "a chat message has 1 to 500 characters and no control characters"
            )
        entry = msgspec.structs.replace(entry, text=text, at=int(time.time() * 1000))
        p = keys.partition_of(table_id, self.partitions)
        status, value = await self._say(
            keys=[
                keys.chat_stream(p, table_id),
                keys.chat_rate_key(p, table_id, author),
                keys.chat_said_key(p, table_id, envelope.command_id),
                keys.meta_hash(p, table_id),
            ],
            args=[
                entry_encoder.encode(entry),
                self.rate,
                self.window_s * 1000,
                CHAT_CAP,
                SAID_TTL_MS,
            ],
        )
        status = status.decode() if isinstance(status, bytes) else str(status)
        value = value.decode() if isinstance(value, bytes) else str(value)
        if status == "no_table":
            raise Rejected("no_such_table", f"table {table_id!r} does not exist")
        if status == "rate_limited":
            raise Rejected(
                "rate_limited",
                f"at most {self.rate} messages per {self.window_s} s; wait a moment",
                detail={"retry_after_ms": int(value)},
            )
        accepted = Accepted(
            command_id=envelope.command_id,
            table_id=table_id,
            first_seq=state.seq + 1,
            last_seq=state.seq,
            chat_id=value,
        )
        if status == "dup":
            return Duplicate(command_id=envelope.command_id, table_id=table_id, original=accepted)
        return accepted

    async def delete(self, table_id: str, message_id: str) -> bool:
        """Remove a message, leaving a "deleted" marker; False when there is none."""
        p = keys.partition_of(table_id, self.partitions)
        marker = entry_encoder.encode(ChatEntry(deleted=message_id))
        found = await self._delete(
            keys=[keys.chat_stream(p, table_id)], args=[message_id, marker, CHAT_CAP]
        )
        return bool(found)
