"""decide: validate a command against the pending step, apply it, then run every
automatic step until a seat must choose again (or the game ends).

A choice without options is skipped (e.g. the yellow action when no stall is
affordable), except a payment: a cost is paid or the action was not allowed, so a pay
step always has an option (``rules.can_settle`` guards every way to reach one), and so
does a discard of crystals over the limit.
"""

from __future__ import annotations

from random import Random

from games.federation import effects, rounds
from games.federation.choices import answer, options
from games.federation.ctx import Ctx, clone
from games.federation.effects import take_medal
from games.federation.rules import crystals, influence
from games.federation.state import State
from games.federation.turn import apply_place, check_place
from games.rejection import GAME_OVER, ILLEGAL_COMMAND, NOT_YOUR_TURN, WRONG_PHASE, Rejected
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
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
            rounds.count_law_votes(ctx)
        case st.PassLaw(side=side):
            rounds.pass_law(ctx, side)
        case st.EndRound(round=rnd):
            rounds.end_round(ctx, rnd)
        case st.FinalScoring():
            rounds.final_scoring(ctx)
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
                # first with rules.can_settle: neither can be stuck
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


# the commands a pending choice accepts, where other commands are "wrong phase" outright
_ANSWERS: dict[type[st.Choice], tuple[type[CommandBody], ...]] = {
    st.Turn: (cmd.Place,),
    st.AfterPlacement: (cmd.Mission, cmd.UseTile, cmd.EndTurn),
}


def decide(state: State, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    if state.finished:
        raise Rejected(GAME_OVER, "the game is over")
    if not state.queue:
        raise Rejected(WRONG_PHASE, "nothing to decide")
    step = state.queue[0]
    if seat != step.seat:
        raise Rejected(NOT_YOUR_TURN, "another seat must act now")
    kind = step.kind
    if isinstance(step, st.Turn):
        if not isinstance(command, cmd.Place):
            raise Rejected(WRONG_PHASE, "place an ambassador first")
        check_place(state, seat, command)
        ctx = Ctx(clone(state), rng)
        apply_place(ctx, seat, command)
    elif isinstance(step, st.Choice):
        allowed = _ANSWERS.get(type(step))
        if allowed is not None and not isinstance(command, allowed):
            raise Rejected(WRONG_PHASE, f"a {kind} choice is pending")
        opts = options(state, step)
        if command not in opts:
            if allowed is None and (not opts or type(command) is not type(opts[0])):
                raise Rejected(WRONG_PHASE, f"a {kind} choice is pending")
            raise Rejected(ILLEGAL_COMMAND, "that choice is not available now")
        ctx = Ctx(clone(state), rng)
        answer(ctx, step, command)  # steps are frozen: the copy's front equals ``step``
    else:
        raise Rejected(WRONG_PHASE, f"a {kind} step is pending")
    after_step(ctx)
    drain(ctx)
    return ctx.events


def start(ctx: Ctx) -> None:
    """Setup's automatic part: start-tile picks in reverse order, then round 1."""
    s = ctx.s
    n = s.seats
    picks = [st.ChooseStartTile(seat=(s.start_player + n - 1 - i) % n) for i in range(n)]
    ctx.push(*picks, st.BeginRound(round=1))
    drain(ctx)
