"""``orrery bench matchmaking``: the matcher (matchmaking/matcher.py) on a pool shaped like
a real ladder, beside a random pairing of the same pool, in one run.

* **A pass over a full queue**: ``--tickets`` waiting tickets (default 10,000) over the
  three games (Fractured Sky 3-5 seats, SPACEcraft 2, Federation 2-4; three in four
  realtime, one in ten unrated, one in four welcoming bots after 60 s), waits spread over
  the last 45 s, ratings drawn like a ladder (mu around 1500, sd 300; sigma small for
  players with many games, 500 for new ones). One pass over every game's queue is timed
  ``--cycles`` times (p50, p99 of the wall clock, and of the process's CPU time, which a
  shared machine's other work moves less; target <= 100 ms on one core), beside the
  baseline of a random pairing of the same pools timed the same way.
* **Spread**: the mean rating difference of the pass's two-seat tables, divided by a
  random pairing's of the same two-seat tickets (target <= 0.3).
* **Arrivals**: ``--rate`` tickets a second (default 5) for ``--seconds`` of simulated
  time (default 900), a pass every second: time to match p50 / p95 (target p95 <= 60 s
  once 50 or more compatible players are online), and the share of seats bots took.

The matcher runs in this process on a simulated clock: no Redis, no service; what it
measures is the decision, which the matchmaker makes once a second per game.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from matchmaking.matcher import Group, Waiting, match

GAMES: dict[str, tuple[tuple[int, int], list[tuple[int, int]]]] = {
    # game: (the game's seat range, the seat wants tickets pick from)
    "fractured_sky": ((1, 5), [(3, 3), (3, 5), (4, 4), (3, 4)]),
    "spacecraft": ((2, 4), [(2, 2)]),
    "federation": ((2, 4), [(2, 2), (2, 4), (3, 4)]),
}
TARGET_CYCLE_MS = 100.0
TARGET_SPREAD_RATIO = 0.3
TARGET_WAIT_P95_S = 60.0


@dataclass
class Figures:
    tickets: int
    cycles: int
    cycle_p50_ms: float
    cycle_p99_ms: float
    cycle_cpu_p50_ms: float
    cycle_cpu_p99_ms: float
    random_cycle_p50_ms: float
    random_cycle_p99_ms: float
    two_seat_tables: int
    matcher_spread: float
    random_spread: float
    spread_ratio: float
    rate_per_s: float
    simulated_s: int
    matched: int
    wait_p50_s: float
    wait_p95_s: float
    mean_waiting: float
    bot_seat_share: float
    per_game_ms: dict[str, float] = field(default_factory=dict)


class Ladder:
    """Players drawn like a real ladder: a few very strong and very weak, most near the
    middle; the more games, the smaller sigma."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.count = 0

    def ticket(self, game: str, joined_at: int) -> Waiting:
        rng = self.rng
        self.count += 1
        games = int(rng.expovariate(1 / 40))
        sigma = max(40.0, 500.0 * math.exp(-games / 15))
        mu = rng.gauss(1500, 300) if games else 1500.0
        low, high = rng.choice(GAMES[game][1])
        return Waiting(
            ticket_id=f"t{self.count}",
            players=(f"p{self.count}",),
            ratings=(mu,),
            sigma=sigma,
            seats_min=low,
            seats_max=high,
            joined_at=joined_at,
            rated=rng.random() > 0.1,
            pace="realtime" if rng.random() < 0.75 else "turn_based",
            bots_ok=rng.random() < 0.25,
            bots_after_s=60.0,
        )


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def full_queue(ladder: Ladder, tickets: int, now: int) -> dict[str, list[Waiting]]:
    names = list(GAMES)
    pools: dict[str, list[Waiting]] = {name: [] for name in names}
    for _ in range(tickets):
        game = ladder.rng.choice(names)
        pools[game].append(ladder.ticket(game, now - int(ladder.rng.uniform(0, 45_000))))
    return pools


