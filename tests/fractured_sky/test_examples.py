"""The worked examples of the rule text, with the numbers from the text."""

from __future__ import annotations

import pytest

from games.fractured_sky import GAME
from games.fractured_sky.power import adjusted_chips
from games.fractured_sky.state import PHASE_REWARDS, PHASE_SLOT
from games.rejection import Rejected
from orrery_contracts.fractured_sky import commands as cmd
from orrery_contracts.fractured_sky import events as ev
from tests.fractured_sky.helpers import (
    PLATFORM,
    REGION,
    answer_all,
    of_type,
    play_round,
    put_stardust,
    resolved,
    run,
    set_secret,
    started,
)

YELLOW, BLUE, RED, GREEN = 0, 1, 2, 3
CC = REGION["creepy_cove"]  # gold + wood (the reward example's resources)
FILLERS = [REGION["careening_cliffs"], REGION["molten_moor"]]


def test_twelve_power_is_reduced_by_two_on_every_chip() -> None:
    state = started(3)
    state.airships[0][REGION["molten_moor"]] = 10
    state.airships[0][REGION["creepy_cove"]] = 2
    state.airships[0][REGION["dreadful_desert"]] = 0
    state.airships[1][REGION["molten_moor"]] = 7
    state.airships[1][REGION["creepy_cove"]] = 5
    state.airships[1][REGION["dreadful_desert"]] = 0
    chips, excess = adjusted_chips(state)
    assert excess[0] == 2 and excess[1] == 2 and excess[2] == 0
    assert chips[0][REGION["molten_moor"]] == 8
    assert chips[0][REGION["creepy_cove"]] == 0
    assert chips[0][REGION["dreadful_desert"]] == 0  # floored at 0
    assert chips[1][REGION["molten_moor"]] == 5
    assert chips[1][REGION["creepy_cove"]] == 3


def test_twelve_power_reduction_through_a_round() -> None:
    state = started(3)
    set_secret(state, [REGION["peaceful_plains"]])
    mm, dd, pp = REGION["molten_moor"], REGION["dreadful_desert"], REGION["sinister_spires"]
    events = play_round(
        state,
        {
            0: [(mm, 10), (dd, 2), (pp, 0)],
            1: [(mm, 9), (dd, 1), (pp, 0)],
            2: [(CC, 1)] * 0 + [(CC, 1), (FILLERS[0], 0), (FILLERS[1], 0)],
        },
        slots={0: 1, 1: 2, 2: 3},
    )
    reveal = of_type(events, ev.RoundRevealed)[0]
    assert isinstance(reveal, ev.RoundRevealed)
    assert reveal.excess == [2, 0, 0]
    assert reveal.chips[0][mm] == 8 and reveal.chips[0][dd] == 0
    # seat 1 (power 9) beats seat 0 (12 reduced to 8) in Molten Moor
    assert resolved(events, mm).ranking == [1, 0]
    # seat 0's 2-chip fell to 0: not eligible in Dreadful Desert
    assert resolved(events, dd).ranking == [1]


def _region_example() -> tuple[object, list[ev.EventBody]]:
    state = started(4, start=(1, 0, 2))
    put_stardust(state, CC)
    set_secret(state, [REGION["careening_cliffs"]])
    # green builds a market on a platform bridged to Creepy Cove (1 gold + 2 wood)
    state.turn = GREEN
    run(state, GREEN, cmd.BuildMarket(platform=PLATFORM["p7"]))
    state.turn = YELLOW
    others = [REGION["molten_moor"], REGION["peaceful_plains"]]
    placements = {
        YELLOW: [(CC, 4), (others[0], 0), (others[1], 0)],
        BLUE: [(CC, 3), (others[0], 0), (others[1], 0)],
        RED: [(CC, 2), (others[0], 0), (others[1], 0)],
        GREEN: [(CC, 1), (others[0], 0), (others[1], 0)],
    }
    events = play_round(state, placements, slots={YELLOW: 1, BLUE: 2, RED: 3, GREEN: 4})
    return state, events


