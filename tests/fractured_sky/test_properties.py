"""Random legal play to the end with invariants at every step; fold and snapshots."""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.fractured_sky import GAME
from games.fractured_sky.state import FracturedSkyState
from games.playthrough import fold, play_random
from games.rejection import Rejected
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import commands as cmd
from orrery_contracts.fractured_sky import events as ev
from orrery_contracts.table import TableStarted

OPTIONS = GAME.options_type()
ENCODE = msgspec.msgpack.encode


class Checker:
    """Invariants checked after every command of a random game."""

    def __init__(self, seats: int, seed: int) -> None:
        self.seats = seats
        self.rng = Random(seed)
        self.placed: dict[tuple[int, int], int] = {}
        self.steps = 0

    def __call__(
        self, state: FracturedSkyState, seat: int, command: CommandBody, new: list[EventBody]
    ) -> None:
        self.steps += 1
        self.check_state(state)
        self.check_events(new)
        if self.steps % 3 == 0:
            self.check_commands(state)

    def check_state(self, state: FracturedSkyState) -> None:
        n = state.participants
        for s in range(n):
            assert min(state.resources[s]) >= 0
            assert sum(state.fortresses[s]) <= cat.FORTRESS_SUPPLY
            assert sum(state.markets[s]) <= cat.MARKET_SUPPLY
            assert sum(state.skimmers[s]) <= cat.SKIMMER_SUPPLY
            ships = [v for v in state.airships[s] if v >= 0]
            # one airship per region per player, at most 3, chips from the player's set
            assert len(ships) == state.ships[s] <= cat.AIRSHIPS
            if s >= state.seats:  # an AI: tokens from its face-down pool, never resources
                index = s - state.seats
                assert state.resources[s] == [0, 0, 0]
                tokens = ships + state.ai_pool[index] + state.ai_out[index]
                assert sorted(tokens) == list(range(len(cat.AI_TOKENS)))
                limit = cat.AI_BUILDINGS[state.difficulty]
                assert sum(state.fortresses[s]) <= limit and sum(state.markets[s]) <= limit
                assert (
                    0 <= state.ai_tally[index] < max(1, cat.AI_MARKET_THRESHOLD[state.difficulty])
                )
                continue
            pool = list(cat.CHIPS)
            for value in ships:
                pool.remove(value)
            for r in range(cat.REGION_COUNT):
                if r not in state.regions:
                    assert state.airships[s][r] < 0 and state.skimmers[s][r] == 0
        assert state.supply >= 0
        assert min(state.board_stardust) >= 0
        total = state.supply + sum(state.board_stardust) + sum(state.stardust)
        assert total == cat.STARDUST_TOKENS
        for region in range(cat.REGION_COUNT):
            explorer = state.explorer[region]
            assert explorer < 0 or state.airships[explorer][region] >= 0
        # secret cards: tray, unused deck and exploration draws form the active regions
        cards = state.secret_cards + state.secret_deck + [c for d in state.drawn for c in d]
        assert sorted(cards) == sorted(state.regions)
        assert len(state.secret_cards) == state.round
        taken = [s for s in state.next_slots if s >= 0]
        assert len(taken) == len(set(taken))
        assert all(state.next_slots[i] < 0 for i in range(n, state.slot_count))

    def check_events(self, new: list[EventBody]) -> None:
        for event in new:
            if isinstance(event, ev.AirshipPlaced):
                self.placed[(event.seat, event.region)] = event.chip
            elif isinstance(event, ev.RoundRevealed):
                for seat, row in enumerate(event.chips):
                    printed = {r: v for (s, r), v in self.placed.items() if s == seat}
                    if seat >= self.seats:  # AI tokens show their high or low face
                        assert event.excess[seat] == 0
                        for region, token in printed.items():
                            faces = (cat.AI_TOKENS[token].high, cat.AI_TOKENS[token].low)
                            assert row[region] in faces
                        continue
                    excess = max(0, sum(printed.values()) - cat.POWER_LIMIT)
                    assert event.excess[seat] == excess
                    for region, value in enumerate(row):
                        if region in printed:
                            assert value == max(0, printed[region] - excess) >= 0
                        else:
                            assert value == -1
                self.placed = {}

    def check_commands(self, state: FracturedSkyState) -> None:
        status = GAME.status(state)
        before = ENCODE(state)
        for seat in status.to_move:
            legal = GAME.legal_commands(state, seat)
            assert legal
            for command in self.rng.sample(legal, min(3, len(legal))):
                GAME.decide(state, command, seat, Random(1))  # must not raise
            others = [s for s in range(self.seats) if s not in status.to_move]
            required = [c for c in legal if not isinstance(c, cmd.Trade)]
            if others and status.phase != "rewards":
                with pytest.raises(Rejected) as wrong:
                    GAME.decide(state, required[0], self.rng.choice(others), Random(1))
                assert isinstance(wrong.value.code, str)
        for seat in range(self.seats):
            if seat not in status.to_move:  # free trades only, which are always allowed
                assert all(isinstance(c, cmd.Trade) for c in GAME.legal_commands(state, seat))
        for seat, bad in self.bad_commands(state):
            with pytest.raises(Rejected) as rejected:
                GAME.decide(state, bad, seat, Random(1))
            assert isinstance(rejected.value.code, str) and rejected.value.code
        assert ENCODE(state) == before  # decide never mutates the state
        assert (
            msgspec.msgpack.decode(before, type=FracturedSkyState) == state
        )  # snapshot round trip

    def bad_commands(self, state: FracturedSkyState) -> list[tuple[int, CommandBody]]:
        status = GAME.status(state)
        seat = status.to_move[0] if status.to_move else 0
        bad: list[tuple[int, CommandBody]] = []
        if status.phase != "start":
            bad.append((seat, cmd.ChooseStart(gold=4)))
        if status.phase != "rewards":
            bad.append((seat, cmd.ChooseResource(resource="gold")))
        if status.phase == "play":
            have = state.resources[seat]
            if have[cat.IRON] < 3:
                bad.append((seat, cmd.BuildFortress(platform=0)))
            if have[cat.GOLD] < 2 and state.secret_cards:
                bad.append((seat, cmd.Scout(card=0)))
            bad.append((seat, cmd.PlaceAirship(region=99, chip=0)))
            bad.append((seat, cmd.Trade(gold=3, get="iron")))
            bad.append((seat, cmd.Peek(objective=9)))
            used = [r for r in state.regions if state.airships[seat][r] >= 0]
            if used:
                bad.append((seat, cmd.PlaceAirship(region=used[0], chip=10)))
        bad.append((self.seats + 1, cmd.ChooseSlot(slot=1)))
        return bad


