"""A table as a decider: the lifecycle (create, join, start, leave, finish) around a game.

``decide_table`` is pure: given the table's state, a command, the commanding seat and
the table's secret seed, it returns the events (or raises :class:`Rejected`). The RNG
for the command is derived from (seed, first seq of its events). Platform rules:

* a seat that leaves after the start concedes: from then on, whenever the game waits
  on that seat, a random legal command is decided for it in the same append (BGA's
  "zombie"), and it ranks after every seat still playing;
* when every seat has left, the table ends as ``abandoned``;
* the game's end appends ``table.finished`` with the final standing and reveals the
  seed, so the log can be audited.

Turns and clocks. ``TableState`` keeps, per seat, the seq at which its current turn
began (``turn_seq``, 0 when it is not to move) and, for tables with a clock, its time
left and since when its clock runs. They change only at command boundaries (a
command's events share one recorded-at time, and nobody ever sees the table between
them): :func:`settle_turns` applies the last command's transitions, using nothing but
the log's recorded times. A turn begins when a seat enters ``to_move`` (or re-enters
it after its clock expired); a seat's *move* begins with its turn and again after each
of its own commands that leaves it to move, and each move adds ``per_move`` to its
time. The fold settles before each command's first event; readers (``decide_table``,
``table_view``, the projectors) settle before they look, which is idempotent.

Deciding never reads a clock: ``decide_table`` gets ``now_ms``, the recorded-at time the
worker will write on the append (the audit passes the recorded one), so re-deciding a
``table.expire`` or ``table.close`` gives the same answer on any machine, any day. A
move decided before an expiry wins the race (the expiry then finds the clock
restarted: ``not_expired``); a move decided after it finds the turn played.

Undo (``table.undo``): the table keeps, per command of the turns now running, the game
state before it, and ``table.undone`` puts one back; when an undo is accepted, what the
fold keeps and why the clocks are not given back: ``games/undo.py``.

Seat authentication (the token) is the service's job and happens before this;
``table.expire`` and ``table.close`` carry no seat: the log's times decide them.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from random import Random
from typing import Any

import msgspec

from games import undo
from games.protocol import Game, Standing, Status
from games.registry import get_game
from games.rejection import Rejected
from games.rng import derive_rng, seed_commitment
from games.undo import UndoChain
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.envelope import GENESIS_HASH, SEAT_TOKEN
from orrery_contracts.inputs import MAX_NAME, excerpt, normalise_name
from orrery_contracts.table import (
    ClockExpired,
    ClockOption,
    CloseTable,
    CreateTable,
    ExpireClock,
    FinalStanding,
    JoinSeat,
    LeaveTable,
    SeatJoined,
    SeatLeft,
    StartTable,
    TableClosed,
    TableCreated,
    TableFinished,
    TableStarted,
    TableUndone,
    UndoTable,
)
from orrery_contracts.views import ClockView, SeatInfo, StandingLine, TablePhase, TableView

MAX_AUTOMATIC_MOVES = 10_000


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
    # Turns and clocks per seat, as of ``settled_seq`` (see settle_turns).
    turn_seq: list[int] = []  # seq at which the seat's turn began; 0: not to move
    remaining_ms: list[int] = []  # its time left when its clock last started or stopped
    since_ms: list[int] = []  # recorded time its running clock started
    at_ms: int = 0  # recorded-at time of the last folded entry
    actor: int | None = None  # the seat that sent the last folded command
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


# ---------------------------------------------------------------- evolve


_LIFECYCLE_EVENTS = (
    TableCreated,
    SeatJoined,
    SeatLeft,
    TableStarted,
    TableFinished,
    ClockExpired,
    TableClosed,
    TableUndone,
)


def evolve_table(state: TableState, event: EventBody) -> TableState:
    """Apply one fact to the table (lifecycle events here, the rest to the game)."""
    if not isinstance(event, _LIFECYCLE_EVENTS):
        state.game_state = game_of(state).evolve(state.game_state, event)
    elif isinstance(event, TableCreated):
        state.phase = "lobby"
        state.game = event.game
        state.seats = event.seats
        state.options = dict(event.options)
        state.rules_version = event.rules_version
        state.seed_commitment = event.seed_commitment
        state.names = [None] * event.seats
        state.token_hashes = [None] * event.seats
        state.player_ids = [""] * event.seats
        state.left = [False] * event.seats
        state.clock = event.clock
    elif isinstance(event, SeatJoined):
        state.names[event.seat] = event.name
        state.token_hashes[event.seat] = event.token_hash
        state.player_ids[event.seat] = event.player_id
    elif isinstance(event, SeatLeft):
        if event.conceded:
            state.left[event.seat] = True
        else:
            state.names[event.seat] = None
            state.token_hashes[event.seat] = None
            state.player_ids[event.seat] = ""
    elif isinstance(event, TableStarted):
        game = game_of(state)
        state.phase = "playing"
        state.game_state = game.initial_state(game_options(game, state.options), state.seats)
        _reset_turns(state)
        if state.clock is not None:
            state.remaining_ms = [_ms(state.clock.bank_s)] * state.seats
    elif isinstance(event, TableFinished):
        state.phase = "finished"
        state.standing = event.standing
        state.seed = event.seed
    elif isinstance(event, ClockExpired):
        # The seat's time is spent and its turn is over; if it is still to move after
        # what follows (on_expiry), a new turn begins at the settle.
        state.turn_seq[event.seat] = 0
        if state.clock is not None:
            state.remaining_ms[event.seat] = 0
    elif isinstance(event, TableClosed):
        state.phase = "closed"
        state.seed = event.seed
    elif isinstance(event, TableUndone):
        _undone(state, event)
    return state


def _undone(state: TableState, event: TableUndone) -> None:
    """Put back the game state kept at ``to_seq``. Time used stays used: the undo is no
    move (no per-move time starts), and the per-move time each undone command earned is
    withdrawn."""
    kept, undone = undo.restore(state.undo, event.to_seq)
    state.game_state = msgspec.msgpack.decode(kept, type=game_of(state).state_type)
    state.actor = None
    if state.clock is not None and state.remaining_ms:
        withdrawn = undone * _ms(state.clock.per_move_s)
        state.remaining_ms[event.seat] = max(0, state.remaining_ms[event.seat] - withdrawn)


def clone_game_state(game: Game[Any], game_state: Any) -> Any:
    return msgspec.msgpack.decode(msgspec.msgpack.encode(game_state), type=game.state_type)


# ---------------------------------------------------------------- turns and clocks


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _reset_turns(state: TableState) -> None:
    state.turn_seq = [0] * state.seats
    state.remaining_ms = [0] * state.seats
    state.since_ms = [0] * state.seats


def settle_turns(state: TableState) -> TableState:
    """Apply the turn and clock transitions of the last folded command (idempotent).

    Only for a state at a command boundary: the fold calls it before each command's
    first event, readers before they look at turns or clocks.
    """
    if state.settled_seq >= state.seq:
        return state
    if len(state.turn_seq) != state.seats:  # a lobby, or a snapshot from before clocks
        _reset_turns(state)
        if state.clock is not None:
            state.remaining_ms = [_ms(state.clock.bank_s)] * state.seats
    moving: tuple[int, ...] = ()
    if state.phase == "playing":
        moving = tuple(s for s in table_status(state).to_move if not state.left[s])
    clock, at, turns = state.clock, state.at_ms, state.turn_seq
    for seat, turn in enumerate(turns):
        if turn and seat not in moving:  # its turn is over: charge the time it took
            turns[seat] = 0
            if clock is not None:
                _charge(state, seat, at)
    for seat in moving:
        new_turn = not turns[seat]
        if not new_turn and seat != state.actor:
            continue  # still thinking
        # a move begins: a new turn, or the next move of the seat's own turn
        if new_turn:
            turns[seat] = state.seq
        if clock is not None:
            if not new_turn:
                _charge(state, seat, at)
            state.remaining_ms[seat] += _ms(clock.per_move_s)
            state.since_ms[seat] = at
    state.settled_seq = state.seq
    return state


def _charge(state: TableState, seat: int, at: int) -> None:
    spent = max(0, at - state.since_ms[seat])
    state.remaining_ms[seat] = max(0, state.remaining_ms[seat] - spent)


def seat_deadline(state: TableState, seat: int) -> int | None:
    """When the seat's running clock runs out (recorded-time ms), or None (no clock, or
    not to move). Needs a settled state."""
    if state.clock is None or not 0 <= seat < len(state.turn_seq) or not state.turn_seq[seat]:
        return None
    return state.since_ms[seat] + state.remaining_ms[seat]


def clock_view(state: TableState) -> ClockView | None:
    clock = state.clock
    if clock is None:
        return None
    settle_turns(state)
    running = [s for s, turn in enumerate(state.turn_seq) if turn]
    return ClockView(
        bank_ms=_ms(clock.bank_s),
        per_move_ms=_ms(clock.per_move_s),
        on_expiry=clock.on_expiry,
        running=running,
        remaining_ms=list(state.remaining_ms) or [_ms(clock.bank_s)] * state.seats,
        since_ms=[state.since_ms[s] if s in running else None for s in range(state.seats)],
        deadline_ms=[seat_deadline(state, s) for s in range(state.seats)],
    )


# ---------------------------------------------------------------- decide

# Commands decided without a seat: the envelope's seat is ignored, none is recorded.
SEATLESS_COMMANDS = (CreateTable, JoinSeat, ExpireClock, CloseTable)


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sends a command, as the service received it: the envelope's seat and seat
    secret (in clear; only its hash is ever recorded), and the player a gateway vouched
    for (verified by the service; "" when anonymous)."""

    seat: int | None
    token: str | None
    player_id: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    """An accepted command: the command as recorded (a join carries the secret's hash,
    never the secret), the seat recorded with it (None for a seat-less command), its
    events, and the table after them, folded once as they were decided.

    ``state`` is the table at its new seq with the events' recorded-at time; its
    ``head_hash`` is the service's to set once it has sealed the entries (the hash
    chain is the log's, not the rules')."""

    command: CommandBody
    seat: int | None
    events: list[EventBody]
    state: TableState

    @property
    def joined_seat(self) -> int | None:
        """The seat a join took."""
        first = self.events[0] if self.events else None
        return first.seat if isinstance(first, SeatJoined) else None


