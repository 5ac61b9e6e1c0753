"""The matcher as it was before its pass was made faster (matchmaking/matcher.py): a
reference that tests/test_matcher.py compares the matcher against on random pools, which
must give the very same tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import Any

import networkx as nx

from matchmaking.matcher import Group, Waiting, compatible
from orrery_contracts.matchmaking import band

_ORDER = attrgetter("joined_at", "ticket_id")
NEIGHBOURS = 4
BLOSSOM_MAX = 40
REACH = 2


def _acceptable(a: Waiting, b: Waiting, now: int) -> bool:
    if _bands_at[0] != now:
        return abs(a.mu - b.mu) <= max(_band(a, now), _band(b, now))
    bands = _bands  # (a pass under way: every ticket's band is there)
    first, second = bands.get(a.ticket_id), bands.get(b.ticket_id)
    if first is None or second is None:
        return abs(a.mu - b.mu) <= max(_band(a, now), _band(b, now))
    return abs(a.mu - b.mu) <= (first if first > second else second)


_bands: dict[str, float] = {}
_bands_at: list[int] = [0]


def _band(ticket: Waiting, now: int) -> float:
    """The ticket's band at ``now`` (kept for the pass under way, whose clock it is)."""
    if _bands_at[0] != now:
        _bands.clear()
        _bands_at[0] = now
    found = _bands.get(ticket.ticket_id)
    if found is None:
        found = _bands[ticket.ticket_id] = band(ticket.sigma, ticket.waited_s(now))
    return found


def _alike(a: Waiting, b: Waiting) -> bool:
    """``compatible`` for two tickets of one class that both fit one table size (the
    pace, ratedness and seats agree already)."""
    if a.plain and b.plain:
        return a.who.isdisjoint(b.who)
    return compatible(a, b)


def _together(group: Sequence[Waiting], now: int) -> bool:
    for i, a in enumerate(group):
        for b in group[i + 1 :]:
            if not _alike(a, b) or not _acceptable(a, b, now):
                return False
    return True


def _sizes(ticket: Waiting, low: int, high: int) -> range:
    """The table sizes the ticket wants within the game's range, largest first."""
    return range(min(ticket.seats_max, high), max(ticket.seats_min, low) - 1, -1)


def _fits(ticket: Waiting, size: int) -> bool:
    return ticket.seats_min <= size <= ticket.seats_max and ticket.size <= size


def reference_match(pool: Iterable[Waiting], now: int, seat_range: tuple[int, int]) -> list[Group]:
    """The tables one pass makes of ``pool`` at ``now`` (unix ms), in the order they are
    decided; a ticket is in at most one."""
    low, high = seat_range
    tickets = sorted(pool, key=_ORDER)
    _bands.clear()
    _bands_at[0] = now
    for ticket in tickets:
        _bands[ticket.ticket_id] = band(ticket.sigma, ticket.waited_s(now))
    used: set[str] = set()
    groups: list[Group] = []

    # 1. whole tables on their own
    for ticket in tickets:
        for size in _sizes(ticket, low, high):
            if ticket.size == size:
                groups.append(Group((ticket,), size))
                used.add(ticket.ticket_id)
                break

    # (only tickets of one pace and ratedness can meet: each such class apart)
    classes: dict[tuple[str, bool], list[Waiting]] = {}
    for ticket in tickets:
        classes.setdefault((ticket.pace, ticket.rated), []).append(ticket)
    for key in sorted(classes):
        oldest_first = classes[key]
        by_rating = sorted(oldest_first, key=lambda t: (t.mu, t.joined_at, t.ticket_id))
        # per table size: the tickets that fit it, in rating order
        lines = {
            size: _Line([t for t in by_rating if _fits(t, size) and t.ticket_id not in used])
            for size in range(max(low, 3), high + 1)
        }

        # 2. tables of 3 or more, by rating neighbours
        for anchor in oldest_first:
            if anchor.ticket_id in used:
                continue
            for size in _sizes(anchor, max(low, 3), high):
                if not _fits(anchor, size):
                    continue
                found = _neighbours(anchor, size, lines[size], now)
                if found is not None:
                    groups.append(Group(tuple(sorted(found, key=_ORDER)), size))
                    used.update(t.ticket_id for t in found)
                    for line in lines.values():
                        line.take(found)
                    break

        # 3. two-seat tables, by maximum-weight matching
        if low <= 2 <= high:
            singles = [
                t for t in by_rating if t.ticket_id not in used and _fits(t, 2) and t.size == 1
            ]
            for a, b in _pairs(singles, now):
                groups.append(Group(tuple(sorted((a, b), key=_ORDER)), 2))
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


class _Line:
    """Tickets in rating order, those taken skipped in near-constant time (a union-find
    of the next free place each way)."""

    def __init__(self, tickets: list[Waiting]) -> None:
        self.tickets = tickets
        self.place = {t.ticket_id: i for i, t in enumerate(tickets)}
        self._up = list(range(len(tickets) + 1))  # i -> the first free place >= i
        self._down = list(range(len(tickets) + 1))  # i + 1 -> 1 + the first free <= i

    def take(self, taken: Iterable[Waiting]) -> None:
        for ticket in taken:
            i = self.place.get(ticket.ticket_id)
            if i is not None:
                self._up[i] = i + 1
                self._down[i + 1] = i

    def up(self, i: int) -> int:
        """The first free place at or above ``i`` (``len`` if none)."""
        root = i
        while self._up[root] != root:
            root = self._up[root]
        while self._up[i] != root:
            self._up[i], i = root, self._up[i]
        return root

    def down(self, i: int) -> int:
        """The first free place at or below ``i`` (-1 if none)."""
        k = root = i + 1
        while self._down[root] != root:
            root = self._down[root]
        while self._down[k] != root:
            self._down[k], k = root, self._down[k]
        return root - 1


