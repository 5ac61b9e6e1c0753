"""The decide-time working state: a private copy of the state and the events so far.

A ``decide`` that must read the situation its own events create (an automated
opponent's turn after a placement, a round's end, a queue of steps) works on a copy
(:func:`games.clone.clone`) and *emits* each event: the event is recorded and folded
into the copy at once, with the game's own fold for the event's type (its ``evolve``'s
``FOLDS``: one lookup, one call), so later rule code reads the up-to-date situation and
the events alone rebuild it. The events are what ``decide``
returns; the copy is thrown away.

A game whose rules must look again only after certain kinds of event (Federation's
"at once" checks) passes ``watch``: event type → bits; ``touched`` gathers the bits of
the events emitted, and the game clears what it has looked at. With ``seat_shift`` the
bits are per seat: a watched event (which then names a ``seat``) sets its bits shifted
left by ``seat_shift * seat``, so the game looks again only at the seats concerned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from orrery_contracts.base import EventBody

S = TypeVar("S")
_NOTHING: Mapping[type[EventBody], int] = {}  # watches nothing (never written to)


class Working(Generic[S]):
    """``state``: the private copy (never the state ``decide`` was given); ``events``:
    what was emitted, in order (a list passed in holds events the copy already
    reflects); ``folds``: the game's fold per event type (``evolve.FOLDS``, each folding
    in place; an event the game does not know is a ``KeyError``); ``touched``: the
    ``watch`` bits of the events emitted since the game last cleared them (per seat with
    ``seat_shift``)."""

    __slots__ = ("events", "folds", "seat_shift", "state", "touched", "watch")

    def __init__(
        self,
        state: S,
        folds: Mapping[Any, Callable[[S, Any], None]],  # keyed by event type
        events: list[EventBody] | None = None,
        watch: Mapping[type[EventBody], int] | None = None,
        seat_shift: int = 0,
    ) -> None:
        self.state = state
        self.folds = folds
        self.events: list[EventBody] = [] if events is None else events
        self.watch = _NOTHING if watch is None else watch
        self.seat_shift = seat_shift
        self.touched = 0

    def emit(self, event: EventBody) -> None:
        """Record ``event``, fold it into the working state, note its ``watch`` bits."""
        self.events.append(event)
        kind = type(event)
        self.folds[kind](self.state, event)
        bits = self.watch.get(kind)  # most events are not watched: one lookup
        if bits is not None:
            if self.seat_shift:
                named: Any = event  # a watched event names its seat
                bits <<= self.seat_shift * named.seat
            self.touched |= bits