def token_matches(state: TableState, seat: int | None, token: str | None) -> bool:
    """Whether ``token`` is the secret of joined seat ``seat``."""
    if seat is None or token is None or not 0 <= seat < state.seats:
        return False
    expected = state.token_hashes[seat]
    return expected is not None and secrets.compare_digest(expected, token_hash(token))


def decide_command(
    state: TableState, command: CommandBody, caller: Caller, seed: bytes, now_ms: int
) -> Decision:
    """The table's rules for a command as a client sent it (raises :class:`Rejected`).

    Before the rules: a seat-less command ignores the envelope's seat; a join needs a
    strong secret (``weak_token``) and records its hash and the vouched player; any
    other command needs the secret of a joined seat (``unauthorized``). ``seed`` may be
    empty when the table does not exist (``no_such_table`` comes first); ``now_ms`` is
    the recorded-at time the append will carry. ``state`` is left as it was (settled)."""
    seat = caller.seat
    if isinstance(command, SEATLESS_COMMANDS):
        seat = None
    if isinstance(command, JoinSeat) and state.phase != "none":
        if caller.token is None or not SEAT_TOKEN.match(caller.token):
            raise Rejected(
                "weak_token",
                "a join carries the seat's secret in the envelope's token: 22 to 128 "
                "characters of A-Z a-z 0-9 _ - with at least 128 random bits",
            )
        command = msgspec.structs.replace(
            command, token_hash=token_hash(caller.token), player_id=caller.player_id
        )
    elif (
        not isinstance(command, SEATLESS_COMMANDS)
        and state.phase != "none"
        and not token_matches(state, seat, caller.token)
    ):
        raise Rejected("unauthorized", "seat and token do not match a joined seat")
    fold = _decide(state, command, seat, seed, now_ms)
    return Decision(command=command, seat=seat, events=fold.events, state=fold.state)


