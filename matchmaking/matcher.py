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
   compatible and within a band (see below); it looks at the ``REACH`` tables' worth of
   free tickets nearest to it on each side;
3. two-seat tables: a maximum-weight matching over the remaining one-player tickets
   that want two seats (an edge between each ticket and its nearest acceptable
   neighbours in rating order), weighted to seat as many as possible, then to make
   rating differences smallest, then to favour those who waited longest: networkx's
   blossom algorithm (``max_weight_matching``) for pools of up to 40, and beyond that
   the best matching of non-crossing, non-nested pairs in rating order (dynamic
   programming; the same optimum when only ratings keep tickets apart), so that a pass
   over thousands of tickets takes tens of milliseconds, not minutes;
4. a ticket with ``bots_ok`` that has waited ``bots_after_s`` and is still unmatched
   gets a table of its own with bots in the empty seats (its smallest table).

Two tickets are *compatible* when they have the same pace and ratedness, their seat
ranges meet, their options agree on every key both constrain, and no player of one is
blocked by a player of the other. They are *acceptable* when their rating difference is
within the wider of their bands (``orrery_contracts.matchmaking.band``: twice the
ticket's sigma, widening with its wait until anything goes at 60 s).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import networkx as nx

from orrery_contracts.matchmaking import band

_ORDER = attrgetter("rank")  # oldest first (Waiting.order)
NEIGHBOURS = 4  # edges per ticket in the two-seat graph (nearest in rating order)
BLOSSOM_MAX = 40  # two-seat pools up to this size: networkx's exact blossom algorithm
REACH = 2  # a group looks this many tables' worth of tickets to each side of its anchor


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
    # derived once (a pass reads them many times)
    mu: float = field(init=False, compare=False, repr=False)
    who: frozenset[str] = field(init=False, compare=False, repr=False)
    size: int = field(init=False, compare=False, repr=False)  # players on the ticket
    plain: bool = field(init=False, compare=False, repr=False)  # no options, no blocks
    rank: tuple[int, str] = field(init=False, compare=False, repr=False)  # order()

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", sum(self.ratings) / len(self.ratings))
        object.__setattr__(self, "who", frozenset(self.players))
        object.__setattr__(self, "size", len(self.players))
        object.__setattr__(self, "plain", not self.options and not self.blocks)
        object.__setattr__(self, "rank", (self.joined_at, self.ticket_id))

    def waited_s(self, now: int) -> float:
        return max(0.0, (now - self.joined_at) / 1000)

    def order(self) -> tuple[int, str]:
        """Oldest first, then by ticket id."""
        return self.rank


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
    if a.options and b.options:
        mine = dict(a.options)
        for key, value in b.options:
            if key in mine and mine[key] != value:
                return False
    if (a.blocks and not a.blocks.isdisjoint(b.who)) or (
        b.blocks and not b.blocks.isdisjoint(a.who)
    ):
        return False
    return a.who.isdisjoint(b.who)


def acceptable(a: Waiting, b: Waiting, now: int) -> bool:
    wider = max(band(a.sigma, a.waited_s(now)), band(b.sigma, b.waited_s(now)))
    return abs(a.mu - b.mu) <= wider


def _alike(a: Waiting, b: Waiting) -> bool:
    """``compatible`` for two tickets of one class that both fit one table size (the
    pace, ratedness and seats agree already)."""
    if a.plain and b.plain:
        return a.who.isdisjoint(b.who)
    return compatible(a, b)


# how a pass tells two tickets of a class apart: None when nothing but their ratings can
# (every ticket of the class plain, no player on two of them)
Alike = Callable[[Waiting, Waiting], bool] | None


def _class_alike(tickets: Sequence[Waiting]) -> Alike:
    if not all(t.plain for t in tickets):
        return _alike
    players = [p for t in tickets for p in t.players]
    return None if len(set(players)) == len(players) else _alike


@dataclass
class _Pass:
    """One pass's figures per ticket, each list indexed by the ticket's place in
    oldest-first order (so that the order of places is oldest-first order)."""

    tickets: list[Waiting]
    mus: list[float]
    bands: list[float]
    waits: list[float]
    singles: bool  # every ticket a single player's (a run's ratings are its mus)


def match(pool: Iterable[Waiting], now: int, seat_range: tuple[int, int]) -> list[Group]:
    """The tables one pass makes of ``pool`` at ``now`` (unix ms), in the order they are
    decided; a ticket is in at most one (ticket ids are unique in a pool)."""
    low, high = seat_range
    tickets = sorted(pool, key=_ORDER)
    waits = [w if (w := (now - t.joined_at) / 1000) > 0.0 else 0.0 for t in tickets]
    bands = [band(t.sigma, w) for t, w in zip(tickets, waits, strict=True)]
    mus = [t.mu for t in tickets]
    run = _Pass(tickets, mus, bands, waits, all(t.size == 1 for t in tickets))
    used = [False] * len(tickets)
    groups: list[Group] = []

    # 1. whole tables on their own
    classes: dict[tuple[str, bool], list[int]] = {}
    for k, ticket in enumerate(tickets):
        size = ticket.size
        if low <= size <= high and ticket.seats_min <= size <= ticket.seats_max:
            groups.append(Group((ticket,), size))
            used[k] = True
        classes.setdefault((ticket.pace, ticket.rated), []).append(k)

    # (only tickets of one pace and ratedness can meet: each such class apart)
    smallest = max(low, 3)
    # the sizes of 3 or more each ticket fits, smallest first
    spans = [range(max(t.seats_min, smallest, t.size), min(t.seats_max, high) + 1) for t in tickets]
    everyone = _class_alike(tickets)
    for key in sorted(classes):
        oldest_first = classes[key]
        alike = None if everyone is None else _class_alike([tickets[k] for k in oldest_first])
        # rating order, oldest first among equals (a stable sort of oldest-first places)
        by_rating = sorted(oldest_first, key=mus.__getitem__)
        # per table size: the free tickets that fit it, in rating order
        lines: dict[int, _Line] = {size: _Line() for size in range(smallest, high + 1)}
        for k in by_rating:
            if not used[k]:
                for size in spans[k]:
                    line = lines[size]
                    line.tickets.append(k)
                    line.mus.append(mus[k])

        # 2. tables of 3 or more, by rating neighbours
        for anchor in oldest_first:
            if used[anchor] or not spans[anchor]:
                continue
            for size in reversed(spans[anchor]):
                found = _neighbours(run, anchor, size, lines[size], alike)
                if found is not None:
                    found.sort()
                    groups.append(Group(tuple([tickets[k] for k in found]), size))
                    for k in found:
                        used[k] = True
                        for fits in spans[k]:
                            line = lines[fits]
                            at = line.find(k, mus[k])
                            del line.tickets[at]
                            del line.mus[at]
                    break

        # 3. two-seat tables, by maximum-weight matching
        if low <= 2 <= high:
            singles = [
                k
                for k in by_rating
                if not used[k]
                and tickets[k].size == 1
                and tickets[k].seats_min <= 2 <= tickets[k].seats_max
            ]
            for a, b in _pairs(run, singles, alike):
                groups.append(Group((tickets[a], tickets[b]), 2))
                used[a] = used[b] = True

    # 4. bots for those who waited long enough
    for k, ticket in enumerate(tickets):
        if used[k] or not ticket.bots_ok or waits[k] < ticket.bots_after_s:
            continue
        size = max(ticket.seats_min, low, ticket.size + 1)  # its smallest table with bots
        if size <= min(ticket.seats_max, high):
            groups.append(Group((ticket,), size, bots=size - ticket.size))
            used[k] = True
    return groups


class _Line:
    """The free tickets (places) that fit one table size, in rating order, and their
    mus (in order: a ticket is found by bisection)."""

    def __init__(self) -> None:
        self.tickets: list[int] = []
        self.mus: list[float] = []

    def find(self, k: int, mu: float) -> int:
        """The ticket's index in the line (which holds it)."""
        tickets = self.tickets
        i = bisect_left(self.mus, mu)
        while tickets[i] != k:  # (among equal mus, oldest first)
            i += 1
        return i


def _neighbours(
    run: _Pass, anchor: int, size: int, line_of: _Line, alike: Alike
) -> list[int] | None:
    """The contiguous run (in rating order, among the free tickets that fit ``size`` and
    could sit with the anchor) around the anchor whose players fill ``size`` seats with
    the smallest spread, every pair compatible and acceptable; None if there is none.
    Only the nearest ``REACH`` tables' worth of such tickets on each side are looked
    at."""
    tickets, mus, bands = run.tickets, run.mus, run.bands
    members = line_of.tickets
    at = line_of.find(anchor, mus[anchor])
    reach = REACH * size
    if alike is None:
        line = members[max(0, at - reach) : at + 1 + reach]
        here = at - max(0, at - reach)
    else:
        who = tickets[anchor]
        below: list[int] = []
        i = at - 1
        while i >= 0 and len(below) < reach:
            if alike(who, tickets[members[i]]):
                below.append(members[i])
            i -= 1
        above: list[int] = []
        i = at + 1
        while i < len(members) and len(above) < reach:
            if alike(who, tickets[members[i]]):
                above.append(members[i])
            i += 1
        below.reverse()
        line = [*below, anchor, *above]
        here = len(below)
    if alike is None and run.singles:
        return _nearest(run, line, here, size)
    best: list[int] | None = None
    best_spread, best_off = 0.0, False
    for start in range(here, max(-1, here - size), -1):
        total = 0
        end = start
        while end < len(line) and total < size:
            total += tickets[line[end]].size
            end += 1
        if total != size or end <= here:
            continue
        group = line[start:end]
        ratings = [r for k in group for r in tickets[k].ratings]
        spread = max(ratings) - min(ratings)
        # smallest spread first; among equals, a run that leaves a whole number of
        # tables' worth of tickets below it (so the rest still groups by neighbours)
        off = start % size != 0
        if best is not None and (
            spread > best_spread or (spread == best_spread and off >= best_off)
        ):
            continue
        # (no pair can be further apart than the widest band of the run allows)
        widths = [bands[k] for k in group]
        if spread > max(widths) or not _together(run, group, widths, alike):
            continue
        best, best_spread, best_off = group, spread, off
    return best


def _nearest(run: _Pass, line: list[int], here: int, size: int) -> list[int] | None:
    """``_neighbours`` when every ticket is one player's and nothing but ratings keeps
    them apart: a run is ``size`` tickets, its spread its ends' difference."""
    mus, bands = run.mus, run.bands
    best: list[int] | None = None
    best_spread, best_off = 0.0, False
    for start in range(here, max(-1, here - size), -1):
        end = start + size
        if end > len(line):
            continue
        spread = mus[line[end - 1]] - mus[line[start]]
        off = start % size != 0
        if best is not None and (
            spread > best_spread or (spread == best_spread and off >= best_off)
        ):
            continue
        group = line[start:end]
        widths = [bands[k] for k in group]
        if spread > max(widths):
            continue
        if spread > min(widths) and not _together(run, group, widths, None):
            continue
        best, best_spread, best_off = group, spread, off
    return best


def _together(run: _Pass, group: list[int], widths: list[float], alike: Alike) -> bool:
    """Whether every pair of ``group`` (in rating order, ``widths`` their bands) is alike
    and acceptable."""
    mus = run.mus
    if alike is None and mus[group[-1]] - mus[group[0]] <= min(widths):
        return True  # (no pair is further apart than the narrowest band)
    tickets = run.tickets
    for i, a in enumerate(group):
        for j in range(i + 1, len(group)):
            b = group[j]
            if alike is not None and not alike(tickets[a], tickets[b]):
                return False
            if abs(mus[a] - mus[b]) > max(widths[i], widths[j]):
                return False
    return True


def _pairs(run: _Pass, singles: list[int], alike: Alike) -> list[tuple[int, int]]:
    """A maximum-weight matching of ``singles`` (in rating order), each ticket linked to
    its nearest ``NEIGHBOURS`` acceptable tickets above it: networkx's blossom algorithm
    for up to ``BLOSSOM_MAX`` tickets, beyond that the best matching whose pairs neither
    cross nor nest in rating order (dynamic programming in O(n)), which is the maximum
    one whenever nothing but ratings keeps tickets apart. The pairs are the tickets'
    places, each pair and the pairs in oldest-first order."""
    tickets = run.tickets
    mus = [run.mus[k] for k in singles]
    bands = [run.bands[k] for k in singles]
    waits = [run.waits[k] for k in singles]
    n = len(singles)
    small = n <= BLOSSOM_MAX
    edges: list[tuple[int, int, int]] = []  # (i, j, weight), for the blossom algorithm
    # else the dynamic programming of _line_pairs, pushed forward edge by edge: best[k]
    # the heaviest pairs among the first k tickets, reach[j] the heaviest of best[i] +
    # weight over the edges i -> j so far (the first such i among equals) and from_[j]
    # that i, choice[k] the i ticket k - 1 pairs with in best[k] (-1: none)
    best: list[float] = [0] * (n + 1)  # (integers: reach's -inf is never taken)
    reach: list[float] = [-math.inf] * n
    from_ = [-1] * n
    choice = [-1] * (n + 1)
    # (when nothing but ratings keeps tickets apart, most tickets' nearest NEIGHBOURS
    # above are within their own band: their edges are those, weighed all at once)
    near = [False] * n
    by_offset: list[tuple[int, list[int]]] = []
    if not small and alike is None:
        far = mus[NEIGHBOURS:]
        near[: len(far)] = [b - a <= width for a, b, width in zip(mus, far, bands, strict=False)]
        by_offset = [(j, _weights(mus, waits, j)) for j in range(1, NEIGHBOURS + 1)]
    for i in range(n):
        if i and not small:
            # (every edge into i is known: those from below it)
            if reach[i - 1] > best[i - 1]:
                best[i], choice[i] = reach[i - 1], from_[i - 1]
            else:
                best[i] = best[i - 1]
        base = best[i]
        if near[i]:
            for offset, weights in by_offset:
                if (heavier := base + weights[i]) > reach[i + offset]:
                    reach[i + offset], from_[i + offset] = heavier, i
            continue
        mu, width, waited = mus[i], bands[i], waits[i]
        linked = 0
        for j in range(i + 1, min(n, i + 1 + 4 * NEIGHBOURS)):
            difference = mus[j] - mu  # (rating order: never negative)
            if difference > width and difference > bands[j]:
                continue
            # one-player tickets of one class that both want two seats: only options,
            # blocks and the same player twice can keep them apart
            if alike is not None and not alike(tickets[singles[i]], tickets[singles[j]]):
                continue
            # every pair outweighs any rating difference (most pairs first), then the
            # smaller difference, then the longer waits (integers: the sums are exact)
            both = round(waited + waits[j])
            weight = _PAIR - round(difference * 1000) * 10_000 + (both if both < 9_999 else 9_999)
            if small:
                edges.append((i, j, weight))
            elif base + weight > reach[j]:
                reach[j], from_[j] = base + weight, i
            linked += 1
            if linked == NEIGHBOURS:
                break
    if small:
        graph: Any = nx.Graph()
        graph.add_nodes_from(range(n))
        for i, j, weight in edges:
            graph.add_edge(i, j, weight=weight)
        pairs = [tuple(sorted(edge)) for edge in nx.max_weight_matching(graph)]
    else:
        if n and reach[n - 1] > best[n - 1]:
            best[n], choice[n] = reach[n - 1], from_[n - 1]
        pairs = []
        k = n
        while k > 0:
            if choice[k] < 0:
                k -= 1
            else:
                pairs.append((choice[k], k - 1))
                k = choice[k]
    return sorted(
        [
            (singles[i], singles[j]) if singles[i] < singles[j] else (singles[j], singles[i])
            for i, j in pairs
        ]
    )


_PAIR = 10**12  # a pair's weight before its rating difference and waits


def _weights(mus: list[float], waits: list[float], offset: int) -> list[int]:
    """The weight of each edge i -> i + ``offset`` (as ``_pairs`` weighs one)."""
    return [
        _PAIR - round((b - a) * 1000) * 10_000 + (both if (both := round(x + y)) < 9_999 else 9_999)
        for a, b, x, y in zip(mus, mus[offset:], waits, waits[offset:], strict=False)
    ]
