"""``orrery bench bots``: how well and how fast the bot levels play, head to head.

Per game, the chosen matchups (by default the first three below), each ``games`` games
played in process through the rules' own functions (``bots.arena``), the tested bot's
seat rotated over the table:

* ``greedy-random``: ``greedy`` vs ``random`` at two seats (target: ``greedy`` wins ≥ 80 %),
* ``greedy-random-3``: ``greedy`` vs ``random`` at three seats, one ``greedy`` (target:
  wins ≥ 2 × its fair share, 2/3); ``-4`` and ``-5`` likewise at four and five seats
  (1/2, 2/5), played only in the games that seat that many,
* ``ismcts-greedy``: ``ismcts`` vs ``greedy`` at two seats (target: ≥ 60 %).

Game *i* of a run with seed *s* draws its deal and every bot's rng from one number made
of both, so runs with different seeds are independent samples and a run is repeatable.

A win is finishing ahead of the other bots' seats (a shared place counts half; a small
Fractured Sky table's automated opponents are not counted). The win rate comes with its
Wilson 95 % interval. Per level, every move's wall time (p50, p99) and CPU time
(``time.process_time``, mean) over all matchups, the ``random`` bot's figures as the
baseline measured in the same run (``ismcts`` target: p99 ≤ 1 s at its default budget on
one core).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from bots.arena import Played, play
from games.registry import get_game

Z95 = 1.959964


@dataclass(frozen=True)
class Matchup:
    key: str  # how --matchups names it
    name: str
    tested: str
    against: str
    seats: int
    target: float  # win rate the tested bot should reach


MATCHUPS = (
    Matchup("greedy-random", "greedy vs random, 2 seats", "greedy", "random", 2, 0.80),
    Matchup("greedy-random-3", "greedy vs random, 3 seats", "greedy", "random", 3, 2 / 3),
    Matchup("greedy-random-4", "greedy vs random, 4 seats", "greedy", "random", 4, 2 / 4),
    Matchup("greedy-random-5", "greedy vs random, 5 seats", "greedy", "random", 5, 2 / 5),
    Matchup("ismcts-greedy", "ismcts vs greedy, 2 seats", "ismcts", "greedy", 2, 0.60),
)
DEFAULT_MATCHUPS = ("greedy-random", "greedy-random-3", "ismcts-greedy")
TARGET_ISMCTS_P99_S = 1.0


def matchups(keys: list[str]) -> list[Matchup]:
    """The matchups named by ``keys`` (``Matchup.key``), in the order given; ValueError
    names an unknown one."""
    by_key = {m.key: m for m in MATCHUPS}
    unknown = [k for k in keys if k not in by_key]
    if unknown:
        known = ", ".join(by_key)
        raise ValueError(f"unknown matchup {unknown[0]!r}: choose among {known}")
    return [by_key[k] for k in dict.fromkeys(keys)]


def game_seed(seed: int, index: int) -> int:
    """The number game ``index`` of a run with ``seed`` follows: its deal, its rules'
    draws and every seat's bot rng (``bots.arena.play``)."""
    return seed * 2**32 + 7919 * index + 1


@dataclass
class Result:
    game: str
    key: str
    matchup: str
    games: int
    wins: float
    rate: float
    low: float
    high: float
    target: float


@dataclass
class Timing:
    level: str
    moves: int = 0
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def figures(self) -> dict[str, float | int | str]:
        wall = sorted(self.wall)
        return {
            "level": self.level,
            "moves": len(wall),
            "p50_ms": _quantile(wall, 0.50) * 1000,
            "p99_ms": _quantile(wall, 0.99) * 1000,
            "cpu_ms": statistics.fmean(self.cpu) * 1000 if self.cpu else 0.0,
        }


