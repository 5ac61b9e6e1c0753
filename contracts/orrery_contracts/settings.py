"""How a process's settings are declared: each process kind has one settings module
(``services.settings`` for the workers, ``projections.settings``, ``streams.settings``,
``gateway.settings``, ``archive.settings``, ``matchmaking.settings``,
``notify.settings``,
``orrery.settings``) holding a frozen dataclass its process reads once, at its start,
from the environment, and the :class:`Setting` of every ``ORRERY_*`` variable it reads.
``orrery.settings_doc`` gathers those into docs/configuration.md, so the page and what
the processes read cannot disagree.

This lives in the contracts because every package may import them; it imports nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# the sections of docs/configuration.md, in its order
SERVER = "Reaching the server"
SERVICE = "The service's processes"
GATEWAY = "The gateway and the bot runner"
ARCHIVE = "The archive"
MATCHMAKING = "Matchmaking"
NOTIFICATIONS = "Notifications"
COMMANDS = "The command line"
DEPLOY = "The shipped deployments (`deploy/`)"
DEVELOPMENT = "Tests and development"


@dataclass(frozen=True)
class Setting:
    """One ``ORRERY_*`` variable as docs/configuration.md shows it."""

    name: str
    default: str  # as a user reads it: "16", "off", "–" (none)
    readers: str  # the processes or commands that read it
    what: str  # what it does, in a sentence
    group: str  # the section of the page


def number(environ: Mapping[str, str], name: str, default: float) -> float:
    """The variable as a number; unset or empty: ``default``."""
    return float(environ.get(name) or default)


def whole(environ: Mapping[str, str], name: str, default: int) -> int:
    """The variable as an integer; unset or empty: ``default``."""
    return int(environ.get(name) or default)
