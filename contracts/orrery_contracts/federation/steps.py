"""Federation's queue steps: one tagged Struct per kind of pending work (rules version 3).

The state holds a queue of steps; ``fed.queued`` puts steps at its front. A step is
either automatic (a gain, a planet action, a phase of the round: it runs inside the
``decide`` that reaches it) or a choice (``Choice``: a seat must answer it with a
command). The tag of a step is its ``kind``; a choice's kind is what views and statuses
show as the pending choice (``pending``), so those tags keep the words clients already
know (``pay``, ``yellow``, ``blue_take``, ...). Automatic steps are spelled out.

Fields say what the step works on (``amount``, ``planet``, ``level``...); a negative
``amount`` of a crystal or diamond gain is a cost printed on an alteration token: it
becomes a payment when the step runs.

Rules version 2 stored the steps as ``Step(kind, seat, a, b, alts)`` with kinds such as
``fx_c``; ``orrery_contracts.federation.legacy`` reads those logs (``fed.pushed``).
"""

from __future__ import annotations

from typing import get_args

import msgspec


class Step(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    """One pending piece of work of ``seat`` (-1: of the table, e.g. a round phase)."""

    seat: int = -1

    @property
    def kind(self) -> str:
        """The step's tag: the name of the pending choice a status or view shows."""
        return str(type(self).__struct_config__.tag)


class Choice(Step, frozen=True):
    """A step that waits for a command of its seat (unless it has at most one option)."""


# ---------------------------------------------------------------- gains (automatic)
class GainCoppernium(Step, frozen=True, tag="gain_coppernium"):
    amount: int


class GainLavandium(Step, frozen=True, tag="gain_lavandium"):
    amount: int


class GainOceanium(Step, frozen=True, tag="gain_oceanium"):
    amount: int


class GainDiamonds(Step, frozen=True, tag="gain_diamonds"):
    amount: int


class GainPrestige(Step, frozen=True, tag="gain_prestige"):
    amount: int


class GainShips(Step, frozen=True, tag="gain_ships"):
    """Spaceships from the reserve to the hangar (at most what the reserve holds)."""

    amount: int


class GainAuthority(Step, frozen=True, tag="gain_authority"):
    steps: int


class RaiseDie(Step, frozen=True, tag="raise_die"):
    """Take the assistant die (at 0) if needed and raise it by ``amount`` (max 6)."""

    amount: int


class DieAtLeast(Step, frozen=True, tag="die_at_least"):
    value: int


class CheckFundedMission(Step, frozen=True, tag="check_funded_mission"):
    """A funding token's bonus: check the mission of the space's icon."""

    icon: int


class PrestigePerMedal(Step, frozen=True, tag="prestige_per_medal"):
    points: int  # per medal held, capped by the catalogue's PP_PER_MEDAL_CAP


class PrestigePerUpperStall(Step, frozen=True, tag="prestige_per_upper_stall"):
    points: int


# ---------------------------------------------------------------- repeated choices
class CrystalsOfChoice(Step, frozen=True, tag="crystals_of_choice"):
    """``count`` crystals, each of a type the seat chooses (``ChooseCrystal``)."""

    count: int


class ProjectAdvances(Step, frozen=True, tag="project_advances"):
    count: int


class MissionChecks(Step, frozen=True, tag="mission_checks"):
    count: int
    level_two_only: bool = False  # only the missions of row L2


class LevelOneErudites(Step, frozen=True, tag="level_one_erudites"):
    count: int


class InfluenceOfChoice(Step, frozen=True, tag="influence_of_choice"):
    count: int


class FreeMissions(Step, frozen=True, tag="free_missions"):
    count: int


class Retriggers(Step, frozen=True, tag="retriggers"):
    count: int


class TokensFromLevel(Step, frozen=True, tag="tokens_from_level"):
    count: int
    level: int


class TokensFromYourLevel(Step, frozen=True, tag="tokens_from_your_level"):
    """Alteration tokens from the seat's blue level when the step runs (none at 0)."""

    count: int


class OrangeActions(Step, frozen=True, tag="orange_actions"):
    count: int


class BlueActions(Step, frozen=True, tag="blue_actions"):
    count: int


# ---------------------------------------------------------------- planets, rooms, missions
class PlanetAction(Step, frozen=True, tag="planet_action"):
    planet: int


class PlanetTiles(Step, frozen=True, tag="planet_tiles"):
    """Erudite tiles with the planet icon fire right after that planet's action."""

    planet: int


class PresidentsOffice(Step, frozen=True, tag="presidents_office"):
    pass


class IntrigueMedal(Step, frozen=True, tag="intrigue_medal"):
    pass


class MissionPrestige(Step, frozen=True, tag="mission_prestige"):
    mission: int


class MegastructurePrestige(Step, frozen=True, tag="megastructure_prestige"):
    megastructure: int
    multiplier: int


# ---------------------------------------------------------------- the round
class BeginRound(Step, frozen=True, tag="begin_round"):
    round: int


class ExecutivePhase(Step, frozen=True, tag="executive_phase"):
    round: int


class CollectIncome(Step, frozen=True, tag="collect_income"):
    pass


class FundProjects(Step, frozen=True, tag="fund_projects"):
    pass


class ScoreRows(Step, frozen=True, tag="score_rows"):
    pass


class CountLawVotes(Step, frozen=True, tag="count_law_votes"):
    pass


class PassLaw(Step, frozen=True, tag="pass_law"):
    side: int  # 0 left, 1 right


class EndRound(Step, frozen=True, tag="end_round"):
    round: int


class FinalScoring(Step, frozen=True, tag="final_scoring"):
    pass


# ---------------------------------------------------------------- choices
class Turn(Choice, frozen=True, tag="turn"):
    """Place an ambassador (``fed.place``)."""


class AfterPlacement(Choice, frozen=True, tag="post"):
    """Missions, loop tiles or ``fed.end_turn`` after the placement's action."""

    mission_done: bool = False  # a mission was performed: no second one this turn


class PayCost(Choice, frozen=True, tag="pay"):
    alternatives: list[list[int]]  # each (copp, lav, ocean, any crystal, diamond)


class DiscardCrystals(Choice, frozen=True, tag="discard"):
    pass


class ChooseCrystal(Choice, frozen=True, tag="crystal"):
    pass


class ChooseStartTile(Choice, frozen=True, tag="start_pick"):
    pass


class ChooseDeepSpace(Choice, frozen=True, tag="deep"):
    pass


class ChooseInfluence(Choice, frozen=True, tag="influence"):
    pass


class ChooseMedal(Choice, frozen=True, tag="medal"):
    pass


class ChooseFork(Choice, frozen=True, tag="fork"):
    pass


class ChooseDeadAsteroid(Choice, frozen=True, tag="dead"):
    pass


class ChooseToken(Choice, frozen=True, tag="blue_take"):
    level: int  # blue level whose tokens are offered (0: none)


class ChooseStall(Choice, frozen=True, tag="yellow"):
    pass


class ChooseErudite(Choice, frozen=True, tag="purple"):
    level_one_only: bool = False


class ChooseStructure(Choice, frozen=True, tag="green"):
    pass


class ChooseRetrigger(Choice, frozen=True, tag="retrigger"):
    pass


class ChooseProject(Choice, frozen=True, tag="project"):
    pass


class ChooseCheck(Choice, frozen=True, tag="check"):
    level_two_only: bool = False


class ChooseSpyTarget(Choice, frozen=True, tag="spy"):
    planets_only: bool = False  # a mission's spy copies only a planet action


class ChooseFreeMission(Choice, frozen=True, tag="free_mission"):
    pass


class ChooseIncome(Choice, frozen=True, tag="income_choice"):
    structure: int


class ChooseUpkeep(Choice, frozen=True, tag="upkeep"):
    pass


class ChooseLaw(Choice, frozen=True, tag="law"):
    pass


#: Any step, as stored in the state's queue and in ``fed.queued``.
AnyStep = (
    GainCoppernium
    | GainLavandium
    | GainOceanium
    | GainDiamonds
    | GainPrestige
    | GainShips
    | GainAuthority
    | RaiseDie
    | DieAtLeast
    | CheckFundedMission
    | PrestigePerMedal
    | PrestigePerUpperStall
    | CrystalsOfChoice
    | ProjectAdvances
    | MissionChecks
    | LevelOneErudites
    | InfluenceOfChoice
    | FreeMissions
    | Retriggers
    | TokensFromLevel
    | TokensFromYourLevel
    | OrangeActions
    | BlueActions
    | PlanetAction
    | PlanetTiles
    | PresidentsOffice
    | IntrigueMedal
    | MissionPrestige
    | MegastructurePrestige
    | BeginRound
    | ExecutivePhase
    | CollectIncome
    | FundProjects
    | ScoreRows
    | CountLawVotes
    | PassLaw
    | EndRound
    | FinalScoring
    | Turn
    | AfterPlacement
    | PayCost
    | DiscardCrystals
    | ChooseCrystal
    | ChooseStartTile
    | ChooseDeepSpace
    | ChooseInfluence
    | ChooseMedal
    | ChooseFork
    | ChooseDeadAsteroid
    | ChooseToken
    | ChooseStall
    | ChooseErudite
    | ChooseStructure
    | ChooseRetrigger
    | ChooseProject
    | ChooseCheck
    | ChooseSpyTarget
    | ChooseFreeMission
    | ChooseIncome
    | ChooseUpkeep
    | ChooseLaw
)
STEP_TYPES: tuple[type[Step], ...] = get_args(AnyStep)


def effect_step(seat: int, key: str, n: int, icon: int) -> AnyStep:
    """The step of one catalogue effect key (see the catalogue's docstring): ``n`` is the
    amount or count, ``icon`` the senate icon of the space (for ``funding``). The one
    translation of the key language, for new steps and for upcasting old ``fx_<key>``."""
    match key:
        case "c":
            return GainCoppernium(seat=seat, amount=n)
        case "l":
            return GainLavandium(seat=seat, amount=n)
        case "o":
            return GainOceanium(seat=seat, amount=n)
        case "d":
            return GainDiamonds(seat=seat, amount=n)
        case "pp":
            return GainPrestige(seat=seat, amount=n)
        case "ship":
            return GainShips(seat=seat, amount=n)
        case "auth":
            return GainAuthority(seat=seat, steps=n)
        case "die":
            return RaiseDie(seat=seat, amount=n)
        case "die_min":
            return DieAtLeast(seat=seat, value=n)
        case "funding":
            return CheckFundedMission(seat=seat, icon=icon)
        case "pp_per_medal":
            return PrestigePerMedal(seat=seat, points=n)
        case "pp_per_upper":
            return PrestigePerUpperStall(seat=seat, points=n)
        case "crystal":
            return CrystalsOfChoice(seat=seat, count=n)
        case "project":
            return ProjectAdvances(seat=seat, count=n)
        case "check_any":
            return MissionChecks(seat=seat, count=n)
        case "check_l2":
            return MissionChecks(seat=seat, count=n, level_two_only=True)
        case "erudite1":
            return LevelOneErudites(seat=seat, count=n)
        case "influence":
            return InfluenceOfChoice(seat=seat, count=n)
        case "free_mission":
            return FreeMissions(seat=seat, count=n)
        case "retrigger":
            return Retriggers(seat=seat, count=n)
        case "token_l1":
            return TokensFromLevel(seat=seat, count=n, level=1)
        case "token":
            return TokensFromYourLevel(seat=seat, count=n)
        case "orange":
            return OrangeActions(seat=seat, count=n)
        case "blue":
            return BlueActions(seat=seat, count=n)
    raise ValueError(f"the catalogue names an unknown effect {key!r}")
