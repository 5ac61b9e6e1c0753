"""The table's rules, one function per command (create, join, start, leave, expire a
clock, undo, close, end at its end time, a game move), each adding its events to a
:class:`CommandFold`.

Platform rules:

* a seat that leaves after the start (or whose clock runs out to ``concede``) concedes
  and ranks after every seat still playing; what follows is the table's ``on_abandon``:
  ``bot``, a ``table.seat_taken_over`` gives the seat to a server-side bot, which from
  then on plays it as a client with a secret of its own (the service fills the secret's
  hash into the recorded command: ``bot_token_hash``); ``end``, the table ends as
  ``abandoned``. A table created before the option (or a ``bot`` one whose service holds
  no server key, so no bot could authenticate) gets a random legal command decided for
  the seat in the same append whenever the game waits on it (BGA's "zombie");
* when every seat has left, or only bots still play, the table ends as ``abandoned``;
* a table with an end time (``ends_at``) still playing then is ended by ``table.end``:
  the seats the game waits on ran out of time and concede, and the table finishes as
  ``deadline`` (whatever ``on_abandon`` says: no bot plays past the end time);
* the game's end appends ``table.finished`` with the final standing and reveals the
  seed, so the log can be audited.

Which command goes where, and who may send it: games.table.decide.
"""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec

from games.protocol import Game
from games.registry import get_game
from games.rejection import Rejected
from games.rng import seed_commitment
from games.table.clocks import ms, seat_deadline
from games.table.fold import CommandFold
from games.table.standing import final_standing
from games.table.state import TableState, game_of, game_options, moved_for, moving
from games.table.undo_points import undo_check
from orrery_contracts.base import CommandBody
from orrery_contracts.inputs import MAX_NAME, excerpt, normalise_name
from orrery_contracts.lobby import BOT_LEVELS, DEFAULT_BOT_LEVEL, is_bot_player
from orrery_contracts.table import (
    ClockExpired,
    CloseTable,
    CreateTable,
    ExpireClock,
    ExpireSeat,
    JoinSeat,
    LeaveTable,
    SeatJoined,
    SeatLeft,
    SeatTakenOver,
    TableClosed,
    TableCreated,
    TableFinished,
    TableStarted,
    TableUndone,
    UndoTable,
)

MAX_AUTOMATIC_MOVES = 10_000


def create_table(fold: CommandFold, command: CreateTable, seed: bytes) -> None:
    if fold.before.phase != "none":
        raise Rejected("table_exists", f"table {fold.before.table_id!r} already exists")
    game = get_game(command.game)
    if game is None:
        raise Rejected(
            "unknown_game", f"this server does not host the game {excerpt(command.game)!r}"
        )
    if not game.min_seats <= command.seats <= game.max_seats:
        raise Rejected(
            "bad_seats",
            f"{game.title} seats {game.min_seats} to {game.max_seats}, not {command.seats}",
        )
    game_options(game, command.options)  # options the game does not take: bad_options
    clock = command.clock
    if clock is not None and ms(clock.bank_s) + ms(clock.per_move_s) <= 0:
        raise Rejected("bad_clock", "a clock needs bank_s or per_move_s above 0")
    if command.bot_level is not None and command.bot_level not in BOT_LEVELS:
        raise Rejected(
            "bad_level",
            f"bots play at the levels {', '.join(BOT_LEVELS)}, not {excerpt(command.bot_level)!r}",
        )
    level = command.bot_level or DEFAULT_BOT_LEVEL
    fold.add(
        TableCreated(
            game=command.game,
            seats=command.seats,
            options=dict(command.options),
            rules_version=game.rules_version,
            seed_commitment=seed_commitment(seed),
            clock=clock,
            rated=msgspec.UNSET if command.rated else False,
            # a create recorded before the option has none: its table keeps the old way
            on_abandon=msgspec.UNSET if command.on_abandon is None else command.on_abandon,
            bot_level=msgspec.UNSET if command.on_abandon is None else level,
            ends_at=msgspec.UNSET if command.ends_at is None else command.ends_at,
        )
    )