def decide_table(
    state: TableState, command: CommandBody, seat: int | None, seed: bytes, now_ms: int = 0
) -> list[EventBody]:
    """The events of a command as recorded (``seat`` trusted: the audit re-decides the
    log with it; ``now_ms``: the recorded-at time of their append)."""
    return _decide(state, command, seat, seed, now_ms).events


class _Fold:
    """A command's events, each folded into a private copy of the table as it is
    decided (the rules that follow an event read the table after it), with the seqs and
    recorded-at time the log will give it. The copy is made at the first event, so a
    rejection copies nothing."""

    def __init__(self, state: TableState, seat: int | None, now_ms: int) -> None:
        self.before = state
        self.state = state
        self.seat = seat
        self.now_ms = now_ms
        self.events: list[EventBody] = []

    def add(self, *events: EventBody) -> None:
        for event in events:
            if not self.events:
                self.state = copy_table(self.before)
            self.state = advance(
                self.state,
                event,
                self.state.seq + 1,
                "",
                self.now_ms,
                opens_command=not self.events,
                actor=self.seat,
            )
            self.events.append(event)


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
        game_state=game_state,
        turn_seq=list(state.turn_seq),
        remaining_ms=list(state.remaining_ms),
        since_ms=list(state.since_ms),
        # the fold replaces a point or appends one: the list is the table's own
        undo=UndoChain(points=list(state.undo.points), open=state.undo.open),
    )


