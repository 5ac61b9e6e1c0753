"""Property tests: random legal play to the end with invariants, legal commands accepted,
illegal ones rejected, fold and snapshot round-trip, hidden information never leaks."""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.playthrough import clone_state, fold, play_random
from games.rejection import Rejected
from games.spacecraft import GAME, SpacecraftOptions, rocket
from games.spacecraft.junkyard import board_weight
from games.spacecraft.state import SpacecraftState
from games.table import TableState, decide_table
from orrery_contracts.base import CommandBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import Build, EndTurn, Leave, Search, Visit
from orrery_contracts.table import CreateTable

CONFIGS = [(n, v) for v in ("basic", "advanced") for n in (2, 3, 4)]


def check_invariants(state: SpacecraftState) -> None:
    on_yard = sum(len(p) for p in state.piles)
    on_boards = sum(len(b) for b in state.boards)
    beside = sum(sum(b) for b in state.beside)
    assert on_yard + on_boards + beside + sum(state.paid) + sum(state.returned) == cat.TOTAL_TILES
    for b in state.beside:
        assert min(b) >= 0
    for board in state.boards:
        assert len(board) <= cat.BOARD_MAX_TILES
        assert board_weight(board) <= cat.BOARD_MAX_WEIGHT
    built = [p.kind for r in state.rockets for p in r]
    for i, slot in enumerate(cat.SLOTS):
        assert state.supply[i] >= 0
        assert state.supply[i] + built.count(slot.kind) == slot.stock
    for layout in state.rockets:
        assert rocket.invalid_reason(layout) is None
        assert sum(p.kind == cat.GREY_BODY for p in layout) == 1
    if state.variant == "basic":
        cards = state.lower + state.upper + state.deck + state.removed_designs + state.reserved
        cards += [c for f in state.fulfilled for c in f]
        cards = [c for c in cards if c != -1]
        assert sorted(cards) == [c.id for c in cat.DESIGN_CARDS]
    else:
        placed = sum(len(m) for m in state.adv_marks)
        assert placed + sum(state.markers_left) == cat.MARKERS_PER_PLAYER * state.players
    cells = [c for c in state.pawns if c >= 0]
    assert len(cells) == len(set(cells))


def _snapshot(state: SpacecraftState) -> bytes:
    return msgspec.msgpack.encode(state)


def _bad_commands(state: SpacecraftState, seat: int) -> list[tuple[int, CommandBody]]:
    """Commands that must be rejected: other seats, wrong step, unaffordable builds."""
    out: list[tuple[int, CommandBody]] = []
    for other in range(state.players):
        if other != seat:
            out.append((other, Leave()))
    if state.step == "action":
        out.append((seat, EndTurn()))
        out.append((seat, Build(slot=0, pay=["screw"])))
        if state.pawns[seat] < 0:
            out.append((seat, Search(x=0, y=0)))
        else:
            out.append((seat, Visit(x=0, y=0)))
    else:
        out.append((seat, Leave()))
        if state.step == "build":
            missing = [cat.JUNK_NAMES[t] for t in range(cat.N_JUNK) if state.beside[seat][t] == 0]
            if missing:
                out.append((seat, Build(slot=0, pay=missing[:1] * 3)))
    return out


def _play_checked(players: int, variant: str, seed: int) -> Any:
    options = SpacecraftOptions(variant=variant)  # type: ignore[arg-type]
    sampler = Random(seed ^ 0x5C)
    steps = 0

    def on_step(state: SpacecraftState, seat: int, command: CommandBody, new: list[Any]) -> None:
        nonlocal steps
        steps += 1
        check_invariants(state)
        status = GAME.status(state)
        if status.finished:
            return
        for s in status.to_move:
            legal = GAME.legal_commands(state, s)
            assert legal, f"seat {s} must move but has no command"
            before = _snapshot(state)
            for c in sampler.sample(legal, min(3, len(legal))):
                GAME.decide(state, c, s, Random(0))  # accepted (raises otherwise)
            assert _snapshot(state) == before  # decide never mutates
        for s in range(players):
            if s not in status.to_move:
                assert GAME.legal_commands(state, s) == []
        if steps % 5 == 0:
            mover = status.to_move[0]
            for s, c in _bad_commands(state, mover):
                if state.phase == "goals":
                    continue
                with pytest.raises(Rejected) as info:
                    GAME.decide(state, c, s, Random(0))
                assert isinstance(info.value.code, str) and info.value.code

    result = play_random(GAME, options, players, seed, on_step=on_step)
    assert GAME.status(result.state).finished
    return result


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_play_reaches_the_end_with_invariants(players: int, variant: str, seed: int) -> None:
    result = _play_checked(players, variant, seed)
    standing = GAME.score(result.state)
    assert len(standing.points) == players and min(standing.ranks) == 1


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_fold_and_snapshot_round_trip(players: int, variant: str) -> None:
    options = SpacecraftOptions(variant=variant)  # type: ignore[arg-type]
    result = play_random(GAME, options, players, 1234 + players)
    folded = fold(GAME, options, players, result.events)
    assert folded == result.state
    raw = msgspec.msgpack.encode(result.state)
    assert msgspec.msgpack.decode(raw, type=GAME.state_type) == result.state
    # every event round-trips through the game's tagged union
    decoder: msgspec.msgpack.Decoder[Any] = msgspec.msgpack.Decoder(list[_event_union()])  # type: ignore[misc]
    assert decoder.decode(msgspec.msgpack.encode(result.events)) == result.events


