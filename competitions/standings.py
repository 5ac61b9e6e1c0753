"""Standings and tie-breaks.

Points: one for every player ranked below at a table, a half for every other player
sharing the rank (two seats: 1 / ½ / 0), a bye as a win at two seats and as the middle of
the table at more. Ties are broken, in order:

- two seats: Buchholz (the sum of the opponents' points), then Sonneborn-Berger (each
  opponent's points times what I scored against them);
- more seats: the sum of the opponents' points, every opponent at every table counted;
- then a seeded draw: SHA-256 of the tournament's seed and the player id, smallest first.

Elimination ranks first by how long a player stayed in (the winner first), then as above.
"""

from __future__ import annotations

from competitions.draws import draw_key
from competitions.state import TournamentState

__all__ = ["draw_key", "ranking", "tiebreaks"]


def tiebreaks(state: TournamentState, player: str) -> list[float]:
    entrant = state.entrants[player]
    two_seats = state.spec is not None and state.spec.seats == 2
    opponents_points = 0.0
    sonneborn = 0.0
    for game in entrant.games:
        for other in game.opponents:
            theirs = state.entrants[other].points
            opponents_points += theirs
            sonneborn += theirs * game.points
    if two_seats:
        return [opponents_points, sonneborn]
    return [opponents_points]


def ranking(state: TournamentState) -> list[str]:
    """Every entrant, first place first."""
    eliminating = state.spec is not None and state.spec.format.endswith("elimination")
    final_round = state.round + 1

    def key(player: str) -> tuple[object, ...]:
        entrant = state.entrants[player]
        stayed = (
            (final_round if entrant.out_after == 0 else entrant.out_after) if eliminating else 0
        )
        withdrew = 1 if entrant.withdrawn else 0
        return (
            withdrew if eliminating else 0,
            -stayed,
            -entrant.points,
            *[-t for t in tiebreaks(state, player)],
            draw_key(state.seed, player),
        )

    return sorted(state.entrants, key=key)
