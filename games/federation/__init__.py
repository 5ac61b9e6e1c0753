"""Federation (Explor8 2022) for 2-4 players as a decider: ambassadors placed in the
senate trigger planet actions and rooms; a queue of steps holds every pending choice
and runs the automatic ones; five rounds end in an executive phase of income, payments,
majorities and a law. The rules as implemented, every rule choice where the sources are
silent (``ASSUMED`` and ``CONFLICT`` items), the rejection codes, what each view hides
and where each rule lives: ``games/federation/RULES.md``; content data (PROVISIONAL
where the sources are silent), steps and options: ``contracts/orrery_contracts/federation/``.
"""

from games.federation.game import GAME
from orrery_contracts.federation import FederationOptions

__all__ = ["GAME", "FederationOptions"]