def _decide(
    state: TableState, command: CommandBody, seat: int | None, seed: bytes, now_ms: int
) -> _Fold:
    settle_turns(state)
    fold = _Fold(state, seat, now_ms)
    rng = derive_rng(seed, state.seq + 1)
    if isinstance(command, CreateTable):
        _create(fold, command, seed)
        return fold
    if state.phase == "none":
        raise Rejected("no_such_table", f"table {state.table_id!r} does not exist")
    if state.phase == "closed":
        raise Rejected("table_closed", "the table was closed: it was not started in time")
    if isinstance(command, ExpireClock):
        _expire(fold, command, seed, rng, now_ms)
    elif isinstance(command, CloseTable):
        _close(fold, command, seed, now_ms)
    elif isinstance(command, JoinSeat):
        _join(fold, command)
    elif seat is None or not 0 <= seat < state.seats or state.token_hashes[seat] is None:
        raise Rejected("unauthorized", "this command needs a seat you have joined")
    elif isinstance(command, StartTable):
        _start(fold, seed, rng)
    elif isinstance(command, LeaveTable):
        _leave(fold, seat, seed, rng)
    elif isinstance(command, UndoTable):
        _undo(fold, command, seat)
    else:
        _play(fold, command, seat, seed, rng)
    return fold


def _create(fold: _Fold, command: CreateTable, seed: bytes) -> None:
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
    game.validate_options(game_options(game, command.options), command.seats)
    clock = command.clock
    if clock is not None and _ms(clock.bank_s) + _ms(clock.per_move_s) <= 0:
        raise Rejected("bad_clock", "a clock needs bank_s or per_move_s above 0")
    fold.add(
        TableCreated(
            game=command.game,
            seats=command.seats,
            options=dict(command.options),
            rules_version=game.rules_version,
            seed_commitment=seed_commitment(seed),
            clock=clock,
        )
    )


def _join(fold: _Fold, command: JoinSeat) -> None:
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


def _start(fold: _Fold, seed: bytes, rng: Random) -> None:
    state = fold.before
    if state.phase != "lobby":
        raise Rejected("table_started", "the table has already started")
    if any(n is None for n in state.names):
        raise Rejected("seats_open", "every seat must be taken before the start")
    game = game_of(state)
    options = game_options(game, state.options)
    setup = game.setup(options, state.seats, rng)
    fold.add(TableStarted(), *setup)  # the start sets up the game's initial state
    _after_game_events(fold, game, seed, rng)


