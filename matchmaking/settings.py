"""The matchmaker's settings (``orrery matchmaker``), which
:class:`matchmaking.matchmaker.Matchmaker` reads once, when the process makes it."""

from __future__ import annotations

from matchmaking.matchmaker import CYCLE_ENV, FAULT_ENV, LEASE_ENV, OFFLINE_ENV
from orrery_contracts.settings import DEVELOPMENT, MATCHMAKING, Setting

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
        "a realtime ticket expires this long after its player's last live socket closed",
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