def test_four_player_region_example() -> None:
    state, events = _region_example()
    outcome = resolved(events, CC)
    assert outcome.power[YELLOW] == 4 and outcome.power[GREEN] == 1
    assert outcome.ranking == [YELLOW, BLUE, RED, GREEN]
    # 1st: yellow takes the stardust
    assert outcome.stardust_seat == YELLOW and outcome.stardust == 1
    # 2nd: blue takes gold + wood
    assert sorted((g.seat, g.resource) for g in outcome.gains) == [
        (BLUE, "gold"),
        (BLUE, "wood"),
    ]
    # 3rd: red chooses one resource; 4th: green gets nothing from the rank but its market
    assert [(c.seat, c.reason) for c in outcome.choices] == [(RED, "rank_one"), (GREEN, "market")]
    assert state.phase == PHASE_REWARDS  # type: ignore[attr-defined]
    assert GAME.status(state).to_move == (RED, GREEN)  # type: ignore[arg-type]
    before_red = list(state.resources[RED])  # type: ignore[attr-defined]
    before_green = list(state.resources[GREEN])  # type: ignore[attr-defined]
    with pytest.raises(Rejected) as bad:
        run(state, RED, cmd.ChooseResource(resource="iron"))  # type: ignore[arg-type]
    assert bad.value.code == "not_an_option"
    run(state, RED, cmd.ChooseResource(resource="wood"))  # type: ignore[arg-type]
    run(state, GREEN, cmd.ChooseResource(resource="wood"))  # type: ignore[arg-type]
    assert state.resources[RED][2] == before_red[2] + 1  # type: ignore[attr-defined]
    assert state.resources[GREEN][2] == before_green[2] + 1  # type: ignore[attr-defined]
    assert state.stardust[YELLOW] >= 1  # type: ignore[attr-defined]
    assert state.round == 2 and state.phase == "play"  # type: ignore[attr-defined]


def test_zero_chip_is_ineligible_unless_a_fortress_lifts_it() -> None:
    state = started(3, start=(0, 4, 0))
    put_stardust(state, CC)
    set_secret(state, [REGION["careening_cliffs"]])
    state.turn = 1
    run(state, 1, cmd.BuildFortress(platform=PLATFORM["p8"]))  # bridged to Creepy Cove
    state.turn = 0
    mm, pp = REGION["molten_moor"], REGION["peaceful_plains"]
    events = play_round(
        state,
        {
            0: [(CC, 0), (mm, 0), (pp, 1)],
            1: [(CC, 0), (mm, 0), (pp, 2)],
            2: [(mm, 3), (pp, 4), (CC, 0)],
        },
        slots={0: 1, 1: 2, 2: 3},
    )
    outcome = resolved(events, CC)
    assert outcome.power == [0, 1, 0]
    assert outcome.ranking == [1]
    assert outcome.stardust_seat == 1


def test_ties_go_to_the_earlier_end_of_round_turn_order() -> None:
    state = started(3)
    put_stardust(state, CC)
    set_secret(state, [REGION["careening_cliffs"]])
    mm, pp = REGION["molten_moor"], REGION["peaceful_plains"]
    events = play_round(
        state,
        {
            0: [(CC, 3), (mm, 0), (pp, 0)],
            1: [(CC, 3), (mm, 0), (pp, 0)],
            2: [(CC, 2), (mm, 0), (pp, 0)],
        },
        # seat 1 finishes second but takes slot 1 of the next column, seat 0 slot 2
        slots={0: 2, 1: 1, 2: 3},
    )
    outcome = resolved(events, CC)
    assert outcome.ranking == [1, 0, 2]
    assert outcome.stardust_seat == 1


def test_final_tie_break_by_the_last_turn_order() -> None:
    # Round 5 ends with the column green, red, yellow, blue; green and yellow tie.
    state = started(4)
    state.stardust = [5, 3, 2, 5]
    state.order = [GREEN, RED, YELLOW, BLUE]
    standing = GAME.score(state)
    assert standing.ranks[GREEN] == 1 and standing.ranks[YELLOW] == 2
    assert standing.points == (5, 3, 2, 5)


