"""Pending choices: for each kind, the commands that answer it and what they do."""

from __future__ import annotations

from collections.abc import Callable

from games.federation.ctx import Ctx, effect_steps, pay_step
from games.federation.effects import mission_steps, orange_move, room_steps, take_medal
from games.federation.rules import (
    can_pay_now,
    can_settle,
    discards_of,
    holding,
    level,
    minus,
    payments_of,
    pending_items,
)
from games.federation.state import State
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import events as ev

Options = Callable[[State, ev.Step], list[CommandBody]]
Apply = Callable[[Ctx, ev.Step, CommandBody], None]
OPTIONS: dict[str, Options] = {}
APPLY: dict[str, Apply] = {}


def choice(kind: str, options: Options) -> Callable[[Apply], Apply]:
    def register(fn: Apply) -> Apply:
        OPTIONS[kind] = options
        APPLY[kind] = fn
        return fn

    return register


def _pay_then(seat: int, cost: cat.Cost) -> list[ev.Step]:
    return [pay_step(seat, cost)] if cost != cat.NO_COST else []


# ------------------------------------------------------------------ setup and generic picks
def _start_opts(s: State, st: ev.Step) -> list[CommandBody]:
    return [cmd.StartTile(tile=t) for t in s.start_tiles]


@choice("start_pick", _start_opts)
def _start(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.StartTile)
    ctx.emit(ev.Popped())
    ctx.emit(ev.StartTileTaken(seat=st.seat, tile=c.tile))
    ctx.push_effect(st.seat, cat.START_TILES[c.tile])


def settle_options(s: State, seat: int, alts: tuple[cat.Cost, ...]) -> list[tuple[int, ...]]:
    """The payments of one of ``alts`` after which ``seat`` can still settle the gains
    and costs ahead of it (``rules.can_settle``): the pay step's options."""
    h = holding(s.players[seat])
    rest = pending_items(s, seat)
    return [pay for pay in payments_of(h, alts) if can_settle(minus(h, pay), rest)]


def _pay_opts(s: State, st: ev.Step) -> list[CommandBody]:
    alts = tuple((a[0], a[1], a[2], a[3], a[4]) for a in st.alts)
    options = settle_options(s, st.seat, alts)
    return [cmd.Pay(copp=c, lav=lv, ocean=o, diamond=d) for c, lv, o, d in options]


@choice("pay", _pay_opts)
def _pay(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Pay)
    ctx.emit(ev.Popped())
    ctx.gain(st.seat, copp=-c.copp, lav=-c.lav, ocean=-c.ocean, diamond=-c.diamond, reason="pay")


def _discard_opts(s: State, st: ev.Step) -> list[CommandBody]:
    """Ways to discard the crystals over 10, keeping what the seat's action still has to
    pay: a crystal needed for a cost already under way cannot be thrown away."""
    h = holding(s.players[st.seat])
    if sum(h[:3]) <= cat.MAX_CRYSTALS:
        return []
    rest = pending_items(s, st.seat)
    return [
        cmd.Discard(copp=c, lav=lv, ocean=o)
        for c, lv, o, _ in discards_of(h)
        if can_settle(minus(h, (c, lv, o, 0)), rest)
    ]


@choice("discard", _discard_opts)
def _discard(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Discard)
    ctx.emit(ev.Popped())
    ctx.gain(st.seat, copp=-c.copp, lav=-c.lav, ocean=-c.ocean, reason="discard")


def _crystal_opts(s: State, st: ev.Step) -> list[CommandBody]:
    return [cmd.Crystal(kind=k) for k in range(3)]


@choice("crystal", _crystal_opts)
def _crystal(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Crystal)
    ctx.emit(ev.Popped())
    amounts = [0, 0, 0]
    amounts[c.kind] = 1
    ctx.gain(st.seat, copp=amounts[0], lav=amounts[1], ocean=amounts[2])


def _deep_opts(s: State, st: ev.Step) -> list[CommandBody]:
    return [cmd.DeepSpace(index=i) for i in range(len(s.deep_space))]


