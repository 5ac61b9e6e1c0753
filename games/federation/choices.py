"""Pending choices: for each kind, the commands that answer it and what they do."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import compress
from operator import itemgetter
from typing import Any

from games.federation.counts import level
from games.federation.effect_steps import effect_steps, pay_step
from games.federation.effects import mission_steps, orange_move, room_steps, take_medal
from games.federation.payments import (
    can_pay_now,
    can_pay_then,
    can_settle,
    cost_item,
    cost_payments,
    discards_of,
    holding,
    minus,
    pay_alternatives,
    pending_items,
    settle_options,
)
from games.federation.state import FederationState, Player
from games.federation.working_copy import Ctx
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st


def _pay_then(seat: int, cost: cat.Cost) -> list[st.AnyStep]:
    return [pay_step(seat, cost)] if cost != cat.NO_COST else []


# ------------------------------------------------------------------ setup and generic picks
def _start_opts(s: FederationState, step: st.ChooseStartTile) -> list[CommandBody]:
    return [_START_TILE_CMDS[t] for t in s.start_tiles]


# Commands that are few values, frozen: made once and handed out by every listing.
_INFLUENCES = tuple(cmd.Influence(planet=k) for k in range(5))
_FORKS = (cmd.Fork(straight=True), cmd.Fork(straight=False))
_STALLS = tuple(
    cmd.Stall(stall=i, upper=upper) for i in range(len(cat.STALLS)) for upper in (False, True)
)
_ERUDITES = tuple(cmd.Erudite(tile=t) for t in range(15))
_MISSION_CMDS = tuple(cmd.Mission(mission=m) for m in range(12))
_CHECK_CMDS = tuple(cmd.Check(mission=m) for m in range(12))
_CRYSTAL_CMDS = tuple(cmd.Crystal(kind=k) for k in range(3))
_MEDAL_CMDS = {kind: cmd.Medal(kind=kind) for kind in cat.MEDAL_KINDS}
_PROJECT_CMDS = tuple(cmd.Project(project=i) for i in range(7))
_START_TILE_CMDS = tuple(cmd.StartTile(tile=t) for t in range(len(cat.START_TILES)))
_DEAD_CMDS = tuple(cmd.DeadAsteroid(reward=r) for r in range(len(cat.DEAD_REWARDS)))
_LAW_CMDS = (cmd.LawChoice(side=0), cmd.LawChoice(side=1))
_INCOME_CMDS = tuple(
    (cmd.Income(structure=b, take=True), cmd.Income(structure=b, take=False))
    for b in range(cat.N_PRODUCTION)
)
_TOKEN_CMDS: dict[tuple[int, int], CommandBody] = {}  # by level and spot, made as listed
# The costs the listings ask about, each as its item (``payments.cost_item``).
_STALL_COSTS = tuple(cost_item((cost,)) for cost, _ in cat.STALLS)
_PRODUCTION_COSTS = tuple(cost_item((cost,)) for cost, _ in cat.PRODUCTION)
_MEGA_COST = cost_item(cat.MEGA_COSTS)


def _start(ctx: Ctx, step: st.ChooseStartTile, c: cmd.StartTile) -> None:
    ctx.pop()
    ctx.emit(ev.StartTileTaken(seat=step.seat, tile=c.tile))
    ctx.push_effect(step.seat, cat.START_TILES[c.tile])


def _pay_opts(s: FederationState, step: st.PayCost, most: int | None = None) -> list[CommandBody]:
    alts = pay_alternatives(step)
    return [_pay_command(pay) for pay in settle_options(s, step.seat, alts, most)]


# The payments listed so far (frozen: each made once and handed out by every listing).
_PAYS: dict[tuple[int, ...], CommandBody] = {}


def _pay_command(pay: tuple[int, ...]) -> CommandBody:
    found = _PAYS.get(pay)
    if found is None:
        c, lv, o, d = pay
        found = _PAYS[pay] = cmd.Pay(copp=c, lav=lv, ocean=o, diamond=d)
    return found


def _pay(ctx: Ctx, step: st.PayCost, c: cmd.Pay) -> None:
    ctx.pop()
    ctx.gain(step.seat, copp=-c.copp, lav=-c.lav, ocean=-c.ocean, diamond=-c.diamond, reason="pay")


def _discard_opts(
    s: FederationState, step: st.DiscardCrystals, most: int | None = None
) -> list[CommandBody]:
    """Ways to discard the crystals over 10, keeping what the seat's action still has to
    pay: a crystal needed for a cost already under way cannot be thrown away."""
    h = holding(s.players[step.seat])
    if sum(h[:3]) <= cat.MAX_CRYSTALS:
        return []
    rest = pending_items(s, step.seat)
    out: list[CommandBody] = []
    for c, lv, o, _ in discards_of(h):
        if can_settle(minus(h, (c, lv, o, 0)), rest):
            out.append(cmd.Discard(copp=c, lav=lv, ocean=o))
            if len(out) == most:
                break
    return out


def _discard(ctx: Ctx, step: st.DiscardCrystals, c: cmd.Discard) -> None:
    ctx.pop()
    ctx.gain(step.seat, copp=-c.copp, lav=-c.lav, ocean=-c.ocean, reason="discard")


def _crystal_opts(s: FederationState, step: st.ChooseCrystal) -> list[CommandBody]:
    return list(_CRYSTAL_CMDS)


def _crystal(ctx: Ctx, step: st.ChooseCrystal, c: cmd.Crystal) -> None:
    ctx.pop()
    amounts = [0, 0, 0]
    amounts[c.kind] = 1
    ctx.gain(step.seat, copp=amounts[0], lav=amounts[1], ocean=amounts[2])


def _deep_opts(s: FederationState, step: st.ChooseDeepSpace) -> list[CommandBody]:
    return [cmd.DeepSpace(index=i) for i in range(len(s.deep_space))]


def _deep(ctx: Ctx, step: st.ChooseDeepSpace, c: cmd.DeepSpace) -> None:
    ctx.pop()
    tile = ctx.state.deep_space[c.index]
    ctx.emit(ev.DeepSpaceTaken(seat=step.seat, index=c.index, tile=tile))
    ctx.push_effect(step.seat, cat.DEEP_SPACE[tile])


def _influence_opts(s: FederationState, step: st.ChooseInfluence) -> list[CommandBody]:
    return list(_INFLUENCES)


def _influence(ctx: Ctx, step: st.ChooseInfluence, c: cmd.Influence) -> None:
    ctx.pop()
    ctx.emit(ev.InfluenceAdded(seat=step.seat, planet=c.planet))


def _medal_opts(s: FederationState, step: st.ChooseMedal) -> list[CommandBody]:
    held = s.players[step.seat].medals
    return [_MEDAL_CMDS[k] for k in cat.MEDAL_KINDS if k not in held and s.medal_supply[k]]


def _medal(ctx: Ctx, step: st.ChooseMedal, c: cmd.Medal) -> None:
    ctx.pop()
    take_medal(ctx, step.seat, c.kind)


# ------------------------------------------------------------------ planets
def _fork_opts(s: FederationState, step: st.ChooseFork) -> list[CommandBody]:
    return list(_FORKS)


def _fork(ctx: Ctx, step: st.ChooseFork, c: cmd.Fork) -> None:
    ctx.pop()
    straight, detour = cat.ORANGE_FORKS[ctx.state.players[step.seat].orange]
    orange_move(ctx, step.seat, straight if c.straight else detour)


def _dead_opts(s: FederationState, step: st.ChooseDeadAsteroid) -> list[CommandBody]:
    if s.dead_left <= 0:
        return []
    return list(_DEAD_CMDS)


def _dead(ctx: Ctx, step: st.ChooseDeadAsteroid, c: cmd.DeadAsteroid) -> None:
    ctx.pop()
    ctx.emit(ev.DeadTaken(seat=step.seat, reward=c.reward))
    ctx.push_effect(step.seat, cat.DEAD_REWARDS[c.reward])


def _blue_opts(s: FederationState, step: st.ChooseToken) -> list[CommandBody]:
    if step.level <= 0 or not s.blue_shown[step.level]:
        return []
    row = s.blue_tokens[step.level - 1]
    return [_token_command(step.level, i) for i, t in enumerate(row) if t >= 0]


def _token_command(level: int, spot: int) -> CommandBody:
    found = _TOKEN_CMDS.get((level, spot))
    if found is None:
        found = _TOKEN_CMDS[level, spot] = cmd.TakeToken(level=level, spot=spot)
    return found


def _blue(ctx: Ctx, step: st.ChooseToken, c: cmd.TakeToken) -> None:
    ctx.pop()
    token = ctx.state.blue_tokens[c.level - 1][c.spot]
    ctx.emit(ev.TokenTaken(seat=step.seat, level=c.level, spot=c.spot, token=token))


def _yellow_opts(
    s: FederationState, step: st.ChooseStall, most: int | None = None
) -> list[CommandBody]:
    p = s.players[step.seat]
    h = holding(p)
    rest = pending_items(s, step.seat)
    out: list[CommandBody] = []
    for i, cost in enumerate(_STALL_COSTS):
        if p.stalls[i] < 2 and can_pay_then(h, rest, cost):
            out.append(_STALLS[2 * i + (p.stalls[i] == 1)])
            if len(out) == most:
                break
    return out


def _yellow(ctx: Ctx, step: st.ChooseStall, c: cmd.Stall) -> None:
    ctx.pop()
    ctx.emit(ev.StallTaken(seat=step.seat, stall=c.stall, upper=c.upper))
    cost, reward = cat.STALLS[c.stall]
    times = cat.UPPER_FACTOR if c.upper else 1
    ctx.push(*_pay_then(step.seat, cost), *effect_steps(step.seat, reward, times=times))


def _purple_opts(
    s: FederationState, step: st.ChooseErudite, most: int | None = None
) -> list[CommandBody]:
    mine = s.players[step.seat].erudite
    stock = s.erudite_stock
    out: list[CommandBody] = []
    # a tile of level one (t % 3 == 0), or one whose tile a level below the seat holds
    for t in _LEVEL_ONE_TILES if step.level_one_only else _TILES:
        if stock[t] > 0 and t not in mine and (t % 3 == 0 or t - 1 in mine):
            out.append(_ERUDITES[t])
            if len(out) == most:
                break
    return out


_TILES = range(15)
_LEVEL_ONE_TILES = range(0, 15, 3)


def _purple(ctx: Ctx, step: st.ChooseErudite, c: cmd.Erudite) -> None:
    ctx.pop()
    ctx.emit(ev.EruditeTaken(seat=step.seat, tile=c.tile))
    timing, effect = cat.ERUDITE[c.tile]
    if timing == "now":
        ctx.emit(ev.TileUsed(seat=step.seat, tile=c.tile))
        ctx.push_effect(step.seat, effect)


_BUILDS = tuple(cmd.Build(structure=k) for k in range(cat.N_PRODUCTION + cat.N_MEGA))


def _green_opts(
    s: FederationState, step: st.ChooseStructure, most: int | None = None
) -> list[CommandBody]:
    p = s.players[step.seat]
    h = holding(p)
    rest = pending_items(s, step.seat)
    out: list[CommandBody] = []
    for i, kind in enumerate(s.production):
        if i not in p.built and can_pay_then(h, rest, _PRODUCTION_COSTS[kind]):
            out.append(_BUILDS[i])
            if len(out) == most:
                return out
    for j in range(cat.N_MEGA):
        k = cat.N_PRODUCTION + j
        if k in p.built or s.mega_filled[j] >= len(cat.MEGA_SLOTS):
            continue
        if can_pay_then(h, rest, _MEGA_COST):
            out.append(_BUILDS[k])
            if len(out) == most:
                break
    return out


def _green(ctx: Ctx, step: st.ChooseStructure, c: cmd.Build) -> None:
    ctx.pop()
    s = ctx.state
    if c.structure < cat.N_PRODUCTION:
        ctx.emit(ev.Built(seat=step.seat, structure=c.structure))
        cost, effect = cat.PRODUCTION[s.production[c.structure]]
        ctx.push(*_pay_then(step.seat, cost), *effect_steps(step.seat, effect))
        return
    j = c.structure - cat.N_PRODUCTION
    mult = cat.MEGA_SLOTS[s.mega_filled[j]]
    ctx.emit(ev.Built(seat=step.seat, structure=c.structure, multiplier=mult))
    ctx.push(
        pay_step(step.seat, *cat.MEGA_COSTS),
        st.MegastructurePrestige(seat=step.seat, megastructure=j, multiplier=mult),
    )


def _retrigger_opts(s: FederationState, step: st.ChooseRetrigger) -> list[CommandBody]:
    built = s.players[step.seat].built
    return [cmd.Retrigger(structure=b) for b in sorted(built) if b < cat.N_PRODUCTION]


def _retrigger(ctx: Ctx, step: st.ChooseRetrigger, c: cmd.Retrigger) -> None:
    ctx.pop()
    ctx.push_effect(step.seat, cat.PRODUCTION[ctx.state.production[c.structure]][1])


# ------------------------------------------------------------------ rooms
def _project_opts(s: FederationState, step: st.ChooseProject) -> list[CommandBody]:
    return [_PROJECT_CMDS[i] for i in range(7) if s.projects[i] < cat.PROJECT_MAX]


def _project(ctx: Ctx, step: st.ChooseProject, c: cmd.Project) -> None:
    ctx.pop()
    advance_project(ctx, c.project, step.seat)


def advance_project(ctx: Ctx, project: int, seat: int) -> None:
    if project != cat.COMMON:
        ctx.emit(ev.ProjectAdvanced(project=project))
        return
    ctx.emit(ev.ProjectAdvanced(project=cat.COMMON, seat=seat))
    step = ctx.state.players[seat].common
    if step <= len(cat.COMMON_REWARDS):
        ctx.push_effect(seat, cat.COMMON_REWARDS[step - 1])


def _check_opts(s: FederationState, step: st.ChooseCheck) -> list[CommandBody]:
    p = s.players[step.seat]
    top = 4 if step.level_two_only else 12
    return [_CHECK_CMDS[m] for m in range(top) if not p.checks[m]]


def _check(ctx: Ctx, step: st.ChooseCheck, c: cmd.Check) -> None:
    ctx.pop()
    ctx.emit(ev.Checked(seat=step.seat, mission=c.mission))


SPY_TARGETS = (
    0,
    1,
    2,
    3,
    4,
    cat.I_AUTHORITY,
    cat.I_PROJECT,
    cat.I_ASSISTANT,
    cat.I_SHIPS,
    cat.I_CHECK,
)


# The senate spaces of each icon (from the board's layout, made once).
_SPACES_OF_ICON = {
    icon: tuple(i for i in range(cat.N_SPACES) if cat.SPACE_ICON[i] == icon) for icon in SPY_TARGETS
}


_SPY_CMDS = {icon: cmd.Spy(target=icon) for icon in SPY_TARGETS}


def _spy_opts(
    s: FederationState, step: st.ChooseSpyTarget, most: int | None = None
) -> list[CommandBody]:
    out: list[CommandBody] = []
    space_seat = s.space_seat
    for icon in SPY_TARGETS:
        if step.planets_only and icon >= 5:
            break
        if _all_blocked(space_seat, icon):
            continue  # an action whose every space is blocked cannot be copied
        if icon == cat.I_ASSISTANT and not can_pay_now(s, step.seat, cat.ASSISTANT_COST):
            continue
        if icon == cat.I_SHIPS and not can_pay_now(s, step.seat, cat.SHIPS_COST):
            continue
        out.append(_SPY_CMDS[icon])
        if len(out) == most:
            break
    return out


def _all_blocked(space_seat: list[int], icon: int) -> bool:
    """Whether every senate space of ``icon`` is blocked this round."""
    return bool(_SEATS_OF_ICON[icon](space_seat) == _BLOCKED_OF_ICON[icon])


# The seats on the spaces of each icon, read at once (``itemgetter``: one seat or a
# tuple of them), and what that reads when every one of them is blocked (-2).
_SEATS_OF_ICON = {icon: itemgetter(*spaces) for icon, spaces in _SPACES_OF_ICON.items()}
_BLOCKED_OF_ICON = {icon: seats([-2] * cat.N_SPACES) for icon, seats in _SEATS_OF_ICON.items()}


def _spy(ctx: Ctx, step: st.ChooseSpyTarget, c: cmd.Spy) -> None:
    ctx.pop()
    ctx.push(*room_steps(step.seat, c.target))


# ------------------------------------------------------------------ missions
def mission_ok(s: FederationState, seat: int, m: int, need_check: bool = True) -> bool:
    return m in open_missions(s, seat, need_check)


def open_missions(
    s: FederationState, seat: int, need_check: bool = True, most: int | None = None
) -> list[int]:
    """The missions ``seat`` may complete now, in order (the first ``most``, if given):
    not done yet, a ship in the hangar and fewer than the most missions, the mission
    checked (unless a free mission), the authority level it asks, and for the spy its
    cost payable."""
    p = s.players[seat]
    if p.hangar <= 0 or sum(p.missions) >= cat.MAX_MISSIONS:
        return []
    lvl = level(p)
    done = p.missions
    needed = cat.MISSION_LEVEL
    # the checked missions picked in C (most are not checked), in order
    out: list[int] = []
    for m in compress(_MISSIONS, p.checks) if need_check else _MISSIONS:
        if (
            not done[m]
            and lvl >= needed[m]
            and not (m == cat.I_SPY and not can_pay_now(s, seat, cat.SPY_COST))
        ):
            out.append(m)
            if len(out) == most:
                break
    return out


_MISSIONS = range(12)


def _free_mission_opts(s: FederationState, step: st.ChooseFreeMission) -> list[CommandBody]:
    return [_MISSION_CMDS[m] for m in open_missions(s, step.seat, need_check=False)]


def _free_mission(ctx: Ctx, step: st.ChooseFreeMission, c: cmd.Mission) -> None:
    ctx.pop()
    ctx.emit(ev.MissionDone(seat=step.seat, mission=c.mission))
    ctx.push(*mission_steps(ctx, step.seat, c.mission))


def _post_opts(s: FederationState, step: st.AfterPlacement) -> list[CommandBody]:
    out: list[CommandBody] = []
    if not step.mission_done:
        out.extend([_MISSION_CMDS[m] for m in open_missions(s, step.seat)])
    out.extend([cmd.UseTile(tile=t) for t in _loop_tiles(s.players[step.seat])])
    out.append(END_TURN)
    return out


def _loop_tiles(p: Player) -> list[int]:
    """The seat's erudite tiles used once a turn, not used yet this turn."""
    return [t for t in p.erudite if t in _LOOP_TILES and t not in p.erudite_used]


