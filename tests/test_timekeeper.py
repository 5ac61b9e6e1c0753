"""Clocks through the real service: worker, projector and timekeeper processes on an
embedded server. Tables where nobody moves finish by themselves and audit clean; a
table without a clock never moves; a move just before the deadline wins the race; a
timekeeper killed with SIGKILL and restarted, or two side by side, apply every expiry
exactly once; "your turn" notices are written once per turn.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis

from games.codec import codec_for
from orrery.server.embedded import EmbeddedServer
from orrery_client.sdk import OrreryClient, SeatCredentials, new_seat_token
from orrery_contracts import keys
from orrery_contracts.envelope import CommandEnvelope, RawEnvelope, Rejection, decode_entry
from orrery_contracts.identity import sign_identity
from orrery_contracts.table import (
    ClockExpired,
    ClockOption,
    CreateTable,
    ExpireClock,
    JoinRequest,
    StartTable,
    TableFinished,
    expire_command_id,
)
from projections.rebuild import rebuild
from services.audit import audit_entries
from tests.support.service import PARTITIONS, LiveService, live_service
from tests.support.tinygame import Draw, Stand

pytestmark = pytest.mark.service

SECRET_KEY = "clock-tests-secret-key"
ENV = {
    "ORRERY_TIMEKEEPER_POLL_MS": "25",
    "ORRERY_SECRET_KEY": SECRET_KEY,
    "ORRERY_LOG_LEVEL": "warning",
}
FAST_BOT = ClockOption(bank_s=0.0, per_move_s=0.05, on_expiry="bot")
WAIT = 120.0  # generous: the machine is shared


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("clocks")), **ENV) as service:
        service.start("timekeeper", **ENV)
        yield service


# ---------------------------------------------------------------- helpers


async def clocked_table(
    client: OrreryClient,
    seats: int,
    clock: ClockOption | None,
    *,
    game: str = "tiny",
    prefix: str = "clk",
    start: bool = True,
) -> tuple[str, list[SeatCredentials]]:
    table = f"{prefix}-{uuid.uuid4().hex[:10]}"
    await client.accept(table, CreateTable(game=game, seats=seats, clock=clock))
    players = [await client.join(table, f"P{s}") for s in range(seats)]
    if start:
        await client.accept(table, StartTable(), seat=0, token=players[0].token)
    return table, players


async def wait_phase(
    client: OrreryClient, table: str, phases: tuple[str, ...], timeout: float = WAIT
) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        async for view in client.watch(table, None):
            if view["phase"] in phases:
                return view
    raise AssertionError("unreachable")


async def wait_for(condition: Any, timeout: float = WAIT) -> Any:
    """Await ``condition()`` (async) until it returns something truthy."""
    async with asyncio.timeout(timeout):
        while not (result := await condition()):
            await asyncio.sleep(0.02)
    return result


async def read_log(client: OrreryClient, table: str) -> list[RawEnvelope]:
    stream = keys.log_stream(client.partition(table), table)
    return [decode_entry(fields[b"e"]) for _, fields in await client.redis.xrange(stream)]


def events(log: list[RawEnvelope], game: str = "tiny") -> list[tuple[RawEnvelope, Any]]:
    codec = codec_for(game)
    return [(entry, codec.decode_event(entry.body)) for entry in log]


def check_expiries(log: list[RawEnvelope], game: str = "tiny") -> int:
    """The log audits clean, and every expiry is applied once, by its own command id."""
    report = audit_entries(log)
    assert report.complete, report.as_dict()
    expired = [(entry, e) for entry, e in events(log, game) if isinstance(e, ClockExpired)]
    ids = [entry.command_id for entry, _ in expired]
    assert len(ids) == len(set(ids))
    for entry, event in expired:
        assert entry.command_id.startswith(f"expire:{entry.table_id}:{event.seat}:")
        assert entry.seat is None  # a system command: no seat recorded
    return len(expired)


async def seqs(client: OrreryClient, tables: list[str]) -> list[int]:
    heads = []
    for table in tables:
        raw = await client.redis.hget(keys.meta_hash(client.partition(table), table), "seq")
        heads.append(int(raw or 0))
    return heads


# ---------------------------------------------------------------- tests


async def test_nobody_moves_and_the_bot_clock_finishes_the_table(live: LiveService) -> None:
    async with OrreryClient(live.url) as client:
        tables = [(await clocked_table(client, seats, FAST_BOT))[0] for seats in (1, 2, 3)]
        finals = await asyncio.gather(*(wait_phase(client, t, ("finished",)) for t in tables))
        for table, final in zip(tables, finals, strict=True):
            assert final["standing"] is not None and not any(s["left"] for s in final["seats"])
            log = await read_log(client, table)
            assert check_expiries(log) > 0
            assert isinstance(events(log)[-1][1], TableFinished)
            # the clock is in every view, public, and no clock runs at the end
            assert final["clock"]["running"] == [] and final["clock"]["per_move_ms"] == 50
            # a notice per turn at most, never twice (the projector may skip a turn that
            # was over before it looked)
            p = client.partition(table)
            for seat in range(len(final["seats"])):
                turns = [
                    n["seq"] for n in await _notices(client, keys.notice_stream(p, table, seat))
                ]
                assert turns == sorted(set(turns))
        # the deadlines index holds nothing of finished tables
        for table in tables:
            index = keys.deadlines_zset(client.partition(table))
            members = [m.decode() for m in await client.redis.zrange(index, 0, -1)]
            assert not [m for m in members if m.startswith(f"{table}|")]


async def test_concede_on_expiry_ends_a_two_seat_table_with_the_seat_conceded(
    live: LiveService,
) -> None:
    concede = ClockOption(bank_s=0.0, per_move_s=0.2, on_expiry="concede")
    async with OrreryClient(live.url) as client:
        table, _ = await clocked_table(client, 2, concede)
        final = await wait_phase(client, table, ("finished",))
        # a two-seat table ends as its first seat concedes (on_abandon "end")
        assert sorted(s["left"] for s in final["seats"]) == [False, True]
        log = await read_log(client, table)
        finished = events(log)[-1][1]
        assert isinstance(finished, TableFinished) and finished.reason == "abandoned"
        assert check_expiries(log) == 1


async def test_a_table_without_a_clock_never_moves(live: LiveService) -> None:
    async with OrreryClient(live.url) as client:
        still, _ = await clocked_table(client, 2, None, prefix="still")
        view = await wait_phase(client, still, ("playing",))
        assert view["clock"] is None
        before = await seqs(client, [still])
        # while a clocked table plays itself to the end beside it
        moving, _ = await clocked_table(client, 2, FAST_BOT)
        await wait_phase(client, moving, ("finished",))
        assert await seqs(client, [still]) == before
        assert (await client.view(still, None) or {})["phase"] == "playing"
        # seat 0 was told it is its turn, once, with no deadline; a rebuild tells nobody again
        stream = keys.notice_stream(client.partition(still), still, 0)
        notices = await wait_for(lambda: _at_least(client, stream, 1))
        assert [(n["seat"], n["deadline_ms"]) for n in notices] == [(0, None)]
        await rebuild(client.redis, PARTITIONS)
        assert await _notices(client, stream) == notices


async def test_a_move_just_before_the_deadline_wins_the_race(live: LiveService) -> None:
    clock = ClockOption(bank_s=0.0, per_move_s=2.0, on_expiry="bot")
    async with OrreryClient(live.url) as client:
        # Moves sent 1 s before, just at and just after the deadline: exactly one of the
        # move and the expiry is applied; sent well before, the move wins.
        for offset_ms in (-1000, 0, 20):
            table, players = await clocked_table(client, 2, clock, prefix="race")
            view = await wait_phase(client, table, ("playing",))
            turn_at = view["seq"]
            deadline = view["clock"]["deadline_ms"][0]
            assert view["to_move"] == [0] and deadline is not None
            # a move timed against the deadline (not synchronisation: the race itself)
            await asyncio.sleep(max(0.0, (deadline + offset_ms) / 1000 - time.time()))
            command_id = f"move-{uuid.uuid4().hex}"
            outcome = await client.submit(
                table, Stand(), seat=0, token=players[0].token, command_id=command_id
            )
            expire_id = expire_command_id(table, 0, turn_at)
            # the expiry, if it is to come, comes within the timekeeper's backoff
            await wait_for(lambda t=table, at=turn_at: _moved_past(client, t, at))
            log = await read_log(client, table)
            applied = {e.command_id for e in log}
            assert (command_id in applied) != (expire_id in applied), (offset_ms, outcome)
            if offset_ms < 0:
                assert command_id in applied, "a move 1 s before the deadline wins"


async def test_a_seat_cannot_pre_empt_its_own_expiry(live: LiveService) -> None:
    """A seat's early expiry (with its token, under the timekeeper's own command id) is
    refused and not remembered: the timekeeper's command with that id is decided later,
    on its merits."""
    clock = ClockOption(bank_s=0.0, per_move_s=1.0, on_expiry="bot")
    async with OrreryClient(live.url) as client:
        table, players = await clocked_table(client, 2, clock, prefix="pre")
        stream = keys.notice_stream(client.partition(table), table, 0)
        (notice,) = await wait_for(lambda: _at_least(client, stream, 1))
        expire_id = expire_command_id(table, 0, notice["seq"])
        early = await client.submit(
            table,
            ExpireClock(seat=0, turn=notice["seq"]),
            seat=0,
            token=players[0].token,
            command_id=expire_id,
        )
        assert isinstance(early, Rejection) and early.code == "not_expired"
        await wait_for(lambda: _moved_past(client, table, notice["seq"]))
        log = await read_log(client, table)
        assert expire_id in {entry.command_id for entry in log}


async def _moved_past(client: OrreryClient, table: str, turn_at: int) -> bool:
    """Seat 0's first turn is settled: seat 1 is to move (or the table ended)."""
    view = await client.view(table, None)
    return bool(view and view["seq"] > turn_at and 0 not in view["to_move"])


