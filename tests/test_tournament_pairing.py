"""Tournament pairing and standings without a service: Swiss at two and four seats,
round robin, single and double elimination with a forfeit, the Dutch system's first
round as FIDE's rules give it, pods' sizes for any field, tie-breaks computed again here
from the log alone, and the audit that re-derives every round (and catches a forgery)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from competitions.audit import audit
from competitions.events import RoundPaired, TableFinished, TournamentEntry, entry_hash
from competitions.pods import pod_sizes
from orrery_contracts.tournaments import CheckIn, Format, RegisterPlayer, TournamentSpec
from tests.support.tournaments import Sim

pytestmark = pytest.mark.unit


def meetings(entries: list[TournamentEntry]) -> Counter[frozenset[str]]:
    met: Counter[frozenset[str]] = Counter()
    for entry in entries:
        if isinstance(entry.event, RoundPaired):
            for table in entry.event.tables:
                for a, b in itertools.combinations(table.players, 2):
                    met[frozenset((a, b))] += 1
    return met


def repeats_by_round(entries: list[TournamentEntry]) -> list[int]:
    """How many pairs at each round's tables had met before."""
    met: set[frozenset[str]] = set()
    found = []
    for entry in entries:
        if isinstance(entry.event, RoundPaired):
            pairs = [
                frozenset(pair)
                for table in entry.event.tables
                for pair in itertools.combinations(table.players, 2)
            ]
            found.append(sum(pair in met for pair in pairs))
            met.update(pairs)
    return found


def independent_points(entries: list[TournamentEntry], seats: int) -> dict[str, float]:
    """Points from the log by the rule, written out again: one a player ranked below,
    a half a player sharing the rank; a bye as a win (two seats) or (seats - 1) / 2."""
    points: dict[str, float] = {}
    tables: dict[str, list[str]] = {}
    for entry in entries:
        event = entry.event
        if isinstance(event, RoundPaired):
            for table in event.tables:
                tables[table.table_id] = table.players
            for p in event.byes:
                points[p] = points.get(p, 0.0) + (1.0 if seats == 2 else (seats - 1) / 2)
        if isinstance(event, TableFinished):
            players = tables[event.table_id]
            for i, p in enumerate(players):
                for j, _ in enumerate(players):
                    if i != j:
                        mine, theirs = event.ranks[i], event.ranks[j]
                        won = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                        points[p] = points.get(p, 0.0) + won
    return points


def independent_tiebreaks(entries: list[TournamentEntry], seats: int) -> dict[str, list[float]]:
    points = independent_points(entries, seats)
    tables: dict[str, list[str]] = {}
    found: dict[str, list[float]] = {}
    for entry in entries:
        event = entry.event
        if isinstance(event, RoundPaired):
            for table in event.tables:
                tables[table.table_id] = table.players
        if isinstance(event, TableFinished):
            players = tables[event.table_id]
            for i, p in enumerate(players):
                mine = sum(
                    1.0
                    if event.ranks[i] < event.ranks[j]
                    else 0.5 * (event.ranks[i] == event.ranks[j])
                    for j in range(len(players))
                    if j != i
                )
                row = found.setdefault(p, [0.0, 0.0])
                for j, q in enumerate(players):
                    if j != i:
                        row[0] += points[q]
                        row[1] += points[q] * mine
    return {p: (row if seats == 2 else row[:1]) for p, row in found.items()}


def check_standings(sim: Sim, seats: int) -> None:
    entries = sim.entries
    points = independent_points(entries, seats)
    breaks = independent_tiebreaks(entries, seats)
    order = sim.state.standings
    assert sorted(order) == sorted(sim.state.entrants)
    keys = [(points[p], *breaks.get(p, [0.0] * (2 if seats == 2 else 1))) for p in order]
    assert all(
        [round(x, 6) for x in a] >= [round(x, 6) for x in b] for a, b in itertools.pairwise(keys)
    ), "standings not by points then tie-breaks"
    for p in order:
        assert sim.state.entrants[p].points == pytest.approx(points[p])


