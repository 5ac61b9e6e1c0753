"""A 3-master local Valkey cluster (``orrery.server.cluster.LocalCluster``) runs the same code:
complete games of every game played through worker and projector processes on the
cluster; the logs pass the audit, and every projection equals the one a standalone
server wrote for the same table seeds and the same moves."""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from games.registry import BUILTIN
from orrery.runtime import prepare, spawn, stop_processes
from orrery.server.cluster import LocalCluster, is_cluster, open_redis, parse_url
from orrery.server.embedded import EmbeddedServer
from orrery_client.bot import choose
from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, decode_entry

pytestmark = pytest.mark.cluster

if TYPE_CHECKING:
    from games.table import TableState
    from services.handling import CommandHandler

PARTITIONS = 8
GAMES = [*BUILTIN, "tiny"]
SEATS = {"fractured_sky": 2, "spacecraft": 2, "federation": 3, "tiny": 2}
NAMES = ["Ada", "Brahe", "Cassini", "Dyson"]


@contextmanager
def processes(url: str, workers: int = 1, projectors: int = 1) -> Iterator[list[Any]]:
    asyncio.run(prepare(url, PARTITIONS))
    started: list[subprocess.Popen[bytes]] = []
    try:
        quiet = {"ORRERY_LOG_LEVEL": "warning"}
        started += [spawn("worker", url, i, quiet) for i in range(workers)]
        started += [spawn("projector", url, i, quiet) for i in range(projectors)]
        yield started
    finally:
        stop_processes(started)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster(Path(tmp_path_factory.mktemp("cluster")), masters=3) as started:
        yield started


@pytest.fixture(scope="module")
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    with EmbeddedServer(Path(tmp_path_factory.mktemp("single"))) as server:
        yield server


def test_urls_name_clusters(cluster: LocalCluster, standalone: EmbeddedServer) -> None:
    assert is_cluster(cluster.url)
    one_node = f"redis://127.0.0.1:{cluster.ports[1]}"
    assert is_cluster(one_node)  # detected from INFO cluster
    assert not is_cluster(standalone.url)
    address = parse_url("redis+cluster://u:pw@h1:7000,h2:7001/")
    assert address.nodes == [("h1", 7000), ("h2", 7001)] and address.explicit_cluster
    assert address.url == "redis://u:pw@h1:7000"


async def test_partitions_spread_over_the_masters(cluster: LocalCluster) -> None:
    redis = open_redis(cluster.url)
    try:
        await redis.initialize()
        owners = {redis.get_node_from_key(keys.command_stream(p)).port for p in range(PARTITIONS)}
        assert len(owners) == 3
        # one partition's keys share a slot: the append script's keys never cross slots
        slots = {redis.keyslot(k) for k in (keys.log_stream(5, "t"), keys.feed_stream(5))}
        assert len(slots) == 1
    finally:
        await redis.aclose()


def table_ids(game: str) -> str:
    return f"cl-{game.replace('_', '')}-1"


async def drive(client: OrreryClient, game: str, rng: random.Random) -> str:
    """Play one table to the end, one command at a time in a fixed order (the lowest seat
    to move goes first), so the same seeds give the same log on any server."""
    table_id = table_ids(game)
    # the table's secret seed is set before creation; the create keeps a stored seed
    p = keys.partition_of(table_id, client.partitions)
    await client.redis.set(keys.secret_key(p, table_id), bytes(range(32)))
    await client.create_table(game, SEATS[game], table_id=table_id)
    seats = [await client.join(table_id, name) for name in NAMES[: SEATS[game]]]
    seq = (await client.start(seats[0])).last_seq
    for _ in range(5000):
        spectator = await client.wait_view(table_id, None, seq)
        if spectator["phase"] == "finished":
            return table_id
        mover = min(spectator["to_move"])
        move = choose(await client.wait_view(table_id, mover, seq), rng)
        assert move is not None
        outcome = await client.play(seats[mover], move)
        assert isinstance(outcome, Accepted), outcome
        seq = outcome.last_seq
    raise AssertionError(f"{game} did not finish")


async def play_all(url: str) -> dict[str, Any]:
    async with OrreryClient(url) as client:
        tables = await asyncio.gather(
            *(drive(client, game, random.Random(i)) for i, game in enumerate(GAMES))
        )
        return {t: await read_models(client, t) for t in tables}


