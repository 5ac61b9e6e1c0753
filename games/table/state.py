"""The table's state (:class:`TableState`) and the readings of it every part of the
table needs: its game and options, whose turn it is (:func:`table_status`,
:func:`moving`), a seat secret's hash, and a private copy to fold into.

Nothing here decides or folds; the modules beside it do (games/table/__init__.py lists
them).
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from games.clone import clone
from games.codec import TABLE_EVENTS
from games.protocol import Game, Status
from games.registry import get_game
from games.rejection import Rejected
from games.undo import UndoChain
from orrery_contracts.envelope import GENESIS_HASH
from orrery_contracts.inputs import excerpt
from orrery_contracts.lobby import bot_level_of
from orrery_contracts.table import ClockOption, FinalStanding
from orrery_contracts.views import SeatInfo, TablePhase


class TableState(msgspec.Struct, kw_only=True):
    table_id: str
    seq: int = 0
    head_hash: str = GENESIS_HASH
    phase: TablePhase = "none"
    game: str = ""
    seats: int = 0
    options: dict[str, Any] = {}
    rules_version: str = ""
    seed_commitment: str = ""
    names: list[str | None] = []
    token_hashes: list[str | None] = []
    player_ids: list[str] = []  # "" for an anonymous seat
    left: list[bool] = []
    game_state: Any = None
    standing: FinalStanding | None = None
    seed: str | None = None
    finished_at: int = 0  # recorded-at time (unix ms) of the table.finished event
    created_at: int = 0  # recorded-at time (unix ms) of the table.created event
    clock: ClockOption | None = None
    rated: bool = True  # false: its finish rates nobody (table.created's rated)
    # what an abandoned seat gets (None: a table created before the option, whose
    # abandoned seats the worker moves for) and the level of the bot that takes it over
    on_abandon: str | None = None
    bot_level: str = ""
    # per seat: the seq of its table.seat_taken_over (0: none; empty in a snapshot of
    # a table from before takeovers)
    bot_from: list[int] = []
    ends_at: int = 0  # unix ms after which table.end ends it (0: no end time)
    # Turns and clocks per seat, as of ``settled_seq`` (see settle_turns).
    turn_seq: list[int] = []  # seq at which the seat's turn began; 0: not to move
    remaining_ms: list[int] = []  # its time left when its clock last started or stopped
    since_ms: list[int] = []  # recorded time its running clock started
    at_ms: int = 0  # recorded-at time of the last folded entry
    # seq of the last lifecycle event (LIFECYCLE_EVENTS): the lobby's record of the
    # table changes only with these, and shows this seq (projections/lobby.py)
    lifecycle_seq: int = 0
    actor: int | None = None  # the seat that sent the last folded command
    undone_by: int | None = None  # the seat, when the last folded command is its undo
    settled_seq: int = 0
    # what an undo can restore: the game state before each command of the running turns
    undo: UndoChain = msgspec.field(default_factory=UndoChain)


def game_of(state: TableState) -> Game[Any]:
    game = get_game(state.game)
    if game is None:
        raise Rejected("unknown_game", f"this server does not host the game {state.game!r}")
    return game


def game_options(game: Game[Any], options: dict[str, Any]) -> Any:
    """The game's typed options; a key the game does not define is refused (so nothing
    but the game's own options is ever stored in a log)."""
    known = {f.encode_name for f in msgspec.structs.fields(game.options_type)}
    unknown = sorted(str(k) for k in options if k not in known)
    if unknown:
        raise Rejected(
            "bad_options",
            f"{game.title} has no option {excerpt(unknown[0])!r}; "
            f"its options are: {', '.join(sorted(known)) or 'none'}",
            detail={"field": excerpt(unknown[0])},
        )
    try:
        return msgspec.convert(options, game.options_type)
    except msgspec.ValidationError as error:
        raise Rejected("bad_options", f"invalid options: {excerpt(str(error), 120)}") from None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# the table's own events (evolve_table applies them; every other event is the game's)
LIFECYCLE_EVENTS = TABLE_EVENTS


def table_status(state: TableState) -> Status:
    if state.phase != "playing":
        # after the end the game's own round stays (a view says "round 5 · finished")
        played = state.game_state is not None and state.game
        last_round = game_of(state).status(state.game_state).round if played else 0
        return Status(phase=state.phase, finished=state.phase == "finished", round=last_round)
    return game_of(state).status(state.game_state)


def taken_over(state: TableState, seat: int) -> bool:
    """Whether a bot took the seat over (it left; the bot moves it as a client)."""
    return seat < len(state.bot_from) and state.bot_from[seat] > 0


def bot_of(state: TableState, seat: int) -> tuple[str | None, int | None]:
    """The level of the bot that plays the seat (None: a person, or a bot without a
    level), and the seq from which it does when it took the seat over."""
    if taken_over(state, seat):
        return state.bot_level, state.bot_from[seat]
    player = state.player_ids[seat] if seat < len(state.player_ids) else ""
    return bot_level_of(player), None


def seat_info(state: TableState, seat: int) -> SeatInfo:
    level, since = bot_of(state, seat)
    return SeatInfo(
        seat=seat,
        name=state.names[seat],
        left=state.left[seat],
        bot_level=level,
        bot_from_seq=since,
    )


def moved_for(state: TableState, seat: int) -> bool:
    """Whether the worker decides the seat's moves itself: it left, and no bot took it
    over (games.table.lifecycle)."""
    return state.left[seat] and not taken_over(state, seat)


def moving(state: TableState, status: Status | None = None) -> tuple[int, ...]:
    """The seats the game waits on that are still playing (a seat that left is moved
    for: games.table.lifecycle). ``status``: the table's :func:`table_status`, when the
    caller has it already."""
    to_move = (table_status(state) if status is None else status).to_move
    return tuple(s for s in to_move if not state.left[s])


def clone_game_state(game: Game[Any], game_state: Any) -> Any:
    """An independent copy of the game's state: the game's ``clone`` (a copy generated
    from its state type, :mod:`games.clone`), exact like the msgpack round trip."""
    copy = getattr(game, "clone", None)
    return copy(game_state) if copy is not None else clone(game_state)


def copy_table(state: TableState) -> TableState:
    """A copy to fold into: the game's state through its codec, the lists by value."""
    game_state = state.game_state
    if game_state is not None:
        game_state = clone_game_state(game_of(state), game_state)
    return msgspec.structs.replace(
        state,
        options=dict(state.options),
        names=list(state.names),
        token_hashes=list(state.token_hashes),
        player_ids=list(state.player_ids),
        left=list(state.left),
        bot_from=list(state.bot_from),
        game_state=game_state,
        turn_seq=list(state.turn_seq),
        remaining_ms=list(state.remaining_ms),
        since_ms=list(state.since_ms),
        # the fold replaces a point or appends one: the list is the table's own
        undo=UndoChain(points=list(state.undo.points), open=state.undo.open),
    )
