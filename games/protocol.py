"""The decider surface every game exposes, and the small types it returns.

A game is a module-level object satisfying :class:`Game`; the built-in games define it
as a :class:`games.definition.GameDefinition` naming their rule functions:

* ``setup(options, seats, rng)`` — the opening facts, every random draw included;
* ``decide(state, command, seat, rng)`` — events, or raise :class:`games.Rejected`;
* ``evolve(state, event)`` — applies one fact. It never decides and never draws
  randomness; it may update ``state`` in place and return it (states are mutable
  msgspec Structs, so snapshots are one msgpack encode). ``decide``, ``view``,
  ``legal_commands``, ``score`` and ``status`` never mutate the state;
* ``view(state, seat)`` — exactly what ``seat`` (``None``: a spectator) may know;
* optionally ``views(state, viewers)`` — ``[view(state, v) for v in viewers]``, equal
  field for field, with the parts every viewer sees alike built once (the views
  projection renders the spectator and every seat after each command;
  ``games.table.views`` falls back to ``view`` per viewer for a game without it). The
  built-in games start each seat's view from the spectator's and rebuild what depends on
  the viewer with ``view``'s own helpers: a part forgotten there shows the seat the
  spectator's (less), never another seat's secret; ``tests/test_views_render.py`` holds
  the two equal;
* ``legal_commands(state, seat)`` — commands ``decide`` would accept from ``seat``
  (a representative set where the full set is combinatorial: every one listed is
  accepted, and a seat that must act always has at least one);
* ``score(state)`` and ``status(state)``. Both are public: the scoreboard shows
  ``score`` of a running game to everyone, so it may only count public facts;
* optionally ``undo`` — which outcomes ``table.undo`` can take back (:mod:`games.undo`).

Seats are numbered ``0 .. seats-1``. The platform builds the first state with
``initial_state(options, seats)`` and folds the ``setup`` events into it.
"""

from __future__ import annotations

from random import Random
from typing import Any, Protocol, TypeVar

import msgspec

from orrery_contracts.base import CommandBody, EventBody, ViewBody


class Status(msgspec.Struct, frozen=True, kw_only=True):
    """Where a game stands: whose command it waits for, and whether it is over."""

    phase: str
    to_move: tuple[int, ...] = ()
    finished: bool = False
    round: int = 0


class OtherStanding(msgspec.Struct, frozen=True, kw_only=True):
    """A participant without a seat (a built-in opponent, e.g. Fractured Sky's AIs in a
    1-2 player game): its name, points and rank among everybody."""

    participant: int  # the game's number for it (after the seats)
    name: str
    points: int
    rank: int


class Standing(msgspec.Struct, frozen=True, kw_only=True):
    """Points and ranks per seat; rank 1 is best, equal ranks are shared places. The
    ranks count ``others`` (participants without a seat), which every standing shows
    beside the seats: a solo player placing 3rd sees the two AIs above."""

    points: tuple[int, ...]
    ranks: tuple[int, ...]
    others: tuple[OtherStanding, ...] = ()


S = TypeVar("S")


class Game(Protocol[S]):
    """A game's rules as a decider; see the module docstring for the contract."""

    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    options_type: type[msgspec.Struct]
    state_type: type[S]
    command_types: tuple[type[CommandBody], ...]
    event_types: tuple[type[EventBody], ...]
    view_type: type[ViewBody]

    def initial_state(self, options: Any, seats: int) -> S: ...

    def setup(self, options: Any, seats: int, rng: Random) -> list[EventBody]: ...

    def decide(self, state: S, command: CommandBody, seat: int, rng: Random) -> list[EventBody]: ...

    def evolve(self, state: S, event: EventBody) -> S: ...

    def view(self, state: S, seat: int | None) -> ViewBody: ...

    def legal_commands(self, state: S, seat: int) -> list[CommandBody]: ...

    def score(self, state: S) -> Standing: ...

    def status(self, state: S) -> Status: ...
