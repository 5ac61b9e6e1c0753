"""The seed's explicit numbers, one test each."""

from __future__ import annotations

from random import Random

import pytest

from games.federation import GAME, FederationOptions
from games.federation.choices import mission_ok
from games.federation.counts import level
from games.federation.payments import payments
from games.federation.scoring import final_breakdown, prizes
from games.federation.senate import row_winners
from games.federation.state import initial_state
from games.rejection import Rejected
from games.table import game_options
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st
from tests.federation.helpers import opening, play_until, run_steps, settle


def test_medal_table() -> None:
    s = initial_state(4, "all", "seed", "any")
    got = []
    for n in range(1, 8):
        s.players[0].medals = list(cat.MEDAL_KINDS[:n])
        got.append(final_breakdown(s)[0]["medals"])
    assert got == [1, 3, 6, 10, 15, 22, 30]


def test_other_end_scores() -> None:
    s = initial_state(2, "all", "seed", "any")
    p = s.players[0]
    p.copp, p.lav, p.ocean, p.diamond, p.hangar, p.tokens = 3, 2, 2, 4, 2, [1, 5, 9]
    row = final_breakdown(s)[0]
    # 1 PP per 2 crystals, 1 per diamond, 1 per ship in the hangar, 1 per token
    assert (row["crystals"], row["diamonds"], row["ships"], row["tokens"]) == (3, 4, 2, 3)


@pytest.mark.parametrize(
    ("seats", "values", "expected", "mode"),
    [
        (4, [5, 3, 2, 1], [16, 8, 4, 0], "seed"),
        (4, [5, 5, 2, 1], [12, 12, 4, 0], "seed"),
        (4, [5, 3, 3, 3], [16, 4, 4, 4], "seed"),
        (4, [5, 3, 2, 1], [12, 8, 4, 0], "en"),
        (3, [4, 2, 1], [14, 6, 0], "seed"),
        (3, [3, 3, 1], [10, 10, 0], "seed"),
        (3, [3, 0, 0], [14, 0, 0], "seed"),
        (2, [5, 3], [10, 4], "seed"),  # within 2 levels: 4
        (2, [6, 3], [10, 0], "seed"),  # 3 levels behind: 0
        (2, [4, 4], [7, 7], "seed"),  # tie for first: 7 each
        (2, [3, 5], [4, 10], "seed"),
    ],
)
def test_project_prizes(seats: int, values: list[int], expected: list[int], mode: str) -> None:
    s = initial_state(seats, "all", mode, "any")
    assert prizes(s, values) == expected


def test_project_majority_only_for_projects_at_nine() -> None:
    s = initial_state(3, "all", "seed", "any")
    s.players[0].orange = 5
    s.players[1].orange = 2
    assert [r["projects"] for r in final_breakdown(s)] == [0, 0, 0]
    s.projects[0] = 9  # column 0 = orange influence
    assert [r["projects"] for r in final_breakdown(s)] == [14, 6, 0]


def test_payment_per_authority_level() -> None:
    assert cat.UPKEEP[1] is None and cat.UPKEEP[2] is None
    assert cat.UPKEEP[3] == (0, 0, 0, 1, 0)  # any crystal
    assert cat.UPKEEP[4] == (1, 0, 0, 0, 0)  # coppernium
    assert cat.UPKEEP[5] == (0, 0, 1, 0, 0)  # oceanium


def _upkeep_state(step: int, copp: int, lav: int, ocean: int):  # type: ignore[no-untyped-def]
    s = play_until(opening(2), "turn")
    p = s.players[0]
    p.authority_step, p.copp, p.lav, p.ocean = step, copp, lav, ocean
    return s


def test_upkeep_options_and_drop_rule() -> None:
    s = _upkeep_state(9, 1, 0, 0)  # level 5 but only coppernium: cannot pay level 5
    opts = GAME_OPTS(s)
    assert cmd.Upkeep(level=4, copp=1) in opts
    assert cmd.Upkeep(level=3, copp=1) in opts
    assert cmd.Upkeep(level=2) in opts
    assert not any(isinstance(o, cmd.Upkeep) and o.level == 5 for o in opts)
    after = _decide_front(s, cmd.Upkeep(level=4, copp=1))
    assert after.players[0].authority_step == cat.LEVEL_BOTTOM[4] == 6
    assert after.players[0].copp == 0


