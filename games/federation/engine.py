"""decide: validate a command against the pending step, apply it, then run every
automatic step until a seat must choose again (or the game ends).

A choice without options is skipped (e.g. the yellow action when no stall is
affordable), except a payment: a cost is paid or the action was not allowed, so a pay
step always has an option (``rules.can_settle`` guards every way to reach one), and so
does a discard of crystals over the limit.
"""

from __future__ import annotations

from random import Random

from games.federation import rounds as _rounds  # noqa: F401 - registers round steps
from games.federation.choices import APPLY, OPTIONS
from games.federation.ctx import Ctx, clone
from games.federation.effects import AUTO, take_medal
from games.federation.rules import crystals, influence
from games.federation.state import State
from games.federation.turn import apply_place, check_place
from games.rejection import GAME_OVER, ILLEGAL_COMMAND, NOT_YOUR_TURN, WRONG_PHASE, Rejected
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import events as ev

CHOICE_KINDS = frozenset(OPTIONS) | {"turn"}
_TYPES: dict[str, tuple[type[CommandBody], ...]] = {
    "turn": (cmd.Place,),
    "post": (cmd.Mission, cmd.UseTile, cmd.EndTurn),
}


def options(s: State, step: ev.Step) -> list[CommandBody]:
    return OPTIONS[step.kind](s, step)


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
                q.kind == "discard" and q.seat == seat for q in s.queue
            ):
                ctx.push(ev.Step(kind="discard", seat=seat))


def drain(ctx: Ctx) -> None:
    s = ctx.s
    while not s.finished and s.queue:
        step = s.queue[0]
        if step.kind == "turn":
            return
        if step.kind in OPTIONS:
            opts = OPTIONS[step.kind](s, step)
            if not opts:
                # every path to a pay step, and every gain before a discard, was checked
                # first with rules.can_settle: neither can be stuck
                if step.kind == "pay":
                    raise RuntimeError(f"seat {step.seat} cannot pay {step.alts}")
                if step.kind == "discard" and crystals(s.players[step.seat]) > cat.MAX_CRYSTALS:
                    raise RuntimeError(f"seat {step.seat} cannot discard down to the limit")
                ctx.emit(ev.Popped())
                continue
            if len(opts) > 1:
                return
            APPLY[step.kind](ctx, step, opts[0])
        else:
            ctx.emit(ev.Popped())
            AUTO[step.kind](ctx, step)
        after_step(ctx)


def decide(state: State, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    if state.finished:
        raise Rejected(GAME_OVER, "the game is over")
    if not state.queue:
        raise Rejected(WRONG_PHASE, "nothing to decide")
    step = state.queue[0]
    if seat != step.seat:
        raise Rejected(NOT_YOUR_TURN, "another seat must act now")
    kind = step.kind
    if kind == "turn":
        if not isinstance(command, cmd.Place):
            raise Rejected(WRONG_PHASE, "place an ambassador first")
        check_place(state, seat, command)
        ctx = Ctx(clone(state), rng)
        apply_place(ctx, seat, command)
    else:
        allowed = _TYPES.get(kind)
        if allowed is not None and not isinstance(command, allowed):
            raise Rejected(WRONG_PHASE, f"a {kind} choice is pending")
        opts = OPTIONS[kind](state, step)
        if command not in opts:
            if allowed is None and (not opts or type(command) is not type(opts[0])):
                raise Rejected(WRONG_PHASE, f"a {kind} choice is pending")
            raise Rejected(ILLEGAL_COMMAND, "that choice is not available now")
        ctx = Ctx(clone(state), rng)
        APPLY[kind](ctx, ctx.s.queue[0], command)
    after_step(ctx)
    drain(ctx)
    return ctx.events


def start(ctx: Ctx) -> None:
    """Setup's automatic part: start-tile picks in reverse order, then round 1."""
    s = ctx.s
    n = s.seats
    picks = [ev.Step(kind="start_pick", seat=(s.start_player + n - 1 - i) % n) for i in range(n)]
    ctx.push(*picks, ev.Step(kind="begin_round", a=1))
    drain(ctx)
