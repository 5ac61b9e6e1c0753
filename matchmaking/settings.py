"""The matchmaker's settings (``orrery matchmaker``), which
:class:`matchmaking.matchmaker.Matchmaker` reads when the process makes it, unless
given; ``orrery matchmaking audit`` reads the same offline expiry."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from orrery_contracts.matchmaking import OFFLINE_EXPIRY_S
from orrery_contracts.settings import DEVELOPMENT, MATCHMAKING, Setting, number, whole

LEASE_ENV = "ORRERY_MATCHMAKER_LEASE_MS"
CYCLE_ENV = "ORRERY_MATCHMAKER_CYCLE_S"
OFFLINE_ENV = "ORRERY_QUEUE_OFFLINE_S"
FAULT_ENV = "ORRERY_FAULT_KILL_MATCHMAKER_AFTER"
DEFAULT_LEASE_MS = 10_000
DEFAULT_CYCLE_S = 1.0


@dataclass(frozen=True)
class MatchmakerSettings:
    # how long a matchmaker owns a game's queue without renewing it
    lease_ms: int = DEFAULT_LEASE_MS
    # how often the matcher runs and realtime tickets' players are checked for presence
    cycle_s: float = DEFAULT_CYCLE_S
    # a realtime ticket expires this long after its player went offline (their presence
    # lapses ORRERY_PRESENCE_TTL_S after their last live socket closed)
    offline_s: float = OFFLINE_EXPIRY_S
    # fault injection for the crash tests: SIGKILL right after this step ("": never)
    fault: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> MatchmakerSettings:
        return cls(
            lease_ms=whole(environ, LEASE_ENV, DEFAULT_LEASE_MS),
            cycle_s=number(environ, CYCLE_ENV, DEFAULT_CYCLE_S),
            offline_s=number(environ, OFFLINE_ENV, OFFLINE_EXPIRY_S),
            fault=environ.get(FAULT_ENV, ""),
        )


SETTINGS = (
    Setting(
        LEASE_ENV,
        "10000",
        "matchmaker",
        "how long a matchmaker owns a game's queue without renewing it (a crashed "
        "matchmaker's queues wait this long)",
        MATCHMAKING,
    ),
    Setting(
        CYCLE_ENV,
        "1",
        "matchmaker",
        "how often the matcher runs and realtime tickets' players are checked for presence",
        MATCHMAKING,
    ),
    Setting(
        OFFLINE_ENV,
        "30",
        "matchmaker, matchmaking audit",
        "a realtime ticket expires this long after its player went offline (their presence "
        "lapses ORRERY_PRESENCE_TTL_S after their last live socket closed)",
        MATCHMAKING,
    ),
    Setting(
        FAULT_ENV,
        "–",
        "matchmaker",
        "SIGKILL the matchmaker right after `made`, `create`, `join`, `bots`, `start` or `started`",
        DEVELOPMENT,
    ),
)