async def read_models(client: OrreryClient, table_id: str) -> dict[str, Any]:
    p = client.partition(table_id)
    seq = int(await client.redis.hget(keys.meta_hash(p, table_id), "seq"))
    score = None
    for _ in range(200):
        score = await client.score(table_id)
        if score is not None and score["seq"] >= seq:
            break
        await asyncio.sleep(0.05)
    viewers: list[int | None] = [None, *range(len_seats(table_id))]
    views = [await client.wait_view(table_id, s, seq) for s in viewers]
    entries = await client.redis.xrange(keys.log_stream(p, table_id))
    log = [decode_entry(fields[b"e"]) for _, fields in entries]
    return {"score": score, "views": views, "log": log, "seq": seq}


def len_seats(table_id: str) -> int:
    for game, n in SEATS.items():
        if table_id == table_ids(game):
            return n
    raise KeyError(table_id)


def timeless(value: Any) -> Any:
    """Without the wall-clock fields (recorded / finished times) and the hashes of the
    random seat tokens: what differs between two runs of the same moves."""
    if isinstance(value, dict):
        return {
            k: timeless(v) for k, v in value.items() if not k.endswith("_at") and k != "token_hash"
        }
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def audit(log: list[Any]) -> None:
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    from services.audit import audit_entries

    report = audit_entries(log)
    assert report.ok, report.failure


def test_every_game_on_the_cluster_equals_standalone(
    cluster: LocalCluster, standalone: EmbeddedServer
) -> None:
    with processes(cluster.url):
        on_cluster = asyncio.run(play_all(cluster.url))
    with processes(standalone.url):
        alone = asyncio.run(play_all(standalone.url))
    assert on_cluster.keys() == alone.keys() == {table_ids(g) for g in GAMES}
    for table_id, models in on_cluster.items():
        audit(models["log"])
        assert models["score"]["phase"] == "finished"
        assert models["views"][0]["phase"] == "finished"
        other = alone[table_id]
        assert models["seq"] == other["seq"]
        assert timeless(models["views"]) == timeless(other["views"])
        assert timeless(models["score"]) == timeless(other["score"])
        bodies = [msgspec.msgpack.decode(e.body) for e in models["log"]]
        others = [msgspec.msgpack.decode(e.body) for e in other["log"]]
        assert timeless(bodies) == timeless(others)


