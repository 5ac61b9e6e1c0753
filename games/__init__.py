"""The rules of every game, as pure deciders (no I/O, no asyncio).

See :mod:`games.protocol` for the surface each game package exposes,
:mod:`games.definition` for the one form a game is defined in, ``games/README.md`` for
the rejection codes, and :mod:`games.registry` for how the platform finds them.
"""

from games.protocol import Game, Standing, Status
from games.rejection import Rejected

__all__ = ["Game", "Rejected", "Standing", "Status"]
