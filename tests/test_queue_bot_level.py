"""Quick play's bots come at the level nearest the table: the rated bot level whose
rating is closest to the players' mean (greedy when no level is rated), recorded in the
match with the ratings it was chosen from, so the audit re-derives it; a match logged
before bots had levels re-derives as it was."""

from __future__ import annotations

import msgspec
import pytest

from matchmaking.audit import audit
from matchmaking.log import Batch
from matchmaking.matchmaker import Writer
from matchmaking.queue import QueueState, bot_level_for, decide, entry_hash, made, matches
from orrery_contracts.matchmaking import JoinQueue, MatchMade, QueueEntry, Rating, Ticket

pytestmark = pytest.mark.unit

NOW = 1_800_000_000_000


def test_the_level_nearest_the_players_mean() -> None:
    rated = {"random": 1200.0, "greedy": 1500.0, "ismcts": 1800.0}
    assert bot_level_for([1700.0, 1950.0], rated) == "ismcts"
    assert bot_level_for([1000.0], rated) == "random"
    assert bot_level_for([1480.0, 1560.0], rated) == "greedy"
    assert bot_level_for([1900.0], {"random": 1100.0}) == "random"  # the rated ones only
    assert bot_level_for([1500.0], {}) == "greedy"  # none rated
    assert bot_level_for([1650.0], {"greedy": 1500.0, "ismcts": 1800.0}) == "greedy"  # a tie


def _waiting_long(mu: float) -> tuple[QueueState, list[QueueEntry]]:
    """A queue with one ticket of one player rated ``mu`` that welcomes bots at once."""
    state = QueueState(game="fractured_sky", seat_range=(1, 5), offline_s=30)
    ticket = Ticket(
        ticket_id="k1",
        player_id="p1",
        game="fractured_sky",
        seats_min=3,
        seats_max=3,
        names=["Ann"],
        bots_ok=True,
        bots_after_s=1,
    )
    command = JoinQueue(command_id="c1", player_id="p1", ticket=ticket)
    events, _ = decide(state, command, lambda ps: [Rating(mu=mu, sigma=100) for _ in ps])
    writer = Writer(state, Batch(game=state.game, expected_seq=state.seq))
    for event in events:
        writer.add(event, NOW)
    return state, list(writer.batch.entries)


@pytest.mark.parametrize(("mu", "level"), [(1900.0, "ismcts"), (1250.0, "random")])
def test_a_match_with_bots_records_their_level_and_the_audit_agrees(mu: float, level: str) -> None:
    state, entries = _waiting_long(mu)
    later = NOW + 5_000
    groups = matches(state, later)
    assert len(groups) == 1 and groups[0].bots == 2
    rated = {"random": 1200.0, "greedy": 1500.0, "ismcts": 1800.0}
    writer = Writer(state, Batch(game=state.game, expected_seq=state.seq))
    writer.add_with(lambda seq, prev: made(state, groups[0], 1, seq, prev, rated), later)
    event = writer.batch.entries[-1].event
    assert isinstance(event, MatchMade)
    assert event.bot_level == level and event.bot_ratings == rated
    assert [p.name for p in event.players if not p.player_id] == [f"Bot ({level})"] * 2
    logged = [*entries, *writer.batch.entries]
    assert _audit(logged) == []
    # a level the ratings do not give is found out (the chain itself intact)
    forged = msgspec.structs.replace(event, bot_level="greedy")
    last = logged[-1]
    digest = entry_hash(last.prev, last.seq, last.at, forged)
    tampered = msgspec.structs.replace(last, event=forged, hash=digest)
    problems = _audit([*entries, tampered])
    assert len(problems) == 1 and "differs from the matcher's" in problems[0]


def _audit(entries: list[QueueEntry]) -> list[str]:
    return audit("fractured_sky", (1, 5), entries, 30).problems


def test_a_match_from_before_levels_re_derives_as_it_was() -> None:
    state, _ = _waiting_long(1500.0)
    group = matches(state, NOW + 5_000)[0]
    event = made(state, group, 1, state.seq + 1, "prev")
    assert isinstance(event.bot_level, msgspec.UnsetType)
    assert isinstance(event.bot_ratings, msgspec.UnsetType)
    assert [p.name for p in event.players if not p.player_id] == [
        f"Bot {s + 1}" for s in event.bots
    ]