async def test_the_append_acks_on_the_cluster_and_the_intake_answers(
    cluster: LocalCluster,
) -> None:
    """On a cluster the append script acks and deletes its command entry (the stream
    shares the table's slot); it answers too when the reply stream is in that slot (the
    SDK's ``<stream>:{p}``), else the append says ``ACKED`` and the intake writes the
    answer; a reply key that is not a stream dead-letters the entry after it
    (services/store.py)."""
    from orrery_client.sdk import new_seat_token
    from orrery_contracts.table import CreateTable, JoinRequest, StartTable
    from services.handling import CommandHandler
    from services.intake import Intake
    from services.store import ACKED, SETTLED, EventStore
    from streams.batches import Batch
    from tests.support.tables import envelope

    await prepare(cluster.url, PARTITIONS)
    redis = open_redis(cluster.url)
    try:
        store = EventStore(redis, PARTITIONS)
        table = "acked-1"
        p = store.partition(table)
        stream = keys.command_stream(p)
        reply_to, refused_to = "orrery:reply:test:acked", "orrery:reply:test:acked-string"
        in_slot = f"orrery:reply:test:acked:{{{p}}}"
        assert store.settles and not store.answers(table, reply_to)
        assert store.answers(table, in_slot)
        assert not store.answers(table, f"orrery:reply:test:acked:{{{p + 1}}}")
        assert not EventStore(redis, PARTITIONS, wait_aof_ms=100).answers(table, in_slot)
        handler = CommandHandler(store)
        await redis.set(refused_to, "x")

        async def read(*entries: bytes) -> Any:
            for data in entries:
                await redis.xadd(stream, {"__data__": data})
            got = await redis.xreadgroup(keys.DECIDERS_GROUP, "c", {stream: ">"}, count=10)
            return got[0][1]

        create = envelope(table, CreateTable(game="tiny", seats=2), reply_to=reply_to)
        [(entry_id, fields)] = await read(create)
        handled = await handler.decide_entry(fields[b"__data__"], stream, entry_id)
        assert isinstance(handled.outcome, Accepted) and handled.settled == ACKED
        assert not await redis.exists(reply_to)  # the answer is the intake's
        assert (await redis.xpending(stream, keys.DECIDERS_GROUP))["pending"] == 0
        assert not await redis.xrange(stream, entry_id, entry_id)  # deleted

        intake = Intake(redis, handler, consumer="c")
        tokens = [new_seat_token(), new_seat_token()]
        joins = [
            envelope(table, JoinRequest(name="Ann"), token=tokens[0], reply_to=reply_to),
            envelope(table, JoinRequest(name="Bob"), token=tokens[1], reply_to=refused_to),
        ]
        await intake.on_batch(p, Batch.of(stream, await read(*joins)))
        replies = [msgspec.json.decode(f[b"__data__"]) for _, f in await redis.xrange(reply_to)]
        assert [(r["outcome"], r["seat"]) for r in replies] == [("accepted", 0)]
        assert (await redis.xpending(stream, keys.DECIDERS_GROUP))["pending"] == 0
        dead = await redis.xrange(keys.dead_letter_stream(p))
        assert [f[b"reason"] for _, f in dead] == [
            b"outcome accepted not delivered: reply_to is not a stream"
        ]
        assert (await store.load(table)).seq == 3  # both joins stand

        # a reply stream in the table's slot: the append answers, acks and deletes
        start = envelope(table, StartTable(), seat=0, token=tokens[0], reply_to=in_slot)
        [(entry_id, fields)] = await read(start)
        handled = await handler.decide_entry(fields[b"__data__"], stream, entry_id)
        assert isinstance(handled.outcome, Accepted) and handled.settled == SETTLED
        [(_, answer)] = await redis.xrange(in_slot)
        assert msgspec.json.decode(answer[b"__data__"])["outcome"] == "accepted"
        assert (await redis.xpending(stream, keys.DECIDERS_GROUP))["pending"] == 0
    finally:
        await redis.aclose()


async def _started_tiny_table(redis: Any, table: str) -> tuple[CommandHandler, list[str]]:
    """A two-seat tiny table created, joined and started through a decider of the
    cluster: its handler and the seat tokens."""
    from orrery_client.sdk import new_seat_token
    from orrery_contracts.table import CreateTable, JoinRequest, StartTable
    from services.handling import CommandHandler
    from services.store import EventStore
    from tests.support.tables import envelope

    handler = CommandHandler(EventStore(redis, PARTITIONS))
    tokens = [new_seat_token(), new_seat_token()]
    commands = [
        envelope(table, CreateTable(game="tiny", seats=2)),
        *(envelope(table, JoinRequest(name=n), token=t) for n, t in zip("AB", tokens, strict=True)),
        envelope(table, StartTable(), seat=0, token=tokens[0]),
    ]
    for command in commands:
        assert isinstance((await handler.handle(command)).outcome, Accepted)
    return handler, tokens


async def _finished_tiny_table(redis: Any, table: str) -> TableState:
    """A two-seat tiny table played to its end (both seats stand): its state."""
    from tests.support.tables import envelope
    from tests.support.tinygame import Stand

    handler, tokens = await _started_tiny_table(redis, table)
    for seat in (0, 1):
        moved = await handler.handle(envelope(table, Stand(), seat=seat, token=tokens[seat]))
        assert isinstance(moved.outcome, Accepted)
    state = await handler.store.load(table)
    assert state.phase == "finished"
    return state