_LOOP_TILES = frozenset(t for t, (timing, _) in enumerate(cat.ERUDITE) if timing == "loop")


#: Always an option of an after-placement choice (the last); frozen, so shared.
END_TURN = cmd.EndTurn()


def only_end_turn(s: FederationState, step: st.AfterPlacement) -> bool:
    """Whether ``END_TURN`` is the after-placement choice's one option (so the queue
    answers it at once), without listing the options."""
    p = s.players[step.seat]
    if not _LOOP_TILES.isdisjoint(p.erudite) and _loop_tiles(p):
        return False
    return step.mission_done or not open_missions(s, step.seat, most=1)


def _post(ctx: Ctx, step: st.AfterPlacement, c: cmd.Mission | cmd.UseTile | cmd.EndTurn) -> None:
    if isinstance(c, cmd.EndTurn):
        ctx.pop()
    elif isinstance(c, cmd.Mission):
        ctx.pop()
        ctx.emit(ev.MissionDone(seat=step.seat, mission=c.mission))
        ctx.push(
            *mission_steps(ctx, step.seat, c.mission),
            st.AfterPlacement(seat=step.seat, mission_done=True),
        )
    else:
        ctx.emit(ev.TileUsed(seat=step.seat, tile=c.tile))
        ctx.push_effect(step.seat, cat.ERUDITE[c.tile][1])