def test_upkeep_oceanium_replaces_coppernium_and_paying_keeps_the_step() -> None:
    s = _upkeep_state(7, 0, 0, 1)
    assert cmd.Upkeep(level=4, ocean=1) in GAME_OPTS(s)
    after = _decide_front(s, cmd.Upkeep(level=4, ocean=1))
    assert after.players[0].authority_step == 7 and after.players[0].ocean == 0


def test_upkeep_paying_nothing_drops_to_bottom_of_level_two() -> None:
    s = _upkeep_state(5, 0, 0, 0)  # level 3, no crystal: the only option is automatic
    s2, _ = run_steps(s, st.ChooseUpkeep(seat=0))
    assert s2.players[0].authority_step == 2 and level(s2.players[0]) == 2
    s = _upkeep_state(9, 0, 2, 0)
    after = _decide_front(s, cmd.Upkeep(level=2))
    assert after.players[0].authority_step == 2 and after.players[0].lav == 2


def GAME_OPTS(s):  # type: ignore[no-untyped-def]
    s2, _ = run_steps(s, st.ChooseUpkeep(seat=0))
    assert s2.queue[0].kind == "upkeep"
    return GAME.legal_commands(s2, 0)


def _decide_front(s, command):  # type: ignore[no-untyped-def]
    s2, _ = run_steps(s, st.ChooseUpkeep(seat=0))
    for e in GAME.decide(s2, command, 0, Random(0)):
        s2 = GAME.evolve(s2, e)
    return s2


def test_crystal_cap_discard_is_the_owners_choice() -> None:
    s = play_until(opening(2), "turn")
    p = s.players[1]
    p.copp, p.lav, p.ocean = 5, 3, 4  # 12 crystals
    s2, _ = settle(s)
    assert s2.queue[0].kind == "discard" and GAME.status(s2).to_move == (1,)
    opts = GAME.legal_commands(s2, 1)
    assert all(o.copp + o.lav + o.ocean == 2 for o in opts)  # type: ignore[attr-defined]
    assert cmd.Discard(copp=2) in opts and cmd.Discard(lav=1, ocean=1) in opts
    for e in GAME.decide(s2, cmd.Discard(ocean=2), 1, Random(0)):
        s2 = GAME.evolve(s2, e)
    assert (s2.players[1].copp, s2.players[1].lav, s2.players[1].ocean) == (5, 3, 2)


def test_single_kind_excess_is_discarded_at_once() -> None:
    s = play_until(opening(2), "turn")
    s.players[0].copp = 11
    s2, _ = settle(s)
    assert s2.players[0].copp == 10 and s2.queue[0].kind == "turn"


def test_oceanium_substitutes_for_coppernium_and_lavandium() -> None:
    s = initial_state(2, "all", "seed", "any")
    p = s.players[0]
    p.ocean = 2
    assert payments(p, [[1, 0, 0, 0, 0]]) == [(0, 0, 1, 0)]
    assert payments(p, [[0, 1, 0, 0, 0]]) == [(0, 0, 1, 0)]
    p.copp = 1
    assert sorted(payments(p, [[1, 0, 0, 0, 0]])) == [(0, 0, 1, 0), (1, 0, 0, 0)]
    p.copp, p.ocean, p.lav = 1, 0, 3
    assert payments(p, [[0, 0, 1, 0, 0]]) == []  # nothing replaces oceanium
    assert payments(p, [[1, 0, 0, 0, 0]]) == [(1, 0, 0, 0)]  # lavandium never replaces copp


