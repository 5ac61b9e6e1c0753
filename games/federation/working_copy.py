"""The decide-time working context: a private copy of the state plus the events so far.

Every change is made by emitting an event, which is folded into the copy at once, so
later rule code reads the up-to-date situation and the events alone rebuild it.
"""

from __future__ import annotations

from random import Random

from games.federation.counts import reserve
from games.federation.effect_steps import effect_steps
from games.federation.evolve import evolve
from games.federation.state import FederationState
from orrery_contracts.base import EventBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st

# A set of exact types: every emitted event is looked up here, and ``isinstance`` with a
# tuple of msgspec Structs costs a call through the metaclass per class tried.
_INFLUENCE_EVENTS: frozenset[type[EventBody]] = frozenset(
    (
        ev.OrangeMoved,
        ev.BlueMoved,
        ev.StallTaken,
        ev.EruditeTaken,
        ev.Built,
        ev.InfluenceAdded,
    )
)


class Ctx:
    __slots__ = ("crystals_changed", "events", "influence_changed", "rng", "s")

    def __init__(self, s: FederationState, rng: Random) -> None:
        self.s = s
        self.rng = rng
        self.events: list[EventBody] = []
        self.influence_changed = True
        self.crystals_changed = True

    def emit(self, e: EventBody) -> None:
        self.events.append(e)
        evolve(self.s, e)
        kind = type(e)
        if kind is ev.Gained:
            self.crystals_changed = True
        elif kind in _INFLUENCE_EVENTS:
            self.influence_changed = True

    def push(self, *steps: st.AnyStep) -> None:
        """Put steps at the front of the queue, to run in the given order."""
        if steps:
            self.emit(ev.Queued(steps=list(steps)))

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
        if ships > 0:
            ships = min(ships, reserve(self.s.players[seat]))
        if copp or lav or ocean or diamond or pp or ships:
            self.emit(
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