def _leave(fold: _Fold, seat: int, seed: bytes, rng: Random) -> None:
    state = fold.before
    if state.phase == "lobby":
        fold.add(SeatLeft(seat=seat, conceded=False))
        return
    if state.phase != "playing":
        raise Rejected("game_over", "the game is over")
    if state.left[seat]:
        raise Rejected("seat_left", "this seat has already left")
    _concede(fold, seat, seed, rng)


def _concede(fold: _Fold, seat: int, seed: bytes, rng: Random) -> None:
    fold.add(SeatLeft(seat=seat, conceded=True))
    state, game = fold.state, game_of(fold.state)
    if all(state.left):
        standing = final_standing(game, state.game_state, state.left)
        fold.add(TableFinished(reason="abandoned", standing=standing, seed=seed.hex()))
        return
    _after_game_events(fold, game, seed, rng)


def _expire(fold: _Fold, command: ExpireClock, seed: bytes, rng: Random, now_ms: int) -> None:
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
        _concede(fold, seat, seed, rng)
        return
    # "bot": one random legal move for the seat, then the table carries on as after a move
    game = game_of(state)
    game_state = fold.state.game_state
    fold.add(*game.decide(game_state, rng.choice(game.legal_commands(game_state, seat)), seat, rng))
    _after_game_events(fold, game, seed, rng)


def _undo(fold: _Fold, command: UndoTable, seat: int) -> None:
    state = fold.before
    _check_playing(state, seat)
    to_seq = undo_check(state, seat, command.to_seq)
    fold.add(TableUndone(seat=seat, from_seq=state.seq, to_seq=to_seq))


def undo_check(state: TableState, seat: int, to_seq: int | None) -> int:
    """The seq ``table.undo`` by ``seat`` returns to, or raise ``undo_blocked`` (a
    settled, playing table)."""
    return undo.check(
        state.undo,
        seat=seat,
        to_seq=to_seq,
        seq=state.seq,
        to_move=_moving(state),
        turn_seq=state.turn_seq,
    )


def _moving(state: TableState) -> tuple[int, ...]:
    return tuple(s for s in table_status(state).to_move if not state.left[s])


def _close(fold: _Fold, command: CloseTable, seed: bytes, now_ms: int) -> None:
    state = fold.before
    if state.phase != "lobby":
        raise Rejected("table_started", "only a table that has not started can be closed")
    ttl = command.lobby_ttl_ms
    if ttl <= 0 or now_ms < state.created_at + ttl:
        raise Rejected("not_expired", "the table's time in the lobby has not run out")
    fold.add(TableClosed(reason="lobby_ttl", seed=seed.hex()))


def _play(fold: _Fold, command: CommandBody, seat: int, seed: bytes, rng: Random) -> None:
    state = fold.before
    _check_playing(state, seat)
    game = game_of(state)
    if not isinstance(command, game.command_types):
        raise Rejected("unknown_command", f"{type(command).__name__} is not a {game.title} move")
    fold.add(*game.decide(state.game_state, command, seat, rng))
    _after_game_events(fold, game, seed, rng)


def _check_playing(state: TableState, seat: int) -> None:
    if state.phase == "lobby":
        raise Rejected("not_started", "the game has not started yet")
    if state.phase == "finished":
        raise Rejected("game_over", "the game is over")
    if state.left[seat]:
        raise Rejected("seat_left", "this seat has left the game")


def _after_game_events(fold: _Fold, game: Game[Any], seed: bytes, rng: Random) -> None:
    """Moves for seats that left, then the table's end if the game is over (each read
    from the table after the events before it)."""
    for _ in range(MAX_AUTOMATIC_MOVES):
        state = fold.state
        status = game.status(state.game_state)
        if status.finished:
            standing = final_standing(game, state.game_state, state.left)
            fold.add(TableFinished(reason="completed", standing=standing, seed=seed.hex()))
            return
        absent = [s for s in status.to_move if state.left[s]]
        if not absent:
            return
        legal = game.legal_commands(state.game_state, absent[0])
        fold.add(*game.decide(state.game_state, rng.choice(legal), absent[0], rng))
    raise RuntimeError(f"{fold.before.game}: automatic moves did not end")


