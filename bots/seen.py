"""What a bot reads: its seat's wire view decoded into the game's own types.

The view dict is what the gateway and the SDK hand a player: the table's view with the
game's view under ``view`` and the seat's ``legal`` commands. The game's part decodes
into the game's ``view_type``, the legal moves (table commands left out) into its
command types; nothing else of the dict is read. A command is keyed by its JSON wire
encoding, which is how the search tells moves apart across determinizations.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Union

import msgspec

from games.protocol import Game
from games.registry import get_game
from orrery_contracts.base import CommandBody, ViewBody
from orrery_contracts.table import NOT_MOVES

_encoder = msgspec.json.Encoder()


def key(command: CommandBody) -> bytes:
    """The command's wire encoding: equal for equal commands, whatever state made them."""
    return _encoder.encode(command)


@cache
def _union(types: tuple[type[CommandBody], ...]) -> Any:
    return Union[types]  # noqa: UP007 - built at run time from a tuple


def command_type(game: Game[Any]) -> Any:
    """The union of the game's command types, which a wire command dict converts into."""
    return _union(game.command_types)


@dataclass(frozen=True, slots=True)
class Seen:
    """One seat's view of a game: the game, the seat, its decoded view and its moves
    (``moves[i]`` decodes ``wire[i]``, an entry of the view's ``legal``)."""

    game: Game[Any]
    seat: int
    view: ViewBody
    moves: list[CommandBody]
    wire: list[dict[str, Any]]
    to_move: bool


def moves_of(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The seat's legal moves in the view: its legal commands but the table's own."""
    return [c for c in view["legal"] if c.get("type") not in NOT_MOVES]


def read(game_name: str, view: dict[str, Any], seat: int) -> Seen:
    game = get_game(game_name)
    if game is None:
        raise ValueError(f"unknown game {game_name!r}")
    wire = moves_of(view)
    kind = command_type(game)
    return Seen(
        game=game,
        seat=seat,
        view=msgspec.convert(view["view"], game.view_type),
        moves=[msgspec.convert(c, kind) for c in wire],
        wire=wire,
        to_move=seat in view.get("to_move", ()),
    )
