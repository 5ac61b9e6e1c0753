"""The table's standing: the final one (:func:`final_standing`, seats that conceded
after every other place) and the lines every view shows (:func:`standing_lines`, the
built-in opponents ranked among the seats; once the game is over, each participant's
score in parts when the game tells them: its ``score_parts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.protocol import Game, Standing
from games.table.state import TableState, bot_of, game_of
from orrery_contracts.table import FinalStanding
from orrery_contracts.views import ScorePart, StandingLine


def final_standing(game: Game[Any], game_state: Any, left: list[bool]) -> FinalStanding:
    """The game's standing, with seats that conceded ranked after every other place.

    Seats that played on keep the game's ranks (which may count built-in opponents,
    e.g. a solo player placing 3rd behind two AIs), moved up past conceded seats;
    conceded seats follow, ordered by their own game ranks.
    """
    standing: Standing = game.score(game_state)
    game_ranks = standing.ranks

    def conceded_above(rank: int) -> int:
        return sum(1 for r, gone in zip(game_ranks, left, strict=True) if gone and r < rank)

    # Seats that played on move up past the conceded seats above them.
    ranks = [r if gone else r - conceded_above(r) for r, gone in zip(game_ranks, left, strict=True)]
    last = max((r for r, gone in zip(ranks, left, strict=True) if not gone), default=0)
    ranks = [
        last + 1 + conceded_above(r) if gone else rank
        for r, rank, gone in zip(game_ranks, ranks, left, strict=True)
    ]
    return FinalStanding(points=list(standing.points), ranks=ranks)


def standing_lines(state: TableState) -> list[StandingLine]:
    """Every participant's standing, best first: the game's own ``score`` while playing,
    the final standing (conceded seats last) once finished, with the participants that
    hold no seat (built-in opponents) ranked among the seats."""
    if state.phase not in ("playing", "finished") or state.game_state is None:
        return []
    score: Standing = game_of(state).score(state.game_state)
    if state.standing is not None:
        points, ranks = list(state.standing.points), list(state.standing.ranks)
    else:
        points, ranks = list(score.points), list(score.ranks)
    parts = _final_parts(state)
    lines = [
        StandingLine(
            seat=s,
            participant=s,
            name=state.names[s],
            points=points[s],
            rank=ranks[s],
            left=state.left[s],
            bot_from_seq=bot_of(state, s)[1],
            parts=list(parts[s]) if s < len(parts) else [],
        )
        for s in range(state.seats)
    ]
    for other in score.others:
        # a conceded seat ranked above a built-in opponent moved to the end
        conceded_above = sum(
            1
            for r, gone in zip(score.ranks, state.left, strict=True)
            if gone and r < other.rank and state.standing is not None
        )
        lines.append(
            StandingLine(
                seat=None,
                participant=other.participant,
                name=other.name,
                points=other.points,
                rank=other.rank - conceded_above,
                ai=True,
                parts=list(parts[other.participant]) if other.participant < len(parts) else [],
            )
        )
    return sorted(lines, key=lambda line: (line.rank, line.participant))


def _final_parts(state: TableState) -> Sequence[Sequence[ScorePart]]:
    """The finished game's score in parts per participant (public once it is over), when
    the game tells them; nothing while it is played."""
    if state.phase != "finished":
        return ()
    parts_of = getattr(game_of(state), "score_parts", None)
    return parts_of(state.game_state) if parts_of is not None else ()
