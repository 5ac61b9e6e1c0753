"""The automated opponents of the 1-2 player rules: the seed's AI examples and more."""

from __future__ import annotations

from random import Random

import pytest

from games.fractured_sky import GAME
from games.fractured_sky.ai import airship_region, build_platform, scout_card
from games.fractured_sky.power import ai_faces
from games.fractured_sky.round_end import resolve_region
from games.rejection import Rejected
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import commands as cmd
from orrery_contracts.fractured_sky import events as ev
from tests.fractured_sky.helpers import (
    PLATFORM,
    REGION,
    of_type,
    put_stardust,
    run,
    set_secret,
    started,
)

HUMAN, AI1, AI2 = 0, 1, 2  # solo seating: the person, then the two AIs


def card(large: str, small: str = "n") -> cat.AiCard:
    return cat.AiCard(index=0, action=cat.AI_AIRSHIP, large=large, small=small)


def test_small_table_for_ai_games() -> None:
    for seats, ais in ((1, 2), (2, 1)):
        state = started(seats)
        assert state.participants == 3 and state.slot_count == 3
        assert len(state.regions) == 8
        assert REGION["frosty_fjord"] not in state.regions
        assert state.order[-ais:] == list(range(seats, 3))  # AIs sit last
        assert len(state.ai_out[0]) == 3 and len(state.ai_pool[0]) == 6
        assert len(state.objectives) == (0 if seats == 1 else 5)


def test_ai_places_on_the_most_stardust() -> None:
    state = started(1)
    put_stardust(state, REGION["molten_moor"], 2)
    put_stardust(state, REGION["dreadful_desert"])
    assert airship_region(state, AI1, card("se")) == REGION["molten_moor"]


def test_ai_advantage_then_compass_break_a_stardust_tie() -> None:
    # Torrential Tropics and Dreadful Desert hold the most stardust.
    state = started(1)
    tt, dd = REGION["torrential_tropics"], REGION["dreadful_desert"]
    put_stardust(state, tt)
    put_stardust(state, dd)
    # equal buildings: the compass points south-east, so Dreadful Desert
    assert airship_region(state, AI1, card("se")) == dd
    assert airship_region(state, AI1, card("nw")) == tt
    # AI Advantage first: a building bridged only to Torrential Tropics decides
    state.fortresses[AI1][PLATFORM["p3"]] = 1  # Molten Moor + Torrential Tropics
    assert airship_region(state, AI1, card("se")) == tt


def test_ai_places_elsewhere_when_every_stardust_region_has_its_airship() -> None:
    state = started(1)
    mm = REGION["molten_moor"]
    put_stardust(state, mm)
    state.airships[AI1][mm] = 0
    state.ai_pool[0] = [t for t in state.ai_pool[0] if t != 0] or state.ai_pool[0]
    chosen = airship_region(state, AI1, card("w"))
    assert chosen != mm and chosen == state.regions[0]  # westmost region


def test_ai_build_example() -> None:
    # (A) Dreadful Desert has the most stardust; (B) two 4-bridge platforms touch it;
    # (C) the AI has one market on each; (D) a north-west compass picks the left one.
    state = started(1, difficulty="medium")
    put_stardust(state, REGION["dreadful_desert"], 2)
    state.markets[AI1][PLATFORM["p4"]] = 1
    state.markets[AI1][PLATFORM["p6"]] = 1
    assert build_platform(state, AI1, cat.AI_MARKET, card("nw")) == PLATFORM["p4"]
    assert build_platform(state, AI1, cat.AI_MARKET, card("se")) == PLATFORM["p6"]
    # with a second market on p6, AI Advantage decides before the compass
    state.markets[AI1][PLATFORM["p6"]] = 2
    assert build_platform(state, AI1, cat.AI_MARKET, card("nw")) == PLATFORM["p6"]