async def test_a_killed_timekeeper_restarted_loses_and_repeats_no_expiry(
    live: LiveService,
) -> None:
    clock = ClockOption(bank_s=0.0, per_move_s=0.3, on_expiry="bot")
    async with OrreryClient(live.url) as client:
        tables = [(await clocked_table(client, 2, clock, prefix="kill"))[0] for _ in range(4)]

        async def some_expired() -> bool:
            for table in tables:
                if any(
                    isinstance(e, ClockExpired) for _, e in events(await read_log(client, table))
                ):
                    return True
            return False

        await wait_for(some_expired)
        keepers = [p for p in live.processes if _role(p) == "timekeeper" and p.poll() is None]
        assert len(keepers) == 1
        keepers[0].send_signal(signal.SIGKILL)
        keepers[0].wait()
        # with no timekeeper, deadlines pass and nothing moves (once what it sent before it
        # died is decided: settled command entries are deleted from the streams)
        await wait_for(lambda: _commands_settled(client, tables))
        frozen = await seqs(client, tables)
        await asyncio.sleep(1.0)  # several deadlines (0.3 s) pass: an absence to observe
        assert await seqs(client, tables) == frozen
        live.start("timekeeper", **ENV)
        for table in tables:
            await wait_phase(client, table, ("finished",))
            assert check_expiries(await read_log(client, table)) > 0


