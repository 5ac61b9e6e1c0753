"""The decider worker's settings, read once when the process starts (``orrery worker``;
``orrery serve`` passes its environment to every worker it starts). A part made on its
own (a test's store, ``orrery cluster drill``'s handler) reads them when it is made.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from orrery_contracts.settings import DEVELOPMENT, SERVICE, Setting, number, whole
from orrery_contracts.table import DEFAULT_LOBBY_TTL_S, LOBBY_TTL_ENV

WAIT_AOF_ENV = "ORRERY_WAIT_AOF_MS"
WAIT_REPLICAS_ENV = "ORRERY_WAIT_REPLICAS"
WAIT_REPLICAS_MS_ENV = "ORRERY_WAIT_REPLICAS_MS"
BATCH_ENV = "ORRERY_INTAKE_BATCH"
CONCURRENCY_ENV = "ORRERY_INTAKE_CONCURRENCY"
WORKER_TTL_ENV = "ORRERY_WORKER_TTL_S"
REPLY_TTL_ENV = "ORRERY_REPLY_TTL_S"
CHAT_RATE_ENV = "ORRERY_CHAT_RATE"  # "N/S": N messages per S seconds per author
SECRET_KEY_ENV = "ORRERY_SECRET_KEY"
KILL_AFTER_APPEND_ENV = "ORRERY_FAULT_KILL_AFTER_APPEND"

# a reply stream's lifetime without a reply, in seconds
REPLY_TTL_S = 3600
# chat messages per author and window (orrery_contracts.chat's numbers, the defaults)
CHAT_RATE = 5
CHAT_WINDOW_S = 10


@dataclass(frozen=True)
class WorkerSettings:
    # command entries a reader takes per delivery
    intake_batch: int = 32
    # commands decided and appended at once (each table's in its order)
    intake_concurrency: int = 48
    # a worker whose beat is older than this loses its partitions (services/assignment.py)
    worker_ttl_s: float = 5.0
    reply_ttl_s: int = REPLY_TTL_S
    # a table not started this long after its creation is closed (0: never)
    lobby_ttl_s: float = DEFAULT_LOBBY_TTL_S
    chat_rate: int = CHAT_RATE
    chat_window_s: int = CHAT_WINDOW_S
    # Confirm the local AOF fsync (WAITAOF 1 0 <ms>) before an append counts as done, and
    # wait until this many replicas received it (WAIT n <ms>), so a failover to a replica
    # cannot lose an answered command; 0: off.
    wait_aof_ms: int = 0
    wait_replicas: int = 0
    wait_replicas_ms: int = 2000
    # the key player identities are signed with ("": every join is anonymous)
    secret_key: str = ""
    # fault injection for the crash tests: SIGKILL after the append of a command whose
    # id starts with this ("": never)
    kill_after_append: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> WorkerSettings:
        rate, window = (
            int(part)
            for part in (environ.get(CHAT_RATE_ENV) or f"{CHAT_RATE}/{CHAT_WINDOW_S}").split("/", 1)
        )
        return cls(
            intake_batch=whole(environ, BATCH_ENV, 32),
            intake_concurrency=whole(environ, CONCURRENCY_ENV, 48),
            worker_ttl_s=number(environ, WORKER_TTL_ENV, 5.0),
            reply_ttl_s=whole(environ, REPLY_TTL_ENV, REPLY_TTL_S),
            lobby_ttl_s=number(environ, LOBBY_TTL_ENV, DEFAULT_LOBBY_TTL_S),
            chat_rate=rate,
            chat_window_s=window,
            wait_aof_ms=whole(environ, WAIT_AOF_ENV, 0),
            wait_replicas=whole(environ, WAIT_REPLICAS_ENV, 0),
            wait_replicas_ms=whole(environ, WAIT_REPLICAS_MS_ENV, 2000),
            secret_key=environ.get(SECRET_KEY_ENV, ""),
            kill_after_append=environ.get(KILL_AFTER_APPEND_ENV, ""),
        )


SETTINGS = (
    Setting(
        WAIT_AOF_ENV,
        "0 (off)",
        "worker",
        'confirm the AOF fsync (`WAITAOF`) within this many ms before answering "accepted" '
        "(`--wait-aof`)",
        SERVICE,
    ),
    Setting(
        WAIT_REPLICAS_ENV,
        "0 (off)",
        "worker",
        'confirm that this many replicas received the append (`WAIT`) before answering "'
        'accepted" (`--wait-replicas`): a failover then loses no answered command',
        SERVICE,
    ),
    Setting(
        WAIT_REPLICAS_MS_ENV,
        "2000",
        "worker",
        "how long the `WAIT` for replicas may take",
        SERVICE,
    ),
    Setting(
        BATCH_ENV,
        "32",
        "worker",
        "command entries a worker reads per batch",
        SERVICE,
    ),
    Setting(
        CONCURRENCY_ENV,
        "48",
        "worker",
        "commands a worker process decides and appends at once",
        SERVICE,
    ),
    Setting(
        WORKER_TTL_ENV,
        "5",
        "worker",
        "a worker whose beat in `orrery:deciders` is older than this loses its partitions "
        "to the others",
        SERVICE,
    ),
    Setting(
        REPLY_TTL_ENV,
        "3600",
        "worker",
        "a reply stream's lifetime without a reply",
        SERVICE,
    ),
    Setting(
        LOBBY_TTL_ENV,
        "86400",
        "worker, projector",
        "a table not started within this many seconds of its creation is closed (0: never)",
        SERVICE,
    ),
    Setting(
        CHAT_RATE_ENV,
        "`5/10`",
        "worker",
        "chat messages per author, `N/S`: N per S seconds (`rate_limited` beyond)",
        SERVICE,
    ),
    Setting(
        KILL_AFTER_APPEND_ENV,
        "–",
        "worker",
        "SIGKILL the worker right after the append of a command whose id has this prefix",
        DEVELOPMENT,
    ),
)
