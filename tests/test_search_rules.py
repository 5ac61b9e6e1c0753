"""The rules a searching bot runs: each game's ``clone`` and ``play`` give exactly what
the platform's path gives.

* ``clone`` (:mod:`games.clone`, generated from the state type) equals the msgpack round
  trip it replaces, at every step of random games, and shares nothing mutable: the rest
  of the game folded into the copy leaves the original as it was;
* ``play`` (decide + evolve into a state the caller owns) returns ``decide``'s events and
  leaves the state ``decide`` then ``evolve`` make, and a rejected command leaves the
  state untouched;
* the generated copy handles the field types it claims (nested Structs, unions of
  Structs, dicts, frozen Structs shared) and falls back to the round trip otherwise.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from games.clone import clone, cloner_for, round_trip_clone
from games.definition import GameDefinition
from games.playthrough import fold, play_random
from games.registry import get_game
from games.rejection import Rejected
from games.rng import derive_rng

TIER = "unit"  # its slow and bench runs are of those tiers (tests/conftest.py)

GAMES = ("fractured_sky", "spacecraft", "federation")
encode = msgspec.msgpack.encode


def definition(name: str) -> GameDefinition[Any, Any]:
    game = get_game(name)
    assert isinstance(game, GameDefinition)
    return game


def replay_both_ways(name: str, seats: int, seed: int) -> int:
    """Replay a random game through ``decide`` + ``evolve`` and through ``play`` side by
    side, checking the clone at every step; returns the commands replayed."""
    game = definition(name)
    options = game.options_type()
    played = play_random(game, options, seats, seed)
    seed_bytes = seed.to_bytes(16, "big", signed=True)
    setup = list(game.setup(options, seats, derive_rng(seed_bytes, 0)))
    platform = fold(game, options, seats, setup)
    owned = game.clone(platform)
    seq = len(setup)
    for seat, command in played.commands:
        before = encode(owned)
        copy = game.clone(owned)
        assert encode(copy) == before == encode(round_trip_clone(owned))
        events = game.decide(platform, command, seat, derive_rng(seed_bytes, seq + 1))
        for event in events:
            platform = game.evolve(platform, event)
        assert game.play(owned, command, seat, derive_rng(seed_bytes, seq + 1)) == events
        assert encode(owned) == encode(platform)
        assert encode(copy) == before, "the copy shares something the rules changed"
        seq += len(events)
    assert encode(owned) == encode(played.state)
    return len(played.commands)


@pytest.mark.parametrize("name", GAMES)
def test_play_and_clone_match_the_platform_path(name: str) -> None:
    game = definition(name)
    assert replay_both_ways(name, game.max_seats, 7) > 20


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_play_and_clone_match_the_platform_path_at_every_seat_count(name: str) -> None:
    game = definition(name)
    for seats in range(game.min_seats, game.max_seats + 1):
        for seed in range(6):
            replay_both_ways(name, seats, seed)


@pytest.mark.parametrize("name", GAMES)
def test_a_rejected_play_changes_nothing(name: str) -> None:
    game = definition(name)
    options = game.options_type()
    played = play_random(game, options, 2, 3)
    seed_bytes = (3).to_bytes(16, "big")
    setup = list(game.setup(options, 2, derive_rng(seed_bytes, 0)))
    state = fold(game, options, 2, setup)
    seq = len(setup)
    rejected = 0
    for seat, command in played.commands[:40]:
        trial = game.clone(state)
        before = encode(trial)
        try:  # the other seat's command: mostly not its turn
            game.play(trial, command, 1 - seat, derive_rng(seed_bytes, seq + 1))
        except Rejected:
            assert encode(trial) == before
            rejected += 1
        seq += len(game.play(state, command, seat, derive_rng(seed_bytes, seq + 1)))
    assert rejected > 10


class Leaf(msgspec.Struct, kw_only=True):
    values: list[int] = []


class Mark(msgspec.Struct, kw_only=True):
    seat: int = 0  # mutable, with nothing mutable inside: a shallow copy suffices


class Frozen(msgspec.Struct, frozen=True, kw_only=True):
    values: tuple[int, ...] = ()


class Other(msgspec.Struct, tag="other", kw_only=True):
    marks: dict[str, list[int]] = {}


class Tagged(msgspec.Struct, tag="tagged", kw_only=True):
    leaf: Leaf = msgspec.field(default_factory=Leaf)


class Root(msgspec.Struct, kw_only=True):
    n: int = 0
    leaves: list[Leaf] = []
    grid: list[list[int]] = []
    cube: list[list[list[int]]] = []
    marks: list[Mark] = []
    by_name: dict[str, Leaf] = {}
    maybe: Leaf | None = None
    either: list[Tagged | Other] = []
    frozen: list[Frozen] = []
    flags: set[int] = set()


class Loose(msgspec.Struct, kw_only=True):
    anything: Any = None
    values: list[int] = []


def test_the_generated_copy_shares_nothing_mutable() -> None:
    frozen = Frozen(values=(1, 2))
    root = Root(
        n=3,
        leaves=[Leaf(values=[1]), Leaf(values=[2, 3])],
        grid=[[1, 2], [3]],
        by_name={"a": Leaf(values=[4])},
        maybe=Leaf(values=[5]),
        either=[Tagged(leaf=Leaf(values=[6])), Other(marks={"x": [7]})],
        frozen=[frozen],
        flags={1, 2},
    )
    copy = clone(root)
    assert copy == root and encode(copy) == encode(round_trip_clone(root))
    assert copy.frozen[0] is frozen  # a frozen Struct is a value: shared
    copy.leaves[1].values.append(9)
    copy.grid[0][0] = 0
    copy.by_name["a"].values.clear()
    assert copy.maybe is not None
    copy.maybe.values.append(1)
    tagged, other = copy.either
    assert isinstance(tagged, Tagged) and isinstance(other, Other)
    tagged.leaf.values.append(1)
    other.marks["x"].append(1)
    copy.flags.add(3)
    assert root == Root(
        n=3,
        leaves=[Leaf(values=[1]), Leaf(values=[2, 3])],
        grid=[[1, 2], [3]],
        by_name={"a": Leaf(values=[4])},
        maybe=Leaf(values=[5]),
        either=[Tagged(leaf=Leaf(values=[6])), Other(marks={"x": [7]})],
        frozen=[frozen],
        flags={1, 2},
    )
    assert clone(Root()) == Root() and clone(Root(maybe=None)).maybe is None


def test_a_struct_of_immutable_fields_is_copied_too() -> None:
    root = Root(marks=[Mark(seat=1), Mark(seat=2)])
    copy = clone(root)
    assert copy == root and copy.marks[0] is not root.marks[0]
    copy.marks[0].seat = 5
    assert root.marks == [Mark(seat=1), Mark(seat=2)]


def test_an_empty_list_is_copied_as_a_new_list() -> None:
    root = Root(leaves=[], grid=[], cube=[[], [[1]]], either=[])
    copy = clone(root)
    assert copy == root and encode(copy) == encode(round_trip_clone(root))
    copy.leaves.append(Leaf())
    copy.grid.append([1])
    copy.cube[0].append([2])
    copy.cube[1][0].append(3)
    copy.either.append(Other())
    assert root == Root(leaves=[], grid=[], cube=[[], [[1]]], either=[])


def test_an_unknown_field_type_copies_through_the_round_trip() -> None:
    loose = Loose(anything={"a": [1]}, values=[2])
    copy = cloner_for(Loose)(loose)
    assert copy == loose and copy.anything is not loose.anything


class SubLeaf(Leaf, kw_only=True):
    extra: list[int] = []


def test_a_subclass_in_a_union_is_copied_too() -> None:
    root = Root(maybe=SubLeaf(values=[1], extra=[2]))
    copy = clone(root)
    assert isinstance(copy.maybe, SubLeaf) and copy.maybe == root.maybe
    copy.maybe.extra.append(3)
    assert root.maybe == SubLeaf(values=[1], extra=[2])