async def _commands_settled(client: OrreryClient, tables: list[str]) -> bool:
    streams = {keys.command_stream(client.partition(t)) for t in tables}
    return all([await client.redis.xlen(stream) == 0 for stream in streams])


async def test_two_timekeepers_apply_each_expiry_once(live: LiveService) -> None:
    second = live.start("timekeeper", **ENV)
    try:
        async with OrreryClient(live.url) as client:
            await wait_for(lambda: _polling(client, second.pid))
            tables = [(await clocked_table(client, 2, FAST_BOT, prefix="two"))[0] for _ in range(4)]
            for table in tables:
                await wait_phase(client, table, ("finished",))
            expired = sum([check_expiries(await read_log(client, t)) for t in tables])
            # both timekeepers sent expiries; across their replies, each was accepted once
            # (the other's copy: a duplicate, or refused when the clock had moved on)
            outcomes = await _timekeeper_outcomes(client, tables)
            assert sum(counts["accepted"] for counts in outcomes.values()) == expired
            assert len(outcomes) == 2 and all(outcomes.values()), outcomes
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(30)


async def _polling(client: OrreryClient, pid: int) -> bool:
    """The timekeeper process ``pid`` has begun to poll (its heartbeat is there)."""
    names = await client.redis.hkeys(keys.TIMEKEEPERS)
    return any(name.decode().endswith(f"-{pid}") for name in names)


