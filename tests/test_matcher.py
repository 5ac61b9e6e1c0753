"""The matcher as a pure function: whatever the pool, no ticket sits twice, blocked
players never share a table, tables respect every ticket's seats, options and pace,
bots come only when welcome and due, the same pool gives the same tables, two-seat
tables pair rating neighbours, and 3-seat tables group them."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchmaking.matcher import Group, Waiting, acceptable, compatible, match
from orrery_contracts.matchmaking import ANY_AFTER_S, band
from tests.support.matcher_reference import reference_match

pytestmark = pytest.mark.unit

NOW = 1_000_000_000


def ticket(
    i: int,
    mu: float,
    *,
    waited_s: float = 0.0,
    seats: tuple[int, int] = (3, 3),
    players: tuple[str, ...] | None = None,
    sigma: float = 50.0,
    blocks: frozenset[str] = frozenset(),
    bots_ok: bool = False,
    bots_after_s: float = 60.0,
    pace: str = "realtime",
    options: tuple[tuple[str, str], ...] = (),
) -> Waiting:
    players = players or (f"p{i}",)
    return Waiting(
        ticket_id=f"t{i:03d}",
        players=players,
        ratings=tuple(mu for _ in players),
        sigma=sigma,
        seats_min=seats[0],
        seats_max=seats[1],
        joined_at=NOW - int(waited_s * 1000),
        options=options,
        pace=pace,
        bots_ok=bots_ok,
        bots_after_s=bots_after_s,
        blocks=blocks,
    )


@st.composite
def pools(draw: st.DrawFn) -> list[Waiting]:
    count = draw(st.integers(0, 30))
    people = [f"p{i}" for i in range(count)]
    tickets = []
    for i in range(count):
        low = draw(st.integers(2, 5))
        high = draw(st.integers(low, 5))
        blocks = (
            frozenset(draw(st.lists(st.sampled_from(people), max_size=3)))
            if people
            else frozenset()
        )
        tickets.append(
            ticket(
                i,
                draw(st.floats(500, 2500)),
                waited_s=draw(st.floats(0, 120)),
                seats=(low, high),
                sigma=draw(st.floats(20, 500)),
                blocks=blocks - {f"p{i}"},
                bots_ok=draw(st.booleans()),
                bots_after_s=draw(st.floats(1, 90)),
                pace=draw(st.sampled_from(["realtime", "turn_based"])),
                options=draw(st.sampled_from([(), (("map", '"a"'),), (("map", '"b"'),)])),
            )
        )
    return tickets


def blocked(a: Waiting, b: Waiting) -> bool:
    return bool(a.blocks & set(b.players) or b.blocks & set(a.players))


@settings(max_examples=200, deadline=None)
@given(pools())
def test_every_table_is_one_the_rules_allow(pool: list[Waiting]) -> None:
    groups = match(pool, NOW, (2, 5))
    seen: list[str] = []
    for group in groups:
        seen += group.ids()
        players = sum(t.size for t in group.tickets)
        assert 2 <= group.seats <= 5
        assert players + group.bots == group.seats
        for t in group.tickets:
            assert t.seats_min <= group.seats <= t.seats_max
        for i, a in enumerate(group.tickets):
            for b in group.tickets[i + 1 :]:
                assert not blocked(a, b)
                assert compatible(a, b) and acceptable(a, b, NOW)
        if group.bots:
            (alone,) = group.tickets
            assert alone.bots_ok and alone.waited_s(NOW) >= alone.bots_after_s
    assert len(seen) == len(set(seen))


@settings(max_examples=100, deadline=None)
@given(pools(), st.randoms(use_true_random=False))
def test_the_same_pool_gives_the_same_tables_in_any_order(
    pool: list[Waiting], rng: random.Random
) -> None:
    shuffled = list(pool)
    rng.shuffle(shuffled)
    first = [(g.ids(), g.seats, g.bots) for g in match(pool, NOW, (2, 5))]
    assert first == [(g.ids(), g.seats, g.bots) for g in match(shuffled, NOW, (2, 5))]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 3000), min_size=2, max_size=20))
def test_after_a_minute_any_compatible_pair_is_seated(ratings: list[float]) -> None:
    pool = [ticket(i, mu, waited_s=ANY_AFTER_S, seats=(2, 2)) for i, mu in enumerate(ratings)]
    groups = match(pool, NOW, (2, 5))
    assert len(groups) == len(ratings) // 2


def test_the_band_starts_at_twice_sigma_and_widens_on_schedule() -> None:
    assert band(100, 0) == 200
    assert band(100, 10) == 250
    assert band(100, 59.9) == 1000
    assert band(100, 60) == float("inf")
    assert band(500, 0) == 1000  # a new player's band is wide


def test_pairs_minimise_rating_differences() -> None:
    # greedy from the oldest would pair 1000 with 1100 (its nearest) and leave 900 with
    # 1200; the maximum-weight matching finds the smaller total difference
    pool = [
        ticket(0, 1000, waited_s=61, seats=(2, 2)),
        ticket(1, 1100, waited_s=61, seats=(2, 2)),
        ticket(2, 1190, waited_s=61, seats=(2, 2)),
        ticket(3, 910, waited_s=61, seats=(2, 2)),
    ]
    pairs = {frozenset(g.ids()) for g in match(pool, NOW, (2, 5))}
    assert pairs == {frozenset({"t000", "t003"}), frozenset({"t001", "t002"})}


def test_twelve_three_seat_tickets_make_four_tables_of_rating_neighbours() -> None:
    rng = random.Random(7)
    ratings = [1000 + 100 * i for i in range(12)]
    rng.shuffle(ratings)
    # at 22 s a band is 2 x 50 + 100: a table's lowest and highest are 200 apart
    pool = [ticket(i, mu, waited_s=22 + i * 0.1) for i, mu in enumerate(ratings)]
    groups = match(pool, NOW, (3, 5))
    assert len(groups) == 4
    tables = sorted(sorted(g.ratings) for g in groups)
    assert tables == [[1000.0 + 100 * (3 * k + j) for j in range(3)] for k in range(4)]


def test_a_blocked_pair_never_shares_a_table_across_twenty_seeded_runs() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        pool = [
            ticket(
                i,
                rng.uniform(1400, 1600),
                waited_s=rng.uniform(0, 90),
                seats=(3, 3) if seed % 2 else (2, 2),
                blocks=frozenset({"p1"}) if i == 0 else frozenset(),
            )
            for i in range(12)
        ]
        groups = match(pool, NOW, (2, 5))
        assert groups, seed
        for group in groups:
            assert not {"p0", "p1"} <= {p for t in group.tickets for p in t.players}, seed


def test_the_oldest_ticket_goes_first_among_equals() -> None:
    pool = [ticket(i, 1500, waited_s=w, seats=(3, 3)) for i, w in enumerate([5, 30, 20, 10])]
    (group,) = match(pool, NOW, (3, 5))
    assert set(group.ids()) == {"t001", "t002", "t003"}


def test_a_lone_bots_ok_ticket_gets_bots_after_its_wait() -> None:
    early = ticket(0, 1500, waited_s=4, bots_ok=True, bots_after_s=5)
    assert match([early], NOW, (3, 5)) == []
    due = ticket(0, 1500, waited_s=5, bots_ok=True, bots_after_s=5, seats=(3, 4))
    assert match([due], NOW, (3, 5)) == [Group((due,), 3, bots=2)]


def test_a_party_is_seated_together_and_fills_seats() -> None:
    party = ticket(0, 1500, players=("p0", "a", "b"), seats=(3, 3))
    (group,) = match([party, ticket(1, 1500)], NOW, (3, 5))
    assert group.ids() == ("t000",)
    pair = ticket(2, 1500, players=("p2", "c"), seats=(4, 4))
    others = [ticket(3, 1500, seats=(4, 4)), ticket(4, 1500, seats=(4, 4))]
    (group,) = match([pair, *others], NOW, (3, 5))
    assert set(group.ids()) == {"t002", "t003", "t004"} and group.seats == 4


def test_options_pace_and_seats_must_agree() -> None:
    a = ticket(0, 1500, seats=(2, 2), options=(("map", '"a"'),))
    b = ticket(1, 1500, seats=(2, 2), options=(("map", '"b"'),))
    c = ticket(2, 1500, seats=(2, 2), pace="turn_based")
    assert match([a, b, c], NOW, (2, 5)) == []
    d = ticket(3, 1500, seats=(2, 2))  # no constraint: goes with either
    (group,) = match([a, d], NOW, (2, 5))
    assert set(group.ids()) == {"t000", "t003"}


def random_pool(rng: random.Random, count: int) -> list[Waiting]:
    """A pool with a bit of everything: parties, shared and blocked players, options, both
    paces, unrated tickets, equal ratings, new players' wide bands and long waits."""
    people = [f"p{i}" for i in range(count + count // 3)]
    tickets = []
    for i in range(count):
        low = rng.randint(1, 5)
        high = rng.randint(low, 5)
        players = tuple(rng.sample(people, rng.choice([1, 1, 1, 1, 1, 2, 3])))
        if rng.random() < 0.1:
            players = (f"solo{i}",)
        tickets.append(
            Waiting(
                ticket_id=f"t{i:04d}",
                players=players,
                ratings=tuple(
                    1500.0 if rng.random() < 0.1 else rng.gauss(1500, 300) for _ in players
                ),
                sigma=rng.choice([40.0, 80.0, 200.0, 500.0]),
                seats_min=low,
                seats_max=high,
                joined_at=NOW - rng.choice([0, 1000, rng.randint(0, 90_000)]),
                options=rng.choice([(), (), (), (("map", '"a"'),), (("map", '"b"'),)]),
                rated=rng.random() > 0.2,
                pace=rng.choice(["realtime", "realtime", "turn_based"]),
                bots_ok=rng.random() < 0.3,
                bots_after_s=rng.choice([5.0, 60.0]),
                blocks=frozenset(rng.sample(people, 2)) if rng.random() < 0.1 else frozenset(),
            )
        )
    return tickets


def plain_pool(rng: random.Random, count: int) -> list[Waiting]:
    """A pool like a ladder's queue: one player a ticket, nothing but ratings apart."""
    return [
        Waiting(
            ticket_id=f"t{i:04d}",
            players=(f"p{i}",),
            ratings=(1500.0 if rng.random() < 0.05 else rng.gauss(1500, 300),),
            sigma=rng.choice([40.0, 60.0, 120.0, 500.0]),
            seats_min=low,
            seats_max=high,
            joined_at=NOW - rng.randint(0, 70_000),
            rated=rng.random() > 0.1,
            pace=rng.choice(["realtime", "turn_based"]),
            bots_ok=rng.random() < 0.25,
        )
        for i, (low, high) in enumerate(
            rng.choice([(2, 2), (2, 4), (3, 3), (3, 5), (4, 4), (3, 4)]) for _ in range(count)
        )
    ]


def decided(groups: list[Group]) -> list[tuple[tuple[str, ...], int, int]]:
    return [(g.ids(), g.seats, g.bots) for g in groups]


@pytest.mark.parametrize("make", [random_pool, plain_pool])
def test_the_matcher_decides_as_the_straightforward_one_did(make: object) -> None:
    """The matcher's pass is written for speed; tests/support/matcher_reference.py is the
    straightforward pass it replaced: on any pool, small (the blossom algorithm) or large
    (the dynamic programming), they make the same tables in the same order."""
    assert callable(make)
    rng = random.Random(11)
    for count in [*range(0, 60, 3), 150, 400, 1500]:
        pool = make(rng, count)
        for seat_range in [(2, 5), (3, 5), (2, 4), (1, 5), (2, 2)]:
            for now in (NOW, NOW + 20_000):
                expected = decided(reference_match(pool, now, seat_range))
                assert decided(match(pool, now, seat_range)) == expected, (count, seat_range)


@settings(max_examples=200, deadline=None)
@given(pools())
def test_small_pools_are_decided_as_the_straightforward_matcher_did(pool: list[Waiting]) -> None:
    for seat_range in [(2, 5), (3, 4), (2, 2)]:
        assert decided(match(pool, NOW, seat_range)) == decided(
            reference_match(pool, NOW, seat_range)
        )


def test_a_block_keeps_two_tickets_apart_whichever_side_made_it() -> None:
    """Two tickets that fill a table together: a block by anyone on either (a party
    member's too) against anyone on the other keeps them apart."""
    solo = ticket(0, 1500, seats=(3, 3))
    party = ticket(1, 1500, seats=(3, 3), players=("p1", "p2"))
    (group,) = match([solo, party], NOW, (2, 5))
    assert set(group.ids()) == {"t000", "t001"}
    blocked_by_party_member = ticket(
        1, 1500, seats=(3, 3), players=("p1", "p2"), blocks=frozenset({"p0"})
    )
    blocking_party_member = ticket(0, 1500, seats=(3, 3), blocks=frozenset({"p2"}))
    assert match([solo, blocked_by_party_member], NOW, (2, 5)) == []
    assert match([blocking_party_member, party], NOW, (2, 5)) == []
