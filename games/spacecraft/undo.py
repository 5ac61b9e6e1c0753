"""Which SPACEcraft outcomes can be taken back (``table.undo``, see ``games/undo.py``).

Revealing: a visit or a search (the tile under the one taken shows), choosing the
personal goal (a secret), fulfilling the reserved design card (only its owner saw it),
refilling the design rows from the deck. SPACEcraft uses no chance after the set-up.
So a turn's leave, builds, rearrangements, fulfilments from the row, the reservation
and marks can be taken back one by one until ``sc.end_turn``.
"""

from __future__ import annotations

from games.undo import UndoDeclaration
from orrery_contracts.spacecraft import events as ev

UNDO = UndoDeclaration(
    revealed=(ev.Visited, ev.Searched, ev.GoalChosen, ev.RowsRefilled),
    revealed_when={ev.DesignFulfilled: lambda e: e.slot < 0},
)
