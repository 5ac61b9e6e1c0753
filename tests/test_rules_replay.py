"""Replaying a log never depends on today's content data.

The design's "fat events" rule: events carry the facts and ``evolve`` decides nothing,
so a cost or a count corrected in a game's catalogue changes how new commands are
decided, never how an old log folds. Each test folds recorded logs twice, once with the
catalogue as it is and once with its costs and counts altered, and gets the same states:

* logs recorded under rules version 1 (``tests/<game>/data/v1_log.jsonl``, written before
  the events carried these facts: the new fields' defaults are the version-1 values);
* fresh logs of random play, compared after every command.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from random import Random
from typing import Any

import msgspec
import pytest

from games.codec import event_union
from games.playthrough import fold
from games.protocol import Game
from games.registry import get_game
from games.rng import derive_rng
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.federation import catalogue as fed_cat
from orrery_contracts.federation import commands as fed_cmd
from orrery_contracts.federation import events as fed_ev
from orrery_contracts.fractured_sky import catalogue as fs_cat
from orrery_contracts.fractured_sky import commands as fs_cmd
from orrery_contracts.fractured_sky import events as fs_ev
from orrery_contracts.spacecraft import catalogue as sc_cat
from orrery_contracts.spacecraft import commands as sc_cmd
from orrery_contracts.spacecraft import events as sc_ev

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent
ENCODE = msgspec.msgpack.encode


def _alter_fractured_sky(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(fs_cat, "FORTRESS_COST", (1, 4, 1))
    mp.setattr(fs_cat, "MARKET_COST", (2, 1, 3))
    mp.setattr(fs_cat, "SKIMMER_COST", (1, 2, 2))
    mp.setattr(fs_cat, "SCOUT_COST", (3, 1, 0))
    mp.setattr(fs_cat, "AI_MARKET_THRESHOLD", {"easy": 2, "medium": 9, "hard": 1})
    mp.setattr(fs_cat, "STARDUST_TOKENS", 55)
    mp.setattr(fs_cat, "REGION_COUNT", 12)
    mp.setattr(fs_cat, "PLATFORM_COUNT", 11)


def _alter_spacecraft(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(sc_cat, "SLOTS", tuple(s._replace(stock=s.stock + 2) for s in sc_cat.SLOTS))
    mp.setattr(sc_cat, "MARKERS_PER_PLAYER", 9)
    mp.setattr(sc_cat, "PART_WEIGHT", dict.fromkeys(sc_cat.PART_WEIGHT, 1))


def _alter_federation(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(fed_cat, "START_SHIPS", 3)
    mp.setattr(fed_cat, "DEAD_ASTEROIDS", 7)
    mp.setattr(fed_cat, "ERUDITE_STOCK", (4, 2, 2))
    mp.setattr(fed_cat, "MEDAL_THRESHOLDS", {2: (5, 7), 3: (2, 3, 4), 4: (1, 2, 3, 4)})
    mp.setattr(fed_cat, "NEUTRAL_VOTES", 4)
    mp.setattr(fed_cat, "N_PRODUCTION", 2)
    mp.setattr(fed_cat, "SPY_COST", (1, 1, 0, 0, 0))
    mp.setattr(fed_cat, "ASSISTANT_COST", (2, 0, 0, 0, 0))
    mp.setattr(fed_cat, "SHIPS_COST", (0, 0, 2, 0, 0))
    mp.setattr(fed_cat, "MEGA_COSTS", ((0, 0, 0, 5, 0),))


ALTER: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "fractured_sky": _alter_fractured_sky,
    "spacecraft": _alter_spacecraft,
    "federation": _alter_federation,
}


def _game(name: str) -> Game[Any]:
    game = get_game(name)
    assert game is not None
    return game


def _recorded(name: str) -> tuple[dict[str, Any], list[EventBody]]:
    lines = (ROOT / name / "data" / "v1_log.jsonl").read_bytes().splitlines()
    header = msgspec.json.decode(lines[0])
    decoder = msgspec.json.Decoder(event_union(name))
    return header, [decoder.decode(line) for line in lines[1:]]


@pytest.mark.parametrize("name", sorted(ALTER))
def test_a_log_recorded_under_rules_version_1_folds_the_same_with_altered_content(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    header, events = _recorded(name)
    assert header["rules_version"] == "1"
    game = _game(name)
    options = msgspec.convert(header["options"], game.options_type)
    seats = header["seats"]
    state = fold(game, options, seats, events)
    assert game.status(state).finished
    # the fold today reproduces every fact the version-1 engine had at the end (in the
    # state's JSON form, where a tuple is the same array as a list)
    now = msgspec.json.decode(msgspec.json.encode(state))
    for key, value in header["final_state"].items():
        assert now[key] == value, key
    ALTER[name](monkeypatch)
    assert ENCODE(fold(game, options, seats, events)) == ENCODE(state)


# ---------------------------------------------------------------- fresh logs


def _busy(command: CommandBody) -> bool:
    """Commands that pay or gain something (so the logs are full of costs)."""
    idle = (fs_cmd.PlaceAirship, fs_cmd.Trade, sc_cmd.EndTurn, sc_cmd.Arrange, fed_cmd.EndTurn)
    if isinstance(command, fed_cmd.Place):
        return command.space != fed_cat.OUTER
    return not isinstance(command, idle)


def _play(game: Game[Any], options: Any, seats: int, seed: int) -> Iterator[list[EventBody]]:
    """Random play preferring costly commands; yields each step's events (setup first)."""
    chooser = Random(seed)
    seed_bytes = seed.to_bytes(16, "big")
    events = list(game.setup(options, seats, derive_rng(seed_bytes, 0)))
    yield events
    state = fold(game, options, seats, events)
    count = len(events)
    while not game.status(state).finished:
        seat = chooser.choice(game.status(state).to_move)
        legal = game.legal_commands(state, seat)
        busy = [c for c in legal if _busy(c)]
        command = chooser.choice(busy if busy and chooser.random() < 0.8 else legal)
        new = game.decide(state, command, seat, derive_rng(seed_bytes, count + 1))
        for event in new:
            state = game.evolve(state, event)
        count += len(new)
        yield new