@choice("deep", _deep_opts)
def _deep(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.DeepSpace)
    ctx.emit(ev.Popped())
    tile = ctx.s.deep_space[c.index]
    ctx.emit(ev.DeepSpaceTaken(seat=st.seat, index=c.index, tile=tile))
    ctx.push_effect(st.seat, cat.DEEP_SPACE[tile])


def _influence_opts(s: State, st: ev.Step) -> list[CommandBody]:
    return [cmd.Influence(planet=k) for k in range(5)]


@choice("influence", _influence_opts)
def _influence(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Influence)
    ctx.emit(ev.Popped())
    ctx.emit(ev.InfluenceAdded(seat=st.seat, planet=c.planet))


def _medal_opts(s: State, st: ev.Step) -> list[CommandBody]:
    held = s.players[st.seat].medals
    return [cmd.Medal(kind=k) for k in cat.MEDAL_KINDS if k not in held and s.medal_supply[k]]


@choice("medal", _medal_opts)
def _medal(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Medal)
    ctx.emit(ev.Popped())
    take_medal(ctx, st.seat, c.kind)


# ------------------------------------------------------------------ planets
def _fork_opts(s: State, st: ev.Step) -> list[CommandBody]:
    return [cmd.Fork(straight=True), cmd.Fork(straight=False)]


@choice("fork", _fork_opts)
def _fork(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Fork)
    ctx.emit(ev.Popped())
    straight, detour = cat.ORANGE_FORKS[ctx.s.players[st.seat].orange]
    orange_move(ctx, st.seat, straight if c.straight else detour)


def _dead_opts(s: State, st: ev.Step) -> list[CommandBody]:
    if s.dead_left <= 0:
        return []
    return [cmd.DeadAsteroid(reward=r) for r in range(len(cat.DEAD_REWARDS))]


@choice("dead", _dead_opts)
def _dead(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.DeadAsteroid)
    ctx.emit(ev.Popped())
    ctx.emit(ev.DeadTaken(seat=st.seat, reward=c.reward))
    ctx.push_effect(st.seat, cat.DEAD_REWARDS[c.reward])


def _blue_opts(s: State, st: ev.Step) -> list[CommandBody]:
    if st.a <= 0 or not s.blue_shown[st.a]:
        return []
    row = s.blue_tokens[st.a - 1]
    return [cmd.TakeToken(level=st.a, spot=i) for i, t in enumerate(row) if t >= 0]


@choice("blue_take", _blue_opts)
def _blue(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.TakeToken)
    ctx.emit(ev.Popped())
    token = ctx.s.blue_tokens[c.level - 1][c.spot]
    ctx.emit(ev.TokenTaken(seat=st.seat, level=c.level, spot=c.spot, token=token))


def _yellow_opts(s: State, st: ev.Step) -> list[CommandBody]:
    p = s.players[st.seat]
    out: list[CommandBody] = []
    for i, (cost, _) in enumerate(cat.STALLS):
        if p.stalls[i] < 2 and can_pay_now(s, st.seat, cost):
            out.append(cmd.Stall(stall=i, upper=p.stalls[i] == 1))
    return out


@choice("yellow", _yellow_opts)
def _yellow(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Stall)
    ctx.emit(ev.Popped())
    ctx.emit(ev.StallTaken(seat=st.seat, stall=c.stall, upper=c.upper))
    cost, reward = cat.STALLS[c.stall]
    times = cat.UPPER_FACTOR if c.upper else 1
    ctx.push(*_pay_then(st.seat, cost), *effect_steps(st.seat, reward, times=times))


def _purple_opts(s: State, st: ev.Step) -> list[CommandBody]:
    p = s.players[st.seat]
    out: list[CommandBody] = []
    for t in range(15):
        lvl = t % 3
        if s.erudite_stock[t] <= 0 or t in p.erudite or (st.a == 1 and lvl > 0):
            continue
        if lvl == 0 or (t - 1) in p.erudite:
            out.append(cmd.Erudite(tile=t))
    return out


@choice("purple", _purple_opts)
def _purple(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Erudite)
    ctx.emit(ev.Popped())
    ctx.emit(ev.EruditeTaken(seat=st.seat, tile=c.tile))
    timing, effect = cat.ERUDITE[c.tile]
    if timing == "now":
        ctx.emit(ev.TileUsed(seat=st.seat, tile=c.tile))
        ctx.push_effect(st.seat, effect)


