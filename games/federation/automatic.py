"""Running the queue: every automatic step until a seat must choose again (or the game
ends), and the rules that apply "at once" after each step (planet medals, the limit of
10 crystals). ``drain`` dispatches an automatic step by its type.

A choice without options is skipped (e.g. the yellow action when no stall is
affordable), except a payment: a cost is paid or the action was not allowed, so a pay
step always has an option (``payments.can_settle`` guards every way to reach one), and so
does a discard of crystals over the limit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.federation import effects, laws, rounds, scoring
from games.federation.choices import ANSWERS, CHOICE_TYPES, FIRST_OPTIONS, only_end_turn
from games.federation.counts import crystals
from games.federation.effects import take_medal
from games.federation.state import FederationState, Player
from games.federation.working_copy import (
    CRYSTALS,
    CRYSTALS_ANY,
    EVERY_SEAT,
    INFLUENCE_ANY,
    PLANET_BITS,
    POPPED,
    SEAT_SHIFT,
    Ctx,
)
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import steps as st


def after_step(ctx: Ctx) -> None:
    """Things the rules do "at once": planet medals and discarding crystals over 10.

    Only what changed since the last look is looked at (``Ctx.touched``: a seat's
    influence on a planet, a seat's crystals; in seat and planet order, as a look at
    everything goes): whatever else is as it was when last looked at, and a medal taken
    since only raises the next threshold (the thresholds come lowest first), so there is
    nothing new to take or discard there."""
    touched = ctx.touched
    if not touched:  # no event since the last look can change what either counts
        return
    s = ctx.state
    if touched == EVERY_SEAT:  # the first look of a command: every seat and planet
        touched = may_be_due(s)  # what else is not due: only these are looked at
        if not touched:
            ctx.touched = 0
            return
    if touched & INFLUENCE_ANY:
        ctx.touched = touched & CRYSTALS_ANY
        bits = touched & INFLUENCE_ANY  # the seat's bits at the bottom, seat by seat
        for seat, p in enumerate(s.players):
            if bits & PLANET_BITS:
                _planet_medals(ctx, seat, p, bits & PLANET_BITS)
            bits >>= SEAT_SHIFT
            if not bits:
                break
        touched = ctx.touched  # a medal's events count for the check below
    if touched & CRYSTALS_ANY:
        ctx.touched = touched & INFLUENCE_ANY
        bits = touched & CRYSTALS_ANY
        for seat, p in enumerate(s.players):
            if (
                bits & CRYSTALS
                and p.copp + p.lav + p.ocean > _MAX_CRYSTALS
                and not _discard_pending(s, seat)
            ):
                ctx.push(st.DiscardCrystals(seat=seat))
            bits >>= SEAT_SHIFT
            if not bits:
                break


_MAX_CRYSTALS = cat.MAX_CRYSTALS
_NEVER = (1 << 30,)  # an empty medal supply's head: no count comes to it


def may_be_due(s: FederationState) -> int:
    """The first look of every command, so written for speed: the checks that are due,
    as ``Ctx.touched`` bits (per seat, a planet whose count reaches its threshold, the
    head of its supply, and whose medal the seat lacks; the crystals when over the limit
    with no discard pending). Every other check holds nothing to do; these are then
    looked at again in seat and planet order, as any changed check (an earlier seat's
    medal may raise the threshold a later seat must reach)."""
    supply = s.medal_supply
    h0 = (supply["orange"] or _NEVER)[0]
    h1 = (supply["blue"] or _NEVER)[0]
    h2 = (supply["yellow"] or _NEVER)[0]
    h3 = (supply["purple"] or _NEVER)[0]
    h4 = (supply["green"] or _NEVER)[0]
    due = 0
    shift = 0
    for p in s.players:  # (no enumerate: the seat is the shift)
        b0, b1, b2, b3, b4 = p.inf_bonus
        if p.orange + b0 >= h0 and "orange" not in p.medals:
            due |= 1 << shift
        if p.blue + b1 >= h1 and "blue" not in p.medals:
            due |= 2 << shift
        if sum(p.stalls) + b2 >= h2 and "yellow" not in p.medals:
            due |= 4 << shift
        if len(p.erudite) + b3 >= h3 and "purple" not in p.medals:
            due |= 8 << shift
        # a megastructure counts twice: twice the structures first (the most it can be)
        if 2 * len(p.built) + b4 >= h4 and "green" not in p.medals and _green_count(p) >= h4:
            due |= 16 << shift
        if p.copp + p.lav + p.ocean > _MAX_CRYSTALS and not _discard_pending(
            s, shift // SEAT_SHIFT
        ):
            due |= CRYSTALS << shift
        shift += SEAT_SHIFT
    return due


def _green_count(p: Player) -> int:
    """The seat's influence on the green planet (``counts.influence``): a megastructure
    counts twice."""
    built = p.built
    return len(built) + len([b for b in built if b >= cat.N_PRODUCTION]) + p.inf_bonus[4]


def _discard_pending(s: FederationState, seat: int) -> bool:
    return any(type(q) is st.DiscardCrystals and q.seat == seat for q in s.queue)


def _planet_medals(ctx: Ctx, seat: int, p: Player, planets: int) -> None:
    """The planet medals ``seat`` has come to, of the ``planets`` (bits) looked at, in
    planet order (``counts.influence``, written out per planet). A medal taken pops its
    planet's supply, which only another seat's later look reads again."""
    supply = ctx.state.medal_supply
    bonus = p.inf_bonus
    if planets & 1:
        left = supply["orange"]
        if left and p.orange + bonus[0] >= left[0] and "orange" not in p.medals:
            take_medal(ctx, seat, "orange")
    if planets & 2:
        left = supply["blue"]
        if left and p.blue + bonus[1] >= left[0] and "blue" not in p.medals:
            take_medal(ctx, seat, "blue")
    if planets & 4:
        left = supply["yellow"]
        if left and sum(p.stalls) + bonus[2] >= left[0] and "yellow" not in p.medals:
            take_medal(ctx, seat, "yellow")
    if planets & 8:
        left = supply["purple"]
        if left and len(p.erudite) + bonus[3] >= left[0] and "purple" not in p.medals:
            take_medal(ctx, seat, "purple")
    if planets & 16:
        left = supply["green"]
        # a megastructure counts twice (twice the structures is the most it can be)
        if (
            left
            and 2 * len(p.built) + bonus[4] >= left[0]
            and _green_count(p) >= left[0]
            and "green" not in p.medals
        ):
            take_medal(ctx, seat, "green")


# (a gain of crystals is mostly a gain: the cost printed on a token is the exception)
def _gain_coppernium(ctx: Ctx, step: st.GainCoppernium) -> None:
    if step.amount >= 0:
        ctx.gain(step.seat, copp=step.amount)
    else:
        effects.gain_crystal(ctx, step.seat, step.amount, 0)


def _gain_lavandium(ctx: Ctx, step: st.GainLavandium) -> None:
    if step.amount >= 0:
        ctx.gain(step.seat, lav=step.amount)
    else:
        effects.gain_crystal(ctx, step.seat, step.amount, 1)


def _gain_authority(ctx: Ctx, step: st.GainAuthority) -> None:
    effects.gain_authority(ctx, step.seat, step.steps)


def _gain_oceanium(ctx: Ctx, step: st.GainOceanium) -> None:
    if step.amount >= 0:
        ctx.gain(step.seat, ocean=step.amount)
    else:
        effects.gain_crystal(ctx, step.seat, step.amount, 2)


def _gain_ships(ctx: Ctx, step: st.GainShips) -> None:
    ctx.gain(step.seat, ships=step.amount)


def _raise_die(ctx: Ctx, step: st.RaiseDie) -> None:
    effects.raise_die(ctx, step.seat, step.amount)


def _gain_diamonds(ctx: Ctx, step: st.GainDiamonds) -> None:
    ctx.gain(step.seat, diamond=step.amount)


def _collect_income(ctx: Ctx, step: st.CollectIncome) -> None:
    rounds.collect_income(ctx, step.seat)


def _tokens_from_your_level(ctx: Ctx, step: st.TokensFromYourLevel) -> None:
    effects.tokens_from_your_level(ctx, step.seat, step.count)


def _begin_round(ctx: Ctx, step: st.BeginRound) -> None:
    rounds.begin_round(ctx, step.round)


def _executive_phase(ctx: Ctx, step: st.ExecutivePhase) -> None:
    rounds.executive_phase(ctx, step.round)


def _fund_projects(ctx: Ctx, step: st.FundProjects) -> None:
    rounds.fund_projects(ctx)


def _score_rows(ctx: Ctx, step: st.ScoreRows) -> None:
    rounds.score_rows(ctx)


def _count_law_votes(ctx: Ctx, step: st.CountLawVotes) -> None:
    laws.count_law_votes(ctx)


def _pass_law(ctx: Ctx, step: st.PassLaw) -> None:
    laws.pass_law(ctx, step.side)


def _end_round(ctx: Ctx, step: st.EndRound) -> None:
    rounds.end_round(ctx, step.round)


def _megastructure_prestige(ctx: Ctx, step: st.MegastructurePrestige) -> None:
    effects.megastructure_prestige(ctx, step.seat, step.megastructure, step.multiplier)


def _presidents_office(ctx: Ctx, step: st.PresidentsOffice) -> None:
    effects.presidents_office(ctx, step.seat)


def _gain_prestige(ctx: Ctx, step: st.GainPrestige) -> None:
    ctx.gain(step.seat, pp=step.amount)


def _crystals_of_choice(ctx: Ctx, step: st.CrystalsOfChoice) -> None:
    ctx.push(*[st.ChooseCrystal(seat=step.seat)] * step.count)


def _die_at_least(ctx: Ctx, step: st.DieAtLeast) -> None:
    effects.die_at_least(ctx, step.seat, step.value)


def _prestige_per_medal(ctx: Ctx, step: st.PrestigePerMedal) -> None:
    effects.prestige_per_medal(ctx, step.seat, step.points)


def _prestige_per_upper_stall(ctx: Ctx, step: st.PrestigePerUpperStall) -> None:
    effects.prestige_per_upper_stall(ctx, step.seat, step.points)


def _project_advances(ctx: Ctx, step: st.ProjectAdvances) -> None:
    ctx.push(*[st.ChooseProject(seat=step.seat)] * step.count)


def _mission_checks(ctx: Ctx, step: st.MissionChecks) -> None:
    ctx.push(*[st.ChooseCheck(seat=step.seat, level_two_only=step.level_two_only)] * step.count)


def _level_one_erudites(ctx: Ctx, step: st.LevelOneErudites) -> None:
    ctx.push(*[st.ChooseErudite(seat=step.seat, level_one_only=True)] * step.count)


def _influence_of_choice(ctx: Ctx, step: st.InfluenceOfChoice) -> None:
    ctx.push(*[st.ChooseInfluence(seat=step.seat)] * step.count)


def _free_missions(ctx: Ctx, step: st.FreeMissions) -> None:
    ctx.push(*[st.ChooseFreeMission(seat=step.seat)] * step.count)


def _retriggers(ctx: Ctx, step: st.Retriggers) -> None:
    ctx.push(*[st.ChooseRetrigger(seat=step.seat)] * step.count)


def _tokens_from_level(ctx: Ctx, step: st.TokensFromLevel) -> None:
    ctx.push(*[st.ChooseToken(seat=step.seat, level=step.level)] * step.count)


def _orange_actions(ctx: Ctx, step: st.OrangeActions) -> None:
    effects.planet_actions(ctx, step.seat, cat.ORANGE, step.count)


def _blue_actions(ctx: Ctx, step: st.BlueActions) -> None:
    effects.planet_actions(ctx, step.seat, cat.BLUE, step.count)


def _intrigue_medal(ctx: Ctx, step: st.IntrigueMedal) -> None:
    take_medal(ctx, step.seat, "intrigue")


def _mission_prestige(ctx: Ctx, step: st.MissionPrestige) -> None:
    effects.mission_prestige(ctx, step.seat, step.mission)


def _final_scoring(ctx: Ctx, step: st.FinalScoring) -> None:
    scoring.final_scoring(ctx)


# A repeated choice queues the same (frozen) step ``count`` times.
# Keyed by the step's type (exact: steps are final classes); a table lookup, not a
# ``match``, for speed (see ``choices``). tests/federation/test_contract.py checks that
# every automatic step has its handler, annotated with that very type.
_AUTOMATIC: dict[type[st.Step], Callable[[Ctx, Any], None]] = {
    st.PlanetAction: effects.planet_action,  # (the most frequent: taking the step itself)
    st.PlanetTiles: effects.planet_tiles,
    st.CheckFundedMission: effects.check_funded_mission,
    st.GainCoppernium: _gain_coppernium,
    st.GainLavandium: _gain_lavandium,
    st.GainAuthority: _gain_authority,
    st.GainOceanium: _gain_oceanium,
    st.GainShips: _gain_ships,
    st.RaiseDie: _raise_die,
    st.GainDiamonds: _gain_diamonds,
    st.CollectIncome: _collect_income,
    st.TokensFromYourLevel: _tokens_from_your_level,
    st.BeginRound: _begin_round,
    st.ExecutivePhase: _executive_phase,
    st.FundProjects: _fund_projects,
    st.ScoreRows: _score_rows,
    st.CountLawVotes: _count_law_votes,
    st.PassLaw: _pass_law,
    st.EndRound: _end_round,
    st.MegastructurePrestige: _megastructure_prestige,
    st.PresidentsOffice: _presidents_office,
    st.GainPrestige: _gain_prestige,
    st.CrystalsOfChoice: _crystals_of_choice,
    st.DieAtLeast: _die_at_least,
    st.PrestigePerMedal: _prestige_per_medal,
    st.PrestigePerUpperStall: _prestige_per_upper_stall,
    st.ProjectAdvances: _project_advances,
    st.MissionChecks: _mission_checks,
    st.LevelOneErudites: _level_one_erudites,
    st.InfluenceOfChoice: _influence_of_choice,
    st.FreeMissions: _free_missions,
    st.Retriggers: _retriggers,
    st.TokensFromLevel: _tokens_from_level,
    st.OrangeActions: _orange_actions,
    st.BlueActions: _blue_actions,
    st.IntrigueMedal: _intrigue_medal,
    st.MissionPrestige: _mission_prestige,
    st.FinalScoring: _final_scoring,
}


def drain(ctx: Ctx) -> None:
    """Run the queue until a seat must choose (or the game ends); the loop of every
    command, so its calls are written out: a step done is ``Ctx.pop``, an automatic
    step's handler and a choice's options are looked up here, and ``after_step`` is
    called only when an event it watches was emitted."""
    s = ctx.state
    queue = s.queue  # changed in place only (popped, steps put in front)
    events = ctx.events
    while queue and not s.finished:
        step = queue[0]
        kind = type(step)  # exact types: cheaper than isinstance on a Struct, in a hot loop
        handler = _AUTOMATIC.get(kind)
        if handler is not None:  # an automatic step: the most frequent kind
            events.append(POPPED)
            queue.pop(0)
            handler(ctx, step)
        elif kind is st.Turn:
            return
        elif kind is st.AfterPlacement:  # the most frequent choice: only "end the turn"?
            if not only_end_turn(s, step):  # type: ignore[arg-type]
                return
            events.append(POPPED)  # the answer END_TURN: the step is done (Ctx.pop)
            queue.pop(0)
            continue  # nothing watched was emitted
        elif kind in CHOICE_TYPES:
            opts = FIRST_OPTIONS[kind](s, step)  # two at most: enough to know what to do
            if not opts:
                # every path to a pay step, and every gain before a discard, was checked
                # first with payments.can_settle: neither can be stuck
                if isinstance(step, st.PayCost):
                    raise RuntimeError(f"seat {step.seat} cannot pay {step.alternatives}")
                if kind is st.DiscardCrystals and crystals(s.players[step.seat]) > cat.MAX_CRYSTALS:
                    raise RuntimeError(f"seat {step.seat} cannot discard down to the limit")
                events.append(POPPED)
                queue.pop(0)
                continue
            if len(opts) > 1:
                return
            ANSWERS[kind](ctx, step, opts[0])
        else:
            raise TypeError(f"{step.kind!r} is not an automatic step")
        if ctx.touched:
            after_step(ctx)


def start(ctx: Ctx) -> None:
    """Setup's automatic part: start-tile picks in reverse order, then round 1."""
    s = ctx.state
    n = s.seats
    picks = [st.ChooseStartTile(seat=(s.start_player + n - 1 - i) % n) for i in range(n)]
    ctx.push(*picks, st.BeginRound(round=1))
    drain(ctx)