# ------------------------------------------------------------------ executive phase
def _income_opts(s: FederationState, step: st.ChooseIncome) -> list[CommandBody]:
    if 0 <= step.structure < cat.N_PRODUCTION:
        return list(_INCOME_CMDS[step.structure])
    return [
        cmd.Income(structure=step.structure, take=True),
        cmd.Income(structure=step.structure, take=False),
    ]


def _income(ctx: Ctx, step: st.ChooseIncome, c: cmd.Income) -> None:
    ctx.pop()
    if c.take:
        ctx.push_effect(step.seat, cat.PRODUCTION[ctx.state.production[c.structure]][1])


def _upkeep_opts(
    s: FederationState, step: st.ChooseUpkeep, most: int | None = None
) -> list[CommandBody]:
    top = level(s.players[step.seat])
    if top < 3:
        return []  # nothing to keep up below level 3
    out: list[CommandBody] = []
    for lvl in range(top, 1, -1):
        cost = cat.UPKEEP[lvl]
        if cost is None:
            out.append(cmd.Upkeep(level=lvl))
        else:
            left = None if most is None else most - len(out)
            for c, lv, o, _ in settle_options(s, step.seat, (cost,), left):
                out.append(cmd.Upkeep(level=lvl, copp=c, lav=lv, ocean=o))
        if len(out) == most:
            break
    return out


