"""The archiver against a live service (embedded Valkey, worker and projector processes)
and a real archive, on SQLite and on PostgreSQL: ended tables leave Redis, replay and
audit the same from the archive, commands to them are ``game_over``, their chats move
with them (and back on a restore); archivers racing, killed at every step, or facing an
unreachable archive lose and duplicate nothing."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis
from typer.testing import CliRunner

from archive import open_archive
from archive.archiver import FAULT_STEPS
from orrery.cli import app
from orrery.runtime import prepare, stop_processes
from orrery.server.embedded import EmbeddedServer
from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import RawEnvelope
from orrery_contracts.lobby import lobby_table_key
from orrery_contracts.table import CreateTable, StartTable
from services.replay import SPECTATOR, Viewer, frames
from services.transfer import import_entries, read_any_log, read_stored_log
from tests.support.logs import with_players
from tests.support.postgres import PostgresServer
from tests.support.service import PARTITIONS, REPO, LiveService, live_service

pytestmark = pytest.mark.service

runner = CliRunner()
FAST = {
    "ORRERY_ARCHIVE_AFTER_S": "0",
    "ORRERY_ARCHIVE_POLL_S": "0.1",
    # a killed archiver's tables wait this long for another
    "ORRERY_ARCHIVE_LEASE_MS": "1000",
}


@dataclass
class Stack:
    service: LiveService
    archive_url: str

    @property
    def url(self) -> str:
        return self.service.url

    def redis(self) -> redis.Redis:
        return self.service.sync_redis()


def archive_url_of(kind: str, folder: Path, request: pytest.FixtureRequest) -> str:
    if kind == "sqlite":
        return f"sqlite:///{folder / 'archive.sqlite3'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.fresh_database()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp(f"archiver-{request.param}")
    url = archive_url_of(request.param, folder, request)
    # the projector recomputes ratings from the archived finishes too
    with live_service(folder / "service", ORRERY_ARCHIVE_URL=url) as service:
        yield Stack(service, url)


def start_archiver(
    url: str, archive_url: str, log: Path | None = None, **env: str
) -> subprocess.Popen[bytes]:
    """``orrery archiver`` as its own process (its log lines to ``log``)."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    return subprocess.Popen(
        [sys.executable, "-m", "orrery.cli", "archiver"],
        env={
            **os.environ,
            "PYTHONPATH": str(REPO),
            "ORRERY_REDIS_URL": url,
            "ORRERY_ARCHIVE_URL": archive_url,
            **FAST,
            **env,
        },
        stdin=subprocess.DEVNULL,
        stderr=out,
    )


def wait_until(check: Callable[[], bool], timeout: float = 90.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.1)


def import_logs(url: str, logs: list[list[RawEnvelope]]) -> None:
    async def run() -> None:
        client = redis.asyncio.Redis.from_url(url)
        try:
            for entries in logs:
                await import_entries(client, PARTITIONS, entries)
        finally:
            await client.aclose()

    asyncio.run(run())


def tiny_logs(prefix: str, count: int) -> list[list[RawEnvelope]]:
    from services.replay import play_log

    return [play_log("tiny", 2, i, table_id=f"{prefix}-{i:03d}")[0] for i in range(count)]


def partition(table_id: str) -> int:
    return keys.partition_of(table_id, PARTITIONS)


def keys_of(r: redis.Redis, table_id: str) -> list[str]:
    return sorted(k.decode() for k in r.scan_iter(match=f"*{table_id}*", count=1000))


def archived(r: redis.Redis, table_id: str) -> bool:
    return bool(r.exists(keys.tombstone_key(partition(table_id), table_id))) and not r.zscore(
        keys.ended_zset(partition(table_id)), table_id
    )


def projected(r: redis.Redis, entries: list[RawEnvelope]) -> bool:
    table_id, last = entries[0].table_id, entries[-1].seq
    raw = r.get(keys.view_key(partition(table_id), table_id, None))
    return (
        raw is not None
        and msgspec.json.decode(raw)["seq"] >= last
        and bool(r.get(lobby_table_key(table_id)))
    )


def stored_log(stack_url: str, archive_url: str | None, table_id: str) -> Any:
    async def run() -> Any:
        client = redis.asyncio.Redis.from_url(stack_url)
        try:
            return await read_any_log(client, PARTITIONS, table_id, archive_url)
        finally:
            await client.aclose()

    return asyncio.run(run())


def in_archive(archive_url: str, table_ids: list[str]) -> set[str]:
    async def run() -> set[str]:
        store = await open_archive(archive_url)
        try:
            return set(await store.get_tables(table_ids))
        finally:
            await store.close()

    return asyncio.run(run())


def archive_rows(archive_url: str) -> int:
    async def run() -> int:
        store = await open_archive(archive_url)
        try:
            return (await store.stats()).tables
        finally:
            await store.close()

    return asyncio.run(run())


