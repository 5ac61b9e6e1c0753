"""The consumer-group settings of the processes that read streams in groups (the
workers and the projectors), read once when the process starts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from orrery_contracts.settings import SERVICE, Setting, whole

CONSUMER_ENV = "ORRERY_CONSUMER"
CLAIM_IDLE_ENV = "ORRERY_CLAIM_IDLE_MS"
# How long an entry may sit with a consumer (a crashed one) before another claims it.
CLAIM_IDLE_MS = 15_000


@dataclass(frozen=True)
class ConsumerSettings:
    # the process's consumer name ("": ``role-host-pid``, streams.consumers.consumer_name)
    consumer: str = ""
    claim_idle_ms: int = CLAIM_IDLE_MS

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> ConsumerSettings:
        return cls(
            consumer=environ.get(CONSUMER_ENV, ""),
            claim_idle_ms=whole(environ, CLAIM_IDLE_ENV, CLAIM_IDLE_MS),
        )


SETTINGS = (
    Setting(
        CONSUMER_ENV,
        "`role-host-pid`",
        "worker, projector",
        "the consumer name in the consumer groups (unique per process)",
        SERVICE,
    ),
    Setting(
        CLAIM_IDLE_ENV,
        "15000",
        "worker, projector",
        "how long an entry may sit with a crashed consumer before another claims it",
        SERVICE,
    ),
)
