"""Time travel over a table's log, as one viewer saw it.

A viewer is a seat (``0``, ``1``, …), ``"spectator"`` or ``"admin"``. Seats and
spectators only ever get what :func:`games.table.table_view` renders — the same function
the views projection uses — for the state folded from the log up to a seq: there is no
second redaction code here. ``"admin"`` gets the full folded state (hidden facts
included) and needs the operator's credential, ``$ORRERY_ADMIN_TOKEN``; a seat needs its
own token (checked against the SeatJoined token hash in the log); a spectator needs
nothing.

:func:`play_log` writes a complete table log without a server (the worker's decide and
seal, with random legal moves): for benchmarks and tests.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Iterator, Sequence
from random import Random
from typing import Any, Final, Literal

import msgspec

from games.codec import msgpack_encoder
from games.registry import get_game
from games.rejection import Rejected
from games.table import (
    TableState,
    advance,
    apply_entry,
    decide_table,
    settle_turns,
    table_view,
    token_hash,
    undo_check,
)
from orrery_contracts.envelope import EventEnvelope, RawEnvelope, seal
from orrery_contracts.table import CreateTable, JoinSeat, LeaveTable, StartTable, UndoTable

ADMIN_TOKEN_ENV = "ORRERY_ADMIN_TOKEN"
SPECTATOR: Final = "spectator"
ADMIN: Final = "admin"

Viewer = int | Literal["spectator", "admin"]

_json = msgspec.json.Encoder()


class AccessDenied(Exception):
    pass


class MidCommand(ValueError):
    """The log ends inside a command: a state no viewer ever saw, so nothing renders it."""

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(mid_command_text(reason, seq))
        self.seq = seq
        self.reason = reason


def mid_command_text(reason: str, seq: int | None = None) -> str:
    """One line saying that a log ends inside a command (``reason``: how it shows)."""
    at = f" after seq {seq}" if seq is not None else ""
    return (
        f"the log ends inside a command{at} ({reason}); a log holds whole commands: "
        "export the table again"
    )


def parse_viewer(text: str) -> Viewer:
    if text in (SPECTATOR, ADMIN):
        return SPECTATOR if text == SPECTATOR else ADMIN
    try:
        seat = int(text)
    except ValueError:
        raise ValueError(
            f"a viewer is a seat number, 'spectator' or 'admin', not {text!r}"
        ) from None
    if seat < 0:
        raise ValueError("seats are numbered from 0")
    return seat


def is_admin_token(token: str | None, admin_token: str | None = None) -> bool:
    expected = admin_token if admin_token is not None else os.environ.get(ADMIN_TOKEN_ENV, "")
    return bool(expected) and token is not None and secrets.compare_digest(token, expected)


def authorize(
    state: TableState, viewer: Viewer, token: str | None, admin_token: str | None = None
) -> None:
    """Raise :class:`AccessDenied` unless ``token`` lets its holder see as ``viewer``.

    ``state`` is the table folded to the end of its log: a seat's token is checked
    against the holder of that seat there. The admin token opens every viewer.
    """
    if viewer == SPECTATOR or is_admin_token(token, admin_token):
        return
    if viewer == ADMIN:
        if not (admin_token or os.environ.get(ADMIN_TOKEN_ENV)):
            raise AccessDenied(f"admin access is off: the operator has not set ${ADMIN_TOKEN_ENV}")
        raise AccessDenied("admin access needs the operator's admin token")
    assert isinstance(viewer, int)
    if not 0 <= viewer < state.seats:
        raise AccessDenied(f"table {state.table_id!r} has no seat {viewer}")
    expected = state.token_hashes[viewer]
    if token is None or expected is None or not secrets.compare_digest(expected, token_hash(token)):
        raise AccessDenied(f"seat {viewer} needs that seat's token")


def table_seat(viewer: Viewer) -> int | None:
    """The ``table_view`` seat of a seat or spectator viewer."""
    if viewer == ADMIN:
        raise ValueError("the admin sees the full state, not a seat's view")
    return None if viewer == SPECTATOR else int(viewer)


def unfinished_command(state: TableState) -> str | None:
    """Why ``state`` cannot be where a command ended, or None when it can be.

    A command's events are appended together, so every state a viewer, a projection or
    the next command meets is a command's end, and there the table promises (games/table/
    and games/protocol.py): a game that is over has its ``table.finished`` (the same
    command appends it); a game in play waits for at least one seat, none of them a seat
    that left (the table moves for those inside the command), each with a legal command.
    A state that breaks one of these lies inside a command: a log cut there (a truncated
    file, a benchmark's prefix). The rules need not answer for such a state at all
    (Federation half-way through an automatic step raises), so any error counts too,
    and its text is not repeated (it could name game state). The converse does not
    hold: a cut that happens to leave a state keeping every promise is not told from a
    complete log without the seed (``orrery audit`` re-decides a finished table's)."""
    if state.phase != "playing":
        return None  # before the start and after the end every command is one event
    game = get_game(state.game)
    if game is None:
        return None  # a game this server does not host: nothing to judge by
    try:
        status = game.status(state.game_state)
        if status.finished:
            return "the game is over but table.finished has not followed"
        if not status.to_move:
            return "nobody is to move"
        for seat in status.to_move:
            if state.left[seat]:
                return f"seat {seat} is to move but has left (the table moves for it)"
            if not game.legal_commands(state.game_state, seat):
                return f"seat {seat} is to move but has no legal command"
    except Exception:  # any failure of the rules here means "not a command end"
        return "the rules cannot say who moves next"
    return None


def render(state: TableState, viewer: Viewer, *, ended: bool = False) -> bytes:
    """The JSON a viewer sees of ``state``: a seat's or spectator's view, or (admin) all.

    A seat's or spectator's view is only ever rendered at a command's end (they never
    saw the table between two events of one command): inside one this raises
    :class:`MidCommand`. ``ended``: the caller knows the command ended (the log goes on
    with another command), which spares the check. The admin sees raw states, event by
    event."""
    if viewer == ADMIN:
        return _json.encode(state)
    reason = None if ended else unfinished_command(state)
    if reason is not None:
        raise MidCommand(state.seq, reason)
    return _json.encode(table_view(state, table_seat(viewer)))


def fold(entries: Sequence[RawEnvelope], to_seq: int | None = None) -> TableState:
    """The table folded from its log up to ``to_seq`` (default: the end)."""
    table_id = entries[0].table_id if entries else ""
    state = TableState(table_id=table_id)
    for entry in entries:
        if to_seq is not None and entry.seq > to_seq:
            break
        state = apply_entry(state, entry)
    return state


class Frame(msgspec.Struct, frozen=True):
    """What a viewer saw after the entries ``first``..``last`` (one command's events).

    ``entries`` is empty for seq 0, the table before its first event.
    """

    first: int
    last: int
    entries: list[RawEnvelope]
    rendered: bytes


def frames(
    entries: Sequence[RawEnvelope], viewer: Viewer, first: int = 0, last: int | None = None
) -> Iterator[Frame]:
    """What ``viewer`` saw, step by step, from seq ``first`` to seq ``last``.

    A command's events are appended atomically, so a seat or spectator only ever saw the
    table between commands: one frame per command, the one holding ``first`` through the
    one holding ``last``. The admin steps through single events. Seq 0 (no entries) is
    the table before its first event. Only :func:`render` output leaves this function,
    so seats and spectators get nothing but their views.
    """
    table_id = entries[0].table_id if entries else ""
    state = TableState(table_id=table_id)
    if first <= 0:
        yield Frame(0, 0, [], render(state, viewer, ended=True))
    index = 0
    while index < len(entries):
        start = entries[index]
        if last is not None and start.seq > last:
            break
        end = index + 1
        if viewer != ADMIN:
            while end < len(entries) and entries[end].command_id == start.command_id:
                end += 1
        group = list(entries[index:end])
        for entry in group:
            state = apply_entry(state, entry)
        if group[-1].seq >= first:
            # only the log's last command can be cut: the others end where the next begins
            ended = end < len(entries)
            yield Frame(start.seq, group[-1].seq, group, render(state, viewer, ended=ended))
        index = end


def command_ends(entries: Sequence[RawEnvelope]) -> list[int]:
    """The last seq of each command in a log (its entries share one command id)."""
    return [
        entry.seq
        for i, entry in enumerate(entries)
        if i + 1 == len(entries) or entries[i + 1].command_id != entry.command_id
    ]


def view_changes(before: Any, after: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, old, new) for every leaf that differs between two decoded JSON documents."""
    if isinstance(before, dict) and isinstance(after, dict):
        changes: list[tuple[str, Any, Any]] = []
        for key in [*before, *(k for k in after if k not in before)]:
            sub = f"{path}.{key}" if path else str(key)
            changes += view_changes(before.get(key), after.get(key), sub)
        return changes
    if (
        isinstance(before, list)
        and isinstance(after, list)
        and len(before) == len(after)
        and any(isinstance(x, dict | list) for x in before)
    ):
        changes = []
        for i, (x, y) in enumerate(zip(before, after, strict=True)):
            changes += view_changes(x, y, f"{path}[{i}]")
        return changes
    return [] if before == after else [(path, before, after)]


# ---------------------------------------------------------------- logs without a server


def play_log(
    game_name: str,
    seats: int,
    seed: int,
    *,
    table_id: str | None = None,
    options: dict[str, Any] | None = None,
    leaves: dict[int, int] | None = None,
    max_commands: int = 50_000,
    undo_chance: float = 0.0,
    rated: bool = True,
) -> tuple[list[RawEnvelope], list[str]]:
    """A complete table log as the worker would write it, with random legal moves.

    Returns the entries and each seat's token. The table's secret seed and the moves
    both come from ``seed``. ``leaves`` maps a seat to the move number after which it
    leaves (concedes; the table then plays it at random, or ends when all have left).
    ``undo_chance``: how often a seat whose view offers ``table.undo`` takes it (to a
    random seq of its turn that the view's check accepts). ``rated``: false makes an
    unrated table.
    """
    game = get_game(game_name)
    if game is None:
        raise ValueError(f"unknown game {game_name!r}")
    chooser = Random(seed)
    secret = hashlib.sha256(f"orrery-play-log-{seed}".encode()).digest()
    table = table_id or f"{game_name}-{seed}"
    state = TableState(table_id=table)
    entries: list[RawEnvelope] = []
    tokens = [f"token-{seed}-{s}" for s in range(seats)]
    clock = [1_700_000_000_000]

    def command(body: Any, seat: int | None) -> None:
        nonlocal state
        events = decide_table(state, body, seat, secret)
        command_id = f"c{len(entries) + 1}-{chooser.getrandbits(32):08x}"
        body_bytes = msgpack_encoder.encode(body)
        clock[0] += chooser.randint(1, 5_000)
        for i, event in enumerate(events):
            sealed = seal(
                EventEnvelope(
                    table_id=table,
                    seq=state.seq + 1,
                    command_id=command_id,
                    seat=seat,
                    recorded_at=clock[0],
                    prev_hash=state.head_hash,
                    body=msgspec.Raw(msgpack_encoder.encode(event)),
                    command=body_bytes if i == 0 else None,
                )
            )
            entries.append(sealed)
            state = advance(
                state,
                event,
                sealed.seq,
                sealed.hash,
                sealed.recorded_at,
                opens_command=i == 0,
                actor=seat,
            )

    command(CreateTable(game=game_name, seats=seats, options=options or {}, rated=rated), None)
    for s in range(seats):
        command(JoinSeat(name=f"P{s}", seat=s, token_hash=token_hash(tokens[s])), None)
    command(StartTable(), 0)
    pending_leaves = dict(leaves or {})
    for move in range(max_commands):
        if state.phase == "finished":
            return entries, tokens
        leaving = [s for s, after in pending_leaves.items() if after <= move]
        if leaving:
            del pending_leaves[leaving[0]]
            command(LeaveTable(), leaving[0])
            continue
        to_move = game.status(state.game_state).to_move
        seat = chooser.choice(to_move)
        if undo_chance and chooser.random() < undo_chance:
            back = _undo_targets(state, seat)
            if back:
                command(UndoTable(to_seq=chooser.choice([*back, None])), seat)
                continue
        command(chooser.choice(game.legal_commands(state.game_state, seat)), seat)
    raise RuntimeError(f"{game_name}: no end after {max_commands} commands")


def _undo_targets(state: TableState, seat: int) -> list[int]:
    """The seqs an undo by ``seat`` may return to now."""
    settle_turns(state)
    targets = []
    for point in state.undo.points:
        try:
            targets.append(undo_check(state, seat, point.seq))
        except Rejected:
            continue
    return targets
