"""Running the queue: every automatic step until a seat must choose again (or the game
ends), and the rules that apply "at once" after each step (planet medals, the limit of
10 crystals). ``run_automatic`` dispatches an automatic step by its type.

A choice without options is skipped (e.g. the yellow action when no stall is
affordable), except a payment: a cost is paid or the action was not allowed, so a pay
step always has an option (``payments.can_settle`` guards every way to reach one), and so
does a discard of crystals over the limit.
"""

from __future__ import annotations

from games.federation import effects, laws, rounds, scoring
from games.federation.choices import answer, options
from games.federation.counts import crystals, influence
from games.federation.effects import take_medal
from games.federation.working_copy import Ctx
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st


def after_step(ctx: Ctx) -> None:
    """Things the rules do "at once": planet medals and discarding crystals over 10."""
    s = ctx.s
    if ctx.influence_changed:
        ctx.influence_changed = False
        for seat, p in enumerate(s.players):
            for planet, name in enumerate(cat.PLANETS):
                supply = s.medal_supply[name]
                if supply and name not in p.medals and influence(p, planet) >= supply[0]:
                    take_medal(ctx, seat, name)
    if ctx.crystals_changed:
        ctx.crystals_changed = False
        for seat, p in enumerate(s.players):
            if crystals(p) > cat.MAX_CRYSTALS and not any(
                isinstance(q, st.DiscardCrystals) and q.seat == seat for q in s.queue
            ):
                ctx.push(st.DiscardCrystals(seat=seat))


def run_automatic(ctx: Ctx, step: st.AnyStep) -> None:
    """Run an automatic step (already popped from the queue)."""
    seat = step.seat
    match step:
        case st.GainCoppernium(amount=n):
            effects.gain_crystal(ctx, seat, n, 0)
        case st.GainLavandium(amount=n):
            effects.gain_crystal(ctx, seat, n, 1)
        case st.GainOceanium(amount=n):
            effects.gain_crystal(ctx, seat, n, 2)
        case st.GainDiamonds(amount=n):
            ctx.gain(seat, diamond=n)
        case st.GainPrestige(amount=n):
            ctx.gain(seat, pp=n)
        case st.GainShips(amount=n):
            ctx.gain(seat, ships=n)
        case st.GainAuthority(steps=n):
            effects.gain_authority(ctx, seat, n)
        case st.RaiseDie(amount=n):
            effects.raise_die(ctx, seat, n)
        case st.DieAtLeast(value=n):
            effects.die_at_least(ctx, seat, n)
        case st.CheckFundedMission(icon=icon):
            effects.check_funded_mission(ctx, seat, icon)
        case st.PrestigePerMedal(points=n):
            effects.prestige_per_medal(ctx, seat, n)
        case st.PrestigePerUpperStall(points=n):
            effects.prestige_per_upper_stall(ctx, seat, n)
        case st.CrystalsOfChoice(count=n):
            ctx.push(*[st.ChooseCrystal(seat=seat) for _ in range(n)])
        case st.ProjectAdvances(count=n):
            ctx.push(*[st.ChooseProject(seat=seat) for _ in range(n)])
        case st.MissionChecks(count=n, level_two_only=only):
            ctx.push(*[st.ChooseCheck(seat=seat, level_two_only=only) for _ in range(n)])
        case st.LevelOneErudites(count=n):
            ctx.push(*[st.ChooseErudite(seat=seat, level_one_only=True) for _ in range(n)])
        case st.InfluenceOfChoice(count=n):
            ctx.push(*[st.ChooseInfluence(seat=seat) for _ in range(n)])
        case st.FreeMissions(count=n):
            ctx.push(*[st.ChooseFreeMission(seat=seat) for _ in range(n)])
        case st.Retriggers(count=n):
            ctx.push(*[st.ChooseRetrigger(seat=seat) for _ in range(n)])
        case st.TokensFromLevel(count=n, level=level):
            ctx.push(*[st.ChooseToken(seat=seat, level=level) for _ in range(n)])
        case st.TokensFromYourLevel(count=n):
            effects.tokens_from_your_level(ctx, seat, n)
        case st.OrangeActions(count=n):
            effects.planet_actions(ctx, seat, cat.ORANGE, n)
        case st.BlueActions(count=n):
            effects.planet_actions(ctx, seat, cat.BLUE, n)
        case st.PlanetAction(planet=planet):
            effects.planet_action(ctx, seat, planet)
        case st.PlanetTiles(planet=planet):
            effects.planet_tiles(ctx, seat, planet)
        case st.PresidentsOffice():
            effects.presidents_office(ctx, seat)
        case st.IntrigueMedal():
            take_medal(ctx, seat, "intrigue")
        case st.MissionPrestige(mission=mission):
            effects.mission_prestige(ctx, seat, mission)
        case st.MegastructurePrestige(megastructure=mega, multiplier=multiplier):
            effects.megastructure_prestige(ctx, seat, mega, multiplier)
        case st.BeginRound(round=rnd):
            rounds.begin_round(ctx, rnd)
        case st.ExecutivePhase(round=rnd):
            rounds.executive_phase(ctx, rnd)
        case st.CollectIncome():
            rounds.collect_income(ctx, seat)
        case st.FundProjects():
            rounds.fund_projects(ctx)
        case st.ScoreRows():
            rounds.score_rows(ctx)
        case st.CountLawVotes():
            laws.count_law_votes(ctx)
        case st.PassLaw(side=side):
            laws.pass_law(ctx, side)
        case st.EndRound(round=rnd):
            rounds.end_round(ctx, rnd)
        case st.FinalScoring():
            scoring.final_scoring(ctx)
        case _:
            raise TypeError(f"{step.kind!r} is not an automatic step")


def drain(ctx: Ctx) -> None:
    s = ctx.s
    while not s.finished and s.queue:
        step = s.queue[0]
        if isinstance(step, st.Turn):
            return
        if isinstance(step, st.Choice):
            opts = options(s, step)
            if not opts:
                # every path to a pay step, and every gain before a discard, was checked
                # first with payments.can_settle: neither can be stuck
                if isinstance(step, st.PayCost):
                    raise RuntimeError(f"seat {step.seat} cannot pay {step.alternatives}")
                if (
                    isinstance(step, st.DiscardCrystals)
                    and crystals(s.players[step.seat]) > cat.MAX_CRYSTALS
                ):
                    raise RuntimeError(f"seat {step.seat} cannot discard down to the limit")
                ctx.emit(ev.Popped())
                continue
            if len(opts) > 1:
                return
            answer(ctx, step, opts[0])
        else:
            ctx.emit(ev.Popped())
            run_automatic(ctx, step)
        after_step(ctx)


def start(ctx: Ctx) -> None:
    """Setup's automatic part: start-tile picks in reverse order, then round 1."""
    s = ctx.s
    n = s.seats
    picks = [st.ChooseStartTile(seat=(s.start_player + n - 1 - i) % n) for i in range(n)]
    ctx.push(*picks, st.BeginRound(round=1))
    drain(ctx)
