"""The gateway's side of the wire contract: the SDK's client (one reply stream per
process, ``orrery:reply:gw:<uuid>``, one per partition on a cluster, read while
requests wait for outcomes there, each outcome handed to its request) plus what the SDK
leaves out: signed identities on joins, the raw outcome (a duplicate stays a
duplicate), and the projected lobby records.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import msgspec
from redis import asyncio as aioredis

from orrery_client.sdk import OrreryClient, settled
from orrery_contracts import keys
from orrery_contracts.envelope import Duplicate, Outcome
from orrery_contracts.lobby import LobbyTable, lobby_table_decoder, lobby_table_key

_json = msgspec.json.Encoder()


class _Seq(msgspec.Struct):
    seq: int = 0


_seq_decoder = msgspec.json.Decoder(_Seq)


def view_seq(raw: bytes) -> int:
    return _seq_decoder.decode(raw).seq


class OutcomeTimeout(Exception):
    pass


POOL_WAIT_S = 20.0


class GatewayClient(OrreryClient):
    def __init__(
        self, redis_url: str, *, reply_prefix: str = "gw", connections: int | None = None
    ) -> None:
        """``reply_prefix``: its reply streams are ``orrery:reply:<prefix>:*`` (the
        gateway's ``gw``, the bot runner's ``bots``: each Redis user reads its own).
        ``connections``: on a standalone server, at most this many connections, a call
        waiting for a free one (at most :data:`POOL_WAIT_S`) rather than failing when
        all are busy (redis-py's own pool refuses past 100)."""
        super().__init__(redis_url, reply_prefix=reply_prefix)
        if connections is not None and isinstance(self.redis, aioredis.Redis):
            pool = aioredis.BlockingConnectionPool.from_url(
                redis_url, max_connections=connections, timeout=POOL_WAIT_S
            )
            self.redis = aioredis.Redis(connection_pool=pool)

    async def send(
        self,
        table_id: str,
        body: Any,
        *,
        command_id: str | None = None,
        seat: int | None = None,
        token: str | None = None,
        identity: str | None = None,
        timeout: float = 10.0,
        attempts: int = 2,
    ) -> Outcome:
        """Send a command and await its outcome; a retry after a timeout reuses the id
        (and its duplicate answer is unwrapped: the caller asked once)."""
        command_id = command_id or uuid.uuid4().hex
        try:
            outcome, attempt = await self.exchange(
                table_id,
                body,
                command_id=command_id,
                seat=seat,
                token=token,
                identity=identity,
                timeout=timeout,
                attempts=attempts,
            )
        except TimeoutError:
            raise OutcomeTimeout(command_id) from None
        if attempt and isinstance(outcome, Duplicate):
            return settled(outcome)
        return outcome

    async def lobby_table(self, table_id: str) -> LobbyTable | None:
        raw = await self.redis.get(lobby_table_key(table_id))
        return lobby_table_decoder.decode(raw) if raw else None

    async def view_raw(self, table_id: str, seat: int | None) -> bytes | None:
        raw = await self.redis.get(keys.view_key(self.partition(table_id), table_id, seat))
        return bytes(raw) if raw is not None else None

    async def wait_projected(self, table_id: str, seq: int, timeout: float = 10.0) -> bool:
        """Wait until the table's views (and so its lobby record) show ``seq``."""
        stream = keys.updates_stream(self.partition(table_id), table_id)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            newest = await self.redis.xrevrange(stream, count=1)
            last = newest[0][0] if newest else "0-0"
            raw = await self.view_raw(table_id, None)
            if raw is not None and view_seq(raw) >= seq:
                return True
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            await self.redis.xread({stream: last}, block=max(1, int(min(remaining, 1.0) * 1000)))