# ---------------------------------------------------------------- replay and audit


def test_archived_tables_replay_at_every_seq_like_the_live_views(stack: Stack) -> None:
    from services.replay import play_log

    logs = [
        play_log("fractured_sky", 3, 21, table_id="replay-fs")[0],
        play_log("spacecraft", 3, 22, table_id="replay-sc")[0],
        play_log("federation", 2, 23, table_id="replay-fed")[0],
    ]
    import_logs(stack.url, logs)
    r = stack.redis()
    for entries in logs:
        wait_until(lambda e=entries: projected(r, e), what="the projections")
    hot: dict[tuple[str, Viewer], list[bytes]] = {}
    live: dict[tuple[str, Viewer], bytes] = {}
    for entries in logs:
        table_id = entries[0].table_id
        seats = msgspec.json.decode(r.get(keys.view_key(partition(table_id), table_id, None)))
        viewers: list[Viewer] = [SPECTATOR, *range(len(seats["seats"]))]
        for viewer in viewers:
            hot[table_id, viewer] = [f.rendered for f in frames(entries, viewer)]
            seat = None if viewer == SPECTATOR else int(viewer)
            live[table_id, viewer] = r.get(keys.view_key(partition(table_id), table_id, seat))
    archiver = start_archiver(stack.url, stack.archive_url)
    try:
        for entries in logs:
            wait_until(lambda e=entries: archived(r, e[0].table_id), what="archiving")
    finally:
        stop_processes([archiver])
    for entries in logs:
        table_id = entries[0].table_id
        # only the tombstone is left, and it is small: about 200 bytes (the same tombstone
        # has measured 176 and 208, one allocator size class apart)
        assert keys_of(r, table_id) == [keys.tombstone_key(partition(table_id), table_id)]
        assert r.memory_usage(keys.tombstone_key(partition(table_id), table_id)) <= 240
        assert not r.get(lobby_table_key(table_id))
        stored = stored_log(stack.url, stack.archive_url, table_id)
        assert stored.head == (entries[-1].seq, entries[-1].hash)
        for (t, viewer), expected in hot.items():
            if t != table_id:
                continue
            replayed = [f.rendered for f in frames(stored.entries, viewer)]
            assert replayed == expected, (table_id, viewer)
            assert msgspec.json.decode(replayed[-1]) == msgspec.json.decode(live[t, viewer])


