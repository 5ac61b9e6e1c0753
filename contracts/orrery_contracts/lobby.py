"""The lobby: where client apps find tables, and the keys the gateway and the lobby
projection share.

The lobby projection (``projections/lobby.py``) folds each table's log into one
:class:`LobbyTable` record and lists the public ones in sorted sets per state (and per
state and game) whose members sort by creation time (``<created_at:015d>:<table_id>``,
all scores 0, read newest first with ``ZREVRANGEBYLEX``; a member is also the listing's
cursor). Every lobby key carries the hash tag ``{lobby}``, so one script updates a
record and its listings atomically, on a Cluster too.

A table created through the gateway has a small record of the gateway's own
(:func:`gateway_table_key`: creator, private flag, hashed invite), written before its
``table.create``; the projection reads the private flag there and never lists a
private table. Seats taken by the gateway's bots join with the verified identity
``bot:<level>`` (:func:`bot_player_id`; :data:`BOT_PLAYER_ID` before levels), so the lobby
can mark them and no Redis-level client can forge the mark.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

LobbyState = Literal["open", "playing", "finished", "closed"]
STATES: tuple[LobbyState, ...] = ("open", "playing", "finished", "closed")
LISTED_STATES: tuple[LobbyState, ...] = STATES

# The verified player id of a server-side bot seat joined before bots had levels (never a
# human account's id: those start with "p"); such a seat plays at random and is not rated.
BOT_PLAYER_ID = "bot"

# The bots' levels (the engine, bots/, plays each) and the one a bot gets unless told.
BotLevel = Literal["random", "greedy", "ismcts"]
BOT_LEVELS: tuple[BotLevel, ...] = ("random", "greedy", "ismcts")
DEFAULT_BOT_LEVEL: BotLevel = "greedy"
# A bot of a level joins (and is rated, on each game's leaderboard) as ``bot:<level>``.
BOT_ID_PREFIX = "bot:"


def bot_player_id(level: str) -> str:
    """The verified player id of a bot of ``level`` (``bot:greedy``)."""
    return BOT_ID_PREFIX + level


def is_bot_player(player_id: str) -> bool:
    """Whether a verified player id is a server-side bot's (a level's, or the level-less one)."""
    return player_id == BOT_PLAYER_ID or player_id.startswith(BOT_ID_PREFIX)


def bot_level_of(player_id: str) -> str | None:
    """The level of a bot's player id (None: not a bot of a level)."""
    if not player_id.startswith(BOT_ID_PREFIX):
        return None
    level = player_id.removeprefix(BOT_ID_PREFIX)
    return level if level in BOT_LEVELS else None


# Server-side bots: members "<table_id>|<seat>"; the bot runner plays each of them.
BOTS_SET = "orrery:bots"
# A nudge for the bot runners when a member is added (they also rescan the set).
BOTS_ADDED_STREAM = "orrery:bots:added"


def bot_lease_key(member: str) -> str:
    """Which bot runner plays a bot seat now (a short lease, renewed while it plays)."""
    return f"orrery:bots:lease:{member}"


class LobbySeat(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    name: str
    # the verified player (None: an anonymous Redis-level join, or a bot)
    player_id: str | None
    bot: bool = False
    left: bool = False
    # the level of the bot that plays the seat: a bot's seat, or a seat a bot took over
    # when its player abandoned it (``taken_over``: ``left`` too, ``player_id`` theirs)
    bot_level: str | None = None
    taken_over: bool = False


class LobbyTable(msgspec.Struct, frozen=True, kw_only=True):
    """One table as the lobby shows it (``players``: the taken seats only)."""

    table_id: str
    game: str
    seats: int
    players: list[LobbySeat]
    state: LobbyState
    options: dict[str, Any]
    created_at: int  # unix milliseconds: the recorded-at time of the table's first event
    # the seq of the table's last lifecycle event (created, joined, left, started,
    # finished, a clock run out, undone, closed): what the record shows changes only
    # with these, so a move in play leaves it as it is
    seq: int
    private: bool = False


lobby_table_decoder = msgspec.json.Decoder(LobbyTable)

APPLIED_HASH = "orrery:{lobby}:applied"


def lobby_table_key(table_id: str) -> str:
    return f"orrery:{{lobby}}:table:{table_id}"


def lobby_list_key(state: str, game: str | None = None) -> str:
    """The listing of one state (``game``: of one game only)."""
    return f"orrery:{{lobby}}:list:{state}" + (f":{game}" if game else "")


def player_tables_key(player_id: str) -> str:
    """Every table where a verified player holds a seat (members as in the listings)."""
    return f"orrery:{{lobby}}:player:{player_id}"


def gateway_table_key(table_id: str) -> str:
    """The gateway's own record of a table it created: ``creator``, ``private`` ("1"),
    ``invite`` (SHA-256 of the invite, hex)."""
    return f"orrery:{{lobby}}:gw:{table_id}"


def listing_member(created_at: int, table_id: str) -> str:
    return f"{created_at:015d}:{table_id}"