def test_a_sixteen_player_two_seat_swiss_of_four_rounds() -> None:
    rng = random.Random(16)
    sim = Sim(TournamentSpec(game="g", format="swiss", seats=2, rounds=4))
    sim.register(16, rng)
    sim.run(rng)
    assert sim.state.state == "finished" and sim.state.round == 4
    met = meetings(sim.entries)
    assert max(met.values()) == 1, "two players met twice"
    check_standings(sim, 2)
    assert audit("t1", sim.entries).ok


def test_a_twelve_player_four_seat_swiss_of_three_rounds() -> None:
    rng = random.Random(12)
    sim = Sim(TournamentSpec(game="g", format="swiss", seats=4, rounds=3))
    sim.register(12, rng)
    sim.run(rng)
    assert sim.state.state == "finished" and sim.state.round == 3
    for paired in sim.state.paired:
        assert sorted(len(t.players) for t in paired.tables) == [4, 4, 4]
    # a pod of four drawn from the last round's three pods holds two who met (one
    # repeat a pod at least): round 2 has no more than that, round 3 no more than twice
    assert repeats_by_round(sim.entries)[0:2] == [0, 3]
    assert repeats_by_round(sim.entries)[2] <= 6
    check_standings(sim, 4)
    assert audit("t1", sim.entries).ok


def test_the_first_dutch_round_pairs_top_half_against_bottom_half() -> None:
    sim = Sim(TournamentSpec(game="g", format="swiss", seats=2, rounds=3))
    for i in range(8):
        sim.send(
            RegisterPlayer(command_id=str(i), tournament_id="t1", player_id=f"s{i + 1}", name=""),
            rating=2000.0 - i,
        )
    sim.send_start()
    sim.settle()
    first = sim.state.paired[0]
    assert [t.players for t in first.tables] == [
        ["s1", "s5"],
        ["s6", "s2"],
        ["s3", "s7"],
        ["s8", "s4"],
    ]


def test_round_robin_meets_everyone_once() -> None:
    rng = random.Random(7)
    sim = Sim(TournamentSpec(game="g", format="round_robin", seats=2))
    players = sim.register(7, rng)
    sim.run(rng)
    met = meetings(sim.entries)
    assert set(met) == {frozenset(p) for p in itertools.combinations(players, 2)}
    assert set(met.values()) == {1}
    assert audit("t1", sim.entries).ok


@pytest.mark.parametrize("format", ["single_elimination", "double_elimination"])
def test_elimination_with_a_forfeit(format: Format) -> None:
    rng = random.Random(3)
    sim = Sim(TournamentSpec(game="g", format=format, seats=2))
    players = sim.register(8, rng)
    sim.settle()
    quitter = sim.state.paired[0].tables[0].players[0]
    opponent = sim.state.paired[0].tables[0].players[1]
    sim.send(
        RegisterPlayer(
            command_id="w", tournament_id="t1", player_id=quitter, name="", withdraw=True
        )
    )
    sim.settle()  # the forfeit ends the quitter's table at once
    forfeited = sim.state.tables[sim.state.paired[0].tables[0].table_id].finished
    assert forfeited is not None and forfeited.forfeit == [quitter]
    assert sim.state.entrants[opponent].losses == 0
    sim.run(rng)
    assert sim.state.state == "finished"
    assert sim.state.standings[-1] == quitter
    winner = sim.state.standings[0]
    lives = 2 if format == "double_elimination" else 1
    assert sim.state.entrants[winner].losses < lives
    assert all(
        sim.state.entrants[p].losses >= lives or p == quitter for p in players if p != winner
    )
    assert all(
        p not in t.players for r in sim.state.paired[1:] for t in r.tables for p in [quitter]
    )
    assert audit("t1", sim.entries).ok


