"""The decide-time working state: a private copy of the state and the events so far.

A ``decide`` that must read the situation its own events create (an automated
opponent's turn after a placement, a round's end, a queue of steps) works on a copy
(:func:`games.clone.clone`) and *emits* each event: the event is recorded and folded
into the copy at once, with the game's own ``evolve``, so later rule code reads the
up-to-date situation and the events alone rebuild it. The events are what ``decide``
returns; the copy is thrown away.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from orrery_contracts.base import EventBody

S = TypeVar("S")


class Working(Generic[S]):
    """``state``: the private copy (never the state ``decide`` was given); ``events``:
    what was emitted, in order; ``fold``: the game's ``evolve``."""

    __slots__ = ("events", "fold", "state")

    def __init__(
        self, state: S, fold: Callable[[S, EventBody], S], events: list[EventBody] | None = None
    ) -> None:
        self.state = state
        self.fold = fold
        self.events: list[EventBody] = [] if events is None else events

    def emit(self, event: EventBody) -> None:
        """Record ``event`` and fold it into the working state."""
        self.events.append(event)
        self.fold(self.state, event)
