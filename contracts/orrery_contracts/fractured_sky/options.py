"""Fractured Sky's table options, as ``CreateTable.options`` carries them.

The field types are the whole check: ``games/table/state.py`` decodes the options into this
Struct and a value outside the ``Literal`` is refused there (``bad_options``).
"""

from __future__ import annotations

from typing import Literal

import msgspec

#: How strong the automated opponents play (the catalogue's difficulty table).
Difficulty = Literal["easy", "medium", "hard"]


class FracturedSkyOptions(msgspec.Struct, frozen=True, kw_only=True):
    """``difficulty`` of the automated opponents; used only with 1 or 2 players."""

    difficulty: Difficulty = "easy"
