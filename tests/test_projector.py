"""The projector's batch against a real server (no transport): a partition's writes go
in one script call, and one table's broken key holds back only that table."""

from __future__ import annotations

import msgspec
import redis.asyncio as aioredis

from orrery_client.sdk import new_seat_token
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted
from orrery_contracts.table import CreateTable, JoinRequest, StartTable
from projections.runner import Projector
from projections.tables import TableCache
from services.handling import CommandHandler
from services.store import EventStore
from tests.support.tables import envelope

P = 4


async def _started(handler: CommandHandler, table: str) -> int:
    outcomes = [await handler.handle(envelope(table, CreateTable(game="tiny", seats=2)))]
    tokens = [new_seat_token() for _ in range(2)]
    for s, token in enumerate(tokens):
        outcomes.append(
            await handler.handle(envelope(table, JoinRequest(name=f"p{s}"), token=token))
        )
    outcomes.append(await handler.handle(envelope(table, StartTable(), seat=0, token=tokens[0])))
    assert all(isinstance(h.outcome, Accepted) for h in outcomes)
    return len(await handler.store.read_log(table))


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
