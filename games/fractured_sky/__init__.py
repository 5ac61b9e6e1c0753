"""Fractured Sky (IV Studio) for 1-5 players as a decider (1-2 players against automated
opponents): five rounds of hidden-power area control, each player placing three airships
with hidden power chips that are revealed at round end, each region rewarding its
strongest players; most stardust wins. The rules as implemented, every rule choice where
the rules are silent or the notes ASSUMED something (numbered, with the automated
opponents'), the rejection codes, what each view hides and where each rule lives:
``games/fractured_sky/RULES.md``; content data (PROVISIONAL where the sources are silent)
and the options: ``contracts/orrery_contracts/fractured_sky/``.
"""

from games.fractured_sky.game import GAME

__all__ = ["GAME"]
