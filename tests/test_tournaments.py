"""Tournaments through the real service: a gateway, a matchmaker (whose organiser pairs
and seats every round), workers and projectors; every seat played by a bot here in the
test that sends a legal move of its own view, through HTTP, to the end. The standings
and tie-breaks are computed again from the tables' results; every round is re-derived by
``orrery tournament audit``; a SIGKILL in the middle of seating a round loses and
duplicates nothing. The long fields (16 players at two seats over four rounds, 12 at
four seats over three), the kill and a small four-seat field are marked slow; the default
run plays a small two-seat field, and one whose round deadline ends a table that never
moves (the four-seat pods and the audit's forgeries are covered without a service in
tests/test_tournament_pairing.py)."""

from __future__ import annotations

import asyncio
import itertools
import random
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest

from competitions.events import RoundPaired, TableStarted, entry_decoder
from orrery_contracts import keys
from orrery_contracts.envelope import decode_entry
from tests.support.gateway import LiveGateway, Player, live_gateway, sign_up
from tests.support.service import PARTITIONS, REPO

pytestmark = pytest.mark.gateway

FAST = {
    "ORRERY_MATCHMAKER_LEASE_MS": "1500",
    "ORRERY_MATCHMAKER_CYCLE_S": "0.2",
    "ORRERY_TOURNAMENT_LEASE_MS": "1500",
    "ORRERY_TOURNAMENT_CYCLE_S": "0.1",
    "ORRERY_SEASON_BEGIN": "0",  # the seasons' test sets the one it reads
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    with live_gateway(tmp_path_factory.mktemp("tournaments"), bots=False) as live:
        yield live


@pytest.fixture(scope="module")
def live(stack: LiveGateway) -> LiveGateway:
    """The gateway the ``http`` fixture talks to: this module's."""
    return stack


def matchmaker(stack: LiveGateway, **env: str) -> subprocess.Popen[bytes]:
    return stack.service.start("matchmaker", ORRERY_SECRET_KEY=stack.key, **FAST, **env)


@pytest.fixture(scope="module")
def organiser(stack: LiveGateway) -> subprocess.Popen[bytes]:
    return matchmaker(stack)


async def players(http: httpx.AsyncClient, count: int) -> list[Player]:
    run = uuid.uuid4().hex[:6]
    return [await sign_up(http, f"t{run}{i}") for i in range(count)]


async def create(organiser: Player, **body: Any) -> str:
    made = await organiser.post("/v1/tournaments", {"game": "tiny", **body})
    assert made.status_code == 201, made.text
    return str(made.json()["tournament_id"])


async def enter(field: list[Player], tournament_id: str) -> None:
    for p in field:
        answer = await p.post(f"/v1/tournaments/{tournament_id}/register")
        assert answer.status_code == 200, answer.text


async def tournament(player: Player, tournament_id: str) -> dict[str, Any]:
    answer = await player.get(f"/v1/tournaments/{tournament_id}")
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


async def play_to_the_end(
    field: list[Player], tournament_id: str, timeout: float, idle: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Each player's bot: at each of its tables that waits for it (but the ``idle`` ones),
    a legal move of the game from its own view (stand half the time, so games end)."""
    by_id = {p.player_id: p for p in field}
    rng = random.Random(tournament_id)
    deadline = time.monotonic() + timeout
    while True:
        shown = await tournament(field[0], tournament_id)
        if shown["state"] in ("finished", "cancelled"):
            return shown
        assert time.monotonic() < deadline, f"not finished: {shown['state']}"
        rounds = shown["round_list"]
        for table in rounds[-1]["tables"] if rounds else []:
            if table["state"] != "playing" or table["table_id"] in idle:
                continue
            for player_id in table["players"]:
                player = by_id[player_id]
                view = await player.get(f"/v1/tables/{table['table_id']}/view")
                if view.status_code != 200:
                    continue  # not started yet
                moves = [m for m in view.json()["legal"] if m["type"].startswith("tiny.")]
                if moves:
                    stand = [m for m in moves if m["type"] == "tiny.stand"]
                    move = stand[0] if stand and rng.random() < 0.5 else rng.choice(moves)
                    await player.command(table["table_id"], move)
        await asyncio.sleep(0.05)


def independent_standings(shown: dict[str, Any]) -> dict[str, tuple[float, list[float]]]:
    """Points and tie-breaks from the tables' ranks and the byes alone."""
    seats = shown["seats"]
    points: dict[str, float] = {p["player_id"]: 0.0 for p in shown["players"]}
    games: list[tuple[str, list[str], float]] = []
    for paired in shown["round_list"]:
        for p in paired["byes"]:
            points[p] += 1.0 if seats == 2 else (seats - 1) / 2
        for table in paired["tables"]:
            for i, p in enumerate(table["players"]):
                mine = sum(
                    1.0 if table["ranks"][i] < r else 0.5 if table["ranks"][i] == r else 0.0
                    for j, r in enumerate(table["ranks"])
                    if j != i
                )
                points[p] += mine
                games.append((p, [q for q in table["players"] if q != p], mine))
    breaks: dict[str, list[float]] = {p: [0.0, 0.0] for p in points}
    for p, others, mine in games:
        for q in others:
            breaks[p][0] += points[q]
            breaks[p][1] += points[q] * mine
    return {p: (points[p], breaks[p] if seats == 2 else breaks[p][:1]) for p in points}


def orrery(stack: LiveGateway, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orrery.cli", *args],
        env=stack.env(
            ORRERY_REDIS_URL=stack.service.url,
            ORRERY_ARCHIVE_URL=f"sqlite:///{stack.service.server.data_dir}/tournaments.sqlite",
        ),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )


def audit(stack: LiveGateway, tournament_id: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orrery.cli", "tournament", "audit", tournament_id, "--json"],
        env=stack.env(ORRERY_REDIS_URL=stack.service.url),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )


def log_events(stack: LiveGateway, tournament_id: str) -> list[Any]:
    rows: Any = stack.service.sync_redis().xrange(keys.tournament_log(tournament_id))
    return [entry_decoder.decode(fields[b"e"]).event for _, fields in rows]


async def check_finished(
    stack: LiveGateway, field: list[Player], tournament_id: str, shown: dict[str, Any], rounds: int
) -> None:
    assert shown["state"] == "finished"
    assert len(shown["round_list"]) == rounds
    expected = independent_standings(shown)
    rows = shown["standings"]
    assert sorted(r["player_id"] for r in rows) == sorted(p.player_id for p in field)
    for row in rows:
        points, breaks = expected[row["player_id"]]
        assert row["points"] == pytest.approx(points)
        assert row["tiebreaks"] == pytest.approx(breaks, abs=1e-3)
    keyed = [(r["points"], *r["tiebreaks"]) for r in rows]
    assert keyed == sorted(keyed, reverse=True)
    assert shown["seed"], "the seed is revealed at the end"
    # each player was told of each table by a ``tournament`` notice
    redis: Any = stack.service.sync_redis()
    for player in field:
        notices = [
            msgspec.json.decode(fields[b"__data__"])
            for _, fields in redis.xrange(keys.player_notice_stream(player.player_id))
        ]
        told = [n for n in notices if n["type"] == "tournament"]
        sat = [
            t["table_id"]
            for r in shown["round_list"]
            for t in r["tables"]
            if player.player_id in t["players"]
        ]
        assert sorted(n["table_id"] for n in told) == sorted(sat)
    checked = audit(stack, tournament_id)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert msgspec.json.decode(checked.stdout)["rounds"] == rounds


def repeat_pairs(shown: dict[str, Any]) -> int:
    met: set[frozenset[str]] = set()
    repeats = 0
    for paired in shown["round_list"]:
        for table in paired["tables"]:
            for pair in itertools.combinations(table["players"], 2):
                repeats += frozenset(pair) in met
                met.add(frozenset(pair))
    return repeats


@pytest.mark.slow
@pytest.mark.parametrize("step", ["paired", "create", "join"])
async def test_a_kill_while_seating_a_round_loses_and_duplicates_nothing(
    stack: LiveGateway, http: httpx.AsyncClient, step: str
) -> None:
    """Killed right after the pairing is in the log, after a table's creation, after its
    players are seated: the next organiser makes each table once, with the same ids."""
    doomed = matchmaker(stack, ORRERY_FAULT_KILL_ORGANISER_AFTER=step)
    field = await players(http, 4)
    tournament_id = await create(field[0], format="swiss", seats=2, rounds=1)
    await enter(field, tournament_id)
    started = await field[0].post(f"/v1/tournaments/{tournament_id}/start")
    assert started.status_code == 200, started.text
    assert doomed.wait(60) == -9
    heir = matchmaker(stack)
    try:
        shown = await play_to_the_end(field, tournament_id, timeout=120)
        await check_finished(stack, field, tournament_id, shown, rounds=1)
        events = log_events(stack, tournament_id)
        assert sum(isinstance(e, RoundPaired) for e in events) == 1
        started_tables = [e.table_id for e in events if isinstance(e, TableStarted)]
        assert sorted(started_tables) == sorted(set(started_tables))
        assert len(started_tables) == 2
    finally:
        heir.terminate()
        heir.wait(10)


async def test_a_small_two_seat_swiss_is_played_to_the_end(
    stack: LiveGateway, organiser: subprocess.Popen[bytes], http: httpx.AsyncClient
) -> None:
    field = await players(http, 4)
    tournament_id = await create(field[0], format="swiss", seats=2, rounds=2, name="Twin")
    await enter(field, tournament_id)
    outsider = (await players(http, 1))[0]
    refused = await outsider.post(f"/v1/tournaments/{tournament_id}/start")
    assert refused.status_code == 403 and refused.json()["error"] == "not_organiser"
    assert (await field[0].post(f"/v1/tournaments/{tournament_id}/start")).status_code == 200
    late = await outsider.post(f"/v1/tournaments/{tournament_id}/register")
    assert late.status_code == 409 and late.json()["error"] == "registration_closed"
    shown = await play_to_the_end(field, tournament_id, timeout=180)
    await check_finished(stack, field, tournament_id, shown, rounds=2)
    assert repeat_pairs(shown) == 0
    listed = await field[1].get("/v1/tournaments")
    assert tournament_id in [t["tournament_id"] for t in listed.json()["tournaments"]]
    # once finished, its log moves to the archive; its view stays, the audit reads it there
    moved = orrery(stack, "tournament", "archive", "--older-than-s", "0")
    assert moved.returncode == 0 and tournament_id in moved.stdout, moved.stderr
    assert not stack.service.sync_redis().exists(keys.tournament_log(tournament_id))
    assert (await tournament(field[0], tournament_id))["state"] == "finished"
    audited = orrery(stack, "tournament", "audit", tournament_id, "--json")
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert msgspec.json.decode(audited.stdout)["rounds"] == 2


@pytest.mark.slow
async def test_a_small_four_seat_swiss_is_played_to_the_end(
    stack: LiveGateway, organiser: subprocess.Popen[bytes], http: httpx.AsyncClient
) -> None:
    field = await players(http, 8)
    tournament_id = await create(field[0], format="swiss", seats=4, rounds=2)
    await enter(field, tournament_id)
    assert (await field[0].post(f"/v1/tournaments/{tournament_id}/start")).status_code == 200
    shown = await play_to_the_end(field, tournament_id, timeout=180)
    await check_finished(stack, field, tournament_id, shown, rounds=2)
    assert all(len(t["players"]) == 4 for r in shown["round_list"] for t in r["tables"])


async def test_bad_tournaments_are_refused(
    stack: LiveGateway, organiser: subprocess.Popen[bytes], http: httpx.AsyncClient
) -> None:
    (ann,) = await players(http, 1)
    for body, code in [
        ({"game": "nope", "format": "swiss", "seats": 2}, "unknown_game"),
        ({"game": "tiny", "format": "swiss", "seats": 6}, "bad_request"),
        ({"game": "tiny", "format": "ladder", "seats": 2}, "bad_request"),
    ]:
        answer = await ann.post("/v1/tournaments", body)
        assert answer.status_code in (400, 422), answer.text
        if code != "bad_request":
            assert answer.json()["error"] == code
    missing = await ann.get("/v1/tournaments/tn-nope")
    assert missing.status_code == 404 and missing.json()["error"] == "no_such_tournament"


async def test_a_command_the_log_cannot_hold_is_refused_and_the_organiser_goes_on(
    stack: LiveGateway, organiser: subprocess.Popen[bytes], http: httpx.AsyncClient
) -> None:
    """A time past any calendar or a clock of unknown fields is refused at the door; a
    command that passes the wire's types yet cannot be recorded (an option's integer past
    64 bits, from a front door that did not check the game's options) is answered
    ``cannot_record`` once, and the next tournament is created as ever."""
    (ann,) = await players(http, 1)
    base = {"game": "tiny", "format": "swiss", "seats": 2}
    for extra in ({"registration_ends": 2**127}, {"clock": {"bank_s": 60, "bogus": 1}}):
        answer = await ann.post("/v1/tournaments", {**base, **extra})
        assert answer.status_code in (400, 422), answer.text
    command_id = uuid.uuid4().hex
    poison = (
        b'{"type":"tn.create","command_id":"' + command_id.encode() + b'",'
        b'"tournament_id":"tn-poison","organiser":"operator",'
        b'"spec":{"game":"tiny","format":"swiss","seats":2,"options":{"x":'
        + str(2**70).encode()
        + b"}}}"
    )
    redis: Any = stack.service.sync_redis()
    redis.xadd(keys.tournament_command_stream(), {"__data__": poison})
    answer_key = keys.tournament_answer_key(command_id)
    for _ in range(200):
        if redis.exists(answer_key):
            break
        await asyncio.sleep(0.05)
    answer = msgspec.json.decode(redis.get(answer_key))
    assert (answer["ok"], answer["code"]) == (False, "cannot_record")
    assert not redis.exists(keys.tournament_log("tn-poison"))
    assert await tournament(ann, await create(ann, format="swiss", seats=2))
    assert organiser.poll() is None


@pytest.mark.slow
async def test_a_sixteen_player_two_seat_swiss_of_four_rounds(
    stack: LiveGateway, organiser: subprocess.Popen[bytes], http: httpx.AsyncClient
) -> None:
    field = await players(http, 16)
    tournament_id = await create(field[0], format="swiss", seats=2, rounds=4)
    await enter(field, tournament_id)
    assert (await field[0].post(f"/v1/tournaments/{tournament_id}/start")).status_code == 200
    shown = await play_to_the_end(field, tournament_id, timeout=600)
    await check_finished(stack, field, tournament_id, shown, rounds=4)
    assert repeat_pairs(shown) == 0


@pytest.mark.slow
async def test_a_twelve_player_four_seat_swiss_of_three_rounds(
    stack: LiveGateway, organiser: subprocess.Popen[bytes], http: httpx.AsyncClient
) -> None:
    field = await players(http, 12)
    tournament_id = await create(field[0], format="swiss", seats=4, rounds=3)
    await enter(field, tournament_id)
    assert (await field[0].post(f"/v1/tournaments/{tournament_id}/start")).status_code == 200
    shown = await play_to_the_end(field, tournament_id, timeout=600)
    await check_finished(stack, field, tournament_id, shown, rounds=3)
    # a pod of four from three pods of the last round holds two who met: one repeat a
    # table in round 2 is the least possible
    assert repeat_pairs(shown) <= 9


async def test_a_season_is_read_over_http(
    stack: LiveGateway, organiser: subprocess.Popen[bytes], http: httpx.AsyncClient
) -> None:
    (ann,) = await players(http, 1)
    none_yet = await ann.get("/v1/seasons/tiny")
    assert none_yet.status_code == 404 and none_yet.json()["error"] == "no_season"
    season = {
        "game": "tiny",
        "number": 3,
        "started_at": 1,
        "ends_at": 4_102_444_800_000,  # 2100: the organiser rolls over a season that ended
        "leagues": ["league 1", "elite"],
        "players": [{"player_id": ann.player_id, "league": 1, "rating": 1900.0}],
        "past": [{"number": 2, "started_at": 0, "ended_at": 1}],
    }
    stack.service.sync_redis().set(keys.season_key("tiny"), msgspec.json.encode(season))
    shown = await ann.get("/v1/seasons/tiny")
    assert shown.status_code == 200 and shown.json() == season


async def test_the_sdk_organises_a_tournament(
    stack: LiveGateway, organiser: subprocess.Popen[bytes]
) -> None:
    from orrery_client.sdk import OrreryClient, TournamentRefused

    async with OrreryClient(stack.service.url) as client:
        tournament_id = await client.create_tournament(
            "operator", {"game": "tiny", "format": "round_robin", "seats": 2, "capacity": 2}
        )
        await client.register_tournament(tournament_id, "sdk-ann", "Ann")
        await client.register_tournament(tournament_id, "sdk-ben", "Ben")
        with pytest.raises(TournamentRefused) as full:
            await client.register_tournament(tournament_id, "sdk-cat", "Cat")
        assert full.value.code == "tournament_full"
        await client.start_tournament(tournament_id, "operator")
        shown = await client.tournament(tournament_id)
        deadline = time.monotonic() + 30
        while shown is None or not shown.round_list:  # paired at the organiser's next cycle
            assert time.monotonic() < deadline, "the first round was not paired"
            await asyncio.sleep(0.05)
            shown = await client.tournament(tournament_id)
        assert shown.state == "running"
        assert [t.players for t in shown.round_list[0].tables] in (
            [["sdk-ann", "sdk-ben"]],
            [["sdk-ben", "sdk-ann"]],
        )
        assert tournament_id in [t.tournament_id for t in await client.tournaments()]


def table_events(stack: LiveGateway, table_id: str) -> list[dict[str, Any]]:
    """The table's log as the worker wrote it: each event's body, decoded loosely."""
    redis: Any = stack.service.sync_redis()
    rows = redis.xrange(keys.log_stream(keys.partition_of(table_id, PARTITIONS), table_id))
    entries = [decode_entry(fields[b"e"]) for _, fields in rows]
    return [msgspec.msgpack.decode(entry.body) for entry in entries]


async def test_a_table_still_playing_at_the_round_deadline_is_ended_by_the_service(
    stack: LiveGateway, organiser: subprocess.Popen[bytes], http: httpx.AsyncClient
) -> None:
    """Round 1's deadline passes while one table has never moved: the organiser ends it
    through the service (``table.end``): the seat that was to move loses on time, the
    table's log says it ended at its deadline, the tournament takes the table's ranks,
    round 2 is paired and the standings are those computed from the tables alone."""
    field = await players(http, 4)
    tournament_id = await create(field[0], format="swiss", seats=2, rounds=2, round_deadline_s=3)
    await enter(field, tournament_id)
    assert (await field[0].post(f"/v1/tournaments/{tournament_id}/start")).status_code == 200
    deadline = time.monotonic() + 30
    shown = await tournament(field[0], tournament_id)
    while not shown["round_list"]:
        assert time.monotonic() < deadline, "round 1 was not paired"
        await asyncio.sleep(0.05)
        shown = await tournament(field[0], tournament_id)
    frozen = shown["round_list"][0]["tables"][0]
    shown = await play_to_the_end(
        field, tournament_id, timeout=120, idle=frozenset({frozen["table_id"]})
    )
    await check_finished(stack, field, tournament_id, shown, rounds=2)
    ended = shown["round_list"][0]["tables"][0]
    assert ended["table_id"] == frozen["table_id"] and ended["ranks"] == [2, 1]
    events = table_events(stack, frozen["table_id"])
    assert events[-2:] == [
        {"type": "table.seat_left", "seat": 0, "conceded": True},
        {**events[-1], "type": "table.finished", "reason": "deadline"},
    ]
    assert events[-1]["standing"]["ranks"] == [2, 1]