def _green_opts(s: State, st: ev.Step) -> list[CommandBody]:
    p = s.players[st.seat]
    out: list[CommandBody] = []
    for i, kind in enumerate(s.production):
        if i not in p.built and can_pay_now(s, st.seat, cat.PRODUCTION[kind][0]):
            out.append(cmd.Build(structure=i))
    for j in range(cat.N_MEGA):
        k = cat.N_PRODUCTION + j
        if k in p.built or s.mega_filled[j] >= len(cat.MEGA_SLOTS):
            continue
        if can_pay_now(s, st.seat, *cat.MEGA_COSTS):
            out.append(cmd.Build(structure=k))
    return out


@choice("green", _green_opts)
def _green(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Build)
    ctx.emit(ev.Popped())
    s = ctx.s
    if c.structure < cat.N_PRODUCTION:
        ctx.emit(ev.Built(seat=st.seat, structure=c.structure))
        cost, effect = cat.PRODUCTION[s.production[c.structure]]
        ctx.push(*_pay_then(st.seat, cost), *effect_steps(st.seat, effect))
        return
    j = c.structure - cat.N_PRODUCTION
    mult = cat.MEGA_SLOTS[s.mega_filled[j]]
    ctx.emit(ev.Built(seat=st.seat, structure=c.structure, multiplier=mult))
    ctx.push(pay_step(st.seat, *cat.MEGA_COSTS), ev.Step(kind="mega_pp", seat=st.seat, a=j, b=mult))


def _retrigger_opts(s: State, st: ev.Step) -> list[CommandBody]:
    built = s.players[st.seat].built
    return [cmd.Retrigger(structure=b) for b in sorted(built) if b < cat.N_PRODUCTION]


@choice("retrigger", _retrigger_opts)
def _retrigger(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Retrigger)
    ctx.emit(ev.Popped())
    ctx.push_effect(st.seat, cat.PRODUCTION[ctx.s.production[c.structure]][1])


# ------------------------------------------------------------------ rooms
def _project_opts(s: State, st: ev.Step) -> list[CommandBody]:
    return [cmd.Project(project=i) for i in range(7) if s.projects[i] < cat.PROJECT_MAX]


@choice("project", _project_opts)
def _project(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Project)
    ctx.emit(ev.Popped())
    advance_project(ctx, c.project, st.seat)


def advance_project(ctx: Ctx, project: int, seat: int) -> None:
    if project != cat.COMMON:
        ctx.emit(ev.ProjectAdvanced(project=project))
        return
    ctx.emit(ev.ProjectAdvanced(project=cat.COMMON, seat=seat))
    step = ctx.s.players[seat].common
    if step <= len(cat.COMMON_REWARDS):
        ctx.push_effect(seat, cat.COMMON_REWARDS[step - 1])


def _check_opts(s: State, st: ev.Step) -> list[CommandBody]:
    p = s.players[st.seat]
    top = 4 if st.a == 1 else 12
    return [cmd.Check(mission=m) for m in range(top) if not p.checks[m]]


@choice("check", _check_opts)
def _check(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Check)
    ctx.emit(ev.Popped())
    ctx.emit(ev.Checked(seat=st.seat, mission=c.mission))


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


def _spy_opts(s: State, st: ev.Step) -> list[CommandBody]:
    out: list[CommandBody] = []
    for icon in SPY_TARGETS:
        if st.a == 1 and icon >= 5:
            break
        if all(s.sp_seat[i] == -2 for i in range(cat.N_SPACES) if cat.SPACE_ICON[i] == icon):
            continue  # an action whose every space is blocked cannot be copied
        if icon == cat.I_ASSISTANT and not can_pay_now(s, st.seat, cat.ASSISTANT_COST):
            continue
        if icon == cat.I_SHIPS and not can_pay_now(s, st.seat, cat.SHIPS_COST):
            continue
        out.append(cmd.Spy(target=icon))
    return out


@choice("spy", _spy_opts)
def _spy(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Spy)
    ctx.emit(ev.Popped())
    ctx.push(*room_steps(st.seat, c.target))


