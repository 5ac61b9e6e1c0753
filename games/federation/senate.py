"""The senate's votes: a space's votes (with its die), each wing's total, a row's winners."""

from __future__ import annotations

from games.federation.state import FederationState
from orrery_contracts.federation import catalogue as cat


def space_votes(s: FederationState, i: int) -> int:
    seat = s.space_seat[i]
    votes = s.space_votes[i]
    if seat >= 0 and s.space_die[i]:
        votes += max(0, s.players[seat].die)
    return votes


def wing_votes(s: FederationState) -> tuple[int, int]:
    """Each wing's votes (``space_votes`` of its spaces, written out: a round's end asks
    them of every space)."""
    players = s.players
    left = right = 0
    for seat, votes, die, on_left in zip(
        s.space_seat, s.space_votes, s.space_die, _LEFT, strict=True
    ):
        if seat >= 0 and die:
            votes += max(0, players[seat].die)
        if on_left:
            left += votes
        else:
            right += votes
    return left, right


# Whether each space is on the left wing (the first three of its row of six).
_LEFT = tuple(i % 6 < 3 for i in range(cat.N_SPACES))


def row_winners(s: FederationState, row: int) -> list[int]:
    totals = [0] * s.seats
    neutral = 0
    space_seat = s.space_seat
    space_votes = s.space_votes
    space_die = s.space_die
    for i in range(row * 6, row * 6 + 6):
        seat = space_seat[i]
        if seat >= 0:
            votes = space_votes[i]  # space_votes, written out
            if space_die[i]:
                votes += max(0, s.players[seat].die)
            totals[seat] += votes
        elif seat == -3:
            neutral += space_votes[i]
    best = max(totals)
    if best <= 0 or best < neutral:
        return []
    return [seat for seat in range(s.seats) if totals[seat] == best]
