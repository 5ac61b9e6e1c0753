"""Undo within a seat's own turn: what a table keeps, when ``table.undo`` is accepted,
and how the fold restores.

Design. A log is never rewritten: an undo is a command like any other,
``table.undo {to_seq?}``, and its one event, ``table.undone {seat, from_seq, to_seq}``,
says "the game is again as it was at ``to_seq``". ``evolve`` stays a pure fold because
the table keeps what it needs to restore: its state holds an :class:`UndoChain`, one
:class:`UndoPoint` per command folded since the last command nobody could take back,
each with the game state as it was just before that command (msgpack of the game's own
state type), the seat that sent it, the seats that were to move, and — derived from the
command's events only — why nobody may take it back (``blocked``). Folding
``table.undone`` puts back the game state of the point at ``to_seq`` and drops the
points after it. The chain is a function of the log, so every fold (worker, projector,
replay at any seq, audit, import, rebuild) restores the same state, and an audit
re-decides an undo like any command.

What can be taken back is a property of a command's *outcome*, declared by each game
(:class:`UndoDeclaration`, documented in its RULES.md): events that reveal hidden
information to anyone (a card drawn or turned, a tile flipped, a peek, a secret chosen)
are ``revealed``; events that record chance are ``random``, declared by the event type
itself (``chance = True``, :class:`orrery_contracts.base.EventBody`). The platform adds: an event
about another seat (its ``seat`` field: a zombie's move, an automated opponent's turn)
is ``other_player``; lifecycle events (a seat leaving, a clock expiring) and commands of
a seat that is not to move (Fractured Sky's free trades off-turn) end what can be taken
back. A game that declares nothing has no undoable command.

When (:func:`check`, the one legality check: ``decide`` refuses with it and the view's
``legal`` lists ``table.undo`` exactly when it passes): the seat is to move; every
command after ``to_seq`` is the seat's own, inside its current turn (its turn began at or
before ``to_seq``), none of them blocked; and the seats to move at ``to_seq`` are the
seats to move now (an undo never changes who is to move). The refusal is
``undo_blocked`` with ``detail.reason`` one of ``other_player``, ``revealed``,
``random``, ``turn_ended``, ``nothing_to_undo``. Only facts every seat sees decide it, so
the refusal and the ``legal`` entry leak nothing.

Size. A point its own seat can no longer use (its turn is over, or it is blocked) makes
every older point useless to everyone (an undo to before it would cross it), so at each
command's start the chain replaces that prefix by one marker without a game state that
keeps the reason; the chain holds the commands of the turns now running, at most
:data:`MAX_POINTS`.

Clocks and notices: time used is never given back (BGA's rule). An undo is not a move
(it starts no per-move time) and each undone command's per-move time is withdrawn, so a
move-undo loop gains nothing; the seat stays to move in the same turn, so no "your
turn" notice follows. Bots never send it (they skip ``table.undo`` in ``legal``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol

import msgspec

from games.rejection import Rejected
from orrery_contracts.base import EventBody
from orrery_contracts.table import UndoReason

UNDO_BLOCKED = "undo_blocked"
# Why a command cannot be taken back, as recorded in its point.
UndoBlock = Literal["other_player", "revealed", "random", "turn_ended"]
MAX_POINTS = 64


class UndoPoint(msgspec.Struct, frozen=True, kw_only=True):
    """A command folded in the current turns: ``seq`` is the table's seq just before it
    (undoing it returns there)."""

    seq: int
    seat: int | None  # who sent it (None: a system command)
    to_move: list[int] = []  # seats to move at ``seq``
    blocked: str = ""  # an UndoBlock, or "" when it can be taken back
    state: bytes = b""  # the game state at ``seq`` (msgpack), kept only while undoable


class UndoChain(msgspec.Struct, kw_only=True):
    points: list[UndoPoint] = []
    open: bool = False  # the newest point is the command being folded


# ---------------------------------------------------------------- declarations


class UndoRules(Protocol):
    def blocker(self, event: EventBody, actor: int | None) -> UndoBlock | None:
        """Why a command whose outcome holds ``event`` (sent by ``actor``) cannot be
        taken back, or None."""
        ...


class UndoDeclaration:
    """A game's declaration of the outcomes that cannot be taken back.

    ``revealed``: event types that show a hidden fact to someone; ``revealed_when``:
    event types that reveal only in some cases, with a test of the event's public
    fields. Chance is not listed here: an event type that records chance says so itself
    (``chance = True``).
    """

    def __init__(
        self,
        *,
        revealed: Iterable[type[EventBody]] = (),
        revealed_when: Mapping[type[EventBody], Callable[[Any], bool]] | None = None,
    ) -> None:
        self.revealed = frozenset(revealed)
        self.revealed_when = dict(revealed_when or {})

    def blocker(self, event: EventBody, actor: int | None) -> UndoBlock | None:
        if event.chance:
            return "random"
        kind = type(event)
        if kind in self.revealed:
            return "revealed"
        test = self.revealed_when.get(kind)
        if test is not None and test(event):
            return "revealed"
        seat = getattr(event, "seat", None)
        if isinstance(seat, int) and seat >= 0 and seat != actor:
            return "other_player"
        return None


class _NothingUndoable:
    def blocker(self, event: EventBody, actor: int | None) -> UndoBlock | None:
        return "revealed"


NOTHING_UNDOABLE: UndoRules = _NothingUndoable()


def rules_of(game: Any) -> UndoRules:
    """The game's declaration (its ``undo`` attribute), or: nothing is undoable."""
    rules: UndoRules = getattr(game, "undo", None) or NOTHING_UNDOABLE
    return rules