def test_ai_scout_example_follows_the_compass() -> None:
    state = started(1)
    state.round = 3
    set_secret(state, [REGION["molten_moor"], REGION["peaceful_plains"], REGION["creepy_cove"]])
    assert scout_card(state, AI1, card("se")) == 2  # east end
    assert scout_card(state, AI1, card("nw")) == 0  # west end
    assert scout_card(state, AI1, card("n", "e")) == 2  # pure north: the small star


def test_token_rotation_example() -> None:
    # The largest token sits in Careening Cliffs, which holds no stardust: the token in
    # Peaceful Plains (with stardust) turns high, every other token low.
    state = started(1)
    cc, pp, mm = REGION["careening_cliffs"], REGION["peaceful_plains"], REGION["molten_moor"]
    row = [-1] * cat.REGION_COUNT
    row[cc], row[pp], row[mm] = 0, 7, 5  # tokens 9/2, 5/2 and 6/3
    board = [0] * cat.REGION_COUNT
    board[pp] = 1
    faces = ai_faces(state, row, board)
    assert faces[cc] == 2 and faces[pp] == 5 and faces[mm] == 3
    # hard: the two highest tokens in stardust regions turn high
    state.difficulty = "hard"
    board[mm] = 1
    faces = ai_faces(state, row, board)
    assert faces[cc] == 2 and faces[pp] == 5 and faces[mm] == 6


def test_ai_takes_only_stardust_but_occupies_its_rank() -> None:
    state = started(2)
    ai = 2
    cove = REGION["creepy_cove"]  # gold + wood
    put_stardust(state, cove)
    state.airships[0][cove] = 6
    state.airships[ai][cove] = 0  # token 9/2
    state.airships[1][cove] = 2
    chips = [[-1] * cat.REGION_COUNT for _ in range(3)]
    chips[0][cove], chips[ai][cove], chips[1][cove] = 6, 4, 2
    outcome = resolve_region(state, chips, cove, [0, 1, 2])
    assert outcome.ranking == [0, ai, 1]
    assert outcome.stardust_seat == 0
    assert not [g for g in outcome.gains if g.seat == ai]  # rank 2 gives the AI nothing
    assert [(c.seat, c.reason) for c in outcome.choices] == [(1, "rank_one")]  # pushed down
    chips[ai][cove] = 9
    outcome = resolve_region(state, chips, cove, [0, 1, 2])
    assert outcome.stardust_seat == ai
    assert sorted((g.seat, g.resource) for g in outcome.gains) == [(0, "gold"), (0, "wood")]


def test_two_taken_resources_open_a_secret_card() -> None:
    state = started(2, start=(4, 0, 0))
    state.round = 2
    pp, mm = REGION["peaceful_plains"], REGION["molten_moor"]
    set_secret(state, [pp, mm])
    run(state, 0, cmd.Scout(card=0))
    run(state, 0, cmd.ScoutTake(resource="gold"))
    assert not state.secret_open[0]
    run(state, 1, cmd.Scout(card=0))
    events = run(state, 1, cmd.ScoutTake(resource="wood"))
    opened = of_type(events, ev.SecretOpened)
    assert len(opened) == 1 and state.secret_open[0]
    assert state.board_stardust[pp] == 1
    assert GAME.view(state, None).secret_cards[0].region == pp
    # an AI scout counts as one taken resource
    state.secret_taken[1] = 1
    state.turn = 2
    from games.fractured_sky.ai import _plan

    scout = cat.AiCard(index=6, action=cat.AI_SCOUT, large="e", small="n")
    planned = _plan(state, 2, scout, scout)
    assert isinstance(planned[0], ev.AiScouted) and planned[0].card == 1
    assert isinstance(planned[1], ev.SecretOpened) and planned[1].region == mm


def test_scouting_does_not_open_cards_with_three_or_more_players() -> None:
    state = started(3, start=(4, 0, 0))
    set_secret(state, [REGION["peaceful_plains"]])
    run(state, 0, cmd.Scout(card=0))
    run(state, 0, cmd.ScoutTake(resource="gold"))
    run(state, 1, cmd.Scout(card=0))
    events = run(state, 1, cmd.ScoutTake(resource="gold"))
    assert not of_type(events, ev.SecretOpened)


