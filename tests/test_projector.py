"""The projector's batch against a real server (no transport): a partition's writes go
in one script call, which also acknowledges the partition's feed entries once every write
in it is made, and one table's broken key holds back only that table."""

from __future__ import annotations

import functools

import msgspec
import pytest
import redis.asyncio as aioredis

from games.table import TableState
from orrery_client.sdk import new_seat_token
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted
from orrery_contracts.lobby import (
    APPLIED_HASH,
    LobbyTable,
    listing_member,
    lobby_list_key,
    lobby_table_decoder,
    lobby_table_key,
)
from orrery_contracts.table import CreateTable, JoinRequest, LeaveTable, StartTable
from projections.notices import SEAT_NOTICES_MAXLEN, NoticeWriter
from projections.reverts import RevertWatch, tables_behind
from projections.runner import FeedHandlers, Projector, ensure_feed_groups, project_again
from projections.tables import TableCache
from projections.views import UPDATES_MAXLEN, ViewWriter
from projections.writes import FeedAck
from services.handling import CommandHandler
from services.store import EventStore
from streams.batches import Batch
from tests.support.tables import envelope
from tests.support.tinygame import Stand

pytestmark = pytest.mark.service

P = 4


async def _started(handler: CommandHandler, table: str) -> int:
    return (await _seated(handler, table))[0]


async def _seated(handler: CommandHandler, table: str) -> tuple[int, list[str]]:
    # on_abandon "bot": play goes on after a seat leaves (without the server key the
    # worker itself moves for it)
    create = CreateTable(game="tiny", seats=2, on_abandon="bot")
    outcomes = [await handler.handle(envelope(table, create))]
    tokens = [new_seat_token() for _ in range(2)]
    for s, token in enumerate(tokens):
        outcomes.append(
            await handler.handle(envelope(table, JoinRequest(name=f"p{s}"), token=token))
        )
    outcomes.append(await handler.handle(envelope(table, StartTable(), seat=0, token=tokens[0])))
    assert all(isinstance(h.outcome, Accepted) for h in outcomes)
    return len(await handler.store.read_log(table)), tokens


async def _in_play(redis_client: aioredis.Redis) -> tuple[CommandHandler, str, int, list[str]]:
    """A started two-seat table of partition 0: its handler, id, seq and seat tokens."""
    handler = CommandHandler(EventStore(redis_client, P))
    (table,) = _same_partition(1)
    seq, tokens = await _seated(handler, table)
    return handler, table, seq, tokens


def _same_partition(count: int) -> list[str]:
    ids = (f"proj{n}" for n in range(1_000))
    return [t for t in ids if keys.partition_of(t, P) == 0][:count]


async def test_a_broken_key_fails_its_table_alone_and_the_partition_writes_in_one_call(
    redis_client: aioredis.Redis,
) -> None:
    handler = CommandHandler(EventStore(redis_client, P))
    healthy, broken, other = _same_partition(3)
    seqs = {t: await _started(handler, t) for t in (healthy, broken, other)}
    # the broken table's updates stream is something else: its views' XADD fails
    await redis_client.set(keys.updates_stream(0, broken), b"not a stream")
    projector = Projector(redis_client, P, TableCache(redis_client, P))

    before = (await redis_client.info("commandstats")).get("cmdstat_evalsha", {}).get("calls", 0)
    failed = await projector.apply_batch(seqs)
    after = (await redis_client.info("commandstats"))["cmdstat_evalsha"]["calls"]

    assert set(failed) == {broken} and "WRONGTYPE" in str(failed[broken])
    # one call for the partition's lobby records, views, notices and scores
    assert after - before == 1
    for table in (healthy, other):
        assert (
            int(await redis_client.get(keys.projection_seq_key(0, table, keys.VIEWS_GROUP)))
            == seqs[table]
        )
        view = msgspec.json.decode(await redis_client.get(keys.view_key(0, table, 0)))
        assert view["seq"] == seqs[table]
        assert await redis_client.get(keys.score_key(0, table))
    # the broken table's later writes in the same call still ran; its views did not
    assert await redis_client.get(keys.score_key(0, broken))
    assert await redis_client.get(keys.view_key(0, broken, 0)) is None
    assert await redis_client.get(keys.projection_seq_key(0, broken, keys.VIEWS_GROUP)) is None

    await redis_client.delete(keys.updates_stream(0, broken))
    projector.tables.forget(broken)
    assert await projector.apply_batch({broken: seqs[broken]}) == {}
    assert await redis_client.get(keys.view_key(0, broken, 0))