def _quantile(ordered: list[float], q: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def wilson(wins: float, games: int) -> tuple[float, float]:
    """The Wilson score interval at 95 % of a win rate (``wins`` may hold halves)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + Z95**2 / games
    centre = (p + Z95**2 / (2 * games)) / denominator
    spread = Z95 * math.sqrt(p * (1 - p) / games + Z95**2 / (4 * games**2)) / denominator
    return max(0.0, centre - spread), min(1.0, centre + spread)


def _win(played: Played, tested: int) -> float:
    """1 when the tested seat finished ahead of every other seat, ½ when it shared first."""
    ranks = played.standing.ranks
    best = min(ranks)
    if ranks[tested] != best:
        return 0.0
    return 1.0 / sum(1 for r in ranks if r == best)


def run(
    games: list[str],
    count: int,
    budget_s: float,
    max_iterations: int,
    seed: int = 0,
    chosen: list[Matchup] | None = None,
) -> dict[str, Any]:
    """Play ``count`` games of each chosen matchup (default: ``DEFAULT_MATCHUPS``) in each
    game that seats it; the document ``render`` prints."""
    chosen = chosen if chosen is not None else matchups(list(DEFAULT_MATCHUPS))
    results: list[Result] = []
    skipped: list[dict[str, str]] = []
    timings = {level: Timing(level) for level in ("random", "greedy", "ismcts")}
    for name in games:
        game = get_game(name)
        if game is None:
            raise ValueError(f"unknown game {name!r}")
        for matchup in chosen:
            seats = max(game.min_seats, matchup.seats)
            if seats > game.max_seats:
                skipped.append({"game": name, "key": matchup.key})
                continue
            wins = 0.0
            for index in range(count):
                tested = index % seats
                levels = [matchup.tested if s == tested else matchup.against for s in range(seats)]
                played = play(
                    game,
                    levels,
                    game_seed(seed, index),
                    budget_s=budget_s,
                    max_iterations=max_iterations,
                )
                wins += _win(played, tested)
                for s, level in enumerate(levels):
                    timings[level].wall.extend(played.wall[s])
                    timings[level].cpu.extend(played.cpu[s])
            low, high = wilson(wins, count)
            results.append(
                Result(
                    name,
                    matchup.key,
                    matchup.name,
                    count,
                    wins,
                    wins / count,
                    low,
                    high,
                    matchup.target,
                )
            )
    return {
        "seed": seed,
        "games": count,
        "budget_ms": budget_s * 1000,
        "max_iterations": max_iterations,
        "matchups": [asdict(r) for r in results],
        "skipped": skipped,
        "timing": [t.figures() for t in timings.values() if t.wall],  # the levels that played
        "target_ismcts_p99_ms": TARGET_ISMCTS_P99_S * 1000,
    }


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [c.ljust(widths[i]) if i < 2 else c.rjust(widths[i]) for i, c in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def render(doc: dict[str, Any]) -> str:
    rows = [["game", "matchup", "games", "win rate", "95 % interval", "target"]]
    for r in doc["matchups"]:
        met = "" if r["rate"] >= r["target"] else " ✗"
        rows.append(
            [
                r["game"],
                r["matchup"],
                str(r["games"]),
                f"{r['rate']:.0%}",
                f"{r['low']:.0%} – {r['high']:.0%}",
                f"≥ {r['target']:.0%}{met}",
            ]
        )
    lines = _table(rows)
    lines.append("")
    times = [["level", "", "moves", "p50 ms", "p99 ms", "CPU ms/move", "target"]]
    for t in doc["timing"]:
        target = ""
        if t["level"] == "ismcts":
            met = "" if t["p99_ms"] <= doc["target_ismcts_p99_ms"] else " ✗"
            target = f"p99 ≤ {doc['target_ismcts_p99_ms']:,.0f}{met}"
        elif t["level"] == "random":
            target = "baseline"
        times.append(
            [
                t["level"],
                "",
                str(t["moves"]),
                f"{t['p50_ms']:,.2f}",
                f"{t['p99_ms']:,.2f}",
                f"{t['cpu_ms']:,.2f}",
                target,
            ]
        )
    lines += _table(times)
    lines.append("")
    for s in doc["skipped"]:
        lines.append(f"{s['key']}: not played in {s['game']} (too many seats for it)")
    lines += [
        f"seed {doc['seed']}; ismcts: {doc['budget_ms']:,.0f} ms per move, at most "
        f"{doc['max_iterations']:,} iterations; seats rotated; a win: first among the seats "
        "(shared: half).",
        "time per move: choose_move from the seat's wire view, wall clock; CPU: "
        "process time per move (✗: target not met).",
    ]
    return "\n".join(lines)