async def test_the_projectors_write_call_acknowledges_its_feed_entries_on_the_cluster(
    cluster: LocalCluster,
) -> None:
    """The call that writes a partition's tables acknowledges the partition's feed
    entries in the same slot, at the start (whose lobby record went first, alone) and
    for a move (which writes no lobby record: the record keeps the start's seq)."""
    from orrery_contracts.lobby import lobby_table_decoder, lobby_table_key
    from projections.reverts import tables_behind
    from projections.runner import Projector, ensure_feed_groups
    from projections.tables import TableCache
    from projections.writes import FeedAck
    from tests.support.tables import envelope
    from tests.support.tinygame import Stand

    await prepare(cluster.url, PARTITIONS)
    redis = open_redis(cluster.url)
    try:
        table = "fed-acks-1"
        p = keys.partition_of(table, PARTITIONS)
        feed = keys.feed_stream(p)
        handler, tokens = await _started_tiny_table(redis, table)
        await ensure_feed_groups(redis, PARTITIONS)
        projector = Projector(redis, PARTITIONS, TableCache(redis, PARTITIONS))

        started = (await handler.store.load(table)).lifecycle_seq  # the start's seq

        async def project() -> FeedAck:
            read = await redis.xreadgroup(keys.PROJECTIONS_GROUP, "t", {feed: ">"}, count=100)
            ids = [entry_id for entry_id, _ in read[0][1]]
            ack = FeedAck(feed, keys.PROJECTIONS_GROUP, ids)
            seq = len(await handler.store.read_log(table))
            assert await projector.apply_batch({table: seq}, {p: ack}) == {}
            # (this consumer's entries: the module's other tests share the cluster)
            left = await redis.xpending_range(
                feed, keys.PROJECTIONS_GROUP, min="-", max="+", count=100, consumername="t"
            )
            assert ids and not left
            record = lobby_table_decoder.decode(await redis.get(lobby_table_key(table)))
            assert (record.seq, record.state) == (started, "playing")
            return ack

        assert (await project()).done
        moved = await handler.handle(envelope(table, Stand(), seat=0, token=tokens[0]))
        assert isinstance(moved.outcome, Accepted)
        assert (await project()).done
        # the reads that find views that went back, each in its partition's slot
        # (projections/reverts.py): the count its writes answered, the table not behind
        counts = projector.view_counts
        assert counts.seen[p] > 0 and await counts.went_back(redis) == []
        assert table not in await tables_behind(redis, p)
    finally:
        await redis.aclose()


