"""Per-player (and, before sign-in, per-address) token buckets held in Redis.

One script refills and takes a token atomically with the server's clock, so the limit
holds across every gateway process; a bucket expires when it would be full again.
"""

from __future__ import annotations

from typing import Any

from gateway.errors import ApiError

_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or burst
local ts = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return {allowed, wait}
"""


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
