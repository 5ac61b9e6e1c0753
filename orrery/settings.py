"""The settings of the processes the composition root runs itself: the consumer-group
watchdog of every worker and projector process (orrery/ops/watchdog.py), the timekeeper
(orrery/timekeeper.py) and the projector's CPU priority (``orrery projector --nice``).
Each process reads its settings once, when it starts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from orrery_contracts.settings import SERVICE, Setting, number, whole

PROJECTOR_NICE_ENV = "ORRERY_PROJECTOR_NICE"
# 2, not 5: with the views out of the AOF (few rewrites), at 5 a command costs more CPU
# and the service runs slower against the baseline (docs/scaling.md, "Many processes").
DEFAULT_PROJECTOR_NICE = 2
TIMEKEEPER_POLL_ENV = "ORRERY_TIMEKEEPER_POLL_MS"
DEFAULT_TIMEKEEPER_POLL_MS = 250
WATCHDOG_ENV = "ORRERY_GROUP_WATCHDOG_S"
TOPOLOGY_POLL_ENV = "ORRERY_TOPOLOGY_POLL_S"
DEAD_CONSUMER_ENV = "ORRERY_DEAD_CONSUMER_S"
WATCHDOG_S = 5.0
TOPOLOGY_POLL_S = 0.5
DEAD_CONSUMER_S = 3600.0


@dataclass(frozen=True)
class WatchdogSettings:
    # how often missing consumer groups are recreated (0: never)
    interval_s: float = WATCHDOG_S
    # how often a cluster's masters are checked, to follow a failover
    topology_poll_s: float = TOPOLOGY_POLL_S
    # a consumer idle this long with nothing pending is a process that is gone
    dead_consumer_idle_ms: int = int(DEAD_CONSUMER_S * 1000)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> WatchdogSettings:
        return cls(
            interval_s=number(environ, WATCHDOG_ENV, WATCHDOG_S),
            topology_poll_s=number(environ, TOPOLOGY_POLL_ENV, TOPOLOGY_POLL_S),
            dead_consumer_idle_ms=int(number(environ, DEAD_CONSUMER_ENV, DEAD_CONSUMER_S) * 1000),
        )


@dataclass(frozen=True)
class TimekeeperSettings:
    # the longest sleep between deadline checks
    poll_ms: int = DEFAULT_TIMEKEEPER_POLL_MS

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> TimekeeperSettings:
        return cls(poll_ms=whole(environ, TIMEKEEPER_POLL_ENV, DEFAULT_TIMEKEEPER_POLL_MS))


SETTINGS = (
    Setting(
        PROJECTOR_NICE_ENV,
        "2",
        "serve, projector",
        "the projector runs this much below the deciders' CPU priority (`--nice`; 0: the "
        "same), so on shared CPUs an outcome does not wait behind a projection batch",
        SERVICE,
    ),
    Setting(
        TIMEKEEPER_POLL_ENV,
        "250",
        "timekeeper",
        "the longest sleep between deadline checks",
        SERVICE,
    ),
    Setting(
        WATCHDOG_ENV,
        "5",
        "worker, projector",
        "how often missing consumer groups are recreated (0: never)",
        SERVICE,
    ),
    Setting(
        TOPOLOGY_POLL_ENV,
        "0.5",
        "worker, projector",
        "how often a cluster's masters are checked, to follow a failover",
        SERVICE,
    ),
    Setting(
        DEAD_CONSUMER_ENV,
        "3600",
        "worker, projector",
        "a consumer idle this long with nothing pending is removed from its group",
        SERVICE,
    ),
)