async def _timekeeper_outcomes(client: OrreryClient, tables: list[str]) -> dict[str, Counter[str]]:
    """Per timekeeper reply stream that answered about ``tables``: outcomes by kind."""
    decoder = msgspec.json.Decoder()
    found: dict[str, Counter[str]] = {}
    async for key in client.redis.scan_iter(match="orrery:reply:tk:*"):
        counts: Counter[str] = Counter()
        for _, fields in await client.redis.xrange(key):
            outcome = decoder.decode(fields[b"__data__"])
            if outcome["table_id"] in tables:
                counts[outcome["outcome"]] += 1
        if counts:
            found[key.decode()] = counts
    return found


async def test_your_turn_notices_once_per_turn_for_seats_and_verified_players(
    live: LiveService,
) -> None:
    clock = ClockOption(bank_s=0.0, per_move_s=600.0, on_expiry="bot")  # never runs out here
    async with OrreryClient(live.url) as client:
        table = f"notice-{uuid.uuid4().hex[:10]}"
        await client.accept(table, CreateTable(game="tiny", seats=2, clock=clock))
        player = f"player-{uuid.uuid4().hex[:8]}"
        seats = [await _verified_join(client, table, player), await client.join(table, "Anon")]
        started = await client.accept(table, StartTable(), seat=0, token=seats[0].token)
        p = client.partition(table)
        streams = [keys.notice_stream(p, table, s) for s in (0, 1)]
        expected = [0, 0]
        previous: list[int] = []
        view = await client.wait_view(table, None, started.last_seq)
        while view["phase"] == "playing":
            (seat,) = view["to_move"]
            if seat not in previous:  # a turn begins: one notice, with its deadline
                expected[seat] += 1
                notices = await wait_for(lambda s=seat: _at_least(client, streams[s], expected[s]))
                assert notices[-1]["deadline_ms"] == view["clock"]["deadline_ms"][seat]
                assert notices[-1]["table_id"] == table and notices[-1]["seat"] == seat
            previous = view["to_move"]
            legal = [c for c in view_of_seat(await client.view(table, seat)) if c != "table.leave"]
            body = Draw() if "tiny.draw" in legal else Stand()
            moved = await client.accept(table, body, seat=seat, token=seats[seat].token)
            view = await client.wait_view(table, None, moved.last_seq)
        seat_notices = [await _notices(client, stream) for stream in streams]
        assert [len(n) for n in seat_notices] == expected
        for notices in seat_notices:
            assert all(n["type"] == "your_turn" for n in notices)
            turns = [n["seq"] for n in notices]
            assert turns == sorted(set(turns))
        # the verified player's own stream has its seat's notices, and expires when idle
        assert await _notices(client, keys.player_notice_stream(player)) == seat_notices[0]
        assert await client.redis.ttl(keys.player_notice_stream(player)) > 0
        # finished: nothing left to remember (the notices are written after the views,
        # so the finished view can be seen a moment before the record is dropped)
        notified = keys.notified_hash(p, table)

        async def forgotten() -> bool:
            return not await client.redis.exists(notified)

        assert await wait_for(forgotten)