def random_pairing(pool: list[Waiting], rng: random.Random) -> list[Group]:
    """The baseline: the pool shuffled and paired off in that order."""
    shuffled = list(pool)
    rng.shuffle(shuffled)
    return [Group((a, b), 2) for a, b in zip(shuffled[::2], shuffled[1::2], strict=False)]


def spreads(
    pools: dict[str, list[Waiting]], groups: dict[str, list[Group]], rng: random.Random
) -> tuple[int, float, float]:
    """(two-seat tables, their mean spread, a random pairing's mean spread)."""
    made = [g for found in groups.values() for g in found if g.seats == 2 and not g.bots]
    twos = [t for pool in pools.values() for t in pool if t.seats_min <= 2 <= t.seats_max]
    shuffled = list(twos)
    rng.shuffle(shuffled)
    randomly = [abs(a.mu - b.mu) for a, b in zip(shuffled[::2], shuffled[1::2], strict=False)]
    mine = [g.spread for g in made]
    return (
        len(made),
        statistics.fmean(mine) if mine else 0.0,
        statistics.fmean(randomly) if randomly else 0.0,
    )


def arrivals(
    rng: random.Random, rate: float, seconds: int
) -> tuple[list[float], int, float, float]:
    """Simulated arrivals, a pass a second: (waits of the matched, seats filled, seats bots
    took, mean tickets waiting)."""
    ladder = Ladder(rng)
    pools: dict[str, list[Waiting]] = {game: [] for game in GAMES}
    waits: list[float] = []
    seats = bots = 0
    waiting_sizes: list[int] = []
    for second in range(seconds):
        now = second * 1000
        for _ in range(_poisson(rng, rate)):
            game = rng.choice(list(GAMES))
            pools[game].append(ladder.ticket(game, now - int(rng.uniform(0, 1000))))
        for game, pool in pools.items():
            groups = match(pool, now, GAMES[game][0])
            taken = set()
            for group in groups:
                seats += group.seats
                bots += group.bots
                for ticket in group.tickets:
                    waits.append(ticket.waited_s(now))
                    taken.add(ticket.ticket_id)
            pools[game] = [t for t in pool if t.ticket_id not in taken]
        waiting_sizes.append(sum(len(p) for p in pools.values()))
    return waits, seats, bots, statistics.fmean(waiting_sizes) if waiting_sizes else 0.0


def _poisson(rng: random.Random, rate: float) -> int:
    count, total = 0, rng.expovariate(rate)
    while total < 1.0:
        count += 1
        total += rng.expovariate(rate)
    return count


def run_matchmaking_bench(
    tickets: int = 10_000, cycles: int = 20, rate: float = 5.0, seconds: int = 900, seed: int = 1
) -> Figures:
    rng = random.Random(seed)
    now = 10**12
    pools = full_queue(Ladder(rng), tickets, now)
    timings: list[float] = []
    cpu: list[float] = []
    randomly_timed: list[float] = []
    shuffles = random.Random(seed + 2)  # (the baseline's own: the pool's rng goes on below)
    per_game: dict[str, list[float]] = {game: [] for game in GAMES}
    groups: dict[str, list[Group]] = {}
    for cycle in range(cycles):
        at = now + cycle * 1000
        groups = {}
        elapsed = spent = 0.0
        for game, pool in pools.items():
            started, used = time.perf_counter(), time.process_time()
            groups[game] = match(pool, at, GAMES[game][0])
            took = (time.perf_counter() - started) * 1000
            spent += (time.process_time() - used) * 1000
            per_game[game].append(took)
            elapsed += took
        timings.append(elapsed)
        cpu.append(spent)
        started = time.perf_counter()
        for pool in pools.values():
            random_pairing(pool, shuffles)
        randomly_timed.append((time.perf_counter() - started) * 1000)
    made, mine, randomly = spreads(pools, groups, rng)
    waits, seats, bots, waiting = arrivals(random.Random(seed + 1), rate, seconds)
    return Figures(
        tickets=tickets,
        cycles=cycles,
        cycle_p50_ms=round(_percentile(timings, 0.5), 1),
        cycle_p99_ms=round(_percentile(timings, 0.99), 1),
        cycle_cpu_p50_ms=round(_percentile(cpu, 0.5), 1),
        cycle_cpu_p99_ms=round(_percentile(cpu, 0.99), 1),
        random_cycle_p50_ms=round(_percentile(randomly_timed, 0.5), 1),
        random_cycle_p99_ms=round(_percentile(randomly_timed, 0.99), 1),
        two_seat_tables=made,
        matcher_spread=round(mine, 1),
        random_spread=round(randomly, 1),
        spread_ratio=round(mine / randomly, 3) if randomly else 0.0,
        rate_per_s=rate,
        simulated_s=seconds,
        matched=len(waits),
        wait_p50_s=round(_percentile(waits, 0.5), 1),
        wait_p95_s=round(_percentile(waits, 0.95), 1),
        mean_waiting=round(waiting, 1),
        bot_seat_share=round(bots / seats, 3) if seats else 0.0,
        per_game_ms={g: round(statistics.median(v), 1) for g, v in per_game.items() if v},
    )


