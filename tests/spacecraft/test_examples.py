"""The seed rule text's worked examples: builds, board limits, junkyard movement."""

from __future__ import annotations

import pytest

from games.rejection import Rejected
from games.spacecraft import GAME
from games.spacecraft.junkyard import has_visit_target, must_leave, search_moves, visit_targets
from games.spacecraft.state import SpacecraftState
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import Build, EndTurn, Leave, Search, Visit
from tests.spacecraft.support import J, apply, beside, cell, empty_junkyard, slot_of, started

# The seed's workshop: screw under the white fins, gear under the gold nose / blue connector,
# cable under the white body, propeller under the white engine.
SEED_TOKENS = [
    J["screw"],
    J["gear"],
    J["cable"],
    J["bulb"],
    J["battery"],
    J["propeller"],
    J["tape"],
]


def _in_build_step(seat: int, junk: list[int]) -> SpacecraftState:
    state = started(3)
    state.tokens = list(SEED_TOKENS)
    state.current = seat
    state.step = "build"
    state.beside[seat] = junk
    return state


def test_peter_white_fin_from_two_screws_and_gold_nose_from_gear_and_bulb() -> None:
    state = _in_build_step(0, beside(screw=2, gear=1, bulb=1))
    apply(state, Build(slot=slot_of("fin.W"), pay=["screw", "screw"]), 0)
    apply(state, Build(slot=slot_of("nose.G"), pay=["gear", "bulb"]), 0)
    kinds = sorted(p.kind for p in state.rockets[0])
    assert kinds == ["body.K", "fin.W", "nose.G"]
    assert state.beside[0] == [0] * cat.N_JUNK
    assert state.paid[J["screw"]] == 2 and state.paid[J["gear"]] == 1
    assert state.supply[slot_of("fin.W")] == 2 and state.supply[slot_of("nose.G")] == 1


def test_michael_white_body_from_one_cable_and_blue_connector_with_surplus_lost() -> None:
    state = _in_build_step(1, beside(cable=1, gear=1, battery=1))
    apply(state, Build(slot=slot_of("body.W"), pay=["cable"]), 1)
    events = apply(state, Build(slot=slot_of("connector.B"), pay=["gear", "battery"]), 1)
    assert sum(cat.JUNK_WEIGHT[t] for t in events[0].paid) == 4  # type: ignore[attr-defined]
    assert cat.PART_WEIGHT["connector"] == 3  # one weight point is simply lost
    assert sorted(p.kind for p in state.rockets[1]) == ["body.K", "body.W", "connector.B"]
    assert sum(state.beside[1]) == 0


def test_agatha_white_engine_from_propeller_and_bulb_keeps_other_propeller() -> None:
    state = _in_build_step(2, beside(propeller=2, bulb=1))
    apply(state, Build(slot=slot_of("engine.W"), pay=["propeller", "bulb"]), 2)
    assert state.beside[2] == beside(propeller=1)
    assert any(p.kind == "engine.W" for p in state.rockets[2])


def test_build_rejections() -> None:
    state = _in_build_step(0, beside(screw=1, bulb=2, battery=1))
    for command, code in [
        (Build(slot=slot_of("fin.W"), pay=["screw"]), "cannot_afford"),  # weight 1 < 2
        (Build(slot=slot_of("fin.W"), pay=["bulb", "bulb"]), "missing_required_junk"),
        (Build(slot=slot_of("nose.G"), pay=["bulb", "battery"]), "missing_required_junk"),
        (Build(slot=slot_of("fin.W"), pay=["screw", "gear"]), "cannot_afford"),  # no gear
        (Build(slot=slot_of("fin.W"), pay=["nail"]), "bad_resource"),
        (Build(slot=99, pay=["screw"]), "no_such_slot"),
    ]:
        with pytest.raises(Rejected) as info:
            GAME.decide(state, command, 0, None)  # type: ignore[arg-type]
        assert info.value.code == code
    state.supply[slot_of("fin.W")] = 0
    with pytest.raises(Rejected) as info:
        GAME.decide(state, Build(slot=slot_of("fin.W"), pay=["screw", "bulb"]), 0, None)  # type: ignore[arg-type]
    assert info.value.code == "sold_out"


def test_build_limit_two_parts_and_part_that_cannot_fit() -> None:
    state = _in_build_step(0, beside(screw=6, bulb=6))
    apply(state, Build(slot=slot_of("fin.W"), pay=["screw", "screw"]), 0)
    apply(state, Build(slot=slot_of("fin.W"), pay=["screw", "bulb"]), 0)
    with pytest.raises(Rejected) as info:
        GAME.decide(state, Build(slot=slot_of("fin.W"), pay=["screw", "bulb"]), 0, None)  # type: ignore[arg-type]
    assert info.value.code == "build_limit"
    # a third fin on a rocket with one body cannot fit even after rearranging
    state.builds = 0
    with pytest.raises(Rejected) as info:
        GAME.decide(state, Build(slot=slot_of("fin.W"), pay=["screw", "bulb"]), 0, None)  # type: ignore[arg-type]
    assert info.value.code == "does_not_fit"
    # the engine still fits under the grey body
    state.tokens[0] = J["screw"]
    apply(state, Build(slot=slot_of("engine.R"), pay=["screw", "bulb", "bulb", "screw"]), 0)


# ------------------------------------------------------------------------- board limits