def _upkeep(ctx: Ctx, step: st.ChooseUpkeep, c: cmd.Upkeep) -> None:
    ctx.pop()
    p = ctx.state.players[step.seat]
    if c.level < level(p):
        ctx.emit(ev.AuthoritySet(seat=step.seat, step=cat.LEVEL_BOTTOM[c.level]))
    ctx.gain(step.seat, copp=-c.copp, lav=-c.lav, ocean=-c.ocean, reason="upkeep")


def _law_opts(s: FederationState, step: st.ChooseLaw) -> list[CommandBody]:
    return list(_LAW_CMDS)


def _law(ctx: Ctx, step: st.ChooseLaw, c: cmd.LawChoice) -> None:
    ctx.pop()
    ctx.push(st.PassLaw(side=c.side))


# ------------------------------------------------------------------ dispatch by step type
# One table per role, keyed by the step's type (exact: steps are final classes). A table
# lookup, not a ``match``: a class pattern on a msgspec Struct costs an isinstance through
# its metaclass per case tried, and these run several times per command. Each handler
# takes its own step type (tests/federation/test_contract.py checks every key's handler
# is annotated with that very type, and that every choice has both).
_OPTIONS: dict[type[st.Step], Callable[[FederationState, Any], list[CommandBody]]] = {
    st.AfterPlacement: _post_opts,
    st.PayCost: _pay_opts,
    st.ChooseToken: _blue_opts,
    st.ChooseErudite: _purple_opts,
    st.ChooseUpkeep: _upkeep_opts,
    st.ChooseStall: _yellow_opts,
    st.ChooseIncome: _income_opts,
    st.ChooseStructure: _green_opts,
    st.ChooseSpyTarget: _spy_opts,
    st.ChooseProject: _project_opts,
    st.ChooseCrystal: _crystal_opts,
    st.ChooseCheck: _check_opts,
    st.ChooseStartTile: _start_opts,
    st.ChooseMedal: _medal_opts,
    st.ChooseFork: _fork_opts,
    st.DiscardCrystals: _discard_opts,
    st.ChooseDeadAsteroid: _dead_opts,
    st.ChooseLaw: _law_opts,
    st.ChooseDeepSpace: _deep_opts,
    st.ChooseInfluence: _influence_opts,
    st.ChooseRetrigger: _retrigger_opts,
    st.ChooseFreeMission: _free_mission_opts,
}
_ANSWERS: dict[type[st.Step], Callable[[Ctx, Any, Any], None]] = {
    st.AfterPlacement: _post,
    st.PayCost: _pay,
    st.ChooseToken: _blue,
    st.ChooseErudite: _purple,
    st.ChooseUpkeep: _upkeep,
    st.ChooseStall: _yellow,
    st.ChooseIncome: _income,
    st.ChooseStructure: _green,
    st.ChooseSpyTarget: _spy,
    st.ChooseProject: _project,
    st.ChooseCrystal: _crystal,
    st.ChooseCheck: _check,
    st.ChooseStartTile: _start,
    st.ChooseMedal: _medal,
    st.ChooseFork: _fork,
    st.DiscardCrystals: _discard,
    st.ChooseDeadAsteroid: _dead,
    st.ChooseLaw: _law,
    st.ChooseDeepSpace: _deep,
    st.ChooseInfluence: _influence,
    st.ChooseRetrigger: _retrigger,
    st.ChooseFreeMission: _free_mission,
}