# ------------------------------------------------------------------ missions
def mission_ok(s: State, seat: int, m: int, need_check: bool = True) -> bool:
    p = s.players[seat]
    if p.missions[m] or p.hangar <= 0 or sum(p.missions) >= cat.MAX_MISSIONS:
        return False
    if need_check and not p.checks[m]:
        return False
    if level(p) < cat.MISSION_LEVEL[m]:
        return False
    return not (m == cat.I_SPY and not can_pay_now(s, seat, cat.SPY_COST))


def _free_mission_opts(s: State, st: ev.Step) -> list[CommandBody]:
    seat = st.seat
    return [cmd.Mission(mission=m) for m in range(12) if mission_ok(s, seat, m, need_check=False)]


@choice("free_mission", _free_mission_opts)
def _free_mission(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Mission)
    ctx.emit(ev.Popped())
    ctx.emit(ev.MissionDone(seat=st.seat, mission=c.mission))
    ctx.push(*mission_steps(ctx, st.seat, c.mission))


def _post_opts(s: State, st: ev.Step) -> list[CommandBody]:
    p = s.players[st.seat]
    out: list[CommandBody] = []
    if st.a == 0:
        out.extend(cmd.Mission(mission=m) for m in range(12) if mission_ok(s, st.seat, m))
    for t in p.erudite:
        if cat.ERUDITE[t][0] == "loop" and t not in p.erudite_used:
            out.append(cmd.UseTile(tile=t))
    out.append(cmd.EndTurn())
    return out


@choice("post", _post_opts)
def _post(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    if isinstance(c, cmd.EndTurn):
        ctx.emit(ev.Popped())
    elif isinstance(c, cmd.Mission):
        ctx.emit(ev.Popped())
        ctx.emit(ev.MissionDone(seat=st.seat, mission=c.mission))
        ctx.push(*mission_steps(ctx, st.seat, c.mission), ev.Step(kind="post", seat=st.seat, a=1))
    else:
        assert isinstance(c, cmd.UseTile)
        ctx.emit(ev.TileUsed(seat=st.seat, tile=c.tile))
        ctx.push_effect(st.seat, cat.ERUDITE[c.tile][1])


# ------------------------------------------------------------------ executive phase
def _income_opts(s: State, st: ev.Step) -> list[CommandBody]:
    return [cmd.Income(structure=st.a, take=True), cmd.Income(structure=st.a, take=False)]


@choice("income_choice", _income_opts)
def _income(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Income)
    ctx.emit(ev.Popped())
    if c.take:
        ctx.push_effect(st.seat, cat.PRODUCTION[ctx.s.production[c.structure]][1])


def _upkeep_opts(s: State, st: ev.Step) -> list[CommandBody]:
    p = s.players[st.seat]
    out: list[CommandBody] = []
    for lvl in range(level(p), 1, -1):
        cost = cat.UPKEEP[lvl]
        if cost is None:
            out.append(cmd.Upkeep(level=lvl))
            continue
        for c, lv, o, _ in settle_options(s, st.seat, (cost,)):
            out.append(cmd.Upkeep(level=lvl, copp=c, lav=lv, ocean=o))
    return out if level(p) >= 3 else []


@choice("upkeep", _upkeep_opts)
def _upkeep(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.Upkeep)
    ctx.emit(ev.Popped())
    p = ctx.s.players[st.seat]
    if c.level < level(p):
        ctx.emit(ev.AuthoritySet(seat=st.seat, step=cat.LEVEL_BOTTOM[c.level]))
    ctx.gain(st.seat, copp=-c.copp, lav=-c.lav, ocean=-c.ocean, reason="upkeep")


def _law_opts(s: State, st: ev.Step) -> list[CommandBody]:
    return [cmd.LawChoice(side=0), cmd.LawChoice(side=1)]


@choice("law", _law_opts)
def _law(ctx: Ctx, st: ev.Step, c: CommandBody) -> None:
    assert isinstance(c, cmd.LawChoice)
    ctx.emit(ev.Popped())
    ctx.push(ev.Step(kind="law_apply", a=c.side))