async def test_a_move_in_play_writes_no_lobby_record(redis_client: aioredis.Redis) -> None:
    """A move in play changes nothing the lobby shows: no record is written, by this
    projector (which remembers its record) nor by another (which reads it), and the
    record keeps the start's seq; the game's end is written, with its seq."""
    handler, table, seq, tokens = await _in_play(redis_client)
    projector = Projector(redis_client, P, TableCache(redis_client, P))
    assert await projector.apply_batch({table: seq}) == {}
    started = projector.lobby.written[table]
    # (the start's own event, before the game's set-up events)
    lifecycle = (await projector.tables.state(table)).lifecycle_seq
    assert (started.state, started.seq) == ("playing", lifecycle) and 1 < lifecycle < seq

    async def move(seat: int) -> TableState:
        handled = await handler.handle(envelope(table, Stand(), seat=seat, token=tokens[seat]))
        assert isinstance(handled.outcome, Accepted)
        return await projector.tables.state(table)

    async def record() -> LobbyTable:
        return lobby_table_decoder.decode(await redis_client.get(lobby_table_key(table)))

    moved = await move(0)
    assert moved.seq > seq and moved.lifecycle_seq == lifecycle
    assert projector.lobby.call(moved, []) is None
    other = Projector(redis_client, P, TableCache(redis_client, P))
    pipe = redis_client.pipeline(transaction=False)
    other.lobby.queue_reads(pipe, table)
    assert other.lobby.call(moved, await pipe.execute()) is None
    assert await projector.apply_batch({table: moved.seq}) == {}
    assert await record() == started

    ended = await move(1)
    last = projector.lobby.call(ended, [])
    assert last is not None and (last.record.state, last.record.seq) == ("finished", ended.seq)
    assert await projector.apply_batch({table: ended.seq}) == {}
    assert await record() == last.record


async def test_the_lobby_record_is_replaced_without_a_read_until_another_writer_wrote_it(
    redis_client: aioredis.Redis,
) -> None:
    handler, table, seq, tokens = await _in_play(redis_client)
    mine = Projector(redis_client, P, TableCache(redis_client, P))
    other = Projector(redis_client, P, TableCache(redis_client, P))  # a second projector

    async def move(seat: int) -> int:
        handled = await handler.handle(envelope(table, Stand(), seat=seat, token=tokens[seat]))
        assert isinstance(handled.outcome, Accepted)
        return len(await handler.store.read_log(table))

    async def record() -> LobbyTable:
        return lobby_table_decoder.decode(await redis_client.get(lobby_table_key(table)))

    assert await mine.apply_batch({table: seq}) == {}
    assert mine.lobby.queue_reads(redis_client.pipeline(), table) == 0  # nothing to read
    # a batch handled beside this one forgot the record after the reads were queued:
    # the write is still made, and its script refuses to replace what it did not read
    remembered = mine.lobby.written.pop(table)
    forgetful = mine.lobby.call(await mine.tables.state(table), [])
    assert forgetful is not None and await forgetful.run() == 0  # (seq applied already)
    mine.lobby.written[table] = remembered
    # the other projector writes the next record: mine is no longer what is there
    seq = await move(0)
    assert await other.apply_batch({table: seq}) == {}
    # the last move ends the game: mine is refused (-1), reads the record and writes again
    seq = await move(1)
    assert await mine.apply_batch({table: seq}) == {}
    written = await record()
    assert (written.seq, written.state) == (seq, "finished")
    assert int(await redis_client.hget(APPLIED_HASH, table)) == seq
    # listed once, under its new state only
    member = listing_member(written.created_at, table)
    assert await redis_client.zscore(lobby_list_key("finished"), member) is not None
    assert await redis_client.zscore(lobby_list_key("playing"), member) is None
    assert mine.lobby.written[table] == written
    # the record is gone (an archived table restored): the same seq applied again writes it
    await redis_client.delete(lobby_table_key(table))
    await redis_client.hdel(APPLIED_HASH, table)
    assert await mine.apply_batch({table: seq}) == {}
    assert await record() == written


async def _feed_batch(redis_client: aioredis.Redis, p: int) -> Batch:
    """The partition's new feed entries, read as the projections' group reads them."""
    await ensure_feed_groups(redis_client, P)
    stream = keys.feed_stream(p)
    read = await redis_client.xreadgroup(
        keys.PROJECTIONS_GROUP, "test-projector", {stream: ">"}, count=1000
    )
    return Batch.of(stream, read[0][1])


async def _pending(redis_client: aioredis.Redis, p: int) -> int:
    summary = await redis_client.xpending(keys.feed_stream(p), keys.PROJECTIONS_GROUP)
    return int(summary["pending"])