#: The options and the answer of each choice by its type (``options`` and ``answer``
#: without their call, for the queue's loop).
OPTIONS: Mapping[type[st.Step], Callable[[FederationState, Any], list[CommandBody]]] = _OPTIONS
ANSWERS: Mapping[type[st.Step], Callable[[Ctx, Any, Any], None]] = _ANSWERS


def _first_two(
    listing: Callable[[FederationState, Any, int | None], list[CommandBody]],
) -> Callable[[FederationState, Any], list[CommandBody]]:
    """A choice's listing cut after its second option (a closure: a ``partial`` with a
    keyword costs several times its call on the queue's loop)."""

    def first(s: FederationState, step: Any) -> list[CommandBody]:
        return listing(s, step, 2)

    return first


#: The first options of each choice, two at most where listing them all costs more: all
#: the queue's loop asks (none: skip the choice; one: answer it; more: wait for its seat).
#: The same options in the same order as ``OPTIONS``, cut after the second.
FIRST_OPTIONS: Mapping[type[st.Step], Callable[[FederationState, Any], list[CommandBody]]] = {
    **_OPTIONS,
    st.PayCost: _first_two(_pay_opts),
    st.ChooseStall: _first_two(_yellow_opts),
    st.ChooseStructure: _first_two(_green_opts),
    st.ChooseSpyTarget: _first_two(_spy_opts),
    st.DiscardCrystals: _first_two(_discard_opts),
    st.ChooseUpkeep: _first_two(_upkeep_opts),
    st.ChooseErudite: _first_two(_purple_opts),
}