def test_ai_turns_run_inside_decide_and_take_slots_1_3_2() -> None:
    state = started(1, difficulty="medium")
    regions = [REGION["molten_moor"], REGION["peaceful_plains"], REGION["creepy_cove"]]
    events: list[ev.EventBody] = []
    for region, chip in zip(regions, (3, 4, 2), strict=True):
        assert GAME.status(state).to_move == (HUMAN,)
        events += run(state, HUMAN, cmd.PlaceAirship(region=region, chip=chip))
        if state.phase == "slot":
            events += run(state, HUMAN, cmd.ChooseSlot(slot=2))
    assert of_type(events, ev.AiCardFlipped)
    assert of_type(events, ev.RoundRevealed)  # the round ended inside the last command
    taken: set[int] = set()
    for event in events:
        if isinstance(event, ev.SlotTaken):
            if event.seat != HUMAN:
                expected = next(s for s in (1, 3, 2) if s not in taken)
                assert event.slot == expected
                assert event.gold == (1 if event.slot == 3 else 0)
            taken.add(event.slot)
    assert taken == {1, 2, 3}


def test_ai_market_card_converts_at_the_threshold() -> None:
    from games.fractured_sky.evolve import FOLDS
    from games.fractured_sky.round_end import convert_ai
    from games.working import Working

    state = started(1, difficulty="hard")
    state.ai_tally = [5, 4]
    events: list[ev.EventBody] = []
    convert_ai(Working(state, FOLDS, events))
    assert [(e.seat, e.stardust) for e in events if isinstance(e, ev.AiConverted)] == [(1, 1)]
    assert state.ai_tally == [0, 4] and state.stardust[AI1] == 1


@pytest.mark.parametrize("seats", [1, 2])
def test_ai_hidden_tokens_and_decks(seats: int) -> None:
    import msgspec

    from games.clone import clone

    state = started(seats)
    run(state, HUMAN, cmd.PlaceAirship(region=REGION["molten_moor"], chip=4))
    while state.turn != HUMAN:
        run(state, state.turn, cmd.PlaceAirship(region=REGION["creepy_cove"], chip=4))
    ai = seats
    placed = [r for r in state.regions if state.airships[ai][r] >= 0]
    assert placed
    other = clone(state)
    other.ai_deck[0].reverse()
    other.ai_pool[0].reverse()
    token = other.airships[ai][placed[0]]
    spare = other.ai_pool[0][0]
    other.airships[ai][placed[0]], other.ai_pool[0][0] = spare, token
    for seat in [*range(seats), None]:
        a = msgspec.json.encode(GAME.view(state, seat))
        b = msgspec.json.encode(GAME.view(other, seat))
        assert a == b


def test_ai_view_shows_public_ai_state_only() -> None:
    state = started(1, difficulty="hard")
    run(state, HUMAN, cmd.PlaceAirship(region=REGION["molten_moor"], chip=4))
    view = GAME.view(state, HUMAN)
    assert view.difficulty == "hard"
    assert [a.seat for a in view.ais] == [AI1, AI2]
    for ai in view.ais:
        assert len(ai.out_tokens) == 3
        assert ai.threshold == 5
        assert ai.cards_left + len(ai.flipped) == len(cat.AI_DECK)
        assert ai.flipped  # each AI flipped at least one card after the person's turn
    assert [p.ai for p in view.players] == [False, True, True]
    for region in view.regions:
        for ship in region.airships:
            if ship.seat != HUMAN:
                assert ship.chip_class == "token" and ship.chip is None
    assert GAME.legal_commands(state, AI1) == []
    with pytest.raises(Rejected) as bad:
        GAME.decide(state, cmd.ChooseSlot(slot=1), AI1, Random(0))
    assert bad.value.code == "not_your_turn"