def _event_union() -> Any:
    from orrery_contracts.spacecraft import SpacecraftEvent

    return SpacecraftEvent


def _midgame(players: int, variant: str, seed: int, fraction: float = 0.5) -> SpacecraftState:
    options = SpacecraftOptions(variant=variant)  # type: ignore[arg-type]
    full = play_random(GAME, options, players, seed)
    cut = int(len(full.events) * fraction)
    state = fold(GAME, options, players, full.events[:cut])
    assert not GAME.status(state).finished
    return state


def _views(state: SpacecraftState) -> dict[int | None, bytes]:
    seats: list[int | None] = [None, *range(state.players)]
    return {s: msgspec.json.encode(GAME.view(state, s)) for s in seats}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_buried_tile_and_deck_order_are_invisible(players: int) -> None:
    state = _midgame(players, "basic", 77)
    twin = clone_state(GAME, state)
    buried = next(i for i, p in enumerate(twin.piles) if len(p) >= 2)
    bottom, *rest = twin.piles[buried]
    twin.piles[buried] = ((bottom + 1) % cat.N_JUNK, *rest)
    twin.deck.reverse()
    twin.removed_designs.reverse()
    twin.goal_options = [[99, 98] for _ in twin.goal_options]
    if len(twin.deck) >= 2:
        twin.deck[0], twin.deck[-1] = twin.deck[-1], twin.deck[0]
    assert twin != state
    assert _views(twin) == _views(state)
    # the top tile, by contrast, is public
    top = next(i for i, p in enumerate(twin.piles) if p)
    *under, tile = twin.piles[top]
    twin.piles[top] = (*under, (tile + 1) % cat.N_JUNK)
    assert _views(twin)[None] != _views(state)[None]


def test_reserved_card_only_visible_to_its_owner() -> None:
    state = _midgame(3, "basic", 5)
    state.reserved[1] = state.removed_designs[0]
    twin = clone_state(GAME, state)
    twin.reserved[1] = state.removed_designs[1]
    a, b = _views(state), _views(twin)
    for s in (None, 0, 2):
        assert a[s] == b[s]
    assert a[1] != b[1]


def test_goal_options_only_visible_to_their_owner() -> None:
    options = SpacecraftOptions()
    state = fold(GAME, options, 4, GAME.setup(options, 4, Random(3)))
    twin = clone_state(GAME, state)
    twin.goal_options[2] = [*reversed(twin.goal_options[2]), 0]
    a, b = _views(state), _views(twin)
    for s in (None, 0, 1, 3):
        assert a[s] == b[s]
    assert a[2] != b[2]


def _create_refusal(seats: int, options: dict[str, Any]) -> str:
    create = CreateTable(game="spacecraft", seats=seats, options=options)
    with pytest.raises(Rejected) as info:
        decide_table(TableState(table_id="t"), create, None, b"seed")
    return info.value.code


def test_bad_options_rejected() -> None:
    """Options and seats are declared once (the options' ``Literal``, ``min_seats`` and
    ``max_seats``) and checked once, where a table is created: the game adds no check."""
    assert _create_refusal(2, {"variant": "expert"}) == "bad_options"
    assert _create_refusal(2, {"variant": 2}) == "bad_options"
    assert _create_refusal(5, {}) == "bad_seats"
    assert _create_refusal(1, {"variant": "advanced"}) == "bad_seats"
    assert (GAME.min_seats, GAME.max_seats) == (2, 4)
    assert msgspec.convert({}, GAME.options_type) == SpacecraftOptions(variant="basic")
    created = decide_table(
        TableState(table_id="t"),
        CreateTable(game="spacecraft", seats=4, options={"variant": "advanced"}),
        None,
        b"seed",
    )
    assert [type(e).__name__ for e in created] == ["TableCreated"]