CONFIGS = [
    ("fractured_sky", {"difficulty": "hard"}, 1, 3),
    ("fractured_sky", {"difficulty": "medium"}, 2, 4),
    ("fractured_sky", {}, 4, 5),
    ("spacecraft", {"variant": "advanced"}, 3, 6),
    ("spacecraft", {}, 2, 7),
    ("federation", {}, 2, 8),
    ("federation", {"law_effect": "majority"}, 4, 9),
]


@pytest.mark.parametrize(("name", "raw_options", "seats", "seed"), CONFIGS)
def test_a_fresh_log_folds_the_same_after_every_command_with_altered_content(
    name: str, raw_options: dict[str, Any], seats: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = _game(name)
    options = msgspec.convert(raw_options, game.options_type)
    steps = list(_play(game, options, seats, seed))
    snapshots: list[bytes] = []
    state = game.initial_state(options, seats)
    for new in steps:
        for event in new:
            state = game.evolve(state, event)
        snapshots.append(ENCODE(state))
    assert game.status(state).finished
    ALTER[name](monkeypatch)
    state = game.initial_state(options, seats)
    for new, snapshot in zip(steps, snapshots, strict=True):
        for event in new:
            state = game.evolve(state, event)
        assert ENCODE(state) == snapshot


# ---------------------------------------------------------------- new decisions


def test_fractured_sky_a_cost_changed_today_applies_to_new_builds_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.fractured_sky.helpers import run, started

    state = started(4, start=(2, 4, 2))
    seat = state.turn
    old = run(state, seat, fs_cmd.BuildFortress(platform=0))
    assert [(e.gold, e.iron, e.wood) for e in old if isinstance(e, fs_ev.FortressBuilt)] == [
        (0, 3, 0)
    ]
    assert state.resources[seat] == [2, 1, 2]
    monkeypatch.setattr(fs_cat, "MARKET_COST", (1, 1, 1))  # a corrected market cost
    seat = state.turn
    state.resources[seat] = [1, 1, 1]
    new = run(state, seat, fs_cmd.BuildMarket(platform=1))
    assert [(e.gold, e.iron, e.wood) for e in new if isinstance(e, fs_ev.MarketBuilt)] == [
        (1, 1, 1)
    ]
    assert state.resources[seat] == [0, 0, 0]


def test_the_setup_events_record_the_content_they_were_dealt_with() -> None:
    fs = _game("fractured_sky")
    (setup,) = fs.setup(fs.options_type(difficulty="medium"), 2, Random(1))
    assert isinstance(setup, fs_ev.GameSetUp)
    assert (setup.ai_market_threshold, setup.stardust_tokens) == (6, fs_cat.STARDUST_TOKENS)
    sc = _game("spacecraft")
    laid = [e for e in sc.setup(sc.options_type(variant="advanced"), 3, Random(1))]
    workshop = next(e for e in laid if isinstance(e, sc_ev.WorkshopLaid))
    assert workshop.supply == [s.stock for s in sc_cat.SLOTS]
    advanced = next(e for e in laid if isinstance(e, sc_ev.AdvancedLaid))
    assert advanced.markers == sc_cat.MARKERS_PER_PLAYER
    fed = _game("federation")
    events = [e for step in _play(fed, fed.options_type(), 3, 1) for e in step]
    set_up = next(e for e in events if isinstance(e, fed_ev.SetUp))
    assert set_up.medal_thresholds == list(fed_cat.MEDAL_THRESHOLDS[3])
    assert (set_up.start_ships, set_up.dead_asteroids) == (1, 4)
    started = [e for e in events if isinstance(e, fed_ev.RoundStarted)]
    assert len(started) == fed_cat.ROUNDS
    assert all(e.neutral_votes == fed_cat.NEUTRAL_VOTES for e in started)