async def test_a_finished_game_is_recorded_on_the_cluster_without_a_thread(
    cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finished-tables record and the ratings change in one transaction on the
    leaderboard's slot. redis-py's cluster transactions start a thread per command (and
    the loop waits for it); the projector's go through a client of the slot's node."""
    import threading

    from projections.runner import Projector
    from projections.tables import TableCache

    started: list[threading.Thread] = []
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        started.append(thread)
        start(thread)

    await prepare(cluster.url, PARTITIONS)
    redis = open_redis(cluster.url)
    try:
        table = "fed-finish-1"
        state = await _finished_tiny_table(redis, table)
        projector = Projector(redis, PARTITIONS, TableCache(redis, PARTITIONS))
        monkeypatch.setattr(threading.Thread, "start", counted)
        try:
            assert await projector.apply_batch({table: state.seq}) == {}
        finally:
            await projector.scores.close()
        assert started == []
        recorded = await redis.hget(keys.FINISHED_TABLES, table)
        assert recorded is not None and table.encode() in recorded
        # recorded once: another projector finds it there and leaves it
        other = Projector(redis, PARTITIONS, TableCache(redis, PARTITIONS))
        try:
            assert await other.apply_batch({table: state.seq}) == {}
        finally:
            await other.scores.close()
        assert await redis.hget(keys.FINISHED_TABLES, table) == recorded
    finally:
        await redis.aclose()


async def test_a_finished_game_recorded_after_the_slot_moved_goes_to_its_new_node(
    cluster: LocalCluster,
) -> None:
    """The finished-game transaction runs on a client of the leaderboard slot's node.
    When the slot map it looked that node up in is stale (a failover, a resharding),
    the transaction fails once; the next attempt reads the map anew and lands."""
    from redis.crc import key_slot
    from redis.exceptions import ResponseError

    from projections.scoreboard import ScoreboardWriter

    await prepare(cluster.url, PARTITIONS)
    redis = open_redis(cluster.url)
    writer = ScoreboardWriter(redis, PARTITIONS)
    try:
        table = "fed-finish-moved"
        state = await _finished_tiny_table(redis, table)
        # the map says another master holds the slot: as after a failover
        slot = key_slot(keys.FINISHED_TABLES.encode())
        holder = redis.get_node_from_key(keys.FINISHED_TABLES)
        assert holder is not None
        other = next(n for n in redis.get_primaries() if n.name != holder.name)
        redis.nodes_manager.slots_cache[slot] = [other]
        with pytest.raises(ResponseError):  # MOVED, from the master that lost the slot
            await writer.record_finish(state)
        await writer.record_finish(state)
        recorded = await redis.hget(keys.FINISHED_TABLES, table)
        assert recorded is not None and table.encode() in recorded
    finally:
        await writer.close()
        await redis.aclose()


def test_the_sdk_reads_its_answers_in_each_partitions_slot(cluster: LocalCluster) -> None:
    """On a cluster the SDK's answers for a table come to a reply stream in the table's
    slot (so the append writes them), one per partition it sends to; closing the client
    deletes them."""
    tables = {keys.partition_of(f"slot-{i}", PARTITIONS): f"slot-{i}" for i in range(40)}
    chosen = list(tables.values())[:3]

    async def play() -> list[str]:
        async with OrreryClient(cluster.url) as client:
            for table in chosen:
                await client.create_table("tiny", 2, table_id=table)
            streams = [client.reply_stream_for(table) for table in chosen]
            for table, stream in zip(chosen, streams, strict=True):
                assert keys.hash_tag(stream) == str(client.partition(table))
                assert stream.startswith(client.reply_stream)
                assert await client.redis.xlen(stream) == 1  # the create's answer
            return streams

    async def left(streams: list[str]) -> list[int]:
        redis = open_redis(cluster.url)
        try:
            return [await redis.exists(stream) for stream in streams]
        finally:
            await redis.aclose()

    with processes(cluster.url):
        streams = asyncio.run(play())
    assert asyncio.run(left(streams)) == [0, 0, 0]


async def _create_through_handler(
    redis: Any, table_id: str, wait_aof_ms: int, wait_replicas: int = 0
) -> Any:
    from orrery_contracts.envelope import CommandEnvelope
    from orrery_contracts.table import CreateTable
    from services.handling import CommandHandler
    from services.store import EventStore

    store = EventStore(redis, PARTITIONS, wait_aof_ms=wait_aof_ms, wait_replicas=wait_replicas)
    store.wait_replicas_ms = 300
    handler = CommandHandler(store)
    json = msgspec.json.Encoder()
    envelope = CommandEnvelope(
        command_id=f"create-{table_id}",
        table_id=table_id,
        body=msgspec.Raw(json.encode(CreateTable(game="tiny", seats=2, options={}))),
    )
    return (await handler.handle(json.encode(envelope))).outcome


async def test_wait_aof_confirms_the_fsync_on_cluster_and_standalone(
    cluster: LocalCluster, standalone: EmbeddedServer, tmp_path: Path
) -> None:
    from redis.exceptions import ResponseError

    for url in (cluster.url, standalone.url):
        await prepare(url, PARTITIONS)
        redis = open_redis(url)
        try:
            for i in range(4):  # tables in several partitions, so on several masters
                outcome = await _create_through_handler(redis, f"aof-{i}", wait_aof_ms=2000)
                assert isinstance(outcome, Accepted), outcome
            # a retry of the same command waits for the fsync again and answers the same
            again = await _create_through_handler(redis, "aof-0", wait_aof_ms=2000)
            assert again.original.first_seq == 1
        finally:
            await redis.aclose()
    # WAITAOF refuses to confirm without an AOF: the command is not answered "accepted"
    with EmbeddedServer(tmp_path, extra_args=["--appendonly", "no"]) as no_aof:
        await prepare(no_aof.url, PARTITIONS)
        redis = open_redis(no_aof.url)
        try:
            with pytest.raises(ResponseError):
                await _create_through_handler(redis, "aof-off", wait_aof_ms=500)
        finally:
            await redis.aclose()


async def test_wait_replicas_confirms_a_replica_has_the_append(tmp_path: Path) -> None:
    """``ORRERY_WAIT_REPLICAS=n``: the append counts once n replicas have it (WAIT), so a
    failover to that replica cannot lose an answered command. A replica that is online
    but does not confirm (frozen here with SIGSTOP) blocks the answer; asking for more
    replicas than a master has online waits for those it has (after a failover the
    promoted master has none, and its partitions must keep answering)."""
    import os
    import signal

    from services.store import DurabilityTimeout

    with LocalCluster(tmp_path, masters=3, replicas=1) as cluster:
        await prepare(cluster.url, PARTITIONS)
        redis = open_redis(cluster.url)
        try:
            for i in range(4):
                outcome = await _create_through_handler(
                    redis, f"repl-{i}", wait_aof_ms=0, wait_replicas=1
                )
                assert isinstance(outcome, Accepted), outcome
            # more than the one replica each master has: waits for that one
            more = await _create_through_handler(redis, "repl-x", wait_aof_ms=0, wait_replicas=2)
            assert isinstance(more, Accepted), more

            table_id = "repl-frozen"
            await redis.initialize()
            master = redis.get_node_from_key(
                keys.meta_hash(keys.partition_of(table_id, PARTITIONS), table_id)
            )
            topology = await cluster.topology()
            (replica,) = topology.replicas[master.name]
            pid = cluster.pid_of(int(replica.rpartition(":")[2]))
            os.kill(pid, signal.SIGSTOP)
            try:
                with pytest.raises(DurabilityTimeout):
                    await _create_through_handler(redis, table_id, wait_aof_ms=0, wait_replicas=1)
            finally:
                os.kill(pid, signal.SIGCONT)
            # the retry finds the stored outcome and answers once the replica has it
            again = await _create_through_handler(redis, table_id, wait_aof_ms=0, wait_replicas=1)
            assert again.original.first_seq == 1
        finally:
            await redis.aclose()


async def test_the_gateways_stream_watchers_wake_followers_of_every_slot(
    cluster: LocalCluster,
) -> None:
    """On a cluster a blocking read may not span slots: the gateway's watchers group the
    streams by slot (a table's streams by partition, each player's notice stream alone),
    each group's own wake stream in that slot, and every follower whose stream grew is
    woken, a stream joining a group while its read blocks too."""
    from gateway.stream_wake import StreamWake

    redis = open_redis(cluster.url)
    watch = StreamWake(redis)
    streams = [keys.updates_stream(p, f"wake-{p}") for p in range(3)]
    streams += [keys.chat_stream(0, "wake-0")]  # the slot of partition 0, one group
    streams += [keys.player_notice_stream(f"wake-player-{i}") for i in range(3)]
    try:
        async with contextlib.AsyncExitStack() as stack:
            followers = []
            for stream in streams:
                followers.append(await stack.enter_async_context(watch.follow(stream, "0-0")))
                await asyncio.sleep(0.05)  # the groups' reads are blocking as others join
            assert len(watch.groups) == 6
            for follower in followers:
                follower.ready.clear()
            for stream in streams:
                await redis.xadd(stream, {"__data__": b"{}"})
            async with asyncio.timeout(10):
                for follower in followers:
                    await follower.ready.wait()
    finally:
        for stream in streams:  # one slot each call
            await redis.delete(stream)
        await redis.aclose()


async def test_many_players_flags_are_read_across_slots(cluster: LocalCluster) -> None:
    """Players' presence and erased flags lie in many slots (no hash tag): reading many at
    once on a cluster asks each slot's node, as one read does on a single server."""
    from redis.crc import key_slot

    from gateway.erased import erased_among
    from gateway.presence import presence_of
    from orrery_contracts.social import away_key, erased_key, presence_key

    redis = open_redis(cluster.url)
    players = [f"presence-player-{i}" for i in range(12)]
    try:
        assert len({key_slot(presence_key(p).encode()) for p in players}) > 1
        for player in players[:4]:
            await redis.set(presence_key(player), b"1")
        for player in players[4:8]:
            await redis.set(away_key(player), b"1")
        found = await presence_of(redis, players)
        assert found == {
            p: "online" if i < 4 else "away" if i < 8 else "offline" for i, p in enumerate(players)
        }
        for player in players[::3]:
            await redis.set(erased_key(player), b"1")
        assert await erased_among(redis, players) == set(players[::3])
    finally:
        for player in players:  # one slot each call
            await redis.delete(presence_key(player))
            await redis.delete(away_key(player))
            await redis.delete(erased_key(player))
        await redis.aclose()
