"""Turn flow, setup order, laws, 2-3 player blocking and the placement rules."""

from __future__ import annotations

from random import Random

import pytest

from games.clone import clone
from games.federation import GAME, FederationOptions
from games.federation.state import FederationState
from games.playthrough import play_random
from games.rejection import Rejected
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st
from tests.federation.helpers import opening, play_until, run_steps


def apply(s: FederationState, command: CommandBody, seat: int | None = None) -> FederationState:
    if seat is None:
        seat = s.queue[0].seat
    s = clone(s)
    for e in GAME.decide(s, command, seat, Random(0)):
        s = GAME.evolve(s, e)
    return s


def rejected(s: FederationState, command: CommandBody, seat: int | None = None) -> str:
    with pytest.raises(Rejected) as err:
        GAME.decide(s, command, s.queue[0].seat if seat is None else seat, Random(0))
    return err.value.code


def test_start_tiles_revealed_and_picked_in_reverse_order() -> None:
    for seats in (2, 3, 4):
        s = opening(seats, seed=11)
        assert len(s.start_tiles) == seats + 1
        order = []
        while s.queue[0].kind == "start_pick":
            seat = s.queue[0].seat
            order.append(seat)
            s = apply(s, GAME.legal_commands(s, seat)[0])
        last = (s.start_player + seats - 1) % seats
        assert order[0] == last
        assert order == [(last - i) % seats for i in range(seats)]
        assert all(p.start_tile >= 0 and p.tile_missions == 1 for p in s.players)
        assert len(s.deep_space) == seats + 1


def test_laws_never_repeat_a_planet_and_round_four_reveals_round_five() -> None:
    for seed in range(8):
        result = play_random(GAME, FederationOptions(), 2 + seed % 3, seed)
        starts = [e for e in result.events if isinstance(e, ev.RoundStarted)]
        assert [e.round for e in starts] == [1, 2, 3, 4, 5]
        assert all(e.left_law != e.right_law for e in starts)
        assert sorted(e.left_law for e in starts) == [0, 1, 2, 3, 4]
        assert sorted(e.right_law for e in starts) == [0, 1, 2, 3, 4]
        assert starts[3].next_laws == [starts[4].left_law, starts[4].right_law]
        assert [len(e.next_laws) for e in starts] == [0, 0, 0, 2, 0]