#: Every choice but ``Turn`` (whose placements ``placement`` checks).
CHOICE_TYPES: frozenset[type[st.Step]] = frozenset(_OPTIONS)


# ------------------------------------------------------------------ one answer
# Whether one command is an option of a choice, without listing the options: for the
# choices whose listing asks a payment of every candidate. Each says True only of a
# command ``options`` lists (the same conditions, asked of that command alone); False
# means "list them and look", so a refusal is always made from the listing.
def _pay_is(s: FederationState, step: st.PayCost, c: CommandBody) -> bool:
    if type(c) is not cmd.Pay:
        return False
    pay = (c.copp, c.lav, c.ocean, c.diamond)
    alts = pay_alternatives(step)
    h = holding(s.players[step.seat])
    return pay in cost_payments(h, alts) and can_settle(minus(h, pay), pending_items(s, step.seat))


def _stall_is(s: FederationState, step: st.ChooseStall, c: CommandBody) -> bool:
    if type(c) is not cmd.Stall:
        return False
    i = c.stall
    if type(i) is not int or not 0 <= i < len(cat.STALLS):
        return False
    p = s.players[step.seat]
    if p.stalls[i] >= 2 or c.upper != (p.stalls[i] == 1):
        return False
    return can_pay_then(holding(p), pending_items(s, step.seat), _STALL_COSTS[i])