def as_dict(figures: Figures) -> dict[str, Any]:
    found = asdict(figures)
    found["targets"] = {
        "cycle_p99_ms": TARGET_CYCLE_MS,
        "spread_ratio": TARGET_SPREAD_RATIO,
        "wait_p95_s": TARGET_WAIT_P95_S,
    }
    return found


def render(figures: Figures) -> None:
    from rich.console import Console
    from rich.table import Table

    f = figures
    table = Table(title=f"orrery bench matchmaking ({f.tickets:,} waiting tickets, 3 games)")
    for column in ("figure", "matcher", "baseline: random pairing", "target", "met"):
        table.add_column(column)

    def met(ok: bool) -> str:
        return "yes" if ok else "NO"

    table.add_row(
        "one pass over every queue, p50 / p99",
        f"{f.cycle_p50_ms:.1f} / {f.cycle_p99_ms:.1f} ms",
        f"{f.random_cycle_p50_ms:.1f} / {f.random_cycle_p99_ms:.1f} ms",
        f"p99 <= {TARGET_CYCLE_MS:.0f} ms",
        met(f.cycle_p99_ms <= TARGET_CYCLE_MS),
    )
    table.add_row(
        "  its CPU time, p50 / p99",
        f"{f.cycle_cpu_p50_ms:.1f} / {f.cycle_cpu_p99_ms:.1f} ms",
        "",
        "",
        "",
    )
    table.add_row(
        "  a pass per game, p50",
        ", ".join(f"{g} {ms:.1f} ms" for g, ms in f.per_game_ms.items()),
        "",
        "",
        "",
    )
    table.add_row(
        f"mean rating spread, {f.two_seat_tables:,} two-seat tables",
        f"{f.matcher_spread:.1f} ({f.spread_ratio:.3f} of random)",
        f"{f.random_spread:.1f}",
        f"<= {TARGET_SPREAD_RATIO} of random",
        met(f.spread_ratio <= TARGET_SPREAD_RATIO),
    )
    table.add_row(
        f"time to match at {f.rate_per_s:g}/s, p50 / p95 ({f.matched:,} matched)",
        f"{f.wait_p50_s:.1f} / {f.wait_p95_s:.1f} s",
        "",
        f"p95 <= {TARGET_WAIT_P95_S:.0f} s",
        met(f.wait_p95_s <= TARGET_WAIT_P95_S),
    )
    table.add_row("tickets waiting (mean)", f"{f.mean_waiting:.1f}", "", ">= 50 online", "")
    table.add_row("seats bots took", f"{100 * f.bot_seat_share:.1f} %", "", "", "")
    Console().print(table)
