"""Federation's table options: the one declaration of what a table may choose.

Every field is a ``Literal``, so msgspec refuses any other value when the table decodes
the options (``games.table.game_options`` turns that into ``bad_options``): the game
never checks an option again by hand. See games/federation/RULES.md for each choice.
"""

from __future__ import annotations

from typing import Literal

import msgspec


class FederationOptions(msgspec.Struct, frozen=True, kw_only=True):
    law_effect: Literal["all", "majority"] = "all"  # "all" (seed) | "majority"
    project_prizes: Literal["seed", "en"] = "seed"  # "seed" (16/8/4) | "en" (12/8/4)
    president_medal: Literal["any", "intrigue"] = "any"  # "any" (seed) | "intrigue"