def test_the_audit_catches_a_changed_pairing() -> None:
    rng = random.Random(9)
    sim = Sim(TournamentSpec(game="g", format="swiss", seats=4, rounds=2))
    sim.register(12, rng)
    sim.run(rng)
    forged = list(sim.entries)
    for i, entry in enumerate(forged):
        if isinstance(entry.event, RoundPaired) and entry.event.round == 2:
            tables = list(entry.event.tables)
            a, b = tables[0], tables[1]
            swapped_a = [*a.players[:-1], b.players[-1]]
            swapped_b = [*b.players[:-1], a.players[-1]]
            event = RoundPaired(
                round=2,
                tables=[
                    type(a)(table_id=a.table_id, players=swapped_a),
                    type(b)(table_id=b.table_id, players=swapped_b),
                    *tables[2:],
                ],
                byes=entry.event.byes,
                deadline=entry.event.deadline,
            )
            forged[i] = TournamentEntry(
                seq=entry.seq,
                at=entry.at,
                prev=entry.prev,
                hash=entry_hash(entry.prev, entry.seq, entry.at, event),
                event=event,
            )
    report = audit("t1", forged)
    assert not report.ok
    assert any("round 2" in p for p in report.problems)


@given(st.integers(2, 400), st.integers(2, 5), st.integers(2, 3))
def test_pod_sizes_seat_everyone_they_can(count: int, seats: int, low: int) -> None:
    low = min(low, seats)
    sizes, byes = pod_sizes(count, seats, low)
    assert sum(sizes) + byes == count
    assert all(low <= s <= seats for s in sizes)
    assert byes < max(low, 1) or not sizes


def test_registration_ends_starts_it_with_the_players_who_checked_in() -> None:
    rng = random.Random(4)
    sim = Sim(
        TournamentSpec(
            game="g", format="swiss", seats=2, rounds=2, check_in=True, registration_ends=2_000_000
        )
    )
    for i in range(5):
        sim.send(RegisterPlayer(command_id=str(i), tournament_id="t1", player_id=f"p{i}", name=""))
    for i in range(4):
        sim.send(CheckIn(command_id=f"c{i}", tournament_id="t1", player_id=f"p{i}"))
    sim.settle()
    assert sim.state.state == "registering"
    sim.now = 2_000_000
    sim.settle()
    assert sim.state.state == "running" and sorted(sim.state.order) == ["p0", "p1", "p2", "p3"]
    assert len(sim.state.paired[0].tables) == 2 and not sim.state.paired[0].byes
    sim.run(rng)
    assert audit("t1", sim.entries).ok


def test_a_round_deadline_ends_its_tables_as_shared_ranks() -> None:
    sim = Sim(TournamentSpec(game="g", format="swiss", seats=4, rounds=2, round_deadline_s=60))
    sim.register(8, random.Random(1))
    sim.settle()
    first = sim.state.paired[0]
    sim.now = first.deadline - 1
    sim.settle()
    assert sim.state.round == 1
    sim.now = first.deadline
    sim.settle()
    ended = [sim.state.tables[t.table_id].finished for t in first.tables]
    assert all(e is not None and e.adjudicated and set(e.ranks) == {1} for e in ended)
    assert sim.state.round == 2  # and the next round is paired at once
    assert all(sim.state.entrants[p].points == 1.5 for p in sim.state.order)


def test_a_withdrawn_player_is_left_out_of_the_next_dutch_round() -> None:
    rng = random.Random(8)
    sim = Sim(TournamentSpec(game="g", format="swiss", seats=2, rounds=3))
    players = sim.register(6, rng)
    sim.settle()
    sim.play_round(rng)
    sim.send(
        RegisterPlayer(
            command_id="w", tournament_id="t1", player_id=players[0], name="", withdraw=True
        )
    )
    sim.settle()
    second = sim.state.paired[1]
    seated = [p for t in second.tables for p in t.players]
    assert players[0] not in seated + second.byes
    assert sorted(seated + second.byes) == sorted(players[1:])
    sim.run(rng)
    assert audit("t1", sim.entries).ok