def final_standing(game: Game[Any], game_state: Any, left: list[bool]) -> FinalStanding:
    """The game's standing, with seats that conceded ranked after every other place.

    Seats that played on keep the game's ranks (which may count built-in opponents,
    e.g. a solo player placing 3rd behind two AIs), moved up past conceded seats;
    conceded seats follow, ordered by their own game ranks.
    """
    standing: Standing = game.score(game_state)
    game_ranks = standing.ranks

    def conceded_above(rank: int) -> int:
        return sum(1 for r, gone in zip(game_ranks, left, strict=True) if gone and r < rank)

    # Seats that played on move up past the conceded seats above them.
    ranks = [r if gone else r - conceded_above(r) for r, gone in zip(game_ranks, left, strict=True)]
    last = max((r for r, gone in zip(ranks, left, strict=True) if not gone), default=0)
    ranks = [
        last + 1 + conceded_above(r) if gone else rank
        for r, rank, gone in zip(game_ranks, ranks, left, strict=True)
    ]
    return FinalStanding(points=list(standing.points), ranks=ranks)


# ---------------------------------------------------------------- views


def table_status(state: TableState) -> Status:
    if state.phase != "playing":
        # after the end the game's own round stays (a view says "round 5 · finished")
        played = state.game_state is not None and state.game
        last_round = game_of(state).status(state.game_state).round if played else 0
        return Status(phase=state.phase, finished=state.phase == "finished", round=last_round)
    return game_of(state).status(state.game_state)


def _undo_legal(state: TableState, seat: int) -> list[UndoTable]:
    settle_turns(state)
    try:
        undo_check(state, seat, None)
    except Rejected:
        return []
    return [UndoTable()]


def standing_lines(state: TableState) -> list[StandingLine]:
    """Every participant's standing, best first: the game's own ``score`` while playing,
    the final standing (conceded seats last) once finished, with the participants that
    hold no seat (built-in opponents) ranked among the seats."""
    if state.phase not in ("playing", "finished") or state.game_state is None:
        return []
    score: Standing = game_of(state).score(state.game_state)
    if state.standing is not None:
        points, ranks = list(state.standing.points), list(state.standing.ranks)
    else:
        points, ranks = list(score.points), list(score.ranks)
    lines = [
        StandingLine(
            seat=s,
            participant=s,
            name=state.names[s],
            points=points[s],
            rank=ranks[s],
            left=state.left[s],
        )
        for s in range(state.seats)
    ]
    for other in score.others:
        # a conceded seat ranked above a built-in opponent moved to the end
        conceded_above = sum(
            1
            for r, gone in zip(score.ranks, state.left, strict=True)
            if gone and r < other.rank and state.standing is not None
        )
        lines.append(
            StandingLine(
                seat=None,
                participant=other.participant,
                name=other.name,
                points=other.points,
                rank=other.rank - conceded_above,
                ai=True,
            )
        )
    return sorted(lines, key=lambda line: (line.rank, line.participant))


def table_view(
    state: TableState, seat: int | None, standings: list[StandingLine] | None = None
) -> TableView[Any, Any]:
    """What ``seat`` (None: a spectator) may know of the table, with its legal commands.
    ``standings`` (public, the same for every viewer) may be passed in when the caller
    builds every seat's view at once."""
    game = get_game(state.game) if state.game else None
    status = table_status(state)
    game_view = None
    legal: list[Any] = []
    if game is not None and state.game_state is not None:
        game_view = game.view(state.game_state, seat)
        if seat is not None and state.phase == "playing" and not state.left[seat]:
            legal = [*game.legal_commands(state.game_state, seat), *_undo_legal(state, seat)]
            legal.append(LeaveTable())
    if seat is not None and state.phase == "lobby":
        full = all(name is not None for name in state.names)
        legal = [StartTable(), LeaveTable()] if full else [LeaveTable()]
    return TableView(
        table_id=state.table_id,
        game=state.game,
        seq=state.seq,
        phase=state.phase,
        viewer=seat,
        seats=[
            SeatInfo(seat=s, name=state.names[s], left=state.left[s]) for s in range(state.seats)
        ],
        to_move=list(status.to_move),
        game_phase=status.phase,
        round=status.round,
        view=game_view,
        legal=legal,
        seed_commitment=state.seed_commitment,
        standing=state.standing,
        seed=state.seed,
        clock=clock_view(state),
        standings=standing_lines(state) if standings is None else standings,
    )


