"""Which Fractured Sky outcomes can be taken back (``table.undo``, see ``games/undo.py``).

Revealing: placing an airship (a secret chip is chosen, and its border shows its class),
an exploration draw, a scout and the resource taken from the scouted card (everybody
sees which: a clue to the card), a peek, a secret card opened, an automated opponent's
flipped card, the round-end reveal. Chance: the new round's set-up (reshuffled decks;
``fs.round_set_up`` declares itself ``chance``). Everything else a seat does in its turn
— trades, the slot choice, buildings, skimmers, resource choices — can be taken back
until the turn passes (most actions pass it at once, so in practice: trades and choices
before the action).
"""

from __future__ import annotations

from games.undo import UndoDeclaration
from orrery_contracts.fractured_sky import events as ev

UNDO = UndoDeclaration(
    revealed=(
        ev.AirshipPlaced,
        ev.ExplorationDrawn,
        ev.Scouted,
        ev.Peeked,
        ev.SecretOpened,
        ev.AiCardFlipped,
        ev.AiScouted,
        ev.RoundRevealed,
    ),
    revealed_when={ev.ScoutFinished: lambda e: e.resource is not None},
)
