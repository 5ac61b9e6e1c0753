"""services/script_turns.py against a real server: the calls of one turn of the event
loop go in one pipeline, each caller gets its own reply or error, a lost script is
loaded again, and a cancelled first call takes nobody's call down with it but the
turn's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from services.script_turns import ScriptTurns

pytestmark = pytest.mark.service

INCR_BY = "return redis.call('INCRBY', KEYS[1], ARGV[1])"


class CountingPipelines:
    """The real client, counting the pipelines made on it (one per round trip here)."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self.pipelines = 0

    def pipeline(self, transaction: bool = False) -> Any:
        self.pipelines += 1
        return self.redis.pipeline(transaction=transaction)

    async def script_load(self, source: str) -> Any:
        return await self.redis.script_load(source)


async def test_the_calls_of_one_turn_share_one_pipeline(redis_client: aioredis.Redis) -> None:
    counting = CountingPipelines(redis_client)
    turns = ScriptTurns(counting, redis_client.register_script(INCR_BY))
    await redis_client.script_load(INCR_BY)
    await redis_client.set("turns:text", "not a number")

    replies = await asyncio.gather(
        *(turns([f"turns:{i}"], [i + 1]) for i in range(5)),
        turns(["turns:text"], [1]),
        return_exceptions=True,
    )
    assert replies[:5] == [1, 2, 3, 4, 5]
    assert isinstance(replies[5], ResponseError)  # its own error, nobody else's
    assert counting.pipelines == 1

    # a call alone in its turn is sent on its own
    assert await turns(["turns:0"], [10]) == 11
    assert counting.pipelines == 1
    # the next turn opens a pipeline of its own
    assert await asyncio.gather(turns(["turns:0"], [1]), turns(["turns:1"], [1])) == [12, 3]
    assert counting.pipelines == 2


async def test_a_lost_script_is_loaded_and_its_calls_sent_again(
    redis_client: aioredis.Redis,
) -> None:
    turns = ScriptTurns(redis_client, redis_client.register_script(INCR_BY))
    assert await asyncio.gather(turns(["lost:a"], [1]), turns(["lost:b"], [2])) == [1, 2]
    await redis_client.script_flush()
    assert await asyncio.gather(turns(["lost:a"], [1]), turns(["lost:b"], [2])) == [2, 4]


async def test_a_cancelled_first_call_cancels_the_calls_that_joined_it(
    redis_client: aioredis.Redis,
) -> None:
    turns = ScriptTurns(redis_client, redis_client.register_script(INCR_BY))
    first = asyncio.create_task(turns(["cancel:a"], [1]))
    joined = asyncio.create_task(turns(["cancel:b"], [1]))
    await asyncio.sleep(0)  # the first call has opened its turn, the second joined it
    first.cancel()
    for task in (first, joined):
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)
    assert await redis_client.mget("cancel:a", "cancel:b") == [None, None]  # nothing sent
    # the next turn works
    assert await asyncio.gather(turns(["cancel:a"], [1]), turns(["cancel:b"], [1])) == [1, 1]