def _neighbours(anchor: Waiting, size: int, line_of: _Line, now: int) -> list[Waiting] | None:
    """The contiguous run (in rating order, among the free tickets that fit ``size`` and
    could sit with the anchor) around the anchor whose players fill ``size`` seats with
    the smallest spread, every pair compatible and acceptable; None if there is none.
    Only the nearest ``REACH`` tables' worth of such tickets on each side are looked
    at."""
    tickets = line_of.tickets
    at = line_of.place[anchor.ticket_id]
    reach = REACH * size
    below: list[Waiting] = []
    i = line_of.down(at - 1)
    while i >= 0 and len(below) < reach:
        if _alike(anchor, tickets[i]):
            below.append(tickets[i])
        i = line_of.down(i - 1)
    above: list[Waiting] = []
    i = line_of.up(at + 1)
    while i < len(tickets) and len(above) < reach:
        if _alike(anchor, tickets[i]):
            above.append(tickets[i])
        i = line_of.up(i + 1)
    line = [*reversed(below), anchor, *above]
    here = len(below)
    best: list[Waiting] | None = None
    best_key: tuple[float, bool] = (0.0, False)
    for start in range(here, max(-1, here - size), -1):
        total = 0
        end = start
        while end < len(line) and total < size:
            total += line[end].size
            end += 1
        if total != size or end <= here:
            continue
        run = line[start:end]
        # smallest spread first; among equals, a run that leaves a whole number of
        # tables' worth of tickets below it (so the rest still groups by neighbours)
        ratings = [r for t in run for r in t.ratings]
        spread = max(ratings) - min(ratings)
        key = (spread, start % size != 0)
        if best is not None and key >= best_key:
            continue
        # (no pair can be further apart than the widest band of the run allows)
        if spread > max(_band(t, now) for t in run) or not _together(run, now):
            continue
        best, best_key = run, key
    return best


def _pairs(singles: list[Waiting], now: int) -> list[tuple[Waiting, Waiting]]:
    """A maximum-weight matching of ``singles`` (in rating order), each ticket linked to
    its nearest ``NEIGHBOURS`` acceptable tickets above it: networkx's blossom algorithm
    for up to ``BLOSSOM_MAX`` tickets, beyond that the best matching whose pairs neither
    cross nor nest in rating order (dynamic programming in O(n)), which is the maximum
    one whenever nothing but ratings keeps tickets apart."""
    # (one pass's figures per ticket, read many times below)
    mus = [t.mu for t in singles]
    bands = [_band(t, now) for t in singles]
    waits = [t.waited_s(now) for t in singles]
    edges: list[dict[int, int]] = []
    for i, a in enumerate(singles):
        linked: dict[int, int] = {}
        for j in range(i + 1, min(len(singles), i + 1 + 4 * NEIGHBOURS)):
            if len(linked) >= NEIGHBOURS:
                break
            difference = mus[j] - mus[i]  # (rating order: never negative)
            if difference > max(bands[i], bands[j]):
                continue
            b = singles[j]
            # one-player tickets of one class that both want two seats: only options,
            # blocks and the same player twice can keep them apart
            if not _alike(a, b):
                continue
            # every pair outweighs any rating difference (most pairs first), then the
            # smaller difference, then the longer waits (integers: the sums are exact)
            waited = min(9_999, round(waits[i] + waits[j]))
            linked[j] = 10**12 - round(difference * 1000) * 10**4 + waited
        edges.append(linked)
    if len(singles) <= BLOSSOM_MAX:
        graph: Any = nx.Graph()
        graph.add_nodes_from(range(len(singles)))
        for i, linked in enumerate(edges):
            for j, weight in linked.items():
                graph.add_edge(i, j, weight=weight)
        pairs = sorted(tuple(sorted(edge)) for edge in nx.max_weight_matching(graph))
    else:
        pairs = _line_pairs(edges)
    found = [(singles[i], singles[j]) for i, j in pairs]
    return sorted(found, key=lambda pair: min(pair[0].order(), pair[1].order()))


def _line_pairs(edges: list[dict[int, int]]) -> list[tuple[int, int]]:
    """The heaviest set of pairs (i, j), i < j, taken from ``edges`` (i -> {j: weight})
    such that no ticket between i and j is in a pair: best[k] is the best for the first k
    tickets, either leaving ticket k - 1 alone or pairing it with an i whose edge reaches
    it."""
    n = len(edges)
    into: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for i, linked in enumerate(edges):
        for j, weight in linked.items():
            into[j].append((i, weight))
    best = [0] * (n + 1)
    choice: list[int] = [-1] * (n + 1)
    for k in range(1, n + 1):
        best[k], choice[k] = best[k - 1], -1
        for i, weight in into[k - 1]:
            if best[i] + weight > best[k]:
                best[k], choice[k] = best[i] + weight, i
    pairs = []
    k = n
    while k > 0:
        if choice[k] < 0:
            k -= 1
        else:
            pairs.append((choice[k], k - 1))
            k = choice[k]
    return sorted(pairs)