async def test_the_write_call_acknowledges_the_feed_entries_once_every_write_is_made(
    redis_client: aioredis.Redis,
) -> None:
    handler = CommandHandler(EventStore(redis_client, P))
    healthy, broken = _same_partition(2)
    seqs = {t: await _started(handler, t) for t in (healthy, broken)}
    batch = await _feed_batch(redis_client, 0)
    assert await _pending(redis_client, 0) == len(batch.entries) > 0  # read, not yet acked
    await redis_client.set(keys.updates_stream(0, broken), b"not a stream")
    projector = Projector(redis_client, P, TableCache(redis_client, P))

    # a write in the call failed: nothing is acknowledged, every entry stays pending
    ack = FeedAck(batch.stream, keys.PROJECTIONS_GROUP, batch.ids)
    failed = await projector.apply_batch(seqs, {0: ack})
    assert set(failed) == {broken} and not ack.done
    assert await _pending(redis_client, 0) == len(batch.entries)

    # a table that fails before its writes (here: its state cannot be read) keeps the
    # ack out of its partition's call, though the call's own writes are all made
    await redis_client.delete(keys.updates_stream(0, broken))
    await redis_client.set(keys.log_stream(0, broken), b"not a log")
    projector.tables.forget(broken)
    failed = await projector.apply_batch(seqs, {0: ack})
    assert set(failed) == {broken} and not ack.done
    assert await _pending(redis_client, 0) == len(batch.entries)

    # every write made: the call that made them acknowledged the entries
    await redis_client.delete(keys.log_stream(0, broken))
    (fresh,) = (t for t in _same_partition(3) if t not in seqs)
    fresh_seq = await _started(handler, fresh)
    fresh_batch = await _feed_batch(redis_client, 0)
    ack = FeedAck(batch.stream, keys.PROJECTIONS_GROUP, fresh_batch.ids)
    assert await projector.apply_batch({fresh: fresh_seq, healthy: seqs[healthy]}, {0: ack}) == {}
    assert ack.done
    assert await _pending(redis_client, 0) == len(batch.entries)  # only the fresh ones went


async def test_a_feed_batch_is_acknowledged_by_its_write_call_or_after_a_lobby_retry(
    redis_client: aioredis.Redis,
) -> None:
    """Through the feed's handler: a batch whose writes are all made is acknowledged in
    their call; one whose lobby record was refused (another projector wrote it since)
    is acknowledged after the record is written again."""
    handler, table, seq, tokens = await _in_play(redis_client)
    mine = Projector(redis_client, P, TableCache(redis_client, P))
    other = Projector(redis_client, P, TableCache(redis_client, P))
    feed = FeedHandlers(mine, P, None)

    await feed.on_batches([await _feed_batch(redis_client, 0)])
    assert await _pending(redis_client, 0) == 0
    state = await mine.tables.state(table)
    assert state.seq == seq and mine.lobby.written[table].seq == state.lifecycle_seq

    # the other projector writes the next record (seat 0 left after its move); mine's
    # next write is refused (-1)
    for command in (Stand(), LeaveTable()):
        handled = await handler.handle(envelope(table, command, seat=0, token=tokens[0]))
        assert isinstance(handled.outcome, Accepted)
    assert await other.apply_batch({table: len(await handler.store.read_log(table))}) == {}
    assert other.lobby.written[table].players[0].left
    handled = await handler.handle(envelope(table, Stand(), seat=1, token=tokens[1]))
    assert isinstance(handled.outcome, Accepted)
    last = len(await handler.store.read_log(table))
    await feed.on_batches([await _feed_batch(redis_client, 0)])
    assert await _pending(redis_client, 0) == 0
    record = lobby_table_decoder.decode(await redis_client.get(lobby_table_key(table)))
    assert (record.seq, record.state) == (last, "finished")


async def test_two_batches_of_one_feed_handled_together_are_both_acknowledged(
    redis_client: aioredis.Redis,
) -> None:
    """On a cluster a feed's reader has two reads in flight and the coalescer hands both
    batches over in one call: the entries of both are acknowledged (the second one's ack
    once replaced the first's, whose entries then waited for the claimer)."""
    _handler, table, seq, _tokens = await _in_play(redis_client)
    projector = Projector(redis_client, P, TableCache(redis_client, P))
    feed = FeedHandlers(projector, P, None)
    read = await _feed_batch(redis_client, 0)
    assert len(read.entries) >= 2
    half = len(read.entries) // 2
    first = Batch(read.stream, read.entries[:half])
    second = Batch(read.stream, read.entries[half:])

    await feed.on_batches([first, second])

    assert await _pending(redis_client, 0) == 0
    record = lobby_table_decoder.decode(await redis_client.get(lobby_table_key(table)))
    state = await projector.tables.state(table)
    assert state.seq == seq and (record.seq, record.state) == (state.lifecycle_seq, "playing")