def _erudite_is(s: FederationState, step: st.ChooseErudite, c: CommandBody) -> bool:
    if type(c) is not cmd.Erudite:
        return False
    t = c.tile
    if type(t) is not int or not 0 <= t < 15:
        return False
    p = s.players[step.seat]
    lvl = t % 3
    if s.erudite_stock[t] <= 0 or t in p.erudite or (step.level_one_only and lvl > 0):
        return False
    return lvl == 0 or (t - 1) in p.erudite


def _structure_is(s: FederationState, step: st.ChooseStructure, c: CommandBody) -> bool:
    if type(c) is not cmd.Build:
        return False
    k = c.structure
    p = s.players[step.seat]
    if type(k) is not int or k in p.built:
        return False
    if 0 <= k < len(s.production):
        cost = _PRODUCTION_COSTS[s.production[k]]
        return can_pay_then(holding(p), pending_items(s, step.seat), cost)
    j = k - cat.N_PRODUCTION
    if not 0 <= j < cat.N_MEGA or s.mega_filled[j] >= len(cat.MEGA_SLOTS):
        return False
    return can_pay_then(holding(p), pending_items(s, step.seat), _MEGA_COST)


def _spy_is(s: FederationState, step: st.ChooseSpyTarget, c: CommandBody) -> bool:
    if type(c) is not cmd.Spy:
        return False
    icon = c.target
    if type(icon) is not int or icon not in SPY_TARGETS or (step.planets_only and icon >= 5):
        return False
    if _all_blocked(s.space_seat, icon):
        return False
    if icon == cat.I_ASSISTANT:
        return can_pay_now(s, step.seat, cat.ASSISTANT_COST)
    if icon == cat.I_SHIPS:
        return can_pay_now(s, step.seat, cat.SHIPS_COST)
    return True