def test_unclaimed_stardust_stays_for_the_next_round() -> None:
    state = started(3)
    ww = REGION["torrential_tropics"]
    put_stardust(state, ww)
    set_secret(state, [REGION["careening_cliffs"]])
    mm, pp, dd = REGION["molten_moor"], REGION["peaceful_plains"], REGION["dreadful_desert"]
    events = play_round(
        state,
        {
            0: [(mm, 1), (pp, 0), (dd, 0)],
            1: [(mm, 2), (pp, 0), (dd, 0)],
            2: [(mm, 3), (pp, 0), (dd, 0)],
        },
        slots={0: 1, 1: 2, 2: 3},
    )
    assert resolved(events, ww).stardust_seat == -1
    answer_all(state)
    assert state.round == 2
    assert state.board_stardust[ww] >= 1  # still there (plus a new public card maybe)
    # nobody eligible in Careening Cliffs either: its secret stardust stays as well
    assert state.board_stardust[REGION["careening_cliffs"]] >= 1


def test_secret_stardust_can_match_the_public_card() -> None:
    state = started(4)
    ss = REGION["sinister_spires"]
    put_stardust(state, ss)  # the public card
    state.round = 3
    set_secret(state, [REGION["dreadful_desert"], REGION["peaceful_plains"], ss])
    reveal_events = play_round(
        state,
        {
            s: [
                (REGION["careening_cliffs"], 0),
                (REGION["molten_moor"], 0),
                (REGION["creepy_cove"], 1),
            ]
            for s in range(4)
        },
        slots={0: 1, 1: 2, 2: 3, 3: 4},
    )
    reveal = of_type(reveal_events, ev.RoundRevealed)[0]
    assert isinstance(reveal, ev.RoundRevealed)
    assert reveal.stardust_placed[ss] == 1
    assert reveal.stardust_placed[REGION["dreadful_desert"]] == 1
    assert reveal.stardust_placed[REGION["peaceful_plains"]] == 1
    assert state.board_stardust[ss] >= 2  # public + secret, nobody there to take them


def test_exploration_slot_draws_a_private_secret_card() -> None:
    state = started(4)
    set_secret(state, [REGION["peaceful_plains"]])
    state.secret_deck = [REGION["molten_moor"]] + [
        r for r in state.secret_deck if r != REGION["molten_moor"]
    ]
    cliffs = REGION["careening_cliffs"]
    events = run(state, YELLOW, cmd.PlaceAirship(region=cliffs, chip=5))
    placed = of_type(events, ev.AirshipPlaced)[0]
    assert isinstance(placed, ev.AirshipPlaced) and placed.explorer
    assert state.drawn[YELLOW] == [REGION["molten_moor"]]
    assert GAME.view(state, YELLOW).my_drawn == [REGION["molten_moor"]]
    assert GAME.view(state, BLUE).my_drawn == []
    # the second airship in the region does not explore
    events = run(state, BLUE, cmd.PlaceAirship(region=cliffs, chip=5))
    placed = of_type(events, ev.AirshipPlaced)[0]
    assert isinstance(placed, ev.AirshipPlaced) and not placed.explorer
    assert not of_type(events, ev.ExplorationDrawn)


def test_scouting_example() -> None:
    # Round 3: three secret cards; yellow pays 2 gold and scouts the third: Sinister Spires.
    state = started(4, start=(3, 0, 1))
    state.round = 3
    ss = REGION["sinister_spires"]
    set_secret(state, [REGION["dreadful_desert"], REGION["peaceful_plains"], ss])
    run(state, YELLOW, cmd.Scout(card=2))
    assert state.resources[YELLOW][0] == 1
    mine = GAME.view(state, YELLOW)
    assert mine.secret_cards[2].region == ss
    assert GAME.view(state, BLUE).secret_cards[2].region is None
    assert GAME.view(state, None).secret_cards[2].region is None
    assert GAME.status(state).to_move == (YELLOW,)
    with pytest.raises(Rejected) as bad:
        run(state, YELLOW, cmd.ScoutTake(resource="wood"))
    assert bad.value.code == "not_an_option"
    run(state, YELLOW, cmd.ScoutTake(resource="gold"))
    assert state.resources[YELLOW][0] == 2
    mark = GAME.view(state, RED).secret_cards[2].scouts
    assert [(m.seat, m.resource) for m in mark] == [(YELLOW, "gold")]
    assert state.turn == BLUE
    # blue may scout the same card; yellow may not scout it again
    state.resources[BLUE] = [1, 0, 2]
    run(state, BLUE, cmd.Trade(gold=0, iron=0, wood=2, get="gold"))  # free action
    assert state.resources[BLUE] == [2, 0, 0] and state.turn == BLUE
    run(state, BLUE, cmd.Scout(card=2))
    run(state, BLUE, cmd.ScoutTake())
    marks = GAME.view(state, None).secret_cards[2].scouts
    assert [(m.seat, m.resource) for m in marks] == [(YELLOW, "gold"), (BLUE, None)]
    state.turn = YELLOW
    with pytest.raises(Rejected) as again:
        run(state, YELLOW, cmd.Scout(card=2))
    assert again.value.code == "already_scouted"


