"""SPACEcraft's table options: the one declaration of what a table may choose.

Every field is a ``Literal``, so msgspec refuses any other value when the table decodes
the options (``games.table.game_options`` turns that into ``bad_options``): the game
never checks an option again by hand.
"""

from __future__ import annotations

from typing import Literal

import msgspec


class SpacecraftOptions(msgspec.Struct, frozen=True, kw_only=True):
    variant: Literal["basic", "advanced"] = "basic"