def join_seat(fold: CommandFold, command: JoinSeat) -> None:
    state = fold.before
    if state.phase != "lobby":
        raise Rejected("table_started", "seats can only be joined before the start")
    name = normalise_name(command.name)
    if name is None:
        raise Rejected(
            "bad_name", f"a name has 1 to {MAX_NAME} printable characters, no control characters"
        )
    if not command.token_hash:
        raise Rejected("malformed", "a join needs the seat's secret in the envelope's token")
    if command.seat is not None:
        if not 0 <= command.seat < state.seats:
            raise Rejected("no_such_seat", f"seats are numbered 0 to {state.seats - 1}")
        if state.names[command.seat] is not None:
            raise Rejected("seat_taken", f"seat {command.seat} is taken")
        seat = command.seat
    else:
        free = [s for s, n in enumerate(state.names) if n is None]
        if not free:
            raise Rejected("table_full", "every seat is taken")
        seat = free[0]
    fold.add(
        SeatJoined(seat=seat, name=name, token_hash=command.token_hash, player_id=command.player_id)
    )


def start_table(fold: CommandFold, seed: bytes, rng: Random) -> None:
    state = fold.before
    if state.phase != "lobby":
        raise Rejected("table_started", "the table has already started")
    if any(n is None for n in state.names):
        raise Rejected("seats_open", "every seat must be taken before the start")
    game = game_of(state)
    options = game_options(game, state.options)
    setup = game.setup(options, state.seats, rng)
    fold.add(TableStarted(), *setup)  # the start sets up the game's initial state
    after_game_events(fold, game, seed, rng)


def leave_table(
    fold: CommandFold, seat: int, seed: bytes, rng: Random, bot_token_hash: str = ""
) -> None:
    state = fold.before
    if state.phase == "lobby":
        fold.add(SeatLeft(seat=seat, conceded=False))
        return
    if state.phase != "playing":
        raise Rejected("game_over", "the game is over")
    if state.left[seat]:
        raise Rejected("seat_left", "this seat has already left")
    concede(fold, seat, seed, rng, bot_token_hash)


def concede(
    fold: CommandFold, seat: int, seed: bytes, rng: Random, bot_token_hash: str = ""
) -> None:
    """The seat concedes; then the table's ``on_abandon`` (the module's docstring)."""
    fold.add(SeatLeft(seat=seat, conceded=True))
    state, game = fold.state, game_of(fold.state)
    if (
        all(state.left)
        or (state.on_abandon == "end")
        or (state.on_abandon is not None and not _anyone_plays(state))
    ):
        standing = final_standing(game, state.game_state, state.left)
        fold.add(TableFinished(reason="abandoned", standing=standing, seed=seed.hex()))
        return
    if state.on_abandon == "bot" and bot_token_hash:
        fold.add(SeatTakenOver(seat=seat, level=state.bot_level, token_hash=bot_token_hash))
    after_game_events(fold, game, seed, rng)


def _anyone_plays(state: TableState) -> bool:
    """Whether a person still plays a seat (not left, not a bot's)."""
    return any(
        not gone and not is_bot_player(player)
        for gone, player in zip(state.left, state.player_ids, strict=True)
    )


def takeover_seat(state: TableState, command: CommandBody, seat: int | None) -> int | None:
    """The seat a bot would take over if ``command`` (a leave by ``seat``, or an expiry)
    were accepted on ``state``: the one whose bot secret's hash the service fills in."""
    if state.phase != "playing" or state.on_abandon != "bot":
        return None
    if isinstance(command, ExpireClock):
        clock = state.clock
        concedes = clock is not None and clock.on_expiry == "concede"
        seat = command.seat if concedes else None
    elif not isinstance(command, LeaveTable):
        return None
    if seat is None or not 0 <= seat < state.seats or state.left[seat]:
        return None
    return seat


