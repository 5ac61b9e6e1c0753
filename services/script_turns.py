"""A script's calls made in one turn of the event loop, sent in one pipeline.

The intake decides a read's entries concurrently (services/intake.py), and each of them
reaches its append in the same turn of the event loop: nothing before the append waits
on the network while the table is cached. One round trip per append made each command
cost the worker a socket write, a read and a wake-up of the server; under load most
commands arrive in reads of several entries (about 60 % in `orrery bench`'s closed
loop), so :class:`ScriptTurns` gathers them: the first call of a turn yields once, then
sends every call queued meanwhile as ``EVALSHA`` in one pipeline (on a cluster,
redis-py's pipeline sends each node its own calls) and hands each caller its own reply
or error. A call alone in its turn is sent as before.

Each call keeps its own outcome: a script error answers that call only; a lost
connection fails every call of the pipeline, as it failed each call on its own before
(the intake leaves such entries pending, and the append script's command-id dedupe
makes their retry safe). A script the server lacks (a restart without data, ``SCRIPT
FLUSH``) is loaded and its calls sent again. Calls that must be confirmed one by one
(``WAITAOF``/``WAIT`` on the append's own connection, services/store.py) do not come here.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.commands.core import AsyncScript

from streams.scripts import queue_evalsha, resend_refused

_Call = tuple[list[Any], list[Any]]  # (keys, args)


class ScriptTurns:
    """``await turns(keys, args)``: the script's reply, sent with the turn's other calls."""

    def __init__(self, redis: Any, script: AsyncScript) -> None:
        self.redis = redis
        self.script = script
        # the calls that joined the current turn's first one (None: no turn is open)
        self._joined: list[tuple[_Call, asyncio.Future[Any]]] | None = None

    async def __call__(self, keys: list[Any], args: list[Any]) -> Any:
        if self._joined is not None:
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._joined.append(((keys, args), future))
            return await future
        joined = self._joined = []
        try:
            # One turn: the other deciders of the read reach their appends meanwhile.
            await asyncio.sleep(0)
        except BaseException as error:
            self._joined = None
            _fail(joined, error)
            raise
        self._joined = None
        if not joined:
            return await self.script(keys=keys, args=args)
        try:
            replies = await self._pipeline([(keys, args), *(call for call, _ in joined)])
        except BaseException as error:
            _fail(joined, error)
            raise
        for (_, future), reply in zip(joined, replies[1:], strict=True):
            if future.done():
                continue
            if isinstance(reply, BaseException):
                future.set_exception(reply)
            else:
                future.set_result(reply)
        if isinstance(replies[0], BaseException):
            raise replies[0]
        return replies[0]

    async def _pipeline(self, calls: list[_Call]) -> list[Any]:
        """Each call's reply or error; calls the server refused for a missing script are
        sent again once it is loaded."""

        async def load() -> None:
            self.script.sha = await self.redis.script_load(self.script.script)

        async def resend(refused: list[int]) -> list[Any]:
            return await self._send([calls[i] for i in refused])

        return await resend_refused(await self._send(calls), load, resend)

    async def _send(self, calls: list[_Call]) -> list[Any]:
        pipe = self.redis.pipeline(transaction=False)
        for keys, args in calls:
            queue_evalsha(pipe, self.script.sha, keys, args)
        return list(await pipe.execute(raise_on_error=False))


def _fail(joined: list[tuple[_Call, asyncio.Future[Any]]], error: BaseException) -> None:
    """The joined calls share the first call's failure (cancelled with it at a stop)."""
    for _, future in joined:
        if future.done():
            continue
        if isinstance(error, Exception):
            future.set_exception(error)
        else:
            future.cancel()