def view_of_seat(view: dict[str, Any] | None) -> list[str]:
    return [c["type"] for c in (view or {}).get("legal", [])]


async def _at_least(client: OrreryClient, stream: str, count: int) -> list[dict[str, Any]]:
    notices = await _notices(client, stream)
    return notices if len(notices) >= count else []


async def _verified_join(client: OrreryClient, table: str, player: str) -> SeatCredentials:
    """A join with a gateway's signed identity (the SDK sends none), answered on a reply
    stream of its own."""
    command_id = uuid.uuid4().hex
    token = new_seat_token()
    reply = f"orrery:reply:test:{uuid.uuid4().hex}"
    envelope = CommandEnvelope(
        command_id=command_id,
        table_id=table,
        body=msgspec.Raw(msgspec.json.encode(JoinRequest(name="Verified"))),
        token=token,
        identity=sign_identity(SECRET_KEY.encode(), table, command_id, player),
        reply_to=reply,
    )
    stream = keys.command_stream(client.partition(table))
    await client.redis.xadd(stream, {"__data__": msgspec.json.encode(envelope)})
    replies = await client.redis.xread({reply: "0-0"}, block=int(WAIT * 1000), count=1)
    outcome = msgspec.json.decode(replies[0][1][0][1][b"__data__"])
    assert outcome["outcome"] == "accepted" and outcome["seat"] == 0, outcome
    return SeatCredentials(table, 0, token)


async def _notices(client: OrreryClient, stream: str) -> list[dict[str, Any]]:
    return [msgspec.json.decode(f[b"__data__"]) for _, f in await client.redis.xrange(stream)]


def _role(process: Any) -> str:
    return str(process.args[3]) if len(process.args) > 3 else ""


async def test_every_game_finishes_by_itself_with_a_bot_clock(live: LiveService) -> None:
    games = [("fractured_sky", 2), ("spacecraft", 2), ("federation", 2)]
    async with OrreryClient(live.url) as client:
        tables = [
            (await clocked_table(client, seats, FAST_BOT, game=game, prefix=game))[0]
            for game, seats in games
        ]
        await asyncio.gather(*(wait_phase(client, t, ("finished",), 300.0) for t in tables))
        for (game, _), table in zip(games, tables, strict=True):
            log = await read_log(client, table)
            assert check_expiries(log, game) > 0
            finished = events(log, game)[-1][1]
            assert isinstance(finished, TableFinished) and finished.reason == "completed"


def test_serve_starts_timekeepers_that_say_goodbye(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path / "data") as embedded:
        server = redis.Redis.from_url(embedded.url)
        args = ["serve", "--redis-url", embedded.url, "--partitions", "2", "--timekeepers", "2"]
        args += ["--no-gateway", "--archivers", "0"]  # the timekeepers are what is tested
        process = subprocess.Popen(
            [sys.executable, "-m", "orrery.cli", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(Path.cwd()), "ORRERY_LOG_LEVEL": "warning"},
        )
        try:
            deadline = time.monotonic() + WAIT
            while len(server.hgetall(keys.TIMEKEEPERS)) < 2:
                assert time.monotonic() < deadline, "serve started no timekeepers"
                time.sleep(0.05)
            names = [name.decode() for name in server.hgetall(keys.TIMEKEEPERS)]
            assert all(name.startswith("timekeeper-") for name in names)
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=120) == 0  # a loaded machine stops slowly
            # stopped with SIGTERM, each took its entry out
            assert server.hlen(keys.TIMEKEEPERS) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