def _play(seats: int, seed: int, options: Any = OPTIONS) -> None:
    checker = Checker(seats, seed)
    result = play_random(GAME, options, seats, seed, on_step=checker)
    state = result.state
    assert GAME.status(state).finished
    assert state.round == cat.ROUNDS
    standing = GAME.score(state)
    assert len(set(standing.ranks)) == seats and max(standing.ranks) <= state.participants
    assert list(standing.points) == state.stardust[:seats]
    # fold: replaying the events from the initial state rebuilds the final state
    assert fold(GAME, options, seats, result.events) == state
    # snapshot round trip
    snapshot = msgspec.msgpack.decode(ENCODE(state), type=GAME.state_type)
    assert snapshot == state
    # events and views survive the wire
    for event in result.events[:5] + result.events[-5:]:
        assert msgspec.msgpack.decode(ENCODE(event), type=type(event)) == event
    for seat in [*range(seats), None]:
        msgspec.json.encode(GAME.view(state, seat))


@pytest.mark.parametrize("seats", [3, 4, 5])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_random_play_to_the_end(seats: int, seed: int) -> None:
    _play(seats, seed)


@pytest.mark.parametrize("seats", [1, 2])
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_random_play_against_ais(seats: int, difficulty: str, seed: int) -> None:
    _play(seats, seed, GAME.options_type(difficulty=difficulty))


def test_fold_reproduces_every_intermediate_state() -> None:
    """Replaying each command's events with evolve gives the state decide saw next."""
    steps: list[tuple[bytes, int]] = []

    def record(
        state: FracturedSkyState, seat: int, command: CommandBody, new: list[EventBody]
    ) -> None:
        steps.append((ENCODE(state), len(new)))

    result = play_random(GAME, OPTIONS, 4, 11, on_step=record)
    events = result.events
    index = len(events) - sum(count for _, count in steps)  # the setup events
    state = fold(GAME, OPTIONS, 4, events[:index])
    for snapshot, count in steps:
        for event in events[index : index + count]:
            state = GAME.evolve(state, event)
        index += count
        assert ENCODE(state) == snapshot
    assert index == len(events)


def test_an_event_of_another_game_is_an_error_not_ignored() -> None:
    state = fold(GAME, OPTIONS, 3, GAME.setup(OPTIONS, 3, Random(0)))
    before = ENCODE(state)
    with pytest.raises(TypeError, match="not a Fractured Sky event: TableStarted"):
        GAME.evolve(state, TableStarted())
    assert ENCODE(state) == before


def play_busy(seats: int, seed: int, on_step: Checker, options: Any = OPTIONS) -> FracturedSkyState:
    """Random play that prefers building, scouting, peeking and trading to airships."""
    chooser = Random(seed)
    events = GAME.setup(options, seats, Random(seed))
    state = fold(GAME, options, seats, events)
    for step in range(5000):
        status = GAME.status(state)
        if status.finished:
            return state
        seat = chooser.choice(status.to_move)
        legal = GAME.legal_commands(state, seat)
        busy = [c for c in legal if not isinstance(c, cmd.PlaceAirship | cmd.Trade)]
        trades = [c for c in legal if isinstance(c, cmd.Trade)]
        roll = chooser.random()
        if busy and roll < 0.7:
            command = chooser.choice(busy)
        elif trades and roll < 0.85:
            command = chooser.choice(trades)
        else:
            command = chooser.choice(legal)
        new = GAME.decide(state, command, seat, Random(seed * 7919 + step))
        for event in new:
            state = GAME.evolve(state, event)
        on_step(state, seat, command, new)
    raise AssertionError("busy game did not end")


@pytest.mark.parametrize("seats", [1, 2, 3, 4, 5])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_busy_random_play_to_the_end(seats: int, seed: int) -> None:
    options = GAME.options_type(difficulty=("easy", "medium", "hard")[seed % 3])
    state = play_busy(seats, seed, Checker(seats, seed), options)
    assert GAME.status(state).finished
