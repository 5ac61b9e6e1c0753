"""Per-player (and, before sign-in, per-address) token buckets held in Redis.

One script refills and takes a token atomically with the server's clock, so the limit
holds across every gateway process; a bucket expires when it would be full again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gateway.errors import ApiError

_TAKE = (Path(__file__).parent / "ratelimit_take.lua").read_text()


def wait_error(code: str, message: str, wait_ms: int) -> ApiError:
    """A 429 telling the client how long to wait (``Retry-After``, whole seconds, ≥ 1)."""
    seconds = max(1, -(-wait_ms // 1000))
    return ApiError(429, code, message, headers={"Retry-After": str(seconds)})


def bucket_key(who: str) -> str:
    return f"orrery:gw:rate:{who}"


class RateLimiter:
    def __init__(self, redis: Any) -> None:
        self.take_script = redis.register_script(_TAKE)

    async def take(self, who: str, rate_per_s: float, burst: int) -> None:
        """Take one token from ``who``'s bucket, or raise 429 with Retry-After."""
        if rate_per_s <= 0:
            return
        allowed, wait_ms = await self.take_script(
            keys=[bucket_key(who)], args=[rate_per_s, max(1, burst)]
        )
        if not int(allowed):
            raise wait_error("rate_limited", "too many requests; slow down", int(wait_ms))
