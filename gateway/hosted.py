"""The games a gateway hosts, as the API describes and checks them.

The gateway may not import the rules (``games/``), yet its documents name every game's
view, commands and options, and its lobby refuses a game it does not host. So the
composition root (``orrery gateway``) hands it one :class:`HostedGame` per game of the
registry: the contract's own types (views and commands from ``orrery_contracts``, the
options Struct the rules decode) and the seat bounds. A gateway made without any (a
bare ``create_app``) documents games as plain strings and leaves the refusals to the
workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from orrery_contracts.base import CommandBody, ViewBody


@dataclass(frozen=True)
class HostedGame:
    name: str  # the wire name (``spacecraft``)
    title: str  # for people (``SPACEcraft``)
    min_seats: int
    max_seats: int
    options_type: type[msgspec.Struct]
    view_type: type[ViewBody]
    command_types: tuple[type[CommandBody], ...]


HostedGames = Sequence[HostedGame]


def camel(name: str) -> str:
    """``fractured_sky`` → ``FracturedSky``: a game's prefix in schema names."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))