# ---------------------------------------------------------------- the log, folded


def apply_entry(state: TableState, envelope: Any) -> TableState:
    """Fold one log entry (an ``EventEnvelope`` with a raw msgpack body) into the table."""
    from games.codec import codec_for  # local: codec imports the registry only

    if envelope.seq != state.seq + 1:
        raise ValueError(f"table {state.table_id}: seq {envelope.seq} after {state.seq}")
    body = codec_for(state.game or None).decode_event(envelope.body)
    return advance(
        state,
        body,
        envelope.seq,
        envelope.hash,
        envelope.recorded_at,
        opens_command=envelope.command is not None,
        actor=envelope.seat,
    )


def advance(
    state: TableState,
    event: EventBody,
    seq: int,
    entry_hash: str,
    recorded_at: int,
    *,
    opens_command: bool = False,
    actor: int | None = None,
) -> TableState:
    """Fold one event together with its log position.

    ``opens_command``: this is the first event of a command (the log entry carrying the
    command), sent by seat ``actor`` (the envelope's seat); the previous command's turn
    and clock transitions are settled first.
    """
    if opens_command:
        settle_turns(state)
        state.actor = actor
        _open_undo_point(state, event)
    state = evolve_table(state, event)
    if state.undo.open:
        undo.note_event(state.undo, _undo_blocker(state, event))
    state.seq = seq
    state.head_hash = entry_hash
    state.at_ms = recorded_at
    if isinstance(event, TableFinished):
        state.finished_at = recorded_at
    elif isinstance(event, TableCreated):
        state.created_at = recorded_at
    return state


def _open_undo_point(state: TableState, first: EventBody) -> None:
    if state.phase != "playing" or isinstance(first, TableUndone):
        state.undo.open = False
        return
    game_state = state.game_state
    undo.open_command(
        state.undo,
        seq=state.seq,
        actor=state.actor,
        to_move=_moving(state),
        turn_seq=state.turn_seq,
        game_state=lambda: msgspec.msgpack.encode(game_state),
        blocked=_undo_blocker(state, first),
    )


def _undo_blocker(state: TableState, event: EventBody) -> str | None:
    if isinstance(event, _LIFECYCLE_EVENTS):
        return "turn_ended"
    return undo.rules_of(game_of(state)).blocker(event, state.actor)


class Snapshot(msgspec.Struct, kw_only=True):
    """A table state at a seq, with the game's state encoded by its own type."""

    rules_version: str
    table: TableState
    game_state: bytes | None


_snapshot_decoder = msgspec.msgpack.Decoder(Snapshot)


def encode_snapshot(state: TableState) -> bytes:
    game = get_game(state.game) if state.game else None
    table = msgspec.structs.replace(state, game_state=None)
    game_bytes = None
    if state.game_state is not None:
        game_bytes = msgspec.msgpack.encode(state.game_state)
    version = game.rules_version if game else ""
    return msgspec.msgpack.encode(
        Snapshot(rules_version=version, table=table, game_state=game_bytes)
    )


def decode_snapshot(data: bytes) -> TableState | None:
    """The snapshot's state, or None when it was written by other rules than today's."""
    snapshot = _snapshot_decoder.decode(data)
    table = snapshot.table
    if snapshot.game_state is None:
        return table
    game = get_game(table.game)
    if game is None or game.rules_version != snapshot.rules_version:
        return None
    table.game_state = msgspec.msgpack.decode(snapshot.game_state, type=game.state_type)
    return table
