"""The laws: drawing each round's pair, the vote of the wings and the law passed."""

from __future__ import annotations

from random import Random

from games.federation.counts import influence
from games.federation.senate import wing_votes
from games.federation.working_copy import Ctx
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st


def draw_pair(stacks: list[list[int]], rng: Random) -> tuple[int, int]:
    left = stacks[0].pop()
    aside: list[int] = []
    while stacks[1][-1] == left:
        aside.append(stacks[1].pop())
    right = stacks[1].pop()
    if aside:
        stacks[1].extend(aside)
        rng.shuffle(stacks[1])
    return left, right


def count_law_votes(ctx: Ctx) -> None:
    left, right = wing_votes(ctx.state)
    if left == right:
        ctx.push(st.ChooseLaw(seat=ctx.state.start_player))
    else:
        ctx.push(st.PassLaw(side=0 if left > right else 1))


def pass_law(ctx: Ctx, side: int) -> None:
    s = ctx.state
    planet = s.laws[side]
    left, right = wing_votes(s)
    ctx.emit(ev.LawPassed(side=side, planet=planet, left_votes=left, right_votes=right))
    levels = [influence(p, planet) for p in s.players]
    if s.law_mode == "majority":
        top = max(levels)
        levels = [v if v == top else 0 for v in levels]
    for seat, v in enumerate(levels):
        ctx.gain(seat, pp=cat.LAW_PP_PER_LEVEL * v, reason="law")
