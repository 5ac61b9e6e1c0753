"""``orrery bench tournament``: pairing one Swiss round of a large field, in this process
(no Redis, no service): what is measured is the decision the organiser makes once a
round.

* **1,000 players at two seats and at four** (``--players``): a field of ladder-shaped
  ratings (mean 1500, sd 300) plays two rounds with seeded results, then the third
  round's pairing is timed ``--repeats`` times (median and max of the wall clock; target
  <= 1 s each). Above ``ORRERY_TOURNAMENT_DUTCH_MAX_PLAYERS`` a two-seat round is paired
  by pods; the FIDE Dutch engine's own time is shown for a field of ``--dutch-players``
  (default 64) beside it.
* **Spread**: the mean of each table's rating range (highest minus lowest), beside the
  same figure for random pods of the same sizes from the same field in the same run
  (the baseline).
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any

from competitions.events import (
    PlayerRegistered,
    RoundPaired,
    TournamentCreated,
    TournamentEntry,
    TournamentEvent,
    TournamentStarted,
    entry_hash,
)
from competitions.pairing import pair_round, seed_order
from competitions.state import TournamentState, evolve
from competitions.tournament import result_event
from orrery_contracts.tournaments import TournamentSpec

TARGET_S = 1.0
SEED = "5e" * 16


@dataclass
class Figures:
    players: int
    seats: int
    tables: int
    pair_median_s: float
    pair_max_s: float
    spread: float
    random_spread: float
    engine: str


def _field(players: int, seats: int, rng: random.Random, rounds_played: int) -> TournamentState:
    state = TournamentState()
    seq = 0

    def add(event: TournamentEvent) -> None:
        nonlocal seq
        seq += 1
        entry = TournamentEntry(
            seq=seq, at=0, prev=state.head, hash=entry_hash(state.head, seq, 0, event), event=event
        )
        evolve(state, entry)

    spec = TournamentSpec(game="bench", format="swiss", seats=seats, rounds=rounds_played + 1)
    add(TournamentCreated(tournament_id="bench", organiser="bench", spec=spec, seed=SEED))
    ratings = {f"p{i:05d}": round(rng.gauss(1500, 300), 1) for i in range(players)}
    for p, r in ratings.items():
        add(PlayerRegistered(player_id=p, name=p, rating=r))
    add(TournamentStarted(rounds=rounds_played + 1, players=seed_order(SEED, ratings)))
    for _ in range(rounds_played):
        add(pair_round(state, 0, dutch_max=0))
        last = state.current()
        assert last is not None
        for table in last.tables:
            ranks = [rng.randint(1, len(table.players)) for _ in table.players]
            event = result_event(state, table.table_id, ranks)
            if event is not None:
                add(event)
    return state


def _spread(state: TournamentState, tables: list[list[str]]) -> float:
    ranges = []
    for players in tables:
        ratings = [state.entrants[p].rating for p in players]
        ranges.append(max(ratings) - min(ratings))
    return statistics.fmean(ranges) if ranges else 0.0


def measure(players: int, seats: int, repeats: int, dutch_max: int, seed: int = 1) -> Figures:
    rng = random.Random(seed)
    state = _field(players, seats, rng, rounds_played=2)
    times = []
    paired: RoundPaired | None = None
    for _ in range(repeats):
        started = time.perf_counter()
        paired = pair_round(state, 0, dutch_max=dutch_max)
        times.append(time.perf_counter() - started)
    assert paired is not None
    tables = [t.players for t in paired.tables]
    shuffled = [p for t in tables for p in t]
    random.Random(seed + 1).shuffle(shuffled)
    baseline: list[list[str]] = []
    at = 0
    for t in tables:
        baseline.append(shuffled[at : at + len(t)])
        at += len(t)
    engine = "FIDE Dutch (py4swiss)" if seats == 2 and players <= dutch_max else "pods"
    return Figures(
        players=players,
        seats=seats,
        tables=len(tables),
        pair_median_s=round(statistics.median(times), 4),
        pair_max_s=round(max(times), 4),
        spread=round(_spread(state, tables), 1),
        random_spread=round(_spread(state, baseline), 1),
        engine=engine,
    )


def run_tournament_bench(
    players: int, repeats: int, dutch_players: int, dutch_max: int
) -> list[Figures]:
    return [
        measure(players, 2, repeats, dutch_max),
        measure(players, 4, repeats, dutch_max),
        measure(dutch_players, 2, max(1, repeats // 2), max(dutch_max, dutch_players)),
    ]


def as_dict(figures: list[Figures]) -> dict[str, Any]:
    return {"runs": [asdict(f) for f in figures], "targets": {"pair_s": TARGET_S}}


def render(figures: list[Figures]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="orrery bench tournament (one Swiss round, after two played)")
    for column in (
        "field",
        "engine",
        "pairing, median / max",
        "target",
        "met",
        "rating range a table",
        "baseline: random pods",
    ):
        table.add_column(column)
    for f in figures:
        table.add_row(
            f"{f.players:,} players, {f.seats} seats ({f.tables} tables)",
            f.engine,
            f"{f.pair_median_s:.3f} / {f.pair_max_s:.3f} s",
            f"<= {TARGET_S:g} s" if f.players >= 1000 else "",
            ("yes" if f.pair_max_s <= TARGET_S else "NO") if f.players >= 1000 else "",
            f"{f.spread:.1f}",
            f"{f.random_spread:.1f}",
        )
    Console().print(table)