def expire_clock(
    fold: CommandFold, command: ExpireClock, seed: bytes, rng: Random, now_ms: int
) -> None:
    state = fold.before
    if state.phase == "lobby":
        raise Rejected("not_started", "the game has not started yet")
    if state.phase == "finished":
        raise Rejected("game_over", "the game is over")
    if state.clock is None:
        raise Rejected("no_clock", "this table has no clock")
    seat = command.seat
    if not 0 <= seat < state.seats:
        raise Rejected("no_such_seat", f"seats are numbered 0 to {state.seats - 1}")
    deadline = seat_deadline(state, seat)
    if deadline is None or state.turn_seq[seat] != command.turn or now_ms < deadline:
        raise Rejected("not_expired", f"seat {seat} has not run out of time in that turn")
    on_expiry = state.clock.on_expiry
    fold.add(ClockExpired(seat=seat))
    if on_expiry == "concede":
        token = command.bot_token_hash if isinstance(command, ExpireSeat) else msgspec.UNSET
        concede(fold, seat, seed, rng, token or "")
        return
    # "bot": one random legal move for the seat, then the table carries on as after a move
    game = game_of(state)
    game_state = fold.state.game_state
    fold.add(*game.decide(game_state, rng.choice(game.legal_commands(game_state, seat)), seat, rng))
    after_game_events(fold, game, seed, rng)


def undo_table(fold: CommandFold, command: UndoTable, seat: int) -> None:
    state = fold.before
    check_playing(state, seat)
    to_seq = undo_check(state, seat, command.to_seq)
    fold.add(TableUndone(seat=seat, from_seq=state.seq, to_seq=to_seq))


def close_table(fold: CommandFold, command: CloseTable, seed: bytes, now_ms: int) -> None:
    state = fold.before
    if state.phase != "lobby":
        raise Rejected("table_started", "only a table that has not started can be closed")
    ttl = command.lobby_ttl_ms
    if ttl <= 0 or now_ms < state.created_at + ttl:
        raise Rejected("not_expired", "the table's time in the lobby has not run out")
    fold.add(TableClosed(reason="lobby_ttl", seed=seed.hex()))


def end_table(fold: CommandFold, seed: bytes, now_ms: int) -> None:
    state = fold.before
    if state.phase == "lobby":
        raise Rejected("not_started", "the game has not started yet")
    if not state.ends_at or now_ms < state.ends_at:
        raise Rejected("not_expired", "the table's end time has not come (or it has none)")
    for seat in moving(state):  # out of time: they held the table up
        fold.add(SeatLeft(seat=seat, conceded=True))
    after = fold.state
    standing = final_standing(game_of(after), after.game_state, after.left)
    fold.add(TableFinished(reason="deadline", standing=standing, seed=seed.hex()))


def play_move(fold: CommandFold, command: CommandBody, seat: int, seed: bytes, rng: Random) -> None:
    state = fold.before
    check_playing(state, seat)
    game = game_of(state)
    if not isinstance(command, game.command_types):
        raise Rejected("unknown_command", f"{type(command).__name__} is not a {game.title} move")
    fold.add(*game.decide(state.game_state, command, seat, rng))
    after_game_events(fold, game, seed, rng)


def check_playing(state: TableState, seat: int) -> None:
    if state.phase == "lobby":
        raise Rejected("not_started", "the game has not started yet")
    if state.phase == "finished":
        raise Rejected("game_over", "the game is over")
    if moved_for(state, seat):
        raise Rejected("seat_left", "this seat has left the game")


def after_game_events(fold: CommandFold, game: Game[Any], seed: bytes, rng: Random) -> None:
    """Moves for seats that left and that no bot took over, then the table's end if the
    game is over (each read from the table after the events before it)."""
    for _ in range(MAX_AUTOMATIC_MOVES):
        state = fold.state
        status = game.status(state.game_state)
        if status.finished:
            standing = final_standing(game, state.game_state, state.left)
            fold.add(TableFinished(reason="completed", standing=standing, seed=seed.hex()))
            return
        absent = [s for s in status.to_move if moved_for(state, s)]
        if not absent:
            return
        legal = game.legal_commands(state.game_state, absent[0])
        fold.add(*game.decide(state.game_state, rng.choice(legal), absent[0], rng))
    raise RuntimeError(f"{fold.before.game}: automatic moves did not end")
