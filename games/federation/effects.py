"""Automatic steps: gains, planet actions, senate rooms and missions."""

from __future__ import annotations

from games.federation.counts import criterion, crystals, level, missions_count
from games.federation.effect_steps import pay_step
from games.federation.working_copy import Ctx
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st


def gain_crystal(ctx: Ctx, seat: int, amount: int, kind: int) -> None:
    """Gain ``amount`` crystals of ``kind`` (0 coppernium, 1 lavandium, 2 oceanium); a
    negative amount is a cost printed on a token: it becomes a payment."""
    if amount < 0:
        cost = [0, 0, 0, 0, 0]
        cost[kind] = -amount
        ctx.push(pay_step(seat, (cost[0], cost[1], cost[2], 0, 0)))
        return
    gains = [0, 0, 0]
    gains[kind] = amount
    ctx.gain(seat, copp=gains[0], lav=gains[1], ocean=gains[2])


def gain_authority(ctx: Ctx, seat: int, n: int) -> None:
    p = ctx.state.players[seat]
    extra = 0
    deep = False
    for _ in range(n):
        if p.authority_step >= cat.MAX_STEP:
            extra += 1
            continue
        ctx.emit(ev.AuthoritySet(seat=seat, step=p.authority_step + 1))
        if p.authority_step == cat.MEDAL_STEP:
            take_medal(ctx, seat, "authority")
        if p.authority_step == cat.MAX_STEP and not p.deep_space and ctx.state.deep_space:
            deep = True
    if extra:
        ctx.gain(seat, pp=extra, reason="authority at the top")
    if deep:
        ctx.push(st.ChooseDeepSpace(seat=seat))


def take_medal(ctx: Ctx, seat: int, kind: str) -> None:
    supply = ctx.state.medal_supply[kind]
    if supply and kind not in ctx.state.players[seat].medals:
        ctx.emit(ev.MedalTaken(seat=seat, kind=kind, threshold=supply[0]))


def raise_die(ctx: Ctx, seat: int, amount: int) -> None:
    p = ctx.state.players[seat]
    ctx.emit(ev.DieSet(seat=seat, value=min(cat.MAX_DIE, max(0, p.die) + amount)))


def die_at_least(ctx: Ctx, seat: int, value: int) -> None:
    ctx.emit(ev.DieSet(seat=seat, value=max(ctx.state.players[seat].die, value)))


def check_funded_mission(ctx: Ctx, step: st.CheckFundedMission) -> None:
    """A funding token's bonus (the queue's handler of the step)."""
    icon = step.icon
    if 0 <= icon < len(cat.ICON_NAMES) and not ctx.state.players[step.seat].checks[icon]:
        ctx.emit(ev.Checked(seat=step.seat, mission=icon))


def tokens_from_your_level(ctx: Ctx, seat: int, count: int) -> None:
    lvl = ctx.state.players[seat].blue
    if lvl > 0:
        ctx.push(*[st.ChooseToken(seat=seat, level=lvl) for _ in range(count)])


def planet_actions(ctx: Ctx, seat: int, planet: int, count: int) -> None:
    ctx.push(*[s for _ in range(count) for s in planet_steps(seat, planet)])


def prestige_per_medal(ctx: Ctx, seat: int, points: int) -> None:
    n = len(ctx.state.players[seat].medals) * points
    ctx.gain(seat, pp=min(cat.PP_PER_MEDAL_CAP, n))


def prestige_per_upper_stall(ctx: Ctx, seat: int, points: int) -> None:
    ctx.gain(seat, pp=points * sum(1 for x in ctx.state.players[seat].stalls if x == 2))


# ------------------------------------------------------------------ planets
def planet_steps(seat: int, planet: int) -> list[st.AnyStep]:
    return [st.PlanetAction(seat=seat, planet=planet), st.PlanetTiles(seat=seat, planet=planet)]


def planet_action(ctx: Ctx, step: st.PlanetAction) -> None:
    """The action of ``step.planet`` for ``step.seat`` (the queue's handler of the step:
    no call in between, it is among the most frequent)."""
    seat = step.seat
    planet = step.planet
    p = ctx.state.players[seat]
    if planet == cat.ORANGE:
        if p.orange >= cat.ORANGE_MAX:
            ctx.push(st.ChooseDeadAsteroid(seat=seat))
        elif p.orange in cat.ORANGE_FORKS:
            ctx.push(st.ChooseFork(seat=seat))
        else:
            orange_move(ctx, seat, p.orange + 1)
    elif planet == cat.BLUE:
        if p.blue < cat.BLUE_MAX:
            new = p.blue + 1
            ctx.emit(ev.BlueMoved(seat=seat, level=new))
            if new < cat.BLUE_MAX and not ctx.state.blue_shown[new + 1]:
                ctx.emit(ev.Revealed(track="blue", level=new + 1))
        ctx.push(st.ChooseToken(seat=seat, level=p.blue))
    elif planet == cat.YELLOW:
        ctx.push(_CHOOSE_STALL[seat])
    elif planet == cat.PURPLE:
        ctx.push(_CHOOSE_ERUDITE[seat])
    else:
        ctx.push(_CHOOSE_STRUCTURE[seat])


