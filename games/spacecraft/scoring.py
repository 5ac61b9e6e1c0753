"""Scoring: trigger bonus, blueprint, personal goal, design cards; ranks with tie-break.

``score`` is the standing (the final one once the game is over, else as it would be if
the game ended now); ``breakdown`` its pieces, which ``sc.game_ended`` records, and
``score_parts`` the same pieces in words for the final standings."""

from __future__ import annotations

import msgspec

from games.protocol import Standing
from games.spacecraft import rocket
from games.spacecraft.state import SpacecraftState
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.views import ScorePart


class Breakdown(msgspec.Struct, kw_only=True):
    points: list[int]
    ranks: list[int]
    trigger: list[int]
    blueprint: list[int]
    goals: list[int]
    designs: list[int]
    junk: list[int]


def design_points(state: SpacecraftState, seat: int) -> int:
    layout = state.rockets[seat]
    if state.variant != "advanced":
        return sum(cat.DESIGN_BY_ID[c].points for c in state.fulfilled[seat])
    total = 0
    for card, side, marks in zip(state.adv_cards, state.adv_sides, state.adv_marks, strict=True):
        if seat in marks:
            value = cat.advanced_track(card, side)[len(marks) - 1]
            total += value * rocket.subject_count(layout, cat.ADVANCED_BY_ID[card].subject)
    return total


def unused_junk(state: SpacecraftState, seat: int) -> int:
    return sum(state.beside[seat]) + len(state.boards[seat])


def rank(points: list[int], junk: list[int]) -> list[int]:
    """Rank 1 best; ties broken by unused junk, then shared."""
    keys = list(zip(points, junk, strict=True))
    return [1 + sum(1 for other in keys if other > key) for key in keys]


def breakdown(state: SpacecraftState) -> Breakdown:
    n = state.players
    bonus = cat.TRIGGER_BONUS[state.variant]
    trigger = [bonus if s == state.holder else 0 for s in range(n)]
    blueprint = [
        cat.BLUEPRINT_POINTS if rocket.meets_blueprint(state.rockets[s], state.blueprint) else 0
        for s in range(n)
    ]
    goals = [rocket.goal_points(state.rockets[s], state.goals[s]) for s in range(n)]
    designs = [design_points(state, s) for s in range(n)]
    junk = [unused_junk(state, s) for s in range(n)]
    points = [trigger[s] + blueprint[s] + goals[s] + designs[s] for s in range(n)]
    return Breakdown(
        points=points,
        ranks=rank(points, junk),
        trigger=trigger,
        blueprint=blueprint,
        goals=goals,
        designs=designs,
        junk=junk,
    )


def score(state: SpacecraftState) -> Standing:
    if state.phase == "over":
        return Standing(points=tuple(state.points), ranks=tuple(state.ranks))
    b = breakdown(state)
    return Standing(points=tuple(b.points), ranks=tuple(b.ranks))


# the pieces of the points, in the words of the final standings (junk only breaks ties)
PARTS = (
    ("trigger", "Countdown bonus"),
    ("blueprint", "Blueprint"),
    ("goals", "Personal goal"),
    ("designs", "Design cards"),
)


def score_parts(state: SpacecraftState) -> list[list[ScorePart]]:
    """Each seat's points in their pieces (what ``sc.game_ended`` recorded)."""
    b = breakdown(state)
    return [
        [ScorePart(key=key, label=label, points=getattr(b, key)[s]) for key, label in PARTS]
        for s in range(state.players)
    ]
