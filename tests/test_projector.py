"""The projector's batch against a real server (no transport): a partition's writes go
in one script call, and one table's broken key holds back only that table."""

from __future__ import annotations

import msgspec
import redis.asyncio as aioredis

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
from orrery_contracts.table import CreateTable, JoinRequest, StartTable
from projections.runner import Projector
from projections.tables import TableCache
from projections.writes import LobbyWrite
from services.handling import CommandHandler
from services.store import EventStore
from tests.support.tables import envelope
from tests.support.tinygame import Stand

P = 4


async def _started(handler: CommandHandler, table: str) -> int:
    return (await _seated(handler, table))[0]


async def _seated(handler: CommandHandler, table: str) -> tuple[int, list[str]]:
    outcomes = [await handler.handle(envelope(table, CreateTable(game="tiny", seats=2)))]
    tokens = [new_seat_token() for _ in range(2)]
    for s, token in enumerate(tokens):
        outcomes.append(
            await handler.handle(envelope(table, JoinRequest(name=f"p{s}"), token=token))
        )
    outcomes.append(await handler.handle(envelope(table, StartTable(), seat=0, token=tokens[0])))
    assert all(isinstance(h.outcome, Accepted) for h in outcomes)
    return len(await handler.store.read_log(table)), tokens


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
    # one call for the partition's views, notices and scores (+ a lobby write per table)
    assert after - before == 1 + 3
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


async def test_a_move_in_play_changes_only_the_lobby_records_seq(
    redis_client: aioredis.Redis,
) -> None:
    """A move in play changes the lobby record's seq alone (``seq_only``: on a cluster its
    write goes beside the views); the game's end changes more, like the start (its write
    goes first, projections/runner.py)."""
    handler = CommandHandler(EventStore(redis_client, P))
    (table,) = _same_partition(1)
    seq, tokens = await _seated(handler, table)
    projector = Projector(redis_client, P, TableCache(redis_client, P))
    assert await projector.apply_batch({table: seq}) == {}
    assert projector.lobby.written[table].state == "playing"

    async def next_write(seat: int) -> LobbyWrite:
        handled = await handler.handle(envelope(table, Stand(), seat=seat, token=tokens[seat]))
        assert isinstance(handled.outcome, Accepted)
        state = await projector.tables.state(table)
        write = projector.lobby.call(state, [])
        assert write is not None and write.record.seq == state.seq
        assert await projector.apply_batch({table: state.seq}) == {}
        return write

    assert (await next_write(0)).seq_only
    last = await next_write(1)
    assert last.record.state == "finished" and not last.seq_only


async def test_the_lobby_record_is_replaced_without_a_read_until_another_writer_wrote_it(
    redis_client: aioredis.Redis,
) -> None:
    handler = CommandHandler(EventStore(redis_client, P))
    (table,) = _same_partition(1)
    seq, tokens = await _seated(handler, table)
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