def test_peek_example() -> None:
    # Yellow spends 1 iron + 1 wood to peek at the third objective and marks it.
    state = started(4, start=(1, 1, 2))
    run(state, YELLOW, cmd.Peek(objective=2, gold=0, iron=1, wood=1))
    assert state.resources[YELLOW] == [1, 0, 1]
    assert GAME.view(state, YELLOW).objectives[2].card == state.objectives[2]
    assert GAME.view(state, BLUE).objectives[2].card is None
    assert GAME.view(state, BLUE).objectives[2].peeked_by == [YELLOW]
    state.turn = YELLOW
    with pytest.raises(Rejected) as again:
        run(state, YELLOW, cmd.Peek(objective=2, gold=1, iron=0, wood=1))
    assert again.value.code == "already_peeked"
    # the card stays visible to yellow (not a memory game)
    assert GAME.view(state, YELLOW).objectives[2].card == state.objectives[2]


def test_turn_slot_gold_in_the_four_player_example() -> None:
    state = started(4)
    mm, pp, cc = REGION["molten_moor"], REGION["peaceful_plains"], REGION["careening_cliffs"]
    # yellow finishes its three airships while the others place theirs
    for region in (mm, pp, cc):
        for seat in (YELLOW, BLUE, RED, GREEN):
            if state.turn != seat:
                continue
            run(state, seat, cmd.PlaceAirship(region=region, chip=0 if region != cc else 1))
            if state.phase == PHASE_SLOT:
                break
    assert state.phase == PHASE_SLOT and state.turn == YELLOW
    legal = GAME.legal_commands(state, YELLOW)
    assert sorted(c.slot for c in legal if isinstance(c, cmd.ChooseSlot)) == [1, 2, 3, 4]
    with pytest.raises(Rejected) as five:
        run(state, YELLOW, cmd.ChooseSlot(slot=5))
    assert five.value.code == "slot_unavailable"
    gold = state.resources[YELLOW][0]
    events = run(state, YELLOW, cmd.ChooseSlot(slot=4))
    taken = of_type(events, ev.SlotTaken)[0]
    assert isinstance(taken, ev.SlotTaken) and taken.gold == 1
    assert state.resources[YELLOW][0] == gold + 1
    # yellow is skipped for the rest of the round (only free trades remain, at any time)
    assert state.turn == BLUE
    assert all(isinstance(c, cmd.Trade) for c in GAME.legal_commands(state, YELLOW))
    assert YELLOW not in GAME.status(state).to_move


def test_setup_gold_on_covered_gold_icons() -> None:
    from random import Random

    for seats, golden in ((3, {3}), (4, {4}), (5, {4, 5})):
        (setup,) = GAME.setup(GAME.options_type(), seats, Random(seats))
        assert isinstance(setup, ev.GameSetUp)
        for slot, seat in enumerate(setup.order, start=1):
            assert setup.setup_gold[seat] == (1 if slot in golden else 0)
        assert setup.slot_count == (3 if seats == 3 else 5)
        assert len(setup.regions) == (8 if seats == 3 else 10)
        assert len(setup.secret_cards) == 1
        assert len(setup.objectives) == 5 and min(setup.objectives) >= 0