# The choices a planet action queues, made once per seat (steps are frozen).
_CHOOSE_STALL = tuple(st.ChooseStall(seat=seat) for seat in range(4))
_CHOOSE_ERUDITE = tuple(st.ChooseErudite(seat=seat) for seat in range(4))
_CHOOSE_STRUCTURE = tuple(st.ChooseStructure(seat=seat) for seat in range(4))


def orange_move(ctx: Ctx, seat: int, new: int) -> None:
    s = ctx.state
    ctx.emit(ev.OrangeMoved(seat=seat, level=new))
    nxt = new + 1
    if nxt <= cat.ORANGE_MAX and s.orange_tokens[nxt] >= 0 and not s.orange_shown[nxt]:
        ctx.emit(ev.Revealed(track="orange", level=nxt))
    steps = []
    if s.orange_tokens[new] >= 0:
        if not s.orange_shown[new]:
            ctx.emit(ev.Revealed(track="orange", level=new))
        steps = list(cat.ASTEROIDS[s.orange_tokens[new]])
    ctx.push_effect(seat, cat.ORANGE_REWARDS[new] + tuple(steps))


def planet_tiles(ctx: Ctx, step: st.PlanetTiles) -> None:
    """Erudite tiles with the planet icon fire right after that planet's action (the
    queue's handler of the step)."""
    seat = step.seat
    planet = step.planet
    p = ctx.state.players[seat]
    if _PLANET_TILES[planet].isdisjoint(p.erudite):
        return  # (most seats hold none of this planet's tiles)
    for tile in list(p.erudite):
        timing, effect = cat.ERUDITE[tile]
        if timing == "planet" and tile // 3 == planet and tile not in p.erudite_used:
            ctx.emit(ev.TileUsed(seat=seat, tile=tile))
            ctx.push_effect(seat, effect)


# The erudite tiles that fire after each planet's action (a planet's tiles are 3p..3p+2).
_PLANET_TILES = tuple(
    frozenset(t for t in range(3 * planet, 3 * planet + 3) if cat.ERUDITE[t][0] == "planet")
    for planet in range(5)
)


# ------------------------------------------------------------------ rooms and missions
def room_steps(seat: int, icon: int) -> list[st.AnyStep]:
    if icon < 5:
        return planet_steps(seat, icon)
    if icon == cat.I_AUTHORITY:
        return [st.GainAuthority(seat=seat, steps=2)]
    if icon == cat.I_SPY:
        return [pay_step(seat, cat.SPY_COST), st.ChooseSpyTarget(seat=seat)]
    if icon == cat.I_PRESIDENT:
        return [st.PresidentsOffice(seat=seat)]
    if icon == cat.I_PROJECT:
        return [st.ChooseProject(seat=seat), st.GainAuthority(seat=seat, steps=1)]
    if icon == cat.I_ASSISTANT:
        return [pay_step(seat, cat.ASSISTANT_COST), st.RaiseDie(seat=seat, amount=2)]
    if icon == cat.I_SHIPS:
        return [pay_step(seat, cat.SHIPS_COST), st.GainShips(seat=seat, amount=2)]
    return [st.ChooseCheck(seat=seat), st.GainShips(seat=seat, amount=1)]


def presidents_office(ctx: Ctx, seat: int) -> None:
    ctx.emit(ev.PresidentTaken(seat=seat))
    if ctx.state.president_mode == "intrigue":
        take_medal(ctx, seat, "intrigue")
    else:
        ctx.push(st.ChooseMedal(seat=seat))


def mission_steps(ctx: Ctx, seat: int, m: int) -> list[st.AnyStep]:
    """The effect of special mission ``m`` (its ship is already on the mission)."""
    if m < 5:
        return planet_steps(seat, m)
    if m == cat.I_AUTHORITY:
        return [st.GainAuthority(seat=seat, steps=2)]
    if m == cat.I_SPY:
        return [pay_step(seat, cat.SPY_COST), st.ChooseSpyTarget(seat=seat, planets_only=True)]
    if m == cat.I_PROJECT:
        return [
            st.ChooseProject(seat=seat),
            st.GainAuthority(seat=seat, steps=1),
            st.IntrigueMedal(seat=seat),
        ]
    return [st.MissionPrestige(seat=seat, mission=m)]


def mission_prestige(ctx: Ctx, seat: int, mission: int) -> None:
    p = ctx.state.players[seat]
    if mission == cat.I_PRESIDENT:
        pp = crystals(p) + p.diamond
    elif mission == cat.I_ASSISTANT:
        pp = 2 * max(0, p.die)
    elif mission == cat.I_SHIPS:
        pp = 2 * level(p)
    else:
        pp = missions_count(p)
    ctx.gain(seat, pp=pp, reason=f"mission {cat.ICON_NAMES[mission]}")


def megastructure_prestige(ctx: Ctx, seat: int, megastructure: int, multiplier: int) -> None:
    s = ctx.state
    p = s.players[seat]
    a, b = (cat.MEGA_CRITERIA[k] for k in s.mega[megastructure])
    ctx.gain(
        seat, pp=min(criterion(s, p, a), criterion(s, p, b)) * multiplier, reason="megastructure"
    )
