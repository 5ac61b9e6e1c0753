"""``orrery bench rules``: the games' pure rules on one core, no I/O.

Per game, random games are played (``games.playthrough.play_random``, 4 seats where the
game allows, else its maximum) until the time budget is spent. Each game is then
replayed from its recorded commands to time only ``decide`` + ``evolve``; at sampled
steps of the replay, every seat's view (``view`` + ``legal_commands``, what a seat's
projection needs before JSON) is timed, and so is the baseline: a msgspec msgpack
encode + decode of the same game state (a snapshot round trip), measured in the same
run so the figures can be read as ratios on any machine.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import msgspec

from games.playthrough import fold, play_random
from games.protocol import Game
from games.registry import get_game
from games.rng import derive_rng

TARGET_COMMANDS_PER_S = 10_000
TARGET_VIEW_US = 100.0
VIEW_SAMPLE_EVERY = 5


@dataclass(frozen=True, slots=True)
class RulesFigures:
    game: str
    seats: int
    games: int
    commands: int
    commands_per_s: float  # decide + evolve only
    games_per_s: float  # complete random games (setup, legal moves, decide, evolve)
    commands_per_game: float
    view_us: float  # per seat: view + legal_commands
    view_json_us: float  # per seat: msgspec JSON encoding of that view
    baseline_us: float  # msgspec msgpack encode + decode of the game state
    baseline_per_s: float
    ratio: float  # commands_per_s / baseline_per_s

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def seats_for(game: Game[Any]) -> int:
    return max(game.min_seats, min(4, game.max_seats))


def measure_game(
    name: str, seconds: float, seed: int = 1, max_games: int | None = None
) -> RulesFigures:
    game = get_game(name)
    if game is None:
        raise ValueError(f"unknown game {name!r}")
    seats = seats_for(game)
    options = game.options_type()
    json_encoder = msgspec.json.Encoder()
    msgpack_encoder = msgspec.msgpack.Encoder()
    state_decoder = msgspec.msgpack.Decoder(game.state_type)

    games = commands = views = baselines = 0
    play_s = decide_s = view_s = json_s = baseline_s = 0.0
    budget_end = time.perf_counter() + seconds
    while games == 0 or (
        time.perf_counter() < budget_end and (max_games is None or games < max_games)
    ):
        game_seed = seed + games
        started = time.perf_counter()
        played = play_random(game, options, seats, game_seed)
        play_s += time.perf_counter() - started
        games += 1

        # The same game again, timing decide + evolve only (and views at sampled steps).
        seed_bytes = game_seed.to_bytes(16, "big", signed=True)
        setup = list(game.setup(options, seats, derive_rng(seed_bytes, 0)))
        state = fold(game, options, seats, setup)
        seq = len(setup)
        for step, (seat, command) in enumerate(played.commands):
            rng = derive_rng(seed_bytes, seq + 1)
            t0 = time.perf_counter()
            events = game.decide(state, command, seat, rng)
            for event in events:
                state = game.evolve(state, event)
            decide_s += time.perf_counter() - t0
            seq += len(events)
            commands += 1
            if step % VIEW_SAMPLE_EVERY:
                continue
            for viewer in range(seats):
                t0 = time.perf_counter()
                view = game.view(state, viewer)
                game.legal_commands(state, viewer)
                t1 = time.perf_counter()
                json_encoder.encode(view)
                t2 = time.perf_counter()
                view_s += t1 - t0
                json_s += t2 - t1
                views += 1
            t0 = time.perf_counter()
            state_decoder.decode(msgpack_encoder.encode(state))
            baseline_s += time.perf_counter() - t0
            baselines += 1

    commands_per_s = commands / decide_s if decide_s else 0.0
    baseline_us = baseline_s / baselines * 1e6 if baselines else 0.0
    baseline_per_s = 1e6 / baseline_us if baseline_us else 0.0
    return RulesFigures(
        game=name,
        seats=seats,
        games=games,
        commands=commands,
        commands_per_s=commands_per_s,
        games_per_s=games / play_s if play_s else 0.0,
        commands_per_game=commands / games,
        view_us=view_s / views * 1e6 if views else 0.0,
        view_json_us=json_s / views * 1e6 if views else 0.0,
        baseline_us=baseline_us,
        baseline_per_s=baseline_per_s,
        ratio=commands_per_s / baseline_per_s if baseline_per_s else 0.0,
    )


COLUMNS = (
    "game",
    "seats",
    "games",
    "commands/s",
    "games/s",
    "cmds/game",
    "view µs/seat",
    "json µs/seat",
    "baseline µs",
    "commands/s ÷ baseline/s",
)


def render(figures: list[RulesFigures]) -> str:
    rows = [list(COLUMNS)]
    for f in figures:
        rows.append(
            [
                f.game,
                str(f.seats),
                str(f.games),
                f"{f.commands_per_s:,.0f}",
                f"{f.games_per_s:,.1f}",
                f"{f.commands_per_game:,.0f}",
                f"{f.view_us:,.1f}",
                f"{f.view_json_us:,.1f}",
                f"{f.baseline_us:,.1f}",
                f"{f.ratio:,.2f}",
            ]
        )
    rows.append(
        [
            "target",
            "",
            "",
            f"≥ {TARGET_COMMANDS_PER_S:,}",
            "",
            "",
            f"≤ {TARGET_VIEW_US:.0f}",
            "",
            "",
            "",
        ]
    )
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    notes = [
        "",
        "commands/s: decide + evolve only, one core. games/s: complete random games "
        "(setup, legal moves, decide, evolve).",
        "view µs/seat: view + legal_commands for one seat; json: encoding that view.",
        "baseline: msgspec msgpack encode + decode of the same game state, same run.",
    ]
    return "\n".join(lines + notes)
