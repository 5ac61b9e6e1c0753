"""The decide-time working context: a private copy of the state plus the events so far.

Every change is made by emitting an event, which is folded into the copy at once, so
later rule code reads the up-to-date situation and the events alone rebuild it.
"""

from __future__ import annotations

from random import Random

import msgspec

from games.federation.rules import reserve
from games.federation.state import State, evolve
from orrery_contracts.base import EventBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st

_ENC = msgspec.msgpack.Encoder()
_DEC = msgspec.msgpack.Decoder(State)


def clone(s: State) -> State:
    return _DEC.decode(_ENC.encode(s))


_INFLUENCE_EVENTS = (
    ev.OrangeMoved,
    ev.BlueMoved,
    ev.StallTaken,
    ev.EruditeTaken,
    ev.Built,
    ev.InfluenceAdded,
)


class Ctx:
    __slots__ = ("crystals_changed", "events", "influence_changed", "rng", "s")

    def __init__(self, s: State, rng: Random) -> None:
        self.s = s
        self.rng = rng
        self.events: list[EventBody] = []
        self.influence_changed = True
        self.crystals_changed = True

    def emit(self, e: EventBody) -> None:
        self.events.append(e)
        evolve(self.s, e)
        if type(e) is ev.Gained:
            self.crystals_changed = True
        elif isinstance(e, _INFLUENCE_EVENTS):
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


def effect_steps(seat: int, effect: cat.Effect, icon: int = -1, times: int = 1) -> list[st.AnyStep]:
    """The steps of a catalogue effect (its ``(key, n)`` pairs, in order), ``times`` over."""
    return [effect_step(seat, key, n * times, icon) for key, n in effect]


def effect_step(seat: int, key: str, n: int, icon: int) -> st.AnyStep:
    """The step of one catalogue effect key (see the catalogue's docstring)."""
    match key:
        case "c":
            return st.GainCoppernium(seat=seat, amount=n)
        case "l":
            return st.GainLavandium(seat=seat, amount=n)
        case "o":
            return st.GainOceanium(seat=seat, amount=n)
        case "d":
            return st.GainDiamonds(seat=seat, amount=n)
        case "pp":
            return st.GainPrestige(seat=seat, amount=n)
        case "ship":
            return st.GainShips(seat=seat, amount=n)
        case "auth":
            return st.GainAuthority(seat=seat, steps=n)
        case "die":
            return st.RaiseDie(seat=seat, amount=n)
        case "die_min":
            return st.DieAtLeast(seat=seat, value=n)
        case "funding":
            return st.CheckFundedMission(seat=seat, icon=icon)
        case "pp_per_medal":
            return st.PrestigePerMedal(seat=seat, points=n)
        case "pp_per_upper":
            return st.PrestigePerUpperStall(seat=seat, points=n)
        case "crystal":
            return st.CrystalsOfChoice(seat=seat, count=n)
        case "project":
            return st.ProjectAdvances(seat=seat, count=n)
        case "check_any":
            return st.MissionChecks(seat=seat, count=n)
        case "check_l2":
            return st.MissionChecks(seat=seat, count=n, level_two_only=True)
        case "erudite1":
            return st.LevelOneErudites(seat=seat, count=n)
        case "influence":
            return st.InfluenceOfChoice(seat=seat, count=n)
        case "free_mission":
            return st.FreeMissions(seat=seat, count=n)
        case "retrigger":
            return st.Retriggers(seat=seat, count=n)
        case "token_l1":
            return st.TokensFromLevel(seat=seat, count=n, level=1)
        case "token":
            return st.TokensFromYourLevel(seat=seat, count=n)
        case "orange":
            return st.OrangeActions(seat=seat, count=n)
        case "blue":
            return st.BlueActions(seat=seat, count=n)
    raise ValueError(f"the catalogue names an unknown effect {key!r}")


def pay_step(seat: int, *alts: cat.Cost) -> st.PayCost:
    return st.PayCost(seat=seat, alternatives=[list(a) for a in alts])
