"""Which Federation outcomes can be taken back (``table.undo``, see ``games/undo.py``).

Revealing: a face-down orange asteroid or blue alteration token turned up
(``fed.revealed``), a face-down deep-space tile taken. Chance: a round's start (laws
drawn, blocked and neutral spaces placed; ``fed.round_started`` declares itself
``chance``). Everything else of a turn — the placement, its payments, discards and
choices, a mission, a tile used — can be taken back step by step until ``fed.end_turn``
hands the turn on.
"""

from __future__ import annotations

from games.undo import UndoDeclaration
from orrery_contracts.federation import events as ev

UNDO = UndoDeclaration(
    revealed=(ev.Revealed, ev.DeepSpaceTaken),
)