async def test_a_server_that_lost_its_scripts_gets_them_again_and_the_batch_is_acknowledged(
    redis_client: aioredis.Redis,
) -> None:
    handler, table, seq, tokens = await _in_play(redis_client)
    projector = Projector(redis_client, P, TableCache(redis_client, P))
    assert await projector.apply_batch({table: seq}) == {}  # (loads the scripts)
    handled = await handler.handle(envelope(table, Stand(), seat=0, token=tokens[0]))
    assert isinstance(handled.outcome, Accepted)
    seq = len(await handler.store.read_log(table))
    batch = await _feed_batch(redis_client, 0)

    await redis_client.script_flush()  # a restart without data, as far as scripts go
    ack = FeedAck(batch.stream, keys.PROJECTIONS_GROUP, batch.ids)
    assert await projector.apply_batch({table: seq}, {0: ack}) == {}
    assert ack.done and await _pending(redis_client, 0) == 0
    view = msgspec.json.decode(await redis_client.get(keys.view_key(0, table, 0)))
    record = lobby_table_decoder.decode(await redis_client.get(lobby_table_key(table)))
    assert view["seq"] == seq and record.state == "playing"


async def test_views_that_went_back_are_found_by_their_count_and_projected_again(
    redis_client: aioredis.Redis,
) -> None:
    """The views are kept out of the AOF (projections/views.lua): a partition whose
    views-written count is lower than a projector saw went back, and its tables whose
    views show a seq below their log's head are projected again (projections/reverts.py)."""
    handler = CommandHandler(EventStore(redis_client, P))
    current, reverted = _same_partition(2)
    seqs = {t: await _started(handler, t) for t in (current, reverted)}
    projector = Projector(redis_client, P, TableCache(redis_client, P))
    counts = projector.view_counts
    assert await projector.apply_batch(seqs) == {}
    seen = counts.seen[0]
    assert int(await redis_client.get(keys.views_written_key(0))) == seen > 0
    assert await counts.went_back(redis_client) == []
    assert await tables_behind(redis_client, 0) == {}

    # what a restart from an AOF rewritten before the second table's views were written
    # looks like: its views and their seq gone, the count lower
    await redis_client.set(keys.views_written_key(0), seen - 1)
    await redis_client.delete(
        keys.view_key(0, reverted, 0), keys.projection_seq_key(0, reverted, keys.VIEWS_GROUP)
    )
    assert await counts.went_back(redis_client) == [0]
    assert await counts.went_back(redis_client) == []  # the lower count is the one seen now
    assert await tables_behind(redis_client, 0) == {reverted: seqs[reverted]}

    watch = RevertWatch(redis_client, counts, functools.partial(project_again, projector))
    assert await watch.repair_partitions([0, 1]) == set()
    view = msgspec.json.decode(await redis_client.get(keys.view_key(0, reverted, 0)))
    assert view["seq"] == seqs[reverted]
    assert await tables_behind(redis_client, 0) == {}
    assert counts.seen[0] == seen  # the count went on from the lower one


async def test_a_tables_updates_and_seat_notices_keep_only_their_newest_entries(
    redis_client: aioredis.Redis,
) -> None:
    """Each view write and each turn adds an entry, but a long game's streams stay
    short: the newest entry (the present) is always there, history is not kept."""
    _handler, table, seq, _tokens = await _in_play(redis_client)
    projector = Projector(redis_client, P, TableCache(redis_client, P))
    state = await projector.tables.state(table)
    views, notices = ViewWriter(redis_client, P), NoticeWriter(redis_client, P)
    writes = 300
    for n in range(seq + 1, seq + 1 + writes):
        later = msgspec.structs.replace(state, seq=n, settled_seq=n, turn_seq=[n, 0])
        assert await views.write(later)
        assert await notices.write(later) == [0]
    last = seq + writes
    for stream, field in (
        (keys.updates_stream(0, table), b"seq"),
        (keys.notice_stream(0, table, 0), b"__data__"),
    ):
        length = await redis_client.xlen(stream)
        assert 0 < length < writes // 2, (stream, length)
        ((_, newest),) = await redis_client.xrevrange(stream, count=1)
        assert str(last).encode() in newest[field]
    assert length >= SEAT_NOTICES_MAXLEN
    assert await redis_client.xlen(keys.updates_stream(0, table)) >= UPDATES_MAXLEN