def test_audit_export_restore_and_import_of_an_archived_table(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.replay import play_log

    entries = play_log("spacecraft", 2, 31, table_id="audited")[0]
    import_logs(stack.url, [entries])
    r = stack.redis()
    archiver = start_archiver(stack.url, stack.archive_url)
    try:
        wait_until(lambda: archived(r, "audited"), what="archiving")
    finally:
        stop_processes([archiver])
    monkeypatch.setenv("ORRERY_ARCHIVE_URL", stack.archive_url)
    data = ["--data-dir", str(tmp_path)]
    redis_url = ["--redis-url", stack.url]
    audited = runner.invoke(app, ["audit", "audited", *redis_url, *data])
    assert audited.exit_code == 0, audited.output
    exported = runner.invoke(app, ["export", "audited", *redis_url, *data])
    assert exported.exit_code == 0 and len(exported.output.splitlines()) == len(entries)
    log_file = tmp_path / "audited.jsonl"
    log_file.write_text(exported.output)
    # the archived id is taken: importing it again is refused, into Redis or the archive
    for extra in ([], ["--archive"]):
        again = runner.invoke(app, ["import", str(log_file), *redis_url, *data, *extra])
        assert again.exit_code != 0 and "archived" in again.output, again.output
    # restore: back into Redis (its projections follow), then out again
    restored = runner.invoke(app, ["archive", "restore", "audited", *redis_url, *data])
    assert restored.exit_code == 0, restored.output
    assert not r.exists(keys.tombstone_key(partition("audited"), "audited"))
    back = asyncio.run(_read_hot(stack.url, "audited"))
    assert [e.hash for e in back] == [e.hash for e in entries]
    wait_until(lambda: projected(r, entries), what="the restored table's projections")
    ran = runner.invoke(app, ["archive", "run", "--older-than", "0", *redis_url, *data])
    assert ran.exit_code == 0 and ran.output.startswith("1 tables archived"), ran.output
    assert archived(r, "audited") and archive_rows(stack.archive_url) >= 1
    status = runner.invoke(app, ["archive", "status", "--json", *redis_url, *data])
    assert status.exit_code == 0 and '"reachable": true' in status.output, status.output
    # a tampered archived log fails its audit
    changed = list(entries)
    changed[5] = msgspec.structs.replace(changed[5], recorded_at=changed[5].recorded_at + 1)
    asyncio.run(_replace(stack.archive_url, "audited", changed))
    tampered = runner.invoke(app, ["audit", "audited", *redis_url, *data])
    assert tampered.exit_code != 0, tampered.output


async def _read_hot(url: str, table_id: str) -> list[RawEnvelope]:
    client = redis.asyncio.Redis.from_url(url)
    try:
        return (await read_stored_log(client, PARTITIONS, table_id)).entries
    finally:
        await client.aclose()


async def _replace(archive_url: str, table_id: str, entries: list[RawEnvelope]) -> None:
    store = await open_archive(archive_url)
    try:
        await store.replace_log(table_id, entries)
    finally:
        await store.close()


def test_a_command_to_an_archived_table_is_game_over(stack: Stack) -> None:
    import random

    from orrery_client.bot import play_seat
    from tests.support.tinygame import Stand

    async def play() -> list[str]:
        async with OrreryClient(stack.url) as client:
            table_id = await client.create_table("tiny", 2, table_id="over-1")
            seats = [await client.join(table_id, f"p{s}") for s in range(2)]
            await client.start(seats[0])
            await asyncio.gather(*(play_seat(client, s, random.Random(s.seat)) for s in seats))
            archiver = start_archiver(stack.url, stack.archive_url)
            try:
                await asyncio.to_thread(
                    wait_until, lambda: archived(stack.redis(), table_id), 90.0, "archiving"
                )
            finally:
                stop_processes([archiver])
            tombstone = await client.archived(table_id)  # what the SDK says of it
            assert tombstone is not None and len(tombstone["head"]) == 64
            assert int(tombstone["finished"]) <= int(tombstone["archived"])
            assert await client.archived("never-was") is None
            assert await client.view(table_id) is None
            outcomes = [
                await client.submit(table_id, StartTable(), seat=0, token=seats[0].token),
                await client.submit(table_id, CreateTable(game="tiny", seats=2)),
                await client.play(seats[1], Stand()),
            ]
            return [getattr(outcome, "code", "accepted") for outcome in outcomes]

    assert asyncio.run(play()) == ["game_over", "game_over", "game_over"]
    # and the rejections left nothing behind
    assert keys_of(stack.redis(), "over-1") == [keys.tombstone_key(partition("over-1"), "over-1")]


def test_ratings_rebuilt_from_the_archive_equal_the_live_leaderboard(
    stack: Stack, tmp_path: Path
) -> None:
    from services.replay import play_log

    players = ["p-ann", "p-bob", "p-cyd"]
    logs = [
        with_players(
            play_log("spacecraft", 2, 40 + i, table_id=f"rated-{i}")[0],
            {0: players[i % 3], 1: players[(i + 1) % 3]},
        )
        for i in range(6)
    ]
    import_logs(stack.url, logs[:3])
    r = stack.redis()
    lb = keys.leaderboard_key("spacecraft")
    wait_until(
        lambda: all(r.hexists(keys.FINISHED_TABLES, e[0].table_id) for e in logs[:3]),
        what="3 tables rated",
    )
    archiver = start_archiver(stack.url, stack.archive_url)
    try:
        for entries in logs[:3]:
            wait_until(lambda e=entries: archived(r, e[0].table_id), what="archiving")
    finally:
        stop_processes([archiver])
    import_logs(stack.url, logs[3:])  # these stay live
    wait_until(
        lambda: all(r.hexists(keys.FINISHED_TABLES, e[0].table_id) for e in logs[3:]),
        what="3 more rated",
    )
    live = r.zrange(lb, 0, -1, withscores=True)
    live_ratings = r.hgetall(keys.ratings_key("spacecraft"))
    games = [msgspec.json.decode(v)["games"] for v in live_ratings.values()]
    assert len(live) == 3 and games == [4, 4, 4], (live, games)
    options = ["--redis-url", stack.url, "--archive-url", stack.archive_url]
    rebuilt = runner.invoke(app, ["ratings", "rebuild", "spacecraft", *options])
    assert rebuilt.exit_code == 0 and "ratings recomputed" in rebuilt.output, rebuilt.output
    assert r.zrange(lb, 0, -1, withscores=True) == live
    assert r.hgetall(keys.ratings_key("spacecraft")) == live_ratings
    # a rebuild of every read model leaves the archived tables alone and keeps the ratings
    env = {"ORRERY_ARCHIVE_URL": stack.archive_url}
    projections = runner.invoke(
        app, ["projections", "rebuild", "--redis-url", stack.url, "--data-dir", str(tmp_path)],
        env=env,
    )  # fmt: skip
    assert projections.exit_code == 0, projections.output
    assert r.zrange(lb, 0, -1, withscores=True) == live
    for entries in logs[:3]:
        table_id = entries[0].table_id
        assert keys_of(r, table_id) == [keys.tombstone_key(partition(table_id), table_id)]


def test_an_unrated_table_moves_no_rating_live_archived_or_rebuilt(stack: Stack) -> None:
    """A table created unrated is recorded finished without a rating; archived, it stays
    unrated: a rebuild from the archive rates nobody at it either."""
    from services.replay import play_log

    players = {0: "p-fay", 1: "p-gus"}
    friendly = play_log("spacecraft", 2, 60, table_id="friendly-1", rated=False)[0]
    import_logs(stack.url, [with_players(friendly, players)])
    r = stack.redis()
    wait_until(lambda: r.hexists(keys.FINISHED_TABLES, "friendly-1"), what="the finish recorded")
    ratings = keys.ratings_key("spacecraft")
    assert r.hmget(ratings, list(players.values())) == [None, None]
    archiver = start_archiver(stack.url, stack.archive_url)
    try:
        wait_until(lambda: archived(r, "friendly-1"), what="archiving")
    finally:
        stop_processes([archiver])
    assert not r.hexists(keys.FINISHED_TABLES, "friendly-1")  # in the archive only
    options = ["--redis-url", stack.url, "--archive-url", stack.archive_url]
    rebuilt = runner.invoke(app, ["ratings", "rebuild", "spacecraft", *options])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert r.hmget(ratings, list(players.values())) == [None, None]
    assert r.zscore(keys.leaderboard_key("spacecraft"), "p-fay") is None


def test_a_finish_is_rated_once_however_often_its_table_moves_between_the_tiers(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Restoring an archived table and archiving it again leaves every rating as it was."""
    from services.replay import play_log

    players = {0: "p-dee", 1: "p-eve"}
    entries = with_players(play_log("spacecraft", 2, 77, table_id="rated-twice")[0], players)
    import_logs(stack.url, [entries])
    r = stack.redis()
    wait_until(lambda: r.hexists(keys.FINISHED_TABLES, "rated-twice"), what="the table rated")
    ratings = keys.ratings_key("spacecraft")

    def ours() -> list[bytes | None]:
        return [r.hget(ratings, player) for player in players.values()]

    rated = ours()
    assert [msgspec.json.decode(v or b"{}").get("games") for v in rated] == [1, 1]
    monkeypatch.setenv("ORRERY_ARCHIVE_URL", stack.archive_url)
    options = ["--redis-url", stack.url, "--data-dir", str(tmp_path)]
    for _ in range(2):
        ran = runner.invoke(app, ["archive", "run", "--older-than", "0", *options])
        assert ran.exit_code == 0 and archived(r, "rated-twice"), ran.output
        assert ours() == rated
        restored = runner.invoke(app, ["archive", "restore", "rated-twice", *options])
        assert restored.exit_code == 0, restored.output
        wait_until(lambda: projected(r, entries), what="the restored table's projections")
        wait_until(lambda: r.hexists(keys.FINISHED_TABLES, "rated-twice"), what="its finish")
        assert ours() == rated


# ---------------------------------------------------------------- chat


@pytest.mark.slow_for("postgresql")  # its SQLite run is the default twin
def test_a_tables_chat_moves_to_the_archive_and_back(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished table's chat (one message deleted) leaves Redis with the table; ``GET
    …/chat`` answers the same from the archive; ``orrery chat delete`` deletes in the
    archive; ``orrery archive restore`` puts the chat back into Redis, and archiving again
    takes it out again."""
    import random
    import secrets

    import httpx

    from orrery_client.bot import play_seat
    from orrery_contracts.envelope import Accepted
    from tests.support.gateway import LiveGateway, deleted_marker, sign_up

    table_id = "chat-archived"
    p = partition(table_id)
    stream = keys.chat_stream(p, table_id)
    monkeypatch.setenv("ORRERY_ARCHIVE_URL", stack.archive_url)
    cli = ["--redis-url", stack.url, "--data-dir", str(tmp_path)]
    r = stack.redis()

    async def play() -> tuple[dict[str, str], Any]:
        async with OrreryClient(stack.url) as client:
            await client.create_table("tiny", 2, table_id=table_id)
            seats = [await client.join(table_id, f"p{s}") for s in range(2)]
            await client.start(seats[0])
            said = {"gl hf": await client.say(seats[0], "gl hf")}
            said["rude"] = await client.say(seats[1], "rude")
            await asyncio.gather(*(play_seat(client, s, random.Random(s.seat)) for s in seats))
            said["gg"] = await client.say(seats[1], "gg")  # an ended table still chats
            assert all(isinstance(o, Accepted) and o.chat_id for o in said.values()), said
            return {text: str(getattr(o, "chat_id", "")) for text, o in said.items()}, seats[0]

    def chat_delete(message_id: str) -> str:
        done = runner.invoke(app, ["chat", "delete", table_id, message_id, *cli])
        assert done.exit_code == 0, done.output
        return done.output

    async def read_chat(url: str) -> list[dict[str, Any]]:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            reader = await sign_up(http, f"reader{secrets.token_hex(4)}")
            everything = await reader.get(f"/v1/tables/{table_id}/chat")
            assert everything.status_code == 200, everything.text
            messages: list[dict[str, Any]] = everything.json()["messages"]
            later = await reader.get(f"/v1/tables/{table_id}/chat", after=messages[0]["id"])
            assert later.json()["messages"] == messages[1:]
            return messages

    async def sdk_chat() -> list[dict[str, Any]]:
        async with OrreryClient(stack.url) as client:
            return [msgspec.to_builtins(m) for m in await client.chat(table_id)]

    async def say_to_archived() -> str:
        async with OrreryClient(stack.url) as client:
            outcome = await client.say(seat, "still here?")  # the worker has it cached
            return getattr(outcome, "code", "accepted")

    ids, seat = asyncio.run(play())
    chat_delete(ids["rude"])
    wait_until(lambda: b'"finished"' in (r.get(lobby_table_key(table_id)) or b""), what="lobby")
    gateway = LiveGateway(stack.service, secrets.token_urlsafe(32))
    try:
        url = gateway.start_gateway(
            ORRERY_ARCHIVE_URL=stack.archive_url,
            ORRERY_GATEWAY_RATE="1000",
            ORRERY_GATEWAY_BURST="1000",
            ORRERY_GATEWAY_ANON_RATE="1000",
            ORRERY_GATEWAY_ANON_BURST="1000",
        )
        before = asyncio.run(read_chat(url))
        assert [m["id"] for m in before] == [ids["gl hf"], ids["rude"], ids["gg"]]
        assert before[1] == deleted_marker(ids["rude"], before[1]["at"])
        assert [m["text"] for m in before] == ["gl hf", "", "gg"]

        archiver = start_archiver(stack.url, stack.archive_url)
        try:
            wait_until(lambda: archived(r, table_id), what="archiving")
        finally:
            stop_processes([archiver])
        # the chat stream is gone with the table; what is left of the chat's keys (the
        # rate and dedupe keys) expires on its own
        assert not r.exists(stream)
        left = [k for k in keys_of(r, table_id) if k != keys.tombstone_key(p, table_id)]
        assert all(":chat:" in k and r.pttl(k) > 0 for k in left), left
        assert asyncio.run(read_chat(url)) == before
        # a message to the archived table: what the rules answer (no chat key made again)
        assert asyncio.run(say_to_archived()) == "no_such_table"
        assert not r.exists(stream)

        # an operator's delete reaches the archived chat
        assert "in the archive" in chat_delete(ids["gl hf"])
        deleted = asyncio.run(read_chat(url))
        assert deleted[0] == deleted_marker(ids["gl hf"], deleted[0]["at"])
        assert deleted[1:] == before[1:]

        # restore: the chat is back in Redis, as the archive had it
        restored = runner.invoke(app, ["archive", "restore", table_id, *cli])
        assert restored.exit_code == 0, restored.output
        assert r.exists(stream)
        assert asyncio.run(sdk_chat()) == deleted == asyncio.run(read_chat(url))
        ran = runner.invoke(app, ["archive", "run", "--older-than", "0", *cli])
        assert ran.exit_code == 0, ran.output
        assert archived(r, table_id) and not r.exists(stream)
        assert asyncio.run(read_chat(url)) == deleted
    finally:
        gateway.stop()


# ---------------------------------------------------------------- racing and crashing


@pytest.mark.slow_for("postgresql")  # its SQLite run is the default twin
def test_two_archivers_racing_archive_each_table_exactly_once(stack: Stack, tmp_path: Path) -> None:
    logs = tiny_logs("race", 50)
    import_logs(stack.url, logs)
    r = stack.redis()
    before = archive_rows(stack.archive_url)
    journals = [tmp_path / "a.log", tmp_path / "b.log"]
    racers = [start_archiver(stack.url, stack.archive_url, j) for j in journals]
    try:
        wait_until(lambda: all(archived(r, e[0].table_id) for e in logs), what="50 tables archived")
    finally:
        stop_processes(racers)
    archived_lines = [
        msgspec.json.decode(line)
        for journal in journals
        for line in journal.read_bytes().splitlines()
        if b'"table_archived"' in line
    ]
    moved = sorted(
        line["table_id"] for line in archived_lines if line["table_id"].startswith("race-")
    )
    assert moved == sorted(e[0].table_id for e in logs)  # each once, by one of the two
    assert in_archive(stack.archive_url, moved) == set(moved)
    assert archive_rows(stack.archive_url) >= before + 50
    assert not any(b"archive_conflict" in j.read_bytes() for j in journals)


def chat_line(r: redis.Redis, table_id: str, text: str) -> tuple[str, bytes]:
    """A chat entry written into the table's stream as the worker writes one."""
    data = msgspec.json.encode({"seat": 0, "name": "p0", "text": text, "at": 1})
    entry_id = r.xadd(keys.chat_stream(partition(table_id), table_id), {"__data__": data})
    return entry_id.decode(), data


@pytest.mark.slow_for("postgresql")  # its SQLite run is the default twin
def test_an_archiver_killed_at_any_step_loses_and_duplicates_nothing(stack: Stack) -> None:
    logs = {step: tiny_logs(f"kill-{step}", 2) for step in FAULT_STEPS}
    r = stack.redis()
    before = archive_rows(stack.archive_url)
    chats: dict[str, list[tuple[str, bytes]]] = {}
    for step, step_logs in logs.items():
        import_logs(stack.url, step_logs)
        for entries in step_logs:
            wait_until(lambda e=entries: projected(r, e), what="the projections")
            chats[entries[0].table_id] = [chat_line(r, entries[0].table_id, "gg")]
        doomed = start_archiver(
            stack.url, stack.archive_url, ORRERY_FAULT_KILL_ARCHIVER_AFTER=step,
            ORRERY_ARCHIVE_CONCURRENCY="1",
        )  # fmt: skip
        assert doomed.wait(timeout=90) == -signal.SIGKILL
        for entries in step_logs:  # whole in Redis, or archived and tombstoned: never half
            table_id = entries[0].table_id
            p = partition(table_id)
            if r.exists(keys.meta_hash(p, table_id)):
                assert not r.exists(keys.tombstone_key(p, table_id))
                hot = asyncio.run(_read_hot(stack.url, table_id))
                assert [e.hash for e in hot] == [e.hash for e in entries]
                assert r.xlen(keys.chat_stream(p, table_id)) == 1
                # said after a copy the killed archiver made: the next one carries it
                chats[table_id].append(chat_line(r, table_id, "still here"))
            else:
                assert step in ("delete", "lobby") and r.exists(keys.tombstone_key(p, table_id))
                assert not r.exists(keys.chat_stream(p, table_id))
    healthy = start_archiver(stack.url, stack.archive_url)
    try:
        for step_logs in logs.values():
            for entries in step_logs:
                wait_until(lambda e=entries: archived(r, e[0].table_id), what="archiving")
    finally:
        stop_processes([healthy])
    ids = [entries[0].table_id for step_logs in logs.values() for entries in step_logs]
    assert in_archive(stack.archive_url, ids) == set(ids)
    assert archive_rows(stack.archive_url) >= before + len(ids)
    for step_logs in logs.values():
        for entries in step_logs:
            table_id = entries[0].table_id
            assert keys_of(r, table_id) == [keys.tombstone_key(partition(table_id), table_id)]
            stored = stored_log(stack.url, stack.archive_url, table_id)
            assert [e.hash for e in stored.entries] == [e.hash for e in entries]
    assert archived_chats(stack.archive_url, ids) == chats


def archived_chats(archive_url: str, table_ids: list[str]) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        store = await open_archive(archive_url)
        try:
            return await store.get_chats(table_ids)
        finally:
            await store.close()

    return asyncio.run(run())


def test_a_message_said_between_the_copy_and_the_delete_stops_the_delete(stack: Stack) -> None:
    """The delete script checks the chat still ends with the entry archived: a message
    said (or deleted) after the copy leaves the table in Redis, to be copied again."""
    from archive.archiver import Archiver
    from archive.packing import summarize

    entries = tiny_logs("chat-race", 1)[0]
    table_id = entries[0].table_id
    import_logs(stack.url, [entries])
    r = stack.redis()
    wait_until(lambda: projected(r, entries), what="the projections")
    first = chat_line(r, table_id, "first")

    async def race() -> list[str]:
        client = redis.asyncio.Redis.from_url(stack.url)
        store = await open_archive(stack.archive_url)
        try:
            archiver = Archiver(client, PARTITIONS, store, after_s=0)
            table = await archiver.hot.read(table_id)
            assert table is not None and table.chat == [first]
            summary = summarize(table.entries)
            await store.put_tables([(summary, table.entries)], chats={table_id: table.chat})
            chat_line(r, table_id, "late")  # said after the copy
            outcomes = [await archiver.hot.delete(table, summary.seat_count, 0, 1)]
            assert await client.exists(keys.meta_hash(partition(table_id), table_id))
            outcomes.append(str(await archiver.archive_table(table_id)))  # copied again
            return outcomes
        finally:
            await store.close()
            await client.aclose()

    assert asyncio.run(race()) == ["chat_changed", "True"]
    assert archived(r, table_id) and not r.exists(keys.chat_stream(partition(table_id), table_id))
    stored = archived_chats(stack.archive_url, [table_id])[table_id]
    assert len(stored) == 2 and stored[0] == first and b'"late"' in stored[1][1]


def test_an_unreachable_archive_deletes_nothing_and_archives_everything_after(
    tmp_path: Path,
) -> None:
    with EmbeddedServer(tmp_path / "valkey") as server, PostgresServer() as database:
        asyncio.run(prepare(server.url, PARTITIONS))
        archive_url = database.fresh_database()
        r = redis.Redis.from_url(server.url)
        archiver = start_archiver(server.url, archive_url, tmp_path / "archiver.log")
        try:
            first = tiny_logs("reach", 1)
            import_logs(server.url, first)
            wait_until(lambda: archived(r, "reach-000"), what="the first table archived")
            database.stop()  # the archive is gone for an attempt (its pool waits 5 s)
            log = tmp_path / "archiver.log"
            retries = log.read_bytes().count(b"archive_retry")
            logs = tiny_logs("unreach", 5)
            import_logs(server.url, logs)
            wait_until(
                lambda: log.read_bytes().count(b"archive_retry") > retries,
                what="an attempt at the unreachable archive",
            )
            for entries in logs:
                table_id = entries[0].table_id
                assert r.exists(keys.meta_hash(partition(table_id), table_id))
                assert not r.exists(keys.tombstone_key(partition(table_id), table_id))
            database.start_again()
            for entries in logs:
                wait_until(lambda e=entries: archived(r, e[0].table_id), what="archiving")
        finally:
            stop_processes([archiver])
        assert archive_rows(archive_url) == 6
        assert b"archive_retry" in log.read_bytes()


# ---------------------------------------------------------------- memory


def test_redis_memory_is_flat_after_200_games_are_archived(tmp_path: Path) -> None:
    """After 200 games played through the service and archived, each table leaves only its
    tombstone in Redis and used_memory has grown by at most 1 KiB per archived game."""
    import random

    from archive.archiver import Archiver
    from orrery.ops.maintenance import trim_streams
    from orrery_client.bot import play_seat

    archive_url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    games = 200

    async def play(client: OrreryClient, count: int, prefix: str) -> None:
        limit = asyncio.Semaphore(20)

        async def one(i: int) -> None:
            async with limit:
                table_id = await client.create_table("tiny", 2, table_id=f"{prefix}-{i:03d}")
                seats = [await client.join(table_id, f"p{s}") for s in range(2)]
                await client.start(seats[0])
                rng = random.Random(i)
                await asyncio.gather(*(play_seat(client, s, rng) for s in seats))

        await asyncio.gather(*(one(i) for i in range(count)))

    async def archive_all(url: str, expected: int) -> None:
        client = redis.asyncio.Redis.from_url(url)
        store = await open_archive(archive_url)
        try:
            archiver = Archiver(client, PARTITIONS, store, after_s=0)
            moved = 0
            for _ in range(600):
                moved += await archiver.run_once()
                if moved >= expected:
                    break
                await asyncio.sleep(0.1)  # the last projections may still be coming
            assert moved == expected
            await trim_streams(url)
        finally:
            await store.close()
            await client.aclose()

    async def used_memory(url: str, settled_below: int = 0) -> int:
        """The server's used_memory; with ``settled_below``, the least of a few readings
        over up to 5 s, stopping once one is below it: client buffers and the keyspace's
        hash tables grown for 200 games' keys are given back in the server's cron."""
        client = redis.asyncio.Redis.from_url(url)
        try:
            least = int((await client.info("memory"))["used_memory"])
            for _ in range(25 if settled_below else 0):
                if least <= settled_below:
                    break
                await asyncio.sleep(0.2)
                least = min(least, int((await client.info("memory"))["used_memory"]))
            return least
        finally:
            await client.aclose()

    async def round_of(url: str, count: int, prefix: str) -> None:
        async with OrreryClient(url) as client:
            await play(client, count, prefix)
        await archive_all(url, count)

    with live_service(tmp_path / "service", ORRERY_ARCHIVE_URL=archive_url) as service:
        r = service.sync_redis()
        # warm up: scripts loaded, streams and groups made, the processes' connection pools
        # grown to what 20 games at once need, one round archived and trimmed
        asyncio.run(round_of(service.url, 20, "warm"))
        before = asyncio.run(used_memory(service.url))
        asyncio.run(round_of(service.url, games, "flat"))
        after = asyncio.run(used_memory(service.url, settled_below=before + 1024 * games))
        left = sorted(k.decode() for k in r.scan_iter(match="*flat-*", count=1000))
        tombstones = (f"flat-{i:03d}" for i in range(games))
        assert left == sorted(
            keys.tombstone_key(keys.partition_of(t, PARTITIONS), t) for t in tombstones
        )
    assert archive_rows(archive_url) == games + 20
    # The target: at most 1 KiB of Redis per archived game. (A share of the
    # baseline is no target: the keyspace's hash tables grown for 200 games' keys shrink
    # only later, in the server's cron, so a few hundred KiB may stay for a while.)
    assert (after - before) / games <= 1024, (before, after)


# ---------------------------------------------------------------- the gateway


def test_the_gateway_reads_an_archived_table_as_before(tmp_path: Path) -> None:
    """``GET /v1/tables/{id}``, ``/view`` and ``/replay`` answer the same for a table
    before and after it moved to the archive."""
    import random

    import httpx

    from orrery_client.bot import play_seat
    from tests.support.gateway import live_gateway, sign_up

    archive_url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    with live_gateway(tmp_path / "gw", ORRERY_ARCHIVE_URL=archive_url) as live:

        async def play() -> str:
            async with OrreryClient(live.redis_url) as client:
                table_id = await client.create_table("tiny", 2, table_id="gw-archived")
                seats = [await client.join(table_id, f"p{s}") for s in range(2)]
                await client.start(seats[0])
                await asyncio.gather(*(play_seat(client, s, random.Random(s.seat)) for s in seats))
                return table_id

        async def read(table_id: str) -> list[Any]:
            async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
                player = await sign_up(http, f"reader{random.getrandbits(32):x}")
                detail = await player.get(f"/v1/tables/{table_id}")
                view = await player.get(f"/v1/tables/{table_id}/view")
                replays = [
                    await player.get(f"/v1/tables/{table_id}/replay", at=at) for at in (0, 5, 9)
                ]
                answers = [detail, view, *replays]
                assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
                return [a.json() for a in answers]

        table_id = asyncio.run(play())
        r = redis.Redis.from_url(live.redis_url)
        wait_until(
            lambda: (
                r.get(lobby_table_key(table_id)) is not None
                and b'"finished"' in r.get(lobby_table_key(table_id))
            )
        )
        before = asyncio.run(read(table_id))
        archiver = start_archiver(live.redis_url, archive_url)
        try:
            wait_until(lambda: archived(r, table_id), what="archiving")
        finally:
            stop_processes([archiver])
        after = asyncio.run(read(table_id))
        mine = asyncio.run(my_games_pages(live.url, live.redis_url, archive_url))
    assert after == before
    assert before[0]["finished_at"] and before[0]["phase"] == "finished"
    first, second = mine
    # newest first: the live table, then the archived ones, two per page
    assert [g["table_id"] for g in first["games"] + second["games"]] == ["m-2", "m-1", "m-0"]
    assert first["next"] and second["next"] is None
    for game in first["games"] + second["games"]:
        assert game["state"] == "finished" and game["rank"] in (1, 2)
        assert any(s["bot"] for s in game["seats"]) and any(s["player_id"] for s in game["seats"])


async def my_games_pages(url: str, redis_url: str, archive_url: str) -> list[dict[str, Any]]:
    """A verified player plays three tables against a bot; the first two are archived;
    then ``GET /v1/players/me/games`` two at a time."""
    import httpx

    from tests.support.gateway import play_to_end, sign_up

    r = redis.Redis.from_url(redis_url)
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        player = await sign_up(http, f"me{os.getpid()}")
        played = []
        for i in range(3):
            made = await player.create_table("tiny", 2)
            table_id = made["table_id"]
            await player.join(table_id)
            await player.bot(table_id)
            await player.start(table_id)
            await play_to_end(player, table_id, via="http")
            played.append(table_id)
            if i == 1:
                archiver = start_archiver(redis_url, archive_url)
                try:
                    for done in played:
                        await asyncio.to_thread(
                            wait_until, lambda d=done: archived(r, d), 90.0, "archiving"
                        )
                finally:
                    stop_processes([archiver])
        names = {table_id: f"m-{i}" for i, table_id in enumerate(played)}
        pages = []
        cursor = None
        for _ in range(2):
            params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
            response = await player.get("/v1/players/me/games", **params)
            assert response.status_code == 200, response.text
            page = response.json()
            for game in page["games"]:
                game["table_id"] = names[game["table_id"]]
            pages.append(page)
            cursor = page["next"]
        bad = await player.get("/v1/players/me/games", cursor="nope")
        assert bad.status_code == 422 and bad.json()["error"] == "bad_cursor"
        # the lobby's finished tables: the archive's and the live one, newest finish first
        listed: list[str] = []
        cursor = None
        for _ in range(2):
            params = {"state": "finished", "limit": 3, **({"cursor": cursor} if cursor else {})}
            response = await player.get("/v1/tables", **params)
            assert response.status_code == 200, response.text
            listed += [names.get(t["table_id"], t["table_id"]) for t in response.json()["tables"]]
            cursor = response.json()["next"]
        assert listed == ["m-2", "m-1", "m-0", "gw-archived"] and cursor is None
        return pages
