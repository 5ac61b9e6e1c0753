"""The decide-time working context: the shared working state (``games.working``: a
private copy of the state plus the events so far, each emitted event folded at once)
and Federation's helpers to queue steps and gain resources through events.
"""

from __future__ import annotations

from random import Random

from games.federation.counts import reserve
from games.federation.effect_steps import effect_steps
from games.federation.evolve import evolve
from games.federation.state import FederationState
from games.working import Working
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


class Ctx(Working[FederationState]):
    """The working state (``games.working``) with the table's RNG, the queue's helpers
    and what the "at once" checks (``automatic.after_step``) have seen."""

    __slots__ = ("crystals_seen", "influence_seen", "rng")

    def __init__(self, state: FederationState, rng: Random) -> None:
        Working.__init__(self, state, evolve)
        self.rng = rng
        # how many events each "at once" check has looked at (-1: check regardless)
        self.influence_seen = -1
        self.crystals_seen = -1

    def influence_changed(self) -> bool:
        """Whether an event since the last call may have changed someone's influence."""
        events, seen = self.events, self.influence_seen
        self.influence_seen = len(events)
        return seen < 0 or any(type(e) in _INFLUENCE_EVENTS for e in events[seen:])

    def crystals_changed(self) -> bool:
        """Whether an event since the last call may have changed someone's crystals."""
        events, seen = self.events, self.crystals_seen
        self.crystals_seen = len(events)
        return seen < 0 or any(type(e) is ev.Gained for e in events[seen:])

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
            ships = min(ships, reserve(self.state.players[seat]))
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
