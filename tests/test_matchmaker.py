"""The matchmaker role against a live service (embedded Valkey, worker and projector
processes): queued tickets land on started tables of rating neighbours, every decision
is in the matchmaking log and its audit re-derives them; killed at every step of making
a table, it loses no ticket, matches none twice and leaves no table unstarted."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator

import msgspec
import pytest
import redis

from matchmaking.audit import audit
from matchmaking.matchmaker import FAULT_STEPS
from orrery.matchmaking import seat_ranges
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted
from orrery_contracts.lobby import lobby_table_decoder, lobby_table_key
from orrery_contracts.matchmaking import (
    JoinQueue,
    LeaveQueue,
    MatchMade,
    MatchStarted,
    QueueAnswer,
    Ticket,
    queue_entry_decoder,
    ticket_view_decoder,
)
from tests.support.service import REPO, LiveService, live_service

pytestmark = pytest.mark.service

GAME = "fractured_sky"
SECRET = "matchmaker-test-key-" + "x" * 24
FAST = {
    "ORRERY_SECRET_KEY": SECRET,
    "ORRERY_MATCHMAKER_LEASE_MS": "1000",
    "ORRERY_MATCHMAKER_CYCLE_S": "0.2",
}
_json = msgspec.json.Encoder()


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    folder = tmp_path_factory.mktemp("matchmaker")
    with live_service(folder, ORRERY_SECRET_KEY=SECRET) as live:
        yield live


def start_matchmaker(service: LiveService, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "orrery.cli", "matchmaker"],
        env={
            **os.environ,
            "PYTHONPATH": str(REPO),
            "ORRERY_REDIS_URL": service.url,
            **FAST,
            **env,
        },
        stdin=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(10)


def wait_until(check: Callable[[], bool], timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.05)


def rate(r: redis.Redis, player: str, mu: float, sigma: float = 50.0) -> None:
    r.hset(keys.ratings_key(GAME), player, _json.encode({"mu": mu, "sigma": sigma, "games": 9}))


def queue(r: redis.Redis, player: str, **fields: object) -> str:
    ticket_id = "q" + uuid.uuid4().hex[:12]
    ticket = msgspec.convert(
        {
            "ticket_id": ticket_id,
            "player_id": player,
            "game": GAME,
            "seats_min": 3,
            "seats_max": 3,
            "pace": "turn_based",
            "names": [player],
            **fields,
        },
        Ticket,
    )
    command = JoinQueue(command_id=uuid.uuid4().hex, player_id=player, ticket=ticket)
    r.xadd(keys.queue_command_stream(GAME), {"__data__": _json.encode(command)})
    return ticket_id


def ticket_state(r: redis.Redis, ticket_id: str) -> tuple[str, str | None]:
    raw = r.get(keys.ticket_key(ticket_id))
    if raw is None:
        return "", None
    view = ticket_view_decoder.decode(raw)
    return view.state, view.table_id


def log_events(r: redis.Redis) -> list[object]:
    return [
        queue_entry_decoder.decode(fields[b"e"]).event
        for _, fields in r.xrange(keys.queue_log(GAME))
    ]


def audited(r: redis.Redis) -> None:
    entries = [queue_entry_decoder.decode(f[b"e"]) for _, f in r.xrange(keys.queue_log(GAME))]
    report = audit(GAME, seat_ranges()[GAME], entries, 30.0)
    assert report.ok, report.problems
    assert report.matches >= 1


def started_table(r: redis.Redis, table_id: str) -> list[str]:
    raw = r.get(lobby_table_key(table_id))
    assert raw is not None
    record = lobby_table_decoder.decode(raw)
    assert record.state == "playing"
    return [p.player_id for p in sorted(record.players, key=lambda p: p.seat)]


def test_tickets_land_on_started_tables_of_rating_neighbours(service: LiveService) -> None:
    r = service.sync_redis()
    run = uuid.uuid4().hex[:6]
    players = [f"n{run}{i}" for i in range(6)]
    for i, player in enumerate(players):
        rate(r, player, 1000 + 50 * i)  # bands of 100: a table spans 100
    port = free_port()
    matchmaker = start_matchmaker(service, ORRERY_METRICS_PORT=str(port))
    try:
        # queued highest first: the matcher still groups by rating, not by arrival
        tickets = {queue(r, p): p for p in reversed(players)}
        wait_until(
            lambda: all(ticket_state(r, t)[0] == "matched" for t in tickets),
            what="every ticket matched",
        )
        tables: dict[str, set[str]] = {}
        for ticket_id, player in tickets.items():
            _, table_id = ticket_state(r, ticket_id)
            assert table_id is not None
            tables.setdefault(table_id, set()).add(player)
        assert sorted(tables.values(), key=sorted) == [set(players[:3]), set(players[3:])]
        for table_id, seated in tables.items():
            assert set(started_table(r, table_id)) == seated
            for player in seated:  # each player hears of it on their notice stream
                notices = r.xrange(keys.player_notice_stream(player))
                matched = [msgspec.json.decode(f[b"__data__"]) for _, f in notices]
                assert [n["table_id"] for n in matched if n["type"] == "matched"] == [table_id]
        audited(r)
        # its figures: the tables it made, how long their tickets waited
        scraped = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10)
        figures = scraped.read().decode()
        assert f'orrery_matches_total{{game="{GAME}"}} 2.0' in figures
        assert f'orrery_match_wait_seconds_count{{game="{GAME}"}} 6.0' in figures
        assert f'orrery_matcher_pass_seconds_count{{game="{GAME}"}}' in figures
    finally:
        stop(matchmaker)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_a_cancelled_ticket_is_never_matched(service: LiveService) -> None:
    r = service.sync_redis()
    player = f"c{uuid.uuid4().hex[:8]}"
    matchmaker = start_matchmaker(service)
    try:
        ticket_id = queue(r, player)
        wait_until(lambda: ticket_state(r, ticket_id)[0] == "waiting", what="waiting")
        command = LeaveQueue(command_id="leave-" + ticket_id, player_id=player, ticket_id=ticket_id)
        r.xadd(keys.queue_command_stream(GAME), {"__data__": _json.encode(command)})
        wait_until(lambda: ticket_state(r, ticket_id)[0] == "cancelled", what="cancelled")
        answer = msgspec.json.decode(
            r.get(keys.queue_answer_key(command.command_id)), type=QueueAnswer
        )
        assert answer.ok
    finally:
        stop(matchmaker)


# the default run kills at two steps (the first and the one with tables made); the rest
# in the slow run
@pytest.mark.parametrize(
    "step",
    [s if s in ("made", "join") else pytest.param(s, marks=pytest.mark.slow) for s in FAULT_STEPS],
)
def test_killed_at_every_step_loses_and_duplicates_nothing(service: LiveService, step: str) -> None:
    r = service.sync_redis()
    run = uuid.uuid4().hex[:6]
    players = [f"k{run}{i}" for i in range(3)]
    for player in players:
        rate(r, player, 1500)
    doomed = start_matchmaker(service, ORRERY_FAULT_KILL_MATCHMAKER_AFTER=step)
    try:
        tickets = [queue(r, p) for p in players]
        assert doomed.wait(60) == -signal.SIGKILL
    finally:
        stop(doomed)
    heir = start_matchmaker(service)
    try:
        wait_until(
            lambda: all(ticket_state(r, t)[0] == "matched" for t in tickets),
            what=f"the tickets matched after a kill after {step}",
        )
        tables = {ticket_state(r, t)[1] for t in tickets}
        assert len(tables) == 1
        (table_id,) = tables
        assert table_id is not None
        assert sorted(started_table(r, table_id)) == sorted(players)
        events = log_events(r)
        made = [e for e in events if isinstance(e, MatchMade) and set(e.tickets) & set(tickets)]
        assert len(made) == 1 and sorted(made[0].tickets) == sorted(tickets)
        started = [e for e in events if isinstance(e, MatchStarted) and e.table_id == table_id]
        assert len(started) == 1
        audited(r)
    finally:
        stop(heir)


async def test_the_sdk_queues_and_plays_the_seat_it_is_matched_to(service: LiveService) -> None:
    from orrery_client.sdk import OrreryClient, QueueRefused

    run = uuid.uuid4().hex[:6]
    matchmaker = start_matchmaker(service)
    try:
        async with OrreryClient(service.url) as client:
            first = await client.queue(GAME, f"s{run}a", "Ann", seats=2, ticket_id=f"sdk{run}")
            again = await client.queue(GAME, f"s{run}a", "Ann", seats=2, ticket_id=f"sdk{run}")
            assert again == first
            with pytest.raises(QueueRefused) as refused:
                await client.queue(GAME, f"s{run}b", "Bob", seats=2, ticket_id=f"sdk{run}")
            assert refused.value.code == "ticket_taken"
            second = await client.queue(GAME, f"s{run}b", "Bob", seats=2)
            seats = [
                await client.matched(t, p, secret_key=SECRET)
                for t, p in ((first, f"s{run}a"), (second, f"s{run}b"))
            ]
            assert seats[0].table_id == seats[1].table_id
            assert {s.seat for s in seats} == {0, 1}
            view = await client.wait_view(seats[0].table_id, seats[0].seat, 1)
            assert view["phase"] == "playing"
            mover = next(s for s in seats if s.seat in view["to_move"])
            mine = await client.wait_view(mover.table_id, mover.seat, view["seq"])
            played = await client.play(mover, mine["legal"][0])
            assert isinstance(played, Accepted), played  # the derived secret holds the seat
    finally:
        stop(matchmaker)


def test_two_matchmakers_side_by_side_match_each_ticket_once(service: LiveService) -> None:
    r = service.sync_redis()
    run = uuid.uuid4().hex[:6]
    players = [f"d{run}{i}" for i in range(9)]
    for player in players:
        rate(r, player, 1500)
    pair = [start_matchmaker(service), start_matchmaker(service)]
    try:
        tickets = [queue(r, p) for p in players]
        wait_until(
            lambda: all(ticket_state(r, t)[0] == "matched" for t in tickets),
            what="every ticket matched",
        )
        tables: dict[str | None, list[str]] = {}
        for ticket_id, player in zip(tickets, players, strict=True):
            tables.setdefault(ticket_state(r, ticket_id)[1], []).append(player)
        assert len(tables) == 3 and all(len(seated) == 3 for seated in tables.values())
        for table_id, seated in tables.items():
            assert table_id is not None and sorted(started_table(r, table_id)) == sorted(seated)
        made = [
            e for e in log_events(r) if isinstance(e, MatchMade) and set(e.tickets) & set(tickets)
        ]
        assert sorted(t for e in made for t in e.tickets) == sorted(tickets)
        audited(r)
    finally:
        for process in pair:
            stop(process)


async def test_unrated_tickets_get_an_unrated_table_that_moves_no_rating(
    service: LiveService,
) -> None:
    """Two unrated tickets sit at an unrated table; ended (a player concedes), it is
    recorded with the finished tables and moves no rating, live nor after ``orrery ratings
    rebuild``, while two rated tickets' table, ended the same way, moves both players'."""
    from orrery_client.sdk import OrreryClient

    r = service.sync_redis()
    run = uuid.uuid4().hex[:6]
    ended: dict[bool, tuple[str, list[str]]] = {}
    matchmaker = start_matchmaker(service)
    try:
        async with OrreryClient(service.url) as client:
            for rated in (False, True):
                players = [f"u{run}{int(rated)}{x}" for x in "ab"]
                tickets = [await client.queue(GAME, p, p, seats=2, rated=rated) for p in players]
                seats = [
                    await client.matched(t, p, secret_key=SECRET)
                    for t, p in zip(tickets, players, strict=True)
                ]
                table_id = seats[0].table_id
                await client.wait_view(table_id, seats[0].seat, 1)
                await client.leave(seats[0])  # a two-seat table ends as its first player leaves
                ended[rated] = (table_id, players)
    finally:
        stop(matchmaker)
    wait_until(
        lambda: all(r.hexists(keys.FINISHED_TABLES, t) for t, _ in ended.values()),
        what="both tables recorded finished",
    )
    friendly, unrated_players = ended[False]
    _, rated_players = ended[True]
    recorded = msgspec.json.decode(r.hget(keys.FINISHED_TABLES, friendly) or b"{}")
    assert recorded["rated"] is False and sorted(recorded["players"]) == unrated_players
    ratings = keys.ratings_key(GAME)

    def rated_now() -> dict[str, bytes]:
        return {
            p: v for p in unrated_players + rated_players if (v := r.hget(ratings, p)) is not None
        }

    live = rated_now()
    assert set(live) == set(rated_players)
    rebuilt = subprocess.run(
        [sys.executable, "-m", "orrery.cli", "ratings", "rebuild", GAME],
        env={**os.environ, "PYTHONPATH": str(REPO), "ORRERY_REDIS_URL": service.url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr[-3000:]
    assert rated_now() == live