# ---------------------------------------------------------------- the fold


def open_command(
    chain: UndoChain,
    *,
    seq: int,
    actor: int | None,
    to_move: Sequence[int],
    turn_seq: Sequence[int],
    game_state: Callable[[], bytes],
    blocked: str | None = None,
) -> None:
    """A command's first event is about to be folded at table seq ``seq`` (settled);
    ``blocked``: why that event already makes the command one nobody can take back (then
    the game state is not kept: no encoding for nothing)."""
    points = chain.points
    over = len(points) + 1 - MAX_POINTS  # the oldest go when the chain is full
    dead = max((i for i, p in enumerate(points) if _dead(p, turn_seq)), default=over - 1)
    dead = max(dead, over)
    if dead >= 0:
        last = points[dead]
        marker = UndoPoint(seq=last.seq, seat=last.seat, blocked=last.blocked or "turn_ended")
        points[: dead + 1] = [marker]
    if actor is None or actor not in to_move or blocked:
        reason = blocked if actor is not None and actor in to_move and blocked else "turn_ended"
        points.append(UndoPoint(seq=seq, seat=actor, to_move=list(to_move), blocked=reason))
    else:
        points.append(UndoPoint(seq=seq, seat=actor, to_move=list(to_move), state=game_state()))
    chain.open = True


def _dead(point: UndoPoint, turn_seq: Sequence[int]) -> bool:
    seat = point.seat
    if point.blocked or seat is None or not 0 <= seat < len(turn_seq):
        return True
    return not turn_seq[seat] or turn_seq[seat] > point.seq


def note_event(chain: UndoChain, blocker: str | None) -> None:
    """One event of the command being folded; ``blocker``: why it cannot be taken back."""
    if not (chain.open and blocker and chain.points):
        return
    last = chain.points[-1]
    if not last.blocked:
        chain.points[-1] = msgspec.structs.replace(last, blocked=blocker, state=b"")


def restore(chain: UndoChain, to_seq: int) -> tuple[bytes, int]:
    """Fold a ``table.undone`` back to ``to_seq``: the game state kept there and how many
    commands were taken back."""
    points = chain.points
    for index in range(len(points) - 1, -1, -1):
        point = points[index]
        if point.seq == to_seq and point.state:
            undone = len(points) - index
            del points[index:]
            chain.open = False
            return point.state, undone
    raise ValueError(f"nothing kept to undo back to seq {to_seq}")


# ---------------------------------------------------------------- the check


def _blocked(reason: UndoReason, message: str) -> Rejected:
    return Rejected(UNDO_BLOCKED, message, detail={"reason": reason})


def check(
    chain: UndoChain,
    *,
    seat: int,
    to_seq: int | None,
    seq: int,
    to_move: Sequence[int],
    turn_seq: Sequence[int],
) -> int:
    """The seq an undo by ``seat`` returns to, or raise ``undo_blocked`` (the one
    legality check of ``table.undo``; needs a settled table)."""
    turn = turn_seq[seat] if 0 <= seat < len(turn_seq) else 0
    if seat not in to_move or not turn:
        raise _blocked("turn_ended", "you can only take back moves during your own turn")
    points = chain.points
    if to_seq is None:
        mine = [p.seq for p in points if p.seat == seat and p.seq >= turn]
        if not mine:
            raise _blocked("nothing_to_undo", "you have made no move this turn")
        target = mine[-1]
    elif to_seq >= seq:
        raise _blocked("nothing_to_undo", f"nothing happened after seq {to_seq}")
    elif to_seq < turn:
        raise _blocked("turn_ended", f"your turn began after seq {to_seq}")
    else:
        target = to_seq
    for point in reversed(points):
        if point.seq < target:
            break
        if point.seat != seat:
            raise _blocked("other_player", "another player has moved since then")
        if point.blocked:
            reason: UndoReason = _REASONS.get(point.blocked, "turn_ended")
            raise _blocked(reason, _MESSAGES[reason])
        if point.seq == target:
            if list(point.to_move) != list(to_move):
                raise _blocked("turn_ended", "taking that back would change who is to move")
            return target
    raise _blocked("nothing_to_undo", f"no move of yours this turn begins after seq {target}")


_REASONS: dict[str, UndoReason] = {
    "other_player": "other_player",
    "revealed": "revealed",
    "random": "random",
    "turn_ended": "turn_ended",
}
_MESSAGES: dict[UndoReason, str] = {
    "other_player": "another player has moved since then",
    "revealed": "that move showed hidden information to someone",
    "random": "that move depended on chance",
    "turn_ended": "that move ended a turn",
    "nothing_to_undo": "there is nothing to take back",
}


def undoable(
    chain: UndoChain, *, seat: int, seq: int, to_move: Sequence[int], turn_seq: Sequence[int]
) -> bool:
    """Whether ``table.undo`` (back before the seat's last command) is accepted now."""
    try:
        check(chain, seat=seat, to_seq=None, seq=seq, to_move=to_move, turn_seq=turn_seq)
    except Rejected:
        return False
    return True
