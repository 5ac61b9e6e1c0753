"""``score``: the standing, and the final ranking's pieces.

Points are stardust, which is public, so ``score`` of a running game shows nothing
hidden. Ranks count the automated opponents (RULES.md, rule choice 21: a person beaten
by both AIs ranks 3rd); ties go to the earlier seat in the turn order (rule choice 13).
"""

from __future__ import annotations

from games.fractured_sky.state import FracturedSkyState
from games.protocol import OtherStanding, Standing
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.views import ScorePart


def score(state: FracturedSkyState) -> Standing:
    points = tuple(state.stardust[: state.seats])
    ranks = standings(list(state.stardust), state.order)
    others = tuple(
        OtherStanding(participant=p, name=ai_title(index), points=state.stardust[p], rank=ranks[p])
        for index, p in enumerate(range(state.seats, state.participants))
    )
    return Standing(points=points, ranks=tuple(ranks[: state.seats]), others=others)


def standings(stardust: list[int], order: list[int]) -> list[int]:
    """Rank per seat: most stardust first, ties to the earlier seat in ``order``."""
    position = {seat: i for i, seat in enumerate(order)}
    ranked = sorted(range(len(stardust)), key=lambda s: (-stardust[s], position.get(s, 99 + s)))
    ranks = [0] * len(stardust)
    for place, seat in enumerate(ranked):
        ranks[seat] = place + 1
    return ranks


def ai_title(index: int) -> str:
    """How standings and seat bars name the ``index``-th automated opponent ("Black AI")."""
    return f"{cat.AI_NAMES[index].capitalize()} AI"


def score_parts(state: FracturedSkyState) -> list[list[ScorePart]]:
    """A finished game's stardust per participant (seats, then the automated opponents):
    one per objective won, the rest from the regions (and an opponent's market card)."""
    out = []
    for p in range(state.participants):
        won = sum(1 for outcome in state.objective_results if outcome.winner == p)
        rest = "Regions" if p < state.seats else "Regions and market card"
        out.append(
            [
                ScorePart(key="regions", label=rest, points=state.stardust[p] - won),
                ScorePart(key="objectives", label="Objectives", points=won),
            ]
        )
    return out