def _upkeep_is(s: FederationState, step: st.ChooseUpkeep, c: CommandBody) -> bool:
    if type(c) is not cmd.Upkeep:
        return False
    top = level(s.players[step.seat])
    lvl = c.level
    if top < 3 or type(lvl) is not int or not 2 <= lvl <= top:
        return False
    cost = cat.UPKEEP[lvl]
    if cost is None:
        return c.copp == 0 and c.lav == 0 and c.ocean == 0
    pay = (c.copp, c.lav, c.ocean, cost[4])  # every payment of the cost has its diamonds
    h = holding(s.players[step.seat])
    rest = pending_items(s, step.seat)
    return pay in cost_payments(h, (cost,)) and can_settle(minus(h, pay), rest)


def _discard_is(s: FederationState, step: st.DiscardCrystals, c: CommandBody) -> bool:
    if type(c) is not cmd.Discard:
        return False
    h = holding(s.players[step.seat])
    if sum(h[:3]) <= cat.MAX_CRYSTALS:
        return False
    thrown = (c.copp, c.lav, c.ocean, 0)
    return thrown in discards_of(h) and can_settle(minus(h, thrown), pending_items(s, step.seat))


def _token_is(s: FederationState, step: st.ChooseToken, c: CommandBody) -> bool:
    if type(c) is not cmd.TakeToken or c.level != step.level or type(c.spot) is not int:
        return False
    if step.level <= 0 or not s.blue_shown[step.level]:
        return False
    row = s.blue_tokens[step.level - 1]
    return 0 <= c.spot < len(row) and row[c.spot] >= 0


def _post_is(s: FederationState, step: st.AfterPlacement, c: CommandBody) -> bool:
    if type(c) is cmd.Mission:
        return not step.mission_done and c.mission in open_missions(s, step.seat)
    if type(c) is cmd.UseTile:
        return c.tile in _loop_tiles(s.players[step.seat])
    return c == END_TURN


_IS_OPTION: dict[type[st.Step], Callable[[FederationState, Any, CommandBody], bool]] = {
    st.AfterPlacement: _post_is,
    st.DiscardCrystals: _discard_is,
    st.ChooseToken: _token_is,
    st.PayCost: _pay_is,
    st.ChooseStall: _stall_is,
    st.ChooseErudite: _erudite_is,
    st.ChooseStructure: _structure_is,
    st.ChooseSpyTarget: _spy_is,
    st.ChooseUpkeep: _upkeep_is,
}


#: ``surely_an_option`` of each choice that has one, by the choice's type (for the check
#: of every answer).
IS_OPTION: Mapping[type[st.Step], Callable[[FederationState, Any, CommandBody], bool]] = _IS_OPTION


def surely_an_option(s: FederationState, step: st.AnyStep, command: CommandBody) -> bool:
    """True only when ``command`` is one of ``options(s, step)``, told without listing
    them (for the choices whose listing is costly); False: list the options to know."""
    found = _IS_OPTION.get(type(step))
    return found is not None and found(s, step, command)


def options(s: FederationState, step: st.AnyStep) -> list[CommandBody]:
    """The commands that answer the pending choice ``step``: what ``decide`` accepts and
    ``legal_commands`` lists (the placement of a ``Turn`` is checked by ``placement``)."""
    handler = _OPTIONS.get(type(step))
    if handler is None:
        raise TypeError(f"no options for a {step.kind!r} step")
    return handler(s, step)


def answer(ctx: Ctx, step: st.AnyStep, command: CommandBody) -> None:
    """Apply ``command`` (one of ``options(step)``, so of the type the step asks for)."""
    handler = _ANSWERS.get(type(step))
    if handler is None:
        raise TypeError(f"{type(command).__name__} does not answer a {step.kind!r} step")
    handler(ctx, step, command)
