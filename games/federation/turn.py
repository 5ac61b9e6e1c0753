"""The ambassador placement: validation, its effects, and a representative legal set."""

from __future__ import annotations

from contracts.base import CommandBody
from contracts.federation import catalogue as cat
from contracts.federation import commands as cmd
from contracts.federation import events as ev
from games.federation.ctx import Ctx, effect_steps
from games.federation.effects import room_steps
from games.federation.rules import can_pay
from games.federation.state import State
from games.rejection import CANNOT_AFFORD, ILLEGAL_COMMAND, Rejected

SPACE_COST = {
    cat.I_SPY: cat.SPY_COST,
    cat.I_ASSISTANT: cat.ASSISTANT_COST,
    cat.I_SHIPS: cat.SHIPS_COST,
}


def check_place(s: State, seat: int, c: cmd.Place) -> None:
    """Raise Rejected unless ``seat`` may place ``c`` now (its turn is already checked)."""
    p = s.players[seat]
    if not 0 <= c.ambassador < 4:
        raise Rejected(ILLEGAL_COMMAND, "no such ambassador")
    if p.used[c.ambassador]:
        raise Rejected("ambassador_used", "that ambassador is already placed this round")
    if not 0 <= c.space <= cat.OUTER:
        raise Rejected(ILLEGAL_COMMAND, "no such space")
    outer = c.space == cat.OUTER
    if not outer:
        taken = s.sp_seat[c.space]
        if taken == -2:
            raise Rejected("space_blocked", "that space is blocked this round")
        if taken != -1:
            raise Rejected("space_taken", "that space is occupied")
    if c.die:
        if c.funding or outer:
            raise Rejected("die_not_allowed", "the die goes only with a voting ambassador")
        if p.die < 0 or p.die_on_board:
            raise Rejected("no_die", "you have no assistant die in hand")
    gains = [0, 0, 0]
    cost = [0, 0, 0, 0, 0]
    if c.funding and not outer:
        for key, n in cat.AMBASSADORS[c.ambassador][1]:
            gains["clo".index(key)] += n
    if c.token >= 0:
        if c.token not in p.tokens:
            raise Rejected("no_token", "you do not hold that alteration token")
        if outer:
            raise Rejected("token_not_allowed", "no alteration token on the outer space")
        _, vote, bonus = cat.ALTERATIONS[c.token]
        if (vote > 0) == c.funding:
            raise Rejected(
                "token_mismatch",
                "voting tokens go on the voting side, funding ones on the funding side",
            )
        for key, n in bonus:
            if key in ("c", "l", "o"):
                if n > 0:
                    gains["clo".index(key)] += n
                else:
                    cost["clo".index(key)] -= n
    if not outer:
        extra = SPACE_COST.get(cat.SPACE_ICON[c.space])
        if extra is not None:
            cost = [a + b for a, b in zip(cost, extra, strict=True)]
    if any(cost):
        have = (p.copp + gains[0], p.lav + gains[1], p.ocean + gains[2], p.diamond)
        if not can_pay(*have, (cost[0], cost[1], cost[2], cost[3], cost[4])):
            raise Rejected(CANNOT_AFFORD, "you cannot pay for that action")


def apply_place(ctx: Ctx, seat: int, c: cmd.Place) -> None:
    s = ctx.s
    ctx.emit(ev.Popped())
    outer = c.space == cat.OUTER
    amb_votes, amb_bonus = cat.AMBASSADORS[c.ambassador]
    votes = 0
    if not outer and not c.funding:
        votes = cat.ALTERATIONS[c.token][1] if c.token >= 0 else amb_votes
    ctx.emit(
        ev.Placed(
            seat=seat,
            ambassador=c.ambassador,
            space=c.space,
            funding=c.funding and not outer,
            die=c.die,
            token=c.token,
            votes=votes,
        )
    )
    steps: list[ev.Step] = []
    if outer:
        steps.append(ev.Step(kind="fx_o", seat=seat, a=1))
    else:
        icon = cat.SPACE_ICON[c.space]
        if c.funding:
            steps += effect_steps(seat, amb_bonus)
            steps.append(ev.Step(kind="fx_funding", seat=seat, b=icon))
        if c.token >= 0:
            steps += effect_steps(seat, cat.ALTERATIONS[c.token][2], icon=icon)
        steps += room_steps(seat, icon)
    steps.append(ev.Step(kind="post", seat=seat))
    del s
    ctx.push(*steps)


def place_candidates(s: State, seat: int) -> list[CommandBody]:
    """A representative set of placements (every one valid)."""
    p = s.players[seat]
    out: list[CommandBody] = []
    seen_values: set[int] = set()
    for amb in range(4):
        if p.used[amb] or (amb in (1,) and not p.used[0]):
            continue
        seen_values.add(amb)
        spaces = [i for i in range(cat.N_SPACES) if s.sp_seat[i] == -1]
        for space in spaces:
            options = [cmd.Place(ambassador=amb, space=space)]
            options.append(cmd.Place(ambassador=amb, space=space, funding=True))
            if p.die >= 0 and not p.die_on_board:
                options.append(cmd.Place(ambassador=amb, space=space, die=True))
            for t in sorted(set(p.tokens)):
                funding = cat.ALTERATIONS[t][1] == 0
                options.append(cmd.Place(ambassador=amb, space=space, funding=funding, token=t))
            for o in options:
                try:
                    check_place(s, seat, o)
                except Rejected:
                    continue
                out.append(o)
        out.append(cmd.Place(ambassador=amb, space=cat.OUTER))
    return out