def _on_junkyard(board: list[str]) -> SpacecraftState:
    state = started(3)
    empty_junkyard(state, tile="cable")
    state.pawns[0] = cell(state, 2, 2)
    state.boards[0] = [J[t] for t in board]
    return state


def test_board_with_four_tiles_must_leave() -> None:
    state = _on_junkyard(["screw", "screw", "bulb", "bulb"])
    state.piles[cell(state, 3, 2)] = (J["screw"],)
    assert must_leave(state, 0)
    assert [type(c) for c in GAME.legal_commands(state, 0)] == [Leave]
    with pytest.raises(Rejected) as info:
        GAME.decide(state, Search(x=3, y=2), 0, None)  # type: ignore[arg-type]
    assert info.value.code == "board_full"


def test_board_weight_seven_must_leave_and_heavier_search_is_illegal() -> None:
    state = _on_junkyard(["cable", "gear", "screw"])  # weight 6, only cables around
    with pytest.raises(Rejected) as info:
        GAME.decide(state, Search(x=3, y=2), 0, None)  # type: ignore[arg-type]
    assert info.value.code == "too_heavy"
    assert must_leave(state, 0)
    state.piles[cell(state, 3, 2)] = (J["bulb"],)  # a light tile makes weight 7 possible
    apply(state, Search(x=3, y=2), 0)
    assert sum(cat.JUNK_WEIGHT[t] for t in state.boards[0]) == 7
    state.current = 0
    assert must_leave(state, 0)
    events = apply(state, Leave(), 0)
    assert state.beside[0][J["bulb"]] == 1 and state.boards[0] == [] and state.pawns[0] == -1
    assert events[0].tiles  # type: ignore[attr-defined]
    apply(state, EndTurn(), 0)


# ------------------------------------------------------------------------- junkyard moves


def test_visit_edge_piles_and_piles_behind_empty_spaces() -> None:
    state = started(3)
    empty_junkyard(state)
    edge = {cell(state, x, y) for x in range(5) for y in range(5) if x in (0, 4) or y in (0, 4)}
    assert set(visit_targets(state)) == edge
    state.piles[cell(state, 0, 2)] = ()  # emptied edge space opens (1, 2)
    state.pawns[1] = cell(state, 4, 4)  # a pawn's pile cannot be entered
    targets = set(visit_targets(state))
    assert cell(state, 1, 2) in targets
    assert cell(state, 0, 2) not in targets and cell(state, 4, 4) not in targets
    assert cell(state, 2, 2) not in targets
    with pytest.raises(Rejected) as info:
        GAME.decide(state, Visit(x=2, y=2), 0, None)  # type: ignore[arg-type]
    assert info.value.code == "illegal_move"


def test_a_pile_to_visit_exists_exactly_when_visit_targets_lists_one() -> None:
    """``has_visit_target`` (checked at every turn's end, edge first) agrees with
    ``visit_targets`` when the edge is free, emptied, held by pawns, or all gone."""
    state = started(4)
    empty_junkyard(state)
    edge = [cell(state, x, y) for x in range(5) for y in range(5) if x in (0, 4) or y in (0, 4)]
    inner = [c for c in range(25) if c not in edge]

    def agree() -> bool:
        found = has_visit_target(state)
        assert found == bool(visit_targets(state))
        return found

    assert agree()
    for c in edge:  # an emptied edge: the inner piles next to it become reachable
        state.piles[c] = ()
    assert agree()
    for c in inner:
        if c != cell(state, 2, 2):
            state.piles[c] = ()
    assert agree()  # (2, 2) reachable through the empty spaces
    state.pawns[0] = cell(state, 2, 2)
    assert not agree()  # the last pile holds a pawn
    empty_junkyard(state)
    state.pawns = [edge[0], edge[1], edge[2], edge[3]]
    for c in edge[4:]:
        state.piles[c] = ()
    assert agree()  # the edge's piles all hold pawns; the inner ones lie open
    for c in inner:
        state.piles[c] = ()
    assert not agree()


def test_search_adjacent_or_farthest_blocked_by_pawns_and_empty_spaces() -> None:
    state = started(4)
    empty_junkyard(state)
    state.pawns = [cell(state, 0, 2), cell(state, 3, 2), -1, -1]
    state.piles[cell(state, 0, 4)] = ()
    # seat 0 at (0,2): right -> (1,2) adjacent, (2,2) farthest before the pawn at (3,2);
    # up -> (0,3) only (empty space at (0,4)); down -> (0,1), (0,0); left is off the board.
    assert set(search_moves(state, 0)) == {
        cell(state, 1, 2),
        cell(state, 2, 2),
        cell(state, 0, 3),
        cell(state, 0, 1),
        cell(state, 0, 0),
    }


def test_pawn_on_emptied_pile_may_still_search_and_fully_blocked_pawn_must_leave() -> None:
    state = started(4)
    empty_junkyard(state)
    state.pawns = [cell(state, 2, 2), cell(state, 0, 0), -1, -1]
    state.piles[cell(state, 2, 2)] = ()  # Karl took the last tile of his pile
    state.boards[0] = [J["screw"]]
    assert len(search_moves(state, 0)) == 8
    state.current = 0
    apply(state, Search(x=2, y=4), 0)
    # Agatha at (0,0): an empty space to the right, a pawn above, the board edge elsewhere
    state.pawns = [-1, cell(state, 0, 0), cell(state, 0, 1), -1]
    state.piles[cell(state, 1, 0)] = ()
    state.boards[1] = [J["screw"]]
    assert search_moves(state, 1) == []
    assert must_leave(state, 1)
