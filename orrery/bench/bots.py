"""``orrery bench bots``: how well and how fast the bot levels play, head to head.

Per game, three matchups, each ``games`` games played in process through the rules'
own functions (``bots.arena``), the tested bot's seat rotated over the table:

* ``greedy`` vs ``random`` at two seats (target: ``greedy`` wins ≥ 80 %),
* ``greedy`` vs ``random`` at three seats, one ``greedy`` (target: wins ≥ 2 × its fair
  share, 2/3),
* ``ismcts`` vs ``greedy`` at two seats (target: ≥ 60 %).

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
    name: str
    tested: str
    against: str
    seats: int
    target: float  # win rate the tested bot should reach


MATCHUPS = (
    Matchup("greedy vs random, 2 seats", "greedy", "random", 2, 0.80),
    Matchup("greedy vs random, 3 seats", "greedy", "random", 3, 2 / 3),
    Matchup("ismcts vs greedy, 2 seats", "ismcts", "greedy", 2, 0.60),
)
TARGET_ISMCTS_P99_S = 1.0


@dataclass
class Result:
    game: str
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
    games: list[str], count: int, budget_s: float, max_iterations: int, seed: int = 1
) -> dict[str, Any]:
    results: list[Result] = []
    timings = {level: Timing(level) for level in ("random", "greedy", "ismcts")}
    for name in games:
        game = get_game(name)
        if game is None:
            raise ValueError(f"unknown game {name!r}")
        for matchup in MATCHUPS:
            seats = max(game.min_seats, min(game.max_seats, matchup.seats))
            wins = 0.0
            for index in range(count):
                tested = index % seats
                levels = [matchup.tested if s == tested else matchup.against for s in range(seats)]
                played = play(
                    game,
                    levels,
                    seed + 7919 * index,
                    budget_s=budget_s,
                    max_iterations=max_iterations,
                )
                wins += _win(played, tested)
                for s, level in enumerate(levels):
                    timings[level].wall.extend(played.wall[s])
                    timings[level].cpu.extend(played.cpu[s])
            low, high = wilson(wins, count)
            results.append(
                Result(name, matchup.name, count, wins, wins / count, low, high, matchup.target)
            )
    return {
        "games": count,
        "budget_ms": budget_s * 1000,
        "max_iterations": max_iterations,
        "matchups": [asdict(r) for r in results],
        "timing": [t.figures() for t in timings.values()],
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
    lines += [
        "",
        f"ismcts: {doc['budget_ms']:,.0f} ms per move, at most {doc['max_iterations']:,} "
        "iterations; seats rotated; a win: first among the seats (shared: half).",
        "time per move: choose_move from the seat's wire view, wall clock; CPU: "
        "process time per move (✗: target not met).",
    ]
    return "\n".join(lines)