@pytest.mark.parametrize(("seats", "blocked", "neutral"), [(2, 4, 6), (3, 2, 3), (4, 0, 0)])
def test_blocked_spaces_and_neutral_votes(seats: int, blocked: int, neutral: int) -> None:
    result = play_random(GAME, FederationOptions(), seats, 3)
    for e in result.events:
        if isinstance(e, ev.RoundStarted):
            assert len(e.blocked) == blocked and len(e.neutral) == neutral
            assert not set(e.blocked) & set(e.neutral)
            assert sorted(b % 6 < 3 for b in e.blocked).count(True) == blocked // 2
            assert sorted(i // 6 for i in e.neutral) == sorted(list(range(3)) * (neutral // 3))


def _turn(seats: int = 4, seed: int = 2) -> FederationState:
    s = play_until(opening(seats, seed=seed), "turn")
    seat = s.queue[0].seat
    p = s.players[seat]
    p.copp = p.lav = p.ocean = p.diamond = 0
    p.die, p.tokens = -1, []
    return s


def test_placement_rejections() -> None:
    s = _turn(3)
    seat = s.queue[0].seat
    other = (seat + 1) % 3
    assert rejected(s, cmd.Place(ambassador=0, space=0), other) == "not_your_turn"
    assert rejected(s, cmd.EndTurn()) == "wrong_phase"
    assert rejected(s, cmd.Place(ambassador=0, space=0, die=True)) == "no_die"
    assert rejected(s, cmd.Place(ambassador=0, space=18, token=3)) == "no_token"
    free_spy = [i for i in range(18) if cat.SPACE_ICON[i] == cat.I_SPY and s.space_seat[i] == -1]
    if free_spy:
        assert rejected(s, cmd.Place(ambassador=0, space=free_spy[0])) == "cannot_afford"
        # the lavandium printed on ambassador D's funding side pays for the spy
        assert (
            cmd.Place(ambassador=3, space=free_spy[0], funding=True) in GAME.legal_commands(s, seat)
            or s.players[seat].used[3]
        )
    blocked = [i for i in range(18) if s.space_seat[i] == -2]
    assert rejected(s, cmd.Place(ambassador=0, space=blocked[0])) == "space_blocked"
    s.players[seat].tokens = [0]  # a voting token (vote 2 + funding)
    assert rejected(s, cmd.Place(ambassador=0, space=18, token=0)) == "token_not_allowed"
    free = next(i for i in range(18) if s.space_seat[i] == -1)
    assert (
        rejected(s, cmd.Place(ambassador=0, space=free, funding=True, token=0)) == "token_mismatch"
    )
    s2 = apply(s, cmd.Place(ambassador=0, space=18))
    assert s2.players[seat].ocean == 1 and s2.players[seat].outer == 1
    s3 = play_until(s2, "turn")
    if s3.queue[0].seat == seat:
        assert rejected(s3, cmd.Place(ambassador=0, space=18)) == "ambassador_used"


def test_funding_side_checks_the_mission_and_gives_its_crystal() -> None:
    s = _turn()
    seat = s.queue[0].seat
    s.players[seat].checks = [False] * 12
    space = next(
        i for i in range(18) if s.space_seat[i] == -1 and cat.SPACE_ICON[i] == cat.I_AUTHORITY
    )
    step = s.players[seat].authority_step
    s2 = apply(s, cmd.Place(ambassador=3, space=space, funding=True))
    p = s2.players[seat]
    assert p.checks[cat.I_AUTHORITY] and p.lav == 1 and p.authority_step == min(9, step + 2)
    assert s2.space_funding[space] and s2.space_votes[space] == 0


def test_voting_token_replaces_the_vote_and_die_adds() -> None:
    s = _turn()
    seat = s.queue[0].seat
    s.players[seat].tokens = [21]  # power 2: vote 3 + die
    s.players[seat].die = 2
    space = next(
        i for i in range(18) if s.space_seat[i] == -1 and cat.SPACE_ICON[i] == cat.I_AUTHORITY
    )
    s2 = apply(s, cmd.Place(ambassador=0, space=space, die=True, token=21))
    assert s2.space_votes[space] == 3 and s2.space_die[space]
    assert s2.players[seat].die == 3 and s2.players[seat].tokens == []
    from games.federation.senate import space_votes

    assert space_votes(s2, space) == 6


def test_assistant_room_takes_and_raises_the_die() -> None:
    s = _turn()
    seat = s.queue[0].seat
    s.players[seat].copp = 1
    space = cat.SPACE_ICON.index(cat.I_ASSISTANT)
    s2 = apply(s, cmd.Place(ambassador=0, space=space))
    assert s2.players[seat].die == 2 and s2.players[seat].copp == 0
    s2.players[seat].die = 5
    s3, _ = run_steps(s2, st.RaiseDie(seat=seat, amount=2))
    assert s3.players[seat].die == cat.MAX_DIE


def test_spy_pays_lavandium_then_copies_a_room() -> None:
    s = _turn()
    seat = s.queue[0].seat
    s.players[seat].lav, s.players[seat].ocean = 1, 1
    space = next(i for i in range(18) if s.space_seat[i] == -1 and cat.SPACE_ICON[i] == cat.I_SPY)
    s1 = apply(s, cmd.Place(ambassador=0, space=space))
    assert s1.queue[0].kind == "pay"  # lavandium or oceanium: the player's choice
    assert set(GAME.legal_commands(s1, seat)) == {cmd.Pay(lav=1), cmd.Pay(ocean=1)}
    s2 = apply(s1, cmd.Pay(lav=1))
    assert s2.queue[0].kind == "spy" and s2.players[seat].lav == 0
    targets = {c.target for c in GAME.legal_commands(s2, seat)}  # type: ignore[attr-defined]
    assert cat.I_PRESIDENT not in targets and cat.I_SPY not in targets
    assert cat.I_SHIPS in targets and cat.I_ASSISTANT in targets  # oceanium pays for both
    hangar = s2.players[seat].hangar
    s3 = apply(s2, cmd.Spy(target=cat.I_SHIPS))
    assert s3.players[seat].hangar == hangar + 2 and s3.players[seat].ocean == 0


def test_presidents_office_gives_a_medal_and_the_next_start() -> None:
    s = _turn(seed=4)
    seat = s.queue[0].seat
    space = cat.SPACE_ICON.index(cat.I_PRESIDENT)
    s2 = apply(s, cmd.Place(ambassador=0, space=space))
    assert s2.president_next == seat and s2.queue[0].kind == "medal"
    assert cmd.Medal(kind="intrigue") in GAME.legal_commands(s2, seat)
    s3 = apply(s2, cmd.Medal(kind="blue"))
    assert "blue" in s3.players[seat].medals
    s5 = play_until(s3, "turn", round=2)
    assert s5.round == 2
    assert s5.start_player == seat and s5.queue[0].seat == seat


def test_president_intrigue_option() -> None:
    s = _turn(seed=4)
    s.president_mode = "intrigue"
    seat = s.queue[0].seat
    s2 = apply(s, cmd.Place(ambassador=0, space=cat.SPACE_ICON.index(cat.I_PRESIDENT)))
    assert "intrigue" in s2.players[seat].medals


def test_orange_fork_straight_counts_two_levels() -> None:
    s = _turn()
    seat = s.queue[0].seat
    s.players[seat].orange = 2
    s2, _ = run_steps(s, st.PlanetAction(seat=seat, planet=cat.ORANGE))
    assert s2.queue[0].kind == "fork"
    s3 = apply(s2, cmd.Fork(straight=True))
    assert s3.players[seat].orange == 4
    assert s3.players[seat].copp >= 1 and s3.players[seat].lav >= 1  # level 4 reward
    s4 = apply(s2, cmd.Fork(straight=False))
    assert s4.players[seat].orange == 3 and s4.orange_shown[3]


def test_orange_reveal_when_reaching_the_space_before() -> None:
    s = _turn()
    seat = s.queue[0].seat
    s.players[seat].orange = 1
    assert not s.orange_shown[3]
    s2, _ = run_steps(s, st.PlanetAction(seat=seat, planet=cat.ORANGE))
    assert s2.players[seat].orange == 2 and s2.orange_shown[3]


def test_common_project_overflow_moves_the_funders_marker() -> None:
    s = _turn()
    for i in range(18):
        s.space_seat[i], s.space_funding[i] = -1, False
    s.projects[0] = 9
    s.space_seat[0], s.space_funding[0] = 1, True  # column 0, funded by seat 1
    s.space_seat[1], s.space_funding[1] = 2, True  # column 1 at 0
    p = s.players[1]
    p.copp = p.lav = p.ocean = 0
    s2, _ = run_steps(s, st.FundProjects())
    assert s2.projects[0] == 9 and s2.projects[1] == 1 and s2.projects[cat.COMMON] == 1
    assert s2.players[1].common == 1 and s2.players[1].lav == 1  # 1st step: lavandium


def test_yellow_upper_slot_triples_and_requires_the_lower() -> None:
    s = _turn()
    seat = s.queue[0].seat
    s2, _ = run_steps(s, st.ChooseStall(seat=seat))
    opts = GAME.legal_commands(s2, seat)
    assert opts == [cmd.Stall(stall=0)] or s2.queue[0].kind != "yellow"
    s.players[seat].stalls[0] = 1
    s3, _ = run_steps(s, st.ChooseStall(seat=seat))
    assert s3.players[seat].stalls[0] == 2 and s3.players[seat].copp == 3


def test_erudite_chain_needs_the_lower_level() -> None:
    s = _turn()
    seat = s.queue[0].seat
    s.players[seat].erudite = []
    s2, _ = run_steps(s, st.ChooseErudite(seat=seat))
    tiles = {c.tile for c in GAME.legal_commands(s2, seat)}  # type: ignore[attr-defined]
    assert tiles == {0, 3, 6, 9, 12} - {t for t in range(15) if s.erudite_stock[t] == 0}
    s.players[seat].erudite = [9]
    s3, _ = run_steps(s, st.ChooseErudite(seat=seat))
    tiles = {c.tile for c in GAME.legal_commands(s3, seat)}  # type: ignore[attr-defined]
    assert 10 in tiles and 11 not in tiles and 9 not in tiles


def test_income_is_optional_per_structure_left_to_right() -> None:
    s = _turn()
    seat = s.queue[0].seat
    s.production[0], s.production[2] = 0, 3  # +1 oceanium, +1 authority (PROVISIONAL)
    s.players[seat].built = [2, 0]
    s.players[seat].authority_step = 5
    s2, _ = run_steps(s, st.CollectIncome(seat=seat))
    assert s2.queue[0] == st.ChooseIncome(seat=seat, structure=0)
    assert set(GAME.legal_commands(s2, seat)) == {
        cmd.Income(structure=0, take=True),
        cmd.Income(structure=0, take=False),
    }
    s3 = apply(s2, cmd.Income(structure=0, take=True))
    assert s3.players[seat].ocean == 1 and s3.queue[0] == st.ChooseIncome(seat=seat, structure=2)
    s4 = apply(s3, cmd.Income(structure=2, take=False))  # skip: stay at level 3
    assert s4.players[seat].authority_step == 5
    s5 = apply(s3, cmd.Income(structure=2, take=True))
    assert s5.players[seat].authority_step == 6
