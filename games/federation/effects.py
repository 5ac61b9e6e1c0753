"""Automatic steps: effect keys (``fx_*``), planet actions, senate rooms and missions."""

from __future__ import annotations

from collections.abc import Callable

from games.federation.ctx import Ctx, pay_step
from games.federation.rules import criterion, crystals, level, missions_count
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev

Handler = Callable[[Ctx, ev.Step], None]
AUTO: dict[str, Handler] = {}


def auto(kind: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        AUTO[kind] = fn
        return fn

    return register


def _crystal(ctx: Ctx, st: ev.Step, field: str) -> None:
    if st.a < 0:  # a cost printed on a token
        cost = [0, 0, 0, 0, 0]
        cost[("c", "l", "o").index(field)] = -st.a
        ctx.push(pay_step(st.seat, (cost[0], cost[1], cost[2], 0, 0)))
        return
    if field == "c":
        ctx.gain(st.seat, copp=st.a)
    elif field == "l":
        ctx.gain(st.seat, lav=st.a)
    else:
        ctx.gain(st.seat, ocean=st.a)


@auto("fx_c")
def _fx_c(ctx: Ctx, st: ev.Step) -> None:
    _crystal(ctx, st, "c")


@auto("fx_l")
def _fx_l(ctx: Ctx, st: ev.Step) -> None:
    _crystal(ctx, st, "l")


@auto("fx_o")
def _fx_o(ctx: Ctx, st: ev.Step) -> None:
    _crystal(ctx, st, "o")


@auto("fx_d")
def _fx_d(ctx: Ctx, st: ev.Step) -> None:
    ctx.gain(st.seat, diamond=st.a)


@auto("fx_pp")
def _fx_pp(ctx: Ctx, st: ev.Step) -> None:
    ctx.gain(st.seat, pp=st.a)


@auto("fx_ship")
def _fx_ship(ctx: Ctx, st: ev.Step) -> None:
    ctx.gain(st.seat, ships=st.a)


@auto("fx_auth")
def _fx_auth(ctx: Ctx, st: ev.Step) -> None:
    gain_authority(ctx, st.seat, st.a)


def gain_authority(ctx: Ctx, seat: int, n: int) -> None:
    p = ctx.s.players[seat]
    extra = 0
    deep = False
    for _ in range(n):
        if p.auth >= cat.MAX_STEP:
            extra += 1
            continue
        ctx.emit(ev.AuthoritySet(seat=seat, step=p.auth + 1))
        if p.auth == cat.MEDAL_STEP:
            take_medal(ctx, seat, "authority")
        if p.auth == cat.MAX_STEP and not p.deep_space and ctx.s.deep_space:
            deep = True
    if extra:
        ctx.gain(seat, pp=extra, reason="authority at the top")
    if deep:
        ctx.push(ev.Step(kind="deep", seat=seat))


def take_medal(ctx: Ctx, seat: int, kind: str) -> None:
    supply = ctx.s.medal_supply[kind]
    if supply and kind not in ctx.s.players[seat].medals:
        ctx.emit(ev.MedalTaken(seat=seat, kind=kind, threshold=supply[0]))


@auto("fx_die")
def _fx_die(ctx: Ctx, st: ev.Step) -> None:
    p = ctx.s.players[st.seat]
    ctx.emit(ev.DieSet(seat=st.seat, value=min(cat.MAX_DIE, max(0, p.die) + st.a)))


@auto("fx_die_min")
def _fx_die_min(ctx: Ctx, st: ev.Step) -> None:
    p = ctx.s.players[st.seat]
    ctx.emit(ev.DieSet(seat=st.seat, value=max(p.die, st.a)))


@auto("fx_funding")
def _fx_funding(ctx: Ctx, st: ev.Step) -> None:
    if 0 <= st.b < len(cat.ICON_NAMES) and not ctx.s.players[st.seat].checks[st.b]:
        ctx.emit(ev.Checked(seat=st.seat, mission=st.b))


def _repeat(kind: str, a: int = 0) -> Handler:
    def handler(ctx: Ctx, st: ev.Step) -> None:
        ctx.push(*[ev.Step(kind=kind, seat=st.seat, a=a) for _ in range(st.a)])

    return handler


AUTO["fx_crystal"] = _repeat("crystal")
AUTO["fx_project"] = _repeat("project")
AUTO["fx_check_any"] = _repeat("check", 0)
AUTO["fx_check_l2"] = _repeat("check", 1)
AUTO["fx_erudite1"] = _repeat("purple", 1)
AUTO["fx_influence"] = _repeat("influence")
AUTO["fx_free_mission"] = _repeat("free_mission")
AUTO["fx_retrigger"] = _repeat("retrigger")
AUTO["fx_token_l1"] = _repeat("blue_take", 1)


@auto("fx_token")
def _fx_token(ctx: Ctx, st: ev.Step) -> None:
    lvl = ctx.s.players[st.seat].blue
    if lvl > 0:
        ctx.push(*[ev.Step(kind="blue_take", seat=st.seat, a=lvl) for _ in range(st.a)])


@auto("fx_orange")
def _fx_orange(ctx: Ctx, st: ev.Step) -> None:
    ctx.push(*[s for _ in range(st.a) for s in planet_steps(st.seat, cat.ORANGE)])


@auto("fx_blue")
def _fx_blue(ctx: Ctx, st: ev.Step) -> None:
    ctx.push(*[s for _ in range(st.a) for s in planet_steps(st.seat, cat.BLUE)])


@auto("fx_pp_per_medal")
def _fx_pp_per_medal(ctx: Ctx, st: ev.Step) -> None:
    n = len(ctx.s.players[st.seat].medals) * st.a
    ctx.gain(st.seat, pp=min(cat.PP_PER_MEDAL_CAP, n))


@auto("fx_pp_per_upper")
def _fx_pp_per_upper(ctx: Ctx, st: ev.Step) -> None:
    ctx.gain(st.seat, pp=st.a * sum(1 for x in ctx.s.players[st.seat].stalls if x == 2))


# ------------------------------------------------------------------ planets
def planet_steps(seat: int, planet: int) -> list[ev.Step]:
    return [ev.Step(kind="planet", seat=seat, a=planet), ev.Step(kind="armed", seat=seat, a=planet)]


@auto("planet")
def _planet(ctx: Ctx, st: ev.Step) -> None:
    seat, planet = st.seat, st.a
    p = ctx.s.players[seat]
    if planet == cat.ORANGE:
        if p.orange >= cat.ORANGE_MAX:
            ctx.push(ev.Step(kind="dead", seat=seat))
        elif p.orange in cat.ORANGE_FORKS:
            ctx.push(ev.Step(kind="fork", seat=seat))
        else:
            orange_move(ctx, seat, p.orange + 1)
    elif planet == cat.BLUE:
        if p.blue < cat.BLUE_MAX:
            new = p.blue + 1
            ctx.emit(ev.BlueMoved(seat=seat, level=new))
            if new < cat.BLUE_MAX and not ctx.s.blue_shown[new + 1]:
                ctx.emit(ev.Revealed(track="blue", level=new + 1))
        ctx.push(ev.Step(kind="blue_take", seat=seat, a=p.blue))
    elif planet == cat.YELLOW:
        ctx.push(ev.Step(kind="yellow", seat=seat))
    elif planet == cat.PURPLE:
        ctx.push(ev.Step(kind="purple", seat=seat))
    else:
        ctx.push(ev.Step(kind="green", seat=seat))


def orange_move(ctx: Ctx, seat: int, new: int) -> None:
    s = ctx.s
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


@auto("armed")
def _armed(ctx: Ctx, st: ev.Step) -> None:
    """Erudite tiles with the planet icon fire right after that planet's action."""
    p = ctx.s.players[st.seat]
    for tile in list(p.erudite):
        timing, effect = cat.ERUDITE[tile]
        if timing == "planet" and tile // 3 == st.a and tile not in p.erudite_used:
            ctx.emit(ev.TileUsed(seat=st.seat, tile=tile))
            ctx.push_effect(st.seat, effect)


# ------------------------------------------------------------------ rooms and missions
def room_steps(seat: int, icon: int) -> list[ev.Step]:
    if icon < 5:
        return planet_steps(seat, icon)
    if icon == cat.I_AUTHORITY:
        return [ev.Step(kind="fx_auth", seat=seat, a=2)]
    if icon == cat.I_SPY:
        return [pay_step(seat, cat.SPY_COST), ev.Step(kind="spy", seat=seat)]
    if icon == cat.I_PRESIDENT:
        return [ev.Step(kind="president", seat=seat)]
    if icon == cat.I_PROJECT:
        return [ev.Step(kind="project", seat=seat), ev.Step(kind="fx_auth", seat=seat, a=1)]
    if icon == cat.I_ASSISTANT:
        return [pay_step(seat, cat.ASSISTANT_COST), ev.Step(kind="fx_die", seat=seat, a=2)]
    if icon == cat.I_SHIPS:
        return [pay_step(seat, cat.SHIPS_COST), ev.Step(kind="fx_ship", seat=seat, a=2)]
    return [ev.Step(kind="check", seat=seat), ev.Step(kind="fx_ship", seat=seat, a=1)]


@auto("president")
def _president(ctx: Ctx, st: ev.Step) -> None:
    ctx.emit(ev.PresidentTaken(seat=st.seat))
    if ctx.s.president_mode == "intrigue":
        take_medal(ctx, st.seat, "intrigue")
    else:
        ctx.push(ev.Step(kind="medal", seat=st.seat))


def mission_steps(ctx: Ctx, seat: int, m: int) -> list[ev.Step]:
    """The effect of special mission ``m`` (its ship is already on the mission)."""
    if m < 5:
        return planet_steps(seat, m)
    if m == cat.I_AUTHORITY:
        return [ev.Step(kind="fx_auth", seat=seat, a=2)]
    if m == cat.I_SPY:
        return [pay_step(seat, cat.SPY_COST), ev.Step(kind="spy", seat=seat, a=1)]
    if m == cat.I_PROJECT:
        return [
            ev.Step(kind="project", seat=seat),
            ev.Step(kind="fx_auth", seat=seat, a=1),
            ev.Step(kind="intrigue", seat=seat),
        ]
    return [ev.Step(kind="mission_pp", seat=seat, a=m)]


@auto("intrigue")
def _intrigue(ctx: Ctx, st: ev.Step) -> None:
    take_medal(ctx, st.seat, "intrigue")


@auto("mission_pp")
def _mission_pp(ctx: Ctx, st: ev.Step) -> None:
    p = ctx.s.players[st.seat]
    if st.a == cat.I_PRESIDENT:
        pp = crystals(p) + p.diamond
    elif st.a == cat.I_ASSISTANT:
        pp = 2 * max(0, p.die)
    elif st.a == cat.I_SHIPS:
        pp = 2 * level(p)
    else:
        pp = missions_count(p)
    ctx.gain(st.seat, pp=pp, reason=f"mission {cat.ICON_NAMES[st.a]}")


@auto("mega_pp")
def _mega_pp(ctx: Ctx, st: ev.Step) -> None:
    s = ctx.s
    p = s.players[st.seat]
    a, b = (cat.MEGA_CRITERIA[k] for k in s.mega[st.a])
    ctx.gain(st.seat, pp=min(criterion(s, p, a), criterion(s, p, b)) * st.b, reason="megastructure")
