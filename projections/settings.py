"""The projector's settings, read once when the process starts (``orrery projector``;
``orrery serve`` passes its environment to every projector it starts). A part made on
its own (a test's projector, ``orrery rebuild``'s writer) reads them when it is made.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from orrery_contracts.settings import SERVICE, Setting, number, whole
from orrery_contracts.table import DEFAULT_LOBBY_TTL_S, LOBBY_TTL_ENV

NOTICE_TTL_ENV = "ORRERY_NOTICE_TTL_S"
NOTICE_TTL_S = 7 * 86_400


@dataclass(frozen=True)
class ProjectorSettings:
    # idle lifetime of a player's "your turn" notice stream
    notice_ttl_s: int = NOTICE_TTL_S
    # a table not started this long after its creation is closed (0: never): the
    # projector indexes the due time, the worker decides (services.settings)
    lobby_ttl_s: float = DEFAULT_LOBBY_TTL_S

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> ProjectorSettings:
        return cls(
            notice_ttl_s=whole(environ, NOTICE_TTL_ENV, NOTICE_TTL_S),
            lobby_ttl_s=number(environ, LOBBY_TTL_ENV, DEFAULT_LOBBY_TTL_S),
        )


# (ORRERY_LOBBY_TTL_S is declared with the worker's settings, which decide with it)
SETTINGS = (
    Setting(
        NOTICE_TTL_ENV,
        "604800 (7 days)",
        "projector",
        'idle lifetime of a player\'s "your turn" notice stream',
        SERVICE,
    ),
)
