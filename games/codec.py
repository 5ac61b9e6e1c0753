"""Typed msgpack/JSON decoders per game: lifecycle bodies plus the game's own tagged union.

A table's first event names its game; from then on its commands and events decode
with that game's union. Decoders are built once per game and reused.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Union

import msgspec

from games.registry import get_game
from orrery_contracts.chat import SayChat
from orrery_contracts.table import (
    ClockExpired,
    CloseTable,
    CreateTable,
    EndRequest,
    ExpireClock,
    ExpireSeat,
    JoinRequest,
    JoinSeat,
    LeaveSeat,
    LeaveTable,
    SeatJoined,
    SeatLeft,
    SeatTakenOver,
    StartTable,
    TableClosed,
    TableCreated,
    TableFinished,
    TableStarted,
    TableUndone,
    UndoTable,
)

TABLE_COMMANDS: tuple[type[msgspec.Struct], ...] = (
    CreateTable,
    JoinSeat,
    StartTable,
    LeaveSeat,
    ExpireSeat,
    CloseTable,
    EndRequest,
    UndoTable,
)
# what a client may send (the schema's union): the join without service-filled fields,
# and table.say (a chat message: the worker posts it to the chat, it is never decided)
CLIENT_TABLE_COMMANDS: tuple[type[msgspec.Struct], ...] = (
    CreateTable,
    JoinRequest,
    StartTable,
    LeaveTable,
    ExpireClock,
    CloseTable,
    EndRequest,
    UndoTable,
    SayChat,
)
TABLE_EVENTS: tuple[type, ...] = (
    TableCreated,
    SeatJoined,
    SeatLeft,
    SeatTakenOver,
    TableStarted,
    TableFinished,
    ClockExpired,
    TableClosed,
    TableUndone,
)


def _union(types: tuple[type, ...]) -> Any:
    return Union[types]  # noqa: UP007 - built at run time from a tuple


def command_union(game_name: str | None) -> Any:
    game = get_game(game_name) if game_name else None
    return _union(TABLE_COMMANDS + (game.command_types if game else ()))


def client_command_union(game_name: str | None) -> Any:
    """What a client may send (the schema's command union): a join without the fields
    only the service fills in."""
    game = get_game(game_name) if game_name else None
    return _union(CLIENT_TABLE_COMMANDS + (game.command_types if game else ()))


def event_union(game_name: str | None) -> Any:
    game = get_game(game_name) if game_name else None
    return _union(TABLE_EVENTS + (game.event_types if game else ()))


class Codec:
    """Encoders/decoders of one game's bodies (``game_name=None``: lifecycle only)."""

    def __init__(self, game_name: str | None) -> None:
        commands = command_union(game_name)
        events = event_union(game_name)
        game = get_game(game_name) if game_name else None
        types = TABLE_COMMANDS + (game.command_types if game else ())
        self.command_tags = frozenset(str(t.__struct_config__.tag) for t in types)
        self.command_msgpack = msgspec.msgpack.Decoder(commands)
        self.command_json = msgspec.json.Decoder(commands)
        self.event_msgpack = msgspec.msgpack.Decoder(events)

    def decode_command(self, data: bytes | msgspec.Raw, is_json: bool) -> Any:
        if is_json:
            return self.command_json.decode(data)
        return self.command_msgpack.decode(data)

    def decode_event(self, data: bytes | msgspec.Raw) -> Any:
        return self.event_msgpack.decode(data)


@cache
def codec_for(game_name: str | None) -> Codec:
    return Codec(game_name)


msgpack_encoder = msgspec.msgpack.Encoder()
json_encoder = msgspec.json.Encoder()
