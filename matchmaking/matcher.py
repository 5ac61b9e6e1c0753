"""The matcher: which waiting tickets sit together, as a pure function of the pool, the
clock and the game's seat range (no I/O, no randomness: the same pool at the same
clock always gives the same tables, which is what lets an audit re-derive them).

One pass (:func:`match`) over the tickets ready to play (every party member accepted):

1. a ticket whose players fill a table on their own (a party of three wanting three
   seats) gets it;
2. tables of 3 to 5 seats: the tickets are put in rating order, and each ticket in turn,
   oldest first, takes the contiguous run of its rating neighbours (leaving out those
   it cannot sit with) that fills the largest table it wants with the smallest spread
   (among equals, one that leaves whole tables' worth of tickets below it), every pair
   compatible and within a band (see below);
3. two-seat tables: a maximum-weight matching over the remaining one-player tickets
   that want two seats (``networkx.max_weight_matching``; an edge between each ticket and
   its nearest acceptable neighbours in rating order), weighted to seat as many as
   possible, then to make rating differences smallest, then to favour those who waited
   longest;
4. a ticket with ``bots_ok`` that has waited ``bots_after_s`` and is still unmatched
   gets a table of its own with bots in the empty seats (its smallest table).

Two tickets are *compatible* when they have the same pace and ratedness, their seat
ranges meet, their options agree on every key both constrain, and no player of one is
blocked by a player of the other. They are *acceptable* when their rating difference is
within the wider of their bands (``orrery_contracts.matchmaking.band``: twice the
ticket's sigma, widening with its wait until anything goes at 60 s).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from orrery_contracts.matchmaking import band

NEIGHBOURS = 8  # edges per ticket in the two-seat graph (nearest in rating order)


@dataclass(frozen=True)
class Waiting:
    """A ticket in the pool, as the matcher sees it."""

    ticket_id: str
    players: tuple[str, ...]
    ratings: tuple[float, ...]  # each player's mu
    sigma: float  # the ticket's uncertainty (its players' largest sigma)
    seats_min: int
    seats_max: int
    joined_at: int  # unix ms
    options: tuple[tuple[str, str], ...] = ()  # (key, canonical JSON of the value)
    rated: bool = True
    pace: str = "realtime"
    bots_ok: bool = False
    bots_after_s: float = 60.0
    blocks: frozenset[str] = field(default_factory=frozenset)

    @property
    def mu(self) -> float:
        return sum(self.ratings) / len(self.ratings)

    @property
    def size(self) -> int:
        return len(self.players)

    def waited_s(self, now: int) -> float:
        return max(0.0, (now - self.joined_at) / 1000)

    def order(self) -> tuple[int, str]:
        """Oldest first, then by ticket id."""
        return (self.joined_at, self.ticket_id)


@dataclass(frozen=True)
class Group:
    """A table the matcher decided: the tickets in it (oldest first), its seat count and
    how many of those seats bots take."""

    tickets: tuple[Waiting, ...]
    seats: int
    bots: int = 0

    @property
    def ratings(self) -> list[float]:
        return [r for t in self.tickets for r in t.ratings]

    @property
    def spread(self) -> float:
        ratings = self.ratings
        return max(ratings) - min(ratings) if ratings else 0.0

    def ids(self) -> tuple[str, ...]:
        return tuple(t.ticket_id for t in self.tickets)


def compatible(a: Waiting, b: Waiting) -> bool:
    if a.pace != b.pace or a.rated != b.rated:
        return False
    if max(a.seats_min, b.seats_min) > min(a.seats_max, b.seats_max):
        return False
    mine = dict(a.options)
    for key, value in b.options:
        if key in mine and mine[key] != value:
            return False
    if a.blocks & set(b.players) or b.blocks & set(a.players):
        return False
    return not set(a.players) & set(b.players)


def acceptable(a: Waiting, b: Waiting, now: int) -> bool:
    difference = abs(a.mu - b.mu)
    return difference <= max(band(a.sigma, a.waited_s(now)), band(b.sigma, b.waited_s(now)))


def _together(group: Sequence[Waiting], now: int) -> bool:
    for i, a in enumerate(group):
        for b in group[i + 1 :]:
            if not compatible(a, b) or not acceptable(a, b, now):
                return False
    return True


def _sizes(ticket: Waiting, low: int, high: int) -> range:
    """The table sizes the ticket wants within the game's range, largest first."""
    return range(min(ticket.seats_max, high), max(ticket.seats_min, low) - 1, -1)


