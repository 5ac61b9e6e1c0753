"""Pairing a tournament's next round from its state alone (the log folded) and its
seed, so the audit re-derives every round.

- ``swiss``: two seats by the FIDE Dutch system (competitions/dutch.py) up to
  ``dutch_max`` players, pods by standing and rating (competitions/pods.py) otherwise and
  at more seats. Rounds: as the organiser asked, else enough for one winner
  (⌈log₂ n⌉ at two seats, ⌈log_seats n⌉ + 1 at more).
- ``round_robin``: two seats by Berger's circle (everyone meets everyone once, n − 1
  rounds, a bye a round when n is odd); more seats: ⌈(n − 1) / (seats − 1)⌉ rounds of
  pods that each seat together the players who have met least (the field in the
  seeded draw's order, a new order every round).
- ``single_elimination`` / ``double_elimination``: a player is out after one / two
  tables not won (one winner a table: first place, the seeded draw among those sharing
  it). Each round pairs those with the same number of losses (a winners' and, in double
  elimination, a losers' bracket) by seed, the best seed with the worst (at more seats
  the seeds snake over the tables); the top seeds get the byes. A bracket of one joins
  the other (the final). It ends when one player is left.
"""

from __future__ import annotations

import hashlib
import math

from competitions.dutch import pair_dutch
from competitions.events import PairedTable, RoundPaired
from competitions.pods import pair_pods, pod_sizes
from competitions.standings import draw_key
from competitions.state import TournamentState

DUTCH_MAX = 128


def planned_rounds(format: str, players: int, seats: int, asked: int | None) -> int:
    if format == "swiss":
        if asked:
            return asked
        if seats == 2:
            return max(1, math.ceil(math.log2(max(players, 2))))
        return max(1, math.ceil(math.log(max(players, 2), seats)) + 1)
    if format == "round_robin":
        if seats == 2:
            return players - 1 if players % 2 == 0 else players
        return max(1, math.ceil((players - 1) / (seats - 1)))
    lives = 2 if format == "double_elimination" else 1
    return max(1, lives * math.ceil(math.log2(max(players, 2))) + lives)


def seed_order(seed: str, ratings: dict[str, float]) -> list[str]:
    """Rating first, then the seeded draw."""
    return sorted(ratings, key=lambda p: (-ratings[p], draw_key(seed, p)))


def finished(state: TournamentState) -> bool:
    """No round to pair: the planned rounds are played, or one player is left."""
    assert state.spec is not None
    if state.spec.format.endswith("elimination"):
        return len(state.active()) <= 1
    return state.round >= state.rounds or len(state.active()) < state.min_seats


def pair_round(state: TournamentState, deadline: int, dutch_max: int = DUTCH_MAX) -> RoundPaired:
    """The next round. Deterministic in the state (its log) alone."""
    assert state.spec is not None
    spec = state.spec
    number = state.round + 1
    players = state.active()
    if spec.format == "swiss":
        if spec.seats == 2 and len(players) <= dutch_max:
            groups, byes = pair_dutch(state, players)
        else:
            groups, byes = _swiss_pods(state, players)
        brackets = [""] * len(groups)
    elif spec.format == "round_robin":
        groups, byes = _round_robin(state, players, number)
        brackets = [""] * len(groups)
    else:
        groups, byes, brackets = _elimination(state, players)
    tables = [
        PairedTable(table_id=table_id(state.tournament_id, number, i), players=g, bracket=b)
        for i, (g, b) in enumerate(zip(groups, brackets, strict=True))
    ]
    return RoundPaired(round=number, tables=tables, byes=byes, deadline=deadline)


def table_id(tournament_id: str, round_number: int, index: int) -> str:
    return f"{tournament_id}-r{round_number}-t{index + 1}"


def _swiss_pods(state: TournamentState, players: list[str]) -> tuple[list[list[str]], list[str]]:
    assert state.spec is not None
    entrants = state.entrants
    ordered = sorted(
        players,
        key=lambda p: (-entrants[p].points, -entrants[p].rating, draw_key(state.seed, p)),
    )
    return pair_pods(
        ordered,
        state.spec.seats,
        state.min_seats,
        state.meetings,
        lambda p: len(entrants[p].byes),
    )


def _round_robin(
    state: TournamentState, players: list[str], number: int
) -> tuple[list[list[str]], list[str]]:
    assert state.spec is not None
    if state.spec.seats == 2:
        return _berger(state.order, players, number)
    ordered = sorted(
        players,
        key=lambda p: hashlib.sha256(f"{state.seed}:{number}:{p}".encode()).hexdigest(),
    )
    return pair_pods(
        ordered,
        state.spec.seats,
        state.min_seats,
        state.meetings,
        lambda p: len(state.entrants[p].byes),
    )


def _berger(order: list[str], players: list[str], number: int) -> tuple[list[list[str]], list[str]]:
    """Round ``number`` of the circle method over the seed order (a player who
    withdrew keeps their place in the circle, and their opponent has a bye)."""
    field: list[str | None] = list(order)
    if len(field) % 2:
        field.append(None)
    n = len(field)
    rotation = (number - 1) % (n - 1)
    rest = field[1:]
    rest = rest[-rotation:] + rest[:-rotation] if rotation else rest
    circle = [field[0], *rest]
    active = set(players)
    tables: list[list[str]] = []
    byes: list[str] = []
    for i in range(n // 2):
        a, b = circle[i], circle[n - 1 - i]
        pair = [a, b] if (i + number) % 2 else [b, a]
        present = [p for p in pair if p is not None and p in active]
        if len(present) == 2:
            tables.append(present)
        else:
            byes += present
    return tables, sorted(byes, key=order.index)


def _elimination(
    state: TournamentState, players: list[str]
) -> tuple[list[list[str]], list[str], list[str]]:
    assert state.spec is not None
    seats = state.spec.seats
    groups: dict[int, list[str]] = {}
    for p in players:
        groups.setdefault(state.entrants[p].losses, []).append(p)
    if len(groups) == 2 and any(len(g) == 1 for g in groups.values()):
        merged = [p for losses in sorted(groups) for p in groups[losses]]
        groups = {0: merged}
    tables: list[list[str]] = []
    byes: list[str] = []
    brackets: list[str] = []
    for losses in sorted(groups):
        group = groups[losses]  # seed order
        sizes, bye_count = pod_sizes(len(group), seats, state.min_seats)
        if not sizes:
            byes += group
            continue
        seated = len(group) - bye_count
        # the top seeds take the byes
        group_byes, rest = group[:bye_count], group[bye_count:]
        byes += group_byes
        pods: list[list[str]] = [[] for _ in sizes]
        snake = _snake(len(sizes), seated, sizes)
        for player, index in zip(rest, snake, strict=True):
            pods[index].append(player)
        for members in pods:
            tables.append(members)
            brackets.append("winners" if losses == 0 else "losers")
    return tables, byes, brackets


def _snake(tables: int, players: int, sizes: list[int]) -> list[int]:
    """Which table each seed goes to: 0, 1, …, k−1, k−1, …, 0, 0, 1, … (two seats: the
    best seed meets the worst)."""
    order: list[int] = []
    room = list(sizes)
    forward = True
    while len(order) < players:
        sweep = range(tables) if forward else range(tables - 1, -1, -1)
        for t in sweep:
            if room[t] > 0 and len(order) < players:
                order.append(t)
                room[t] -= 1
        forward = not forward
    return order
