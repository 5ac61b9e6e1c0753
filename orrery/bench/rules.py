"""``orrery bench rules``: the games' pure rules on one core, no I/O.

Per game, random games are played (``games.playthrough.play_random`` with the game's
``play``, 4 seats where the game allows, else its maximum) until the time budget is
spent. Each game is then replayed from its recorded commands to time only the rules,
each command two ways, the one or the other first in turn: through ``play`` (decide +
evolve into a state the caller owns, as a searching bot simulates) and through
``decide`` then ``evolve`` (the platform's path, which leaves the state ``decide``
reads unchanged). At sampled steps of the replay, the views are timed
per seat: every seat's view rendered at once (the game's ``views``, as the views
projection renders them after a command) and each seat's ``legal_commands``; one seat's
``view`` alone (what a bot judging a position asks) is timed beside it. So are the
game's ``clone`` (the copy a simulation starts from) and the baseline: a msgspec
msgpack encode + decode of the same game state (a snapshot round trip), measured in
the same run so the figures can be read as ratios on any machine. Each ratio is
printed beside its target.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import msgspec

from games.playthrough import fold, play_random, player
from games.protocol import Game
from games.registry import get_game
from games.rng import derive_rng

TARGET_COMMANDS_PER_S = 10_000
TARGET_VIEW_US = 100.0
VIEW_SAMPLE_EVERY = 5
# Targets as ratios to the same run's baseline: play commands/s ÷ round trips/s (at
# least), view + legal µs ÷ round trip µs (at most), clone µs ÷ round trip µs (at most),
# and games/s ÷ round trips/s (at least; in thousandths: twice the figure of the rules
# before ``play`` and the generated ``clone``, which was 3.3 / 0.93 / 0.64).
TARGET_RATIO = {"fractured_sky": 3.0, "spacecraft": 3.0, "federation": 1.5}
TARGET_VIEW_RATIO = 1.0
TARGET_CLONE_RATIO = 0.5
TARGET_GAMES_PERMILLE = {"fractured_sky": 6.6, "spacecraft": 1.9, "federation": 1.3}


@dataclass(frozen=True, slots=True)
class RulesFigures:
    game: str
    seats: int
    games: int
    commands: int
    commands_per_s: float  # play only: decide + evolve into an owned state
    games_per_s: float  # complete random games (setup, legal moves, play)
    commands_per_game: float
    view_us: float  # per seat: every seat's views at once ÷ seats, + legal_commands
    view_json_us: float  # per seat: msgspec JSON encoding of that view
    baseline_us: float  # msgspec msgpack encode + decode of the game state
    baseline_per_s: float
    ratio: float  # commands_per_s / baseline_per_s
    platform_commands_per_s: float  # decide, then evolve (the state decide read unchanged)
    platform_ratio: float  # platform_commands_per_s / baseline_per_s
    games_permille: float  # games_per_s / baseline_per_s * 1000
    view_ratio: float  # view_us / baseline_us
    clone_us: float  # the game's clone of the state
    clone_ratio: float  # clone_us / baseline_us
    one_view_us: float  # one seat's view alone (view, no legal_commands)

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

    play = player(game)
    every_view = getattr(game, "views", None) or (
        lambda state, viewers: [game.view(state, v) for v in viewers]
    )
    clone = getattr(game, "clone", None) or _round_trip(game)
    clone(game.initial_state(options, seats))  # a generated clone is made at its first call

    games = commands = views = baselines = 0
    play_s = decide_s = platform_s = view_s = json_s = baseline_s = clone_s = 0.0
    one_view_s = 0.0
    budget_end = time.perf_counter() + seconds
    while games == 0 or (
        time.perf_counter() < budget_end and (max_games is None or games < max_games)
    ):
        game_seed = seed + games
        started = time.perf_counter()
        played = play_random(game, options, seats, game_seed, owned=True)
        play_s += time.perf_counter() - started
        games += 1

        # The same game again, timing the rules only: each command through ``play`` into
        # ``state`` and through decide then evolve into ``shadow``, the one or the other
        # first in turn (the second runs on caches the first has just warmed), with the
        # views at sampled steps.
        seed_bytes = game_seed.to_bytes(16, "big", signed=True)
        setup = list(game.setup(options, seats, derive_rng(seed_bytes, 0)))
        state = fold(game, options, seats, setup)
        shadow = fold(game, options, seats, setup)
        seq = len(setup)
        for step, (seat, command) in enumerate(played.commands):
            for path in (0, 1) if step % 2 else (1, 0):
                rng = derive_rng(seed_bytes, seq + 1)
                if path:
                    t0 = time.perf_counter()
                    events = play(state, command, seat, rng)
                    decide_s += time.perf_counter() - t0
                else:
                    t0 = time.perf_counter()
                    for event in game.decide(shadow, command, seat, rng):
                        shadow = game.evolve(shadow, event)
                    platform_s += time.perf_counter() - t0
            seq += len(events)
            commands += 1
            if step % VIEW_SAMPLE_EVERY:
                continue
            viewers = range(seats)
            t0 = time.perf_counter()
            rendered = every_view(state, viewers)
            for viewer in viewers:
                game.legal_commands(state, viewer)
            t1 = time.perf_counter()
            for view in rendered:
                json_encoder.encode(view)
            t2 = time.perf_counter()
            game.view(state, step % seats)
            t3 = time.perf_counter()
            view_s += t1 - t0
            json_s += t2 - t1
            one_view_s += t3 - t2
            views += seats
            t0 = time.perf_counter()
            state_decoder.decode(msgpack_encoder.encode(state))
            t1 = time.perf_counter()
            clone(state)
            t2 = time.perf_counter()
            baseline_s += t1 - t0
            clone_s += t2 - t1
            baselines += 1

    commands_per_s = commands / decide_s if decide_s else 0.0
    platform_per_s = commands / platform_s if platform_s else 0.0
    baseline_us = baseline_s / baselines * 1e6 if baselines else 0.0
    baseline_per_s = 1e6 / baseline_us if baseline_us else 0.0
    games_per_s = games / play_s if play_s else 0.0
    view_us = view_s / views * 1e6 if views else 0.0
    clone_us = clone_s / baselines * 1e6 if baselines else 0.0
    return RulesFigures(
        game=name,
        seats=seats,
        games=games,
        commands=commands,
        commands_per_s=commands_per_s,
        games_per_s=games_per_s,
        commands_per_game=commands / games,
        view_us=view_us,
        view_json_us=json_s / views * 1e6 if views else 0.0,
        baseline_us=baseline_us,
        baseline_per_s=baseline_per_s,
        ratio=commands_per_s / baseline_per_s if baseline_per_s else 0.0,
        platform_commands_per_s=platform_per_s,
        platform_ratio=platform_per_s / baseline_per_s if baseline_per_s else 0.0,
        games_permille=games_per_s / baseline_per_s * 1000 if baseline_per_s else 0.0,
        view_ratio=view_us / baseline_us if baseline_us else 0.0,
        clone_us=clone_us,
        clone_ratio=clone_us / baseline_us if baseline_us else 0.0,
        one_view_us=one_view_s / baselines * 1e6 if baselines else 0.0,
    )


def _round_trip(game: Game[Any]) -> Any:
    """A game without its own ``clone``: the msgpack round trip of its state type."""
    encode = msgspec.msgpack.Encoder().encode
    decode = msgspec.msgpack.Decoder(game.state_type).decode
    return lambda state: decode(encode(state))


COLUMNS = (
    "game",
    "seats",
    "games",
    "commands/s",
    "÷ baseline",
    "decide+evolve ÷ baseline",
    "games/s",
    "games/s ÷ baseline ‰",
    "cmds/game",
    "view µs/seat",
    "÷ baseline",
    "one view µs",
    "json µs/seat",
    "clone µs",
    "÷ baseline",
    "baseline µs",
)


def _against(value: float, target: float, at_least: bool) -> str:
    """A ratio and its target, the target met or not."""
    met = value >= target if at_least else value <= target
    return f"{value:,.2f} ({'≥' if at_least else '≤'} {target:g}{'' if met else ' ✗'})"


def render(figures: list[RulesFigures]) -> str:
    rows = [list(COLUMNS)]
    for f in figures:
        rows.append(
            [
                f.game,
                str(f.seats),
                str(f.games),
                f"{f.commands_per_s:,.0f}",
                _against(f.ratio, TARGET_RATIO.get(f.game, 0.0), at_least=True),
                f"{f.platform_ratio:,.2f}",
                f"{f.games_per_s:,.1f}",
                _against(f.games_permille, TARGET_GAMES_PERMILLE.get(f.game, 0.0), at_least=True),
                f"{f.commands_per_game:,.0f}",
                f"{f.view_us:,.1f}",
                _against(f.view_ratio, TARGET_VIEW_RATIO, at_least=False),
                f"{f.one_view_us:,.1f}",
                f"{f.view_json_us:,.1f}",
                f"{f.clone_us:,.1f}",
                _against(f.clone_ratio, TARGET_CLONE_RATIO, at_least=False),
                f"{f.baseline_us:,.1f}",
            ]
        )
    target = ["target", "", "", f"≥ {TARGET_COMMANDS_PER_S:,}", "", "", "", "", ""]
    target += [f"≤ {TARGET_VIEW_US:.0f}", "", "", "", "", "", ""]
    rows.append(target)
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
        "commands/s: play (decide + evolve into a state the caller owns, as a search does), "
        "one core; decide+evolve: the platform's path (decide reads a state it leaves as it "
        "was, then evolve).",
        "games/s: complete random games (setup, legal moves, play); ‰: games/s ÷ baseline/s "
        "× 1000.",
        "view µs/seat: every seat's view at once (views) ÷ seats + legal_commands for one "
        "seat; one view: one seat's view alone; json: encoding a view; clone: the game's "
        "copy of the state for a search.",
        "baseline: msgspec msgpack encode + decode of the same game state, same run; "
        "each ratio beside its target (✗: not met).",
    ]
    return "\n".join(lines + notes)