def _fits(ticket: Waiting, size: int) -> bool:
    return ticket.seats_min <= size <= ticket.seats_max and ticket.size <= size


def match(pool: Iterable[Waiting], now: int, seat_range: tuple[int, int]) -> list[Group]:
    """The tables one pass makes of ``pool`` at ``now`` (unix ms), in the order they are
    decided; a ticket is in at most one."""
    low, high = seat_range
    tickets = sorted(pool, key=Waiting.order)
    used: set[str] = set()
    groups: list[Group] = []

    # 1. whole tables on their own
    for ticket in tickets:
        for size in _sizes(ticket, low, high):
            if ticket.size == size:
                groups.append(Group((ticket,), size))
                used.add(ticket.ticket_id)
                break

    # 2. tables of 3 or more, by rating neighbours
    by_rating = sorted(tickets, key=lambda t: (t.mu, t.joined_at, t.ticket_id))
    for anchor in tickets:
        if anchor.ticket_id in used:
            continue
        for size in _sizes(anchor, max(low, 3), high):
            found = _neighbours(anchor, size, by_rating, used, now)
            if found is not None:
                groups.append(Group(tuple(sorted(found, key=Waiting.order)), size))
                used.update(t.ticket_id for t in found)
                break

    # 3. two-seat tables, by maximum-weight matching
    if low <= 2 <= high:
        singles = [t for t in by_rating if t.ticket_id not in used and _fits(t, 2) and t.size == 1]
        for a, b in _pairs(singles, now):
            groups.append(Group(tuple(sorted((a, b), key=Waiting.order)), 2))
            used.update((a.ticket_id, b.ticket_id))

    # 4. bots for those who waited long enough
    for ticket in tickets:
        if ticket.ticket_id in used or not ticket.bots_ok:
            continue
        if ticket.waited_s(now) < ticket.bots_after_s:
            continue
        sizes = [s for s in _sizes(ticket, low, high) if s > ticket.size]
        if sizes:
            size = min(sizes)
            groups.append(Group((ticket,), size, bots=size - ticket.size))
            used.add(ticket.ticket_id)
    return groups


def _neighbours(
    anchor: Waiting, size: int, by_rating: list[Waiting], used: set[str], now: int
) -> list[Waiting] | None:
    """The contiguous run (in rating order, among the tickets that could sit with the
    anchor) around the anchor whose players fill ``size`` seats with the smallest
    spread, every pair compatible and acceptable; None if there is none."""
    line = [
        t
        for t in by_rating
        if t.ticket_id not in used and _fits(t, size) and (t is anchor or compatible(anchor, t))
    ]
    if anchor not in line:
        return None
    at = line.index(anchor)
    best: list[Waiting] | None = None
    best_key: tuple[float, bool] = (0.0, False)
    for start in range(at, max(-1, at - size), -1):
        total = 0
        end = start
        while end < len(line) and total < size:
            total += line[end].size
            end += 1
        if total != size or end <= at:
            continue
        run = line[start:end]
        if not _together(run, now):
            continue
        # smallest spread first; among equals, a run that leaves a whole number of
        # tables' worth of tickets below it (so the rest still groups by neighbours)
        key = (Group(tuple(run), size).spread, start % size != 0)
        if best is None or key < best_key:
            best, best_key = run, key
    return best


def _pairs(singles: list[Waiting], now: int) -> list[tuple[Waiting, Waiting]]:
    """A maximum-weight matching of ``singles`` (in rating order): most pairs, then the
    smallest rating differences, then the longest waits."""
    graph: Any = nx.Graph()
    for i, a in enumerate(singles):
        graph.add_node(i)
        linked = 0
        for j in range(i + 1, len(singles)):
            b = singles[j]
            if linked >= NEIGHBOURS:
                break
            if not compatible(a, b) or not acceptable(a, b, now):
                continue
            linked += 1
            waited = a.waited_s(now) + b.waited_s(now)
            # (integers: the matching's arithmetic stays exact)
            weight = 10**12 - round(abs(a.mu - b.mu) * 1000) * 10**4 + min(9_999, round(waited))
            graph.add_edge(i, j, weight=weight)
    pairs = [tuple(sorted(edge)) for edge in nx.max_weight_matching(graph)]
    found = [(singles[i], singles[j]) for i, j in sorted(pairs)]
    return sorted(found, key=lambda pair: min(pair[0].order(), pair[1].order()))
