"""The bot runner's settings: how long a searching bot thinks (read by ``orrery bots``
and the bot runner ``orrery serve`` starts)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from orrery_contracts.settings import GATEWAY, Setting, whole

BUDGET_ENV = "ORRERY_BOT_BUDGET_MS"


@dataclass(frozen=True)
class BotSettings:
    budget_ms: int = 500  # an ``ismcts`` bot's thinking time per move

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> BotSettings:
        return cls(budget_ms=max(1, whole(environ, BUDGET_ENV, 500)))


SETTINGS = (
    Setting(
        BUDGET_ENV,
        "500",
        "bot runner",
        "an `ismcts` bot's time per move (ms; the search also stops at its iteration cap): "
        "its strength against the bot runner's CPU",
        GATEWAY,
    ),
)
