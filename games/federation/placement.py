"""The ambassador placement: validation, its effects, and every legal placement.

``placement_steps`` is the one description of what a placement does; ``apply_place``
queues those steps and ``check_place`` asks ``payments.can_settle`` whether the seat can
go through their gains and costs, so a placement is allowed exactly when its costs can
be paid (after the crystals it brings, and the discards the limit of 10 forces).
"""

from __future__ import annotations

from functools import lru_cache

from games.federation.effect_steps import effect_steps
from games.federation.effects import room_steps
from games.federation.payments import Item, can_settle, holding, settle_items
from games.federation.state import FederationState
from games.federation.working_copy import Ctx
from games.rejection import CANNOT_AFFORD, ILLEGAL_COMMAND, Rejected
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st


def placement_steps(seat: int, c: cmd.Place) -> list[st.AnyStep]:
    """The steps a (valid) placement puts at the front of the queue, in order: the
    ambassador's and the token's gains and costs first, then the space's action."""
    if c.space == cat.OUTER:
        return [st.GainOceanium(seat=seat, amount=1), st.AfterPlacement(seat=seat)]
    icon = cat.SPACE_ICON[c.space]
    steps: list[st.AnyStep] = []
    if c.funding:
        steps += effect_steps(seat, cat.AMBASSADORS[c.ambassador][1])
        steps.append(st.CheckFundedMission(seat=seat, icon=icon))
    if c.token >= 0:
        steps += effect_steps(seat, cat.ALTERATIONS[c.token][2], icon=icon)
    steps += room_steps(seat, icon)
    steps.append(st.AfterPlacement(seat=seat))
    return steps


@lru_cache(maxsize=8192)
def placement_items(seat: int, c: cmd.Place) -> tuple[Item, ...]:
    """The fixed gains and costs of a placement's steps, in order (``payments.settle_items``
    of ``placement_steps``; a pure function of the command, cached)."""
    return settle_items(placement_steps(seat, c), seat)


def check_place(s: FederationState, seat: int, c: cmd.Place) -> None:
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
        taken = s.space_seat[c.space]
        if taken == -2:
            raise Rejected("space_blocked", "that space is blocked this round")
        if taken != -1:
            raise Rejected("space_taken", "that space is occupied")
    if c.die:
        if c.funding or outer:
            raise Rejected("die_not_allowed", "the die goes only with a voting ambassador")
        if p.die < 0 or p.die_on_board:
            raise Rejected("no_die", "you have no assistant die in hand")
    if c.token >= 0:
        if c.token not in p.tokens:
            raise Rejected("no_token", "you do not hold that alteration token")
        if outer:
            raise Rejected("token_not_allowed", "no alteration token on the outer space")
        if (cat.ALTERATIONS[c.token][1] > 0) == c.funding:
            raise Rejected(
                "token_mismatch",
                "voting tokens go on the voting side, funding ones on the funding side",
            )
    if outer and c.funding:
        raise Rejected("funding_not_allowed", "the outer space counts for neither side")
    if not can_settle(holding(p), placement_items(seat, c)):
        raise Rejected(CANNOT_AFFORD, "you cannot pay for that action")


def apply_place(ctx: Ctx, seat: int, c: cmd.Place) -> None:
    ctx.emit(ev.Popped())
    outer = c.space == cat.OUTER
    votes = 0
    if not outer and not c.funding:
        votes = cat.ALTERATIONS[c.token][1] if c.token >= 0 else cat.AMBASSADORS[c.ambassador][0]
    ctx.emit(
        ev.Placed(
            seat=seat,
            ambassador=c.ambassador,
            space=c.space,
            funding=c.funding,
            die=c.die,
            token=c.token,
            votes=votes,
        )
    )
    ctx.push(*placement_steps(seat, c))


def _candidates(s: FederationState, seat: int) -> list[cmd.Place]:
    """Every placement worth asking ``check_place`` about: each free ambassador on each
    free space, voting (with or without the die) or funding, with no token or with each
    held token on its side; and the outer space."""
    p = s.players[seat]
    tokens = sorted(set(p.tokens))
    voting = [-1, *(t for t in tokens if cat.ALTERATIONS[t][1] > 0)]
    funding = [-1, *(t for t in tokens if cat.ALTERATIONS[t][1] == 0)]
    die = [False, True] if p.die >= 0 and not p.die_on_board else [False]
    out: list[cmd.Place] = []
    for amb in range(4):
        if p.used[amb]:
            continue
        for space in range(cat.N_SPACES):
            if s.space_seat[space] != -1:
                continue
            for token in voting:
                for with_die in die:
                    out.append(cmd.Place(ambassador=amb, space=space, die=with_die, token=token))
            for token in funding:
                out.append(cmd.Place(ambassador=amb, space=space, funding=True, token=token))
        out.append(cmd.Place(ambassador=amb, space=cat.OUTER))
    return out


def place_candidates(s: FederationState, seat: int) -> list[CommandBody]:
    """Every placement ``decide`` accepts (``check_place`` on every candidate)."""
    out: list[CommandBody] = []
    for c in _candidates(s, seat):
        try:
            check_place(s, seat, c)
        except Rejected:
            continue
        out.append(c)
    return out