def test_row_majority_ties_all_score() -> None:
    s = play_until(opening(4), "turn")
    s.space_seat[0], s.space_votes[0] = 0, 3
    s.space_seat[1], s.space_votes[1] = 1, 2
    s.space_seat[2], s.space_votes[2] = 1, 1
    s.space_seat[3], s.space_votes[3] = 2, 1
    assert row_winners(s, 0) == [0, 1]
    s.players[0].authority_step, s.players[1].authority_step = 4, 9  # levels 3 and 5
    before = [p.pp for p in s.players]
    s2, _ = run_steps(s, st.ScoreRows())
    gained = [a.pp - b for a, b in zip(s2.players, before, strict=True)]
    assert gained == [3, 5, 0, 0]


def test_row_majority_counts_the_assistant_die() -> None:
    s = play_until(opening(4), "turn")
    s.space_seat[6], s.space_votes[6] = 0, 3
    s.space_seat[7], s.space_votes[7], s.space_die[7] = 1, 1, True
    s.players[1].die = 4
    assert row_winners(s, 1) == [1]


def _law_state():  # type: ignore[no-untyped-def]
    s = play_until(opening(3), "turn")
    s.space_seat[0], s.space_votes[0] = 0, 3  # left wing
    s.space_seat[3], s.space_votes[3] = 1, 2  # right wing
    s.space_seat[4], s.space_votes[4] = 2, 1
    for i in range(18):
        if s.space_seat[i] == -3:
            s.space_seat[i], s.space_votes[i] = -1, 0
    s.laws = [cat.ORANGE, cat.YELLOW]
    for seat, p in enumerate(s.players):
        p.orange = seat + 1
        p.stalls = [1, 0, 0, 0, 0, 0] if seat == 2 else [0] * 6
    return s


def test_law_tie_is_decided_by_the_start_player() -> None:
    s = _law_state()
    s2, _ = run_steps(s, st.CountLawVotes())
    assert s2.queue[0].kind == "law"
    assert GAME.status(s2).to_move == (s2.start_player,)
    other = (s2.start_player + 1) % 3
    with pytest.raises(Rejected) as err:
        GAME.decide(s2, cmd.LawChoice(side=1), other, Random(0))
    assert err.value.code == "not_your_turn"
    before = [p.pp for p in s2.players]
    events = GAME.decide(s2, cmd.LawChoice(side=1), s2.start_player, Random(0))
    passed = [e for e in events if isinstance(e, ev.LawPassed)]
    assert passed[0].side == 1 and passed[0].planet == cat.YELLOW
    for e in events:
        s2 = GAME.evolve(s2, e)
    assert [p.pp - b for p, b in zip(s2.players, before, strict=True)] == [0, 0, 2]


def test_law_majority_side_passes_and_scores_influence_times_two() -> None:
    s = _law_state()
    s.space_votes[0] = 4  # left 4 vs right 3: the orange law
    before = [p.pp for p in s.players]
    s2, events = run_steps(s, st.CountLawVotes())
    assert any(isinstance(e, ev.LawPassed) and e.planet == cat.ORANGE for e in events)
    assert [p.pp - b for p, b in zip(s2.players, before, strict=True)] == [2, 4, 6]


def test_law_majority_option_scores_only_the_top() -> None:
    s = _law_state()
    s.law_mode = "majority"
    s.space_votes[0] = 4
    before = [p.pp for p in s.players]
    s2, _ = run_steps(s, st.CountLawVotes())
    assert [p.pp - b for p, b in zip(s2.players, before, strict=True)] == [0, 0, 6]


def test_megastructure_scores_the_smaller_criterion_times_the_slot() -> None:
    s = play_until(opening(2), "turn")
    s.mega[0] = (cat.MEGA_CRITERIA.index("medals"), cat.MEGA_CRITERIA.index("alteration_tokens"))
    p = s.players[0]
    p.medals, p.tokens = ["orange", "blue"], [1, 2, 3]
    p.diamond, p.copp, p.lav, p.ocean = 0, 3, 0, 0
    s2, _ = run_steps(s, st.ChooseStructure(seat=0))
    before = s2.players[0].pp
    for e in GAME.decide(s2, cmd.Build(structure=cat.N_PRODUCTION), 0, Random(0)):
        s2 = GAME.evolve(s2, e)
    assert s2.players[0].pp - before == 2 * 3  # min(2 medals, 3 tokens) x 3
    assert s2.players[0].copp == 0  # paid 3 crystals
    assert s2.mega_filled[0] == 1
    # the next builder gets the x2 slot
    q = s2.players[1]
    q.medals, q.tokens, q.copp, q.lav, q.ocean, q.diamond = ["green"], [4, 5], 3, 0, 0, 0
    s3, _ = run_steps(s2, st.ChooseStructure(seat=1))
    before = s3.players[1].pp
    for e in GAME.decide(s3, cmd.Build(structure=cat.N_PRODUCTION), 1, Random(0)):
        s3 = GAME.evolve(s3, e)
    assert s3.players[1].pp - before == 1 * 2


