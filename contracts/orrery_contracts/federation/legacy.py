"""Reading logs of rules versions 1 and 2: their untyped queue steps, upcast to typed ones.

Up to rules version 2 a queue step was ``Step(kind, seat, a, b, alts)``: a kind string
(``fx_<effect key>``, ``blue_take``, ``mega_pp``...) and two integers whose meaning depended on it.
Those logs keep their ``fed.pushed`` events; ``upcast`` turns each of their steps into
the typed step of ``orrery_contracts.federation.steps`` that means the same, so a folded
old log holds exactly the queue a new log would. The mapping is pure wire translation:
it reads no content data.
"""

from __future__ import annotations

import msgspec

from orrery_contracts.federation import steps as st


class LegacyStep(msgspec.Struct, frozen=True, kw_only=True):
    """A queue step as rules versions 1 and 2 wrote it."""

    kind: str
    seat: int = -1
    a: int = 0
    b: int = 0
    alts: list[list[int]] = []


def upcast(old: LegacyStep) -> st.AnyStep:
    """The typed step that means what ``old`` meant."""
    seat, a, b = old.seat, old.a, old.b
    if old.kind.startswith("fx_"):  # a catalogue effect key: b was the space's icon
        return st.effect_step(seat, old.kind.removeprefix("fx_"), a, b)
    match old.kind:
        case "planet":
            return st.PlanetAction(seat=seat, planet=a)
        case "armed":
            return st.PlanetTiles(seat=seat, planet=a)
        case "president":
            return st.PresidentsOffice(seat=seat)
        case "intrigue":
            return st.IntrigueMedal(seat=seat)
        case "mission_pp":
            return st.MissionPrestige(seat=seat, mission=a)
        case "mega_pp":
            return st.MegastructurePrestige(seat=seat, megastructure=a, multiplier=b)
        case "begin_round":
            return st.BeginRound(seat=seat, round=a)
        case "exec":
            return st.ExecutivePhase(seat=seat, round=a)
        case "income":
            return st.CollectIncome(seat=seat)
        case "projects":
            return st.FundProjects(seat=seat)
        case "rows":
            return st.ScoreRows(seat=seat)
        case "law_vote":
            return st.CountLawVotes(seat=seat)
        case "law_apply":
            return st.PassLaw(seat=seat, side=a)
        case "round_end":
            return st.EndRound(seat=seat, round=a)
        case "final":
            return st.FinalScoring(seat=seat)
        case "turn":
            return st.Turn(seat=seat)
        case "post":
            return st.AfterPlacement(seat=seat, mission_done=a == 1)
        case "pay":
            return st.PayCost(seat=seat, alternatives=[list(x) for x in old.alts])
        case "discard":
            return st.DiscardCrystals(seat=seat)
        case "crystal":
            return st.ChooseCrystal(seat=seat)
        case "start_pick":
            return st.ChooseStartTile(seat=seat)
        case "deep":
            return st.ChooseDeepSpace(seat=seat)
        case "influence":
            return st.ChooseInfluence(seat=seat)
        case "medal":
            return st.ChooseMedal(seat=seat)
        case "fork":
            return st.ChooseFork(seat=seat)
        case "dead":
            return st.ChooseDeadAsteroid(seat=seat)
        case "blue_take":
            return st.ChooseToken(seat=seat, level=a)
        case "yellow":
            return st.ChooseStall(seat=seat)
        case "purple":
            return st.ChooseErudite(seat=seat, level_one_only=a == 1)
        case "green":
            return st.ChooseStructure(seat=seat)
        case "retrigger":
            return st.ChooseRetrigger(seat=seat)
        case "project":
            return st.ChooseProject(seat=seat)
        case "check":
            return st.ChooseCheck(seat=seat, level_two_only=a == 1)
        case "spy":
            return st.ChooseSpyTarget(seat=seat, planets_only=a == 1)
        case "free_mission":
            return st.ChooseFreeMission(seat=seat)
        case "income_choice":
            return st.ChooseIncome(seat=seat, structure=a)
        case "upkeep":
            return st.ChooseUpkeep(seat=seat)
        case "law":
            return st.ChooseLaw(seat=seat)
    raise ValueError(f"a rules-version-2 log holds an unknown step kind {old.kind!r}")
