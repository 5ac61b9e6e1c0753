"""The ambassador placement: what it does.

``placement_steps`` is the one description of what a placement does; ``apply_place``
queues those steps and ``legal.place_problem`` asks ``payments.can_settle`` whether the
seat can go through their gains and costs (``placement_items``), so a placement is
allowed exactly when its costs can be paid (after the crystals it brings, and the
discards the limit of 10 forces).
"""

from __future__ import annotations

from functools import lru_cache

from games.federation.effect_steps import effect_steps
from games.federation.effects import room_steps
from games.federation.payments import Item, settle_items
from games.federation.working_copy import Ctx
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st


@lru_cache(maxsize=8192)
def placement_steps(seat: int, c: cmd.Place) -> tuple[st.AnyStep, ...]:
    """The steps a (valid) placement puts at the front of the queue, in order: the
    ambassador's and the token's gains and costs first, then the space's action (a pure
    function of the command, cached: steps are frozen, so every placement shares them)."""
    if c.space == cat.OUTER:
        return (st.GainOceanium(seat=seat, amount=1), st.AfterPlacement(seat=seat))
    icon = cat.SPACE_ICON[c.space]
    steps: list[st.AnyStep] = []
    if c.funding:
        steps += effect_steps(seat, cat.AMBASSADORS[c.ambassador][1])
        steps.append(st.CheckFundedMission(seat=seat, icon=icon))
    if c.token >= 0:
        steps += effect_steps(seat, cat.ALTERATIONS[c.token][2], icon=icon)
    steps += room_steps(seat, icon)
    steps.append(st.AfterPlacement(seat=seat))
    return tuple(steps)


@lru_cache(maxsize=8192)
def placement_items(seat: int, c: cmd.Place) -> tuple[Item, ...]:
    """The fixed gains and costs of a placement's steps, in order (``payments.settle_items``
    of ``placement_steps``; a pure function of the command, cached)."""
    return settle_items(placement_steps(seat, c), seat)


def apply_place(ctx: Ctx, seat: int, c: cmd.Place) -> None:
    event, steps = _placement(seat, c)
    ctx.pop()
    ctx.emit(event)
    ctx.push(*steps)


@lru_cache(maxsize=8192)
def _placement(seat: int, c: cmd.Place) -> tuple[ev.Placed, tuple[st.AnyStep, ...]]:
    """What a (valid) placement emits and queues: a pure function of the command, cached
    (events and steps are frozen, so every placement of it shares them)."""
    votes = 0
    if c.space != cat.OUTER and not c.funding:
        votes = cat.ALTERATIONS[c.token][1] if c.token >= 0 else cat.AMBASSADORS[c.ambassador][0]
    event = ev.Placed(
        seat=seat,
        ambassador=c.ambassador,
        space=c.space,
        funding=c.funding,
        die=c.die,
        token=c.token,
        votes=votes,
    )
    return event, placement_steps(seat, c)
