"""Passwords: which ones an account may have, how they are hashed, and the back-off
after failed sign-ins.

Choices:

* strength is estimated by zxcvbn (a maintained estimator with dictionaries of common
  passwords, names, keyboard patterns and repeats), given the account name too; a
  password scoring below :data:`MIN_SCORE` (3: "safely unguessable" against an
  online attack and a slow offline hash) is refused with zxcvbn's own advice. Only the
  first :data:`ESTIMATE_CHARS` characters are estimated (zxcvbn refuses longer input,
  and its cost grows with length): a passphrase as long as :data:`MAX_PASSWORD`, as a
  password manager makes, is judged by its start, and anything past it adds strength;
* hashes are argon2id at OWASP's recommendation (19 MiB of memory, 2 iterations, 1
  lane): a sign-in costs tens of milliseconds of one core, not half a second, so
  sign-ins cannot be used to exhaust the CPU. An older hash (other parameters) is
  replaced at the next good sign-in. ``orrery bench gateway`` prints the measured cost;
* after :data:`FREE_FAILURES` failed sign-ins for a name, each further attempt waits
  twice as long as the last (1 s, 2 s, … at most :data:`MAX_BACKOFF_S`), whether the
  name exists or not (a lock that only real accounts get would tell which exist). The
  count lives in Redis (every gateway shares it) and a good sign-in clears it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from zxcvbn import zxcvbn

from gateway.errors import ApiError
from gateway.ratelimit import wait_error

MIN_PASSWORD = 8
MAX_PASSWORD = 256
MIN_SCORE = 3
ESTIMATE_CHARS = 72

# OWASP Password Storage Cheat Sheet: argon2id, m=19 MiB, t=2, p=1.
ARGON2_MEMORY_KIB = 19 * 1024
ARGON2_TIME_COST = 2
ARGON2_PARALLELISM = 1
hasher = PasswordHasher(
    time_cost=ARGON2_TIME_COST, memory_cost=ARGON2_MEMORY_KIB, parallelism=ARGON2_PARALLELISM
)

FREE_FAILURES = 5
MAX_BACKOFF_S = 15 * 60
FAILURES_TTL_S = 24 * 3600


def check_password(password: str, name: str) -> None:
    """Refuse a password that is too short, too long or guessable (``bad_password``)."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ApiError(
            422, "bad_password", f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters"
        )
    estimate = zxcvbn(password[:ESTIMATE_CHARS], user_inputs=[name], max_length=ESTIMATE_CHARS)
    if int(estimate["score"]) < MIN_SCORE:
        feedback = estimate.get("feedback") or {}
        advice = " ".join(
            part
            for part in [feedback.get("warning") or "", *feedback.get("suggestions", [])]
            if part
        )
        raise ApiError(
            422,
            "weak_password",
            "this password is too easy to guess"
            + (f": {advice}" if advice else "")
            + " (a few uncommon words make a strong one)",
        )


def cost_per_sign_in(with_hasher: PasswordHasher = hasher, rounds: int = 5) -> float:
    """Seconds one sign-in's hash check takes here (median of ``rounds``)."""
    hashed = with_hasher.hash("a password to measure the hash with")
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        with_hasher.verify(hashed, "a password to measure the hash with")
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def failures_key(folded_name: str) -> str:
    return f"orrery:{{acct}}:failures:{folded_name}"


# Refuses while the name is backing off: {allowed, wait_ms}.
_CHECK = (Path(__file__).parent / "passwords_check.lua").read_text()

# Counts a failure; past the free ones, backs off for 2^(n - free - 1) s (capped). (Only
# commands the gateway's ACL user has: HGET, HSET, PEXPIRE, TIME.)
_FAIL = (Path(__file__).parent / "passwords_fail.lua").read_text()


class Backoff:
    """Failed sign-ins per name, shared by every gateway through Redis."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.check_script = redis.register_script(_CHECK)
        self.fail_script = redis.register_script(_FAIL)

    async def check(self, folded_name: str) -> None:
        allowed, wait_ms = await self.check_script(keys=[failures_key(folded_name)])
        if not int(allowed):
            raise wait_error(
                "too_many_attempts",
                "too many failed sign-ins for this name; wait and try again",
                int(wait_ms),
            )

    async def failed(self, folded_name: str) -> None:
        await self.fail_script(
            keys=[failures_key(folded_name)], args=[FREE_FAILURES, MAX_BACKOFF_S, FAILURES_TTL_S]
        )

    async def succeeded(self, folded_name: str) -> None:
        await self.redis.delete(failures_key(folded_name))
