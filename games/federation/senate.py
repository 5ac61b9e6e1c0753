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
    left = right = 0
    for i in range(cat.N_SPACES):
        v = space_votes(s, i)
        if i % 6 < 3:
            left += v
        else:
            right += v
    return left, right


def row_winners(s: FederationState, row: int) -> list[int]:
    totals = [0] * s.seats
    neutral = 0
    for i in range(row * 6, row * 6 + 6):
        seat = s.space_seat[i]
        if seat >= 0:
            totals[seat] += space_votes(s, i)
        elif seat == -3:
            neutral += s.space_votes[i]
    best = max(totals)
    if best <= 0 or best < neutral:
        return []
    return [seat for seat in range(s.seats) if totals[seat] == best]