def test_mission_conditions() -> None:
    s = initial_state(2, "all", "seed", "any")
    p = s.players[0]
    p.authority_step = 2  # level 2
    p.hangar = cat.START_SHIPS  # what the setup event puts in the hangar
    m = cat.ORANGE
    assert not mission_ok(s, 0, m)  # no check
    p.checks[m] = True
    assert mission_ok(s, 0, m)
    p.hangar = 0
    assert not mission_ok(s, 0, m)  # no ship in the hangar
    p.hangar = 1
    assert not mission_ok(s, 0, cat.GREEN) and not mission_ok(s, 0, cat.I_SHIPS)
    p.checks[cat.GREEN] = True
    assert not mission_ok(s, 0, cat.GREEN)  # needs level 3
    p.authority_step = 4
    assert mission_ok(s, 0, cat.GREEN)
    p.missions[m] = True
    assert not mission_ok(s, 0, m)  # once per game
    p.missions = [True] * 8 + [False] * 4
    p.checks = [True] * 12
    p.authority_step, p.hangar = 9, 1
    assert not mission_ok(s, 0, 10)  # at most 8 missions


def test_mission_sends_a_ship_and_scores() -> None:
    s = play_until(opening(2), "post")
    seat = s.queue[0].seat
    p = s.players[seat]
    p.checks[cat.I_SHIPS] = True
    p.authority_step, p.hangar = 9, 2
    assert cmd.Mission(mission=cat.I_SHIPS) in GAME.legal_commands(s, seat)
    before = p.pp
    s2 = s
    for e in GAME.decide(s, cmd.Mission(mission=cat.I_SHIPS), seat, Random(0)):
        s2 = GAME.evolve(s2, e)
    q = s2.players[seat]
    assert q.missions[cat.I_SHIPS] and q.hangar == 1
    assert q.pp - before >= 2 * 5  # 2 PP x level 5


def test_authority_medal_on_step_eight_and_pp_at_the_top() -> None:
    s = play_until(opening(2), "turn")
    s.players[0].authority_step = 7
    s.deep_space = []
    before = s.players[0].pp
    s2, _ = run_steps(s, st.GainAuthority(seat=0, steps=4))
    p = s2.players[0]
    assert p.authority_step == 9 and "authority" in p.medals
    assert p.pp - before == 2  # two gains while at the top


def test_planet_medals_by_threshold_once_per_planet() -> None:
    s = play_until(opening(2), "turn")  # 2 players: thresholds 4, 6
    s.players[0].orange = 4
    s2, _ = settle(s)
    assert "orange" in s2.players[0].medals and s2.medal_supply["orange"] == (6,)
    s2.players[1].orange = 5
    s3, _ = settle(s2)
    assert "orange" not in s3.players[1].medals  # the next medal needs 6
    s3.players[0].orange = 8
    s4, _ = settle(s3)
    assert s4.players[0].medals.count("orange") == 1


def test_options_are_validated() -> None:
    """The options' ``Literal`` fields are the only check: the table's decode refuses any
    other value (``bad_options``); the seat range is declared once, on the game."""
    for bad in ({"law_effect": "x"}, {"project_prizes": "x"}, {"president_medal": "x"}):
        with pytest.raises(Rejected) as refused:
            game_options(GAME, bad)
        assert refused.value.code == "bad_options"
    assert game_options(GAME, {"law_effect": "majority"}) == FederationOptions(
        law_effect="majority"
    )
    assert (GAME.min_seats, GAME.max_seats) == (2, 4)
