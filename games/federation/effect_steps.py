"""Catalogue effects as queue steps: the one translation of an effect's ``(key, n)``
pairs (see the catalogue's docstring) into typed steps, and the pay step of a cost."""

from __future__ import annotations

from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import steps as st


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
