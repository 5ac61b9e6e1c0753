"""The decide-time working context: the shared working state (``games.working``: a
private copy of the state plus the events so far, each emitted event folded at once)
and Federation's helpers to queue steps and gain resources through events.
"""

from __future__ import annotations

from random import Random

from games.federation.counts import reserve
from games.federation.effect_steps import effect_steps
from games.federation.evolve import FOLDS
from games.federation.state import FederationState
from games.working import Working
from orrery_contracts.base import EventBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st

# What the "at once" checks of ``automatic.after_step`` look at again after an event,
# for the seat the event names (seat ``i``'s bits are shifted left by ``8 * i``): bit
# ``planet`` (0-4) when the seat's influence on that planet may have changed (planet
# medals), ``CRYSTALS`` when its crystals did (the limit of 10; ``Ctx.gain`` marks it
# only when the gain leaves the seat over the limit). By exact event type
# (``games.working``'s ``watch`` with a ``seat_shift``); an influence token may go to any
# planet: every planet of its seat is looked at again.
CRYSTALS = 1 << 5
PLANET_BITS = 0x1F
SEAT_SHIFT = 8
EVERY_SEAT = 0x3F3F3F3F  # every check of 4 seats: the first look of a decide
INFLUENCE_ANY = 0x1F1F1F1F
CRYSTALS_ANY = 0x20202020
_WATCH: dict[type[EventBody], int] = {
    ev.OrangeMoved: 1 << cat.ORANGE,
    ev.BlueMoved: 1 << cat.BLUE,
    ev.StallTaken: 1 << cat.YELLOW,
    ev.EruditeTaken: 1 << cat.PURPLE,
    ev.Built: 1 << cat.GREEN,
    ev.InfluenceAdded: PLANET_BITS,
    ev.Gained: CRYSTALS,
}


POPPED = ev.Popped()  # frozen and empty: one for every step done


class Ctx(Working[FederationState]):
    """The working state (``games.working``, watching what the "at once" checks of
    ``automatic.after_step`` count) with the table's RNG and the queue's helpers.

    The most frequent events (a step done, steps queued, a gain) are folded in place by
    their helpers, exactly as their fold functions do."""

    __slots__ = ("rng",)

    def __init__(self, state: FederationState, rng: Random) -> None:
        # Working's fields set here, not through ``Working.__init__``: one call less per
        # ``decide``
        self.state = state
        self.folds = FOLDS
        self.events = []
        self.watch = _WATCH
        self.seat_shift = SEAT_SHIFT
        self.touched = EVERY_SEAT  # the first look is made regardless
        self.rng = rng

    def pop(self) -> None:
        """``fed.popped``: the step at the front is done."""
        self.events.append(POPPED)
        self.state.queue.pop(0)

    def push(self, *steps: st.AnyStep) -> None:
        """Put steps at the front of the queue, to run in the given order."""
        if steps:
            self.events.append(ev.Queued(steps=list(steps)))
            self.state.queue[0:0] = steps

    def push_effect(self, seat: int, effect: cat.Effect, icon: int = -1, times: int = 1) -> None:
        self.push(*effect_steps(seat, effect, icon, times))

    def gain(
        self,
        seat: int,
        copp: int = 0,
        lav: int = 0,
        ocean: int = 0,
        diamond: int = 0,
        pp: int = 0,
        ships: int = 0,
        reason: str = "",
    ) -> None:
        p = self.state.players[seat]
        if ships > 0:
            ships = min(ships, reserve(p))
        if copp or lav or ocean or diamond or pp or ships:
            self.events.append(
                ev.Gained(
                    seat=seat,
                    copp=copp,
                    lav=lav,
                    ocean=ocean,
                    diamond=diamond,
                    pp=pp,
                    ships=ships,
                    reason=reason,
                )
            )
            # evolve's fold of fed.gained, its zero amounts skipped (a gain is mostly one)
            if copp:
                p.copp += copp
            if lav:
                p.lav += lav
            if ocean:
                p.ocean += ocean
            if diamond:
                p.diamond += diamond
            if pp:
                p.pp += pp
            if ships:
                p.hangar += ships
            # the limit of 10 is looked at again only once a gain leaves the seat over it
            # (only a gain changes crystals: one below the limit leaves nothing to discard
            # at the next look, unless a later gain goes over it and marks it then)
            if p.copp + p.lav + p.ocean > cat.MAX_CRYSTALS:
                self.touched |= CRYSTALS << SEAT_SHIFT * seat
