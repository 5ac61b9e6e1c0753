"""SPACEcraft (Granna 2022) for 2-4 players as a decider: collect junk in the junkyard,
build rocket parts in the workshop, assemble a rocket, fulfil (basic) or mark (advanced)
design cards, and be first to meet the blueprint to start the countdown. The rules as
implemented, every rule choice where the sources are silent, the rejection codes and what
each view hides: ``games/spacecraft/RULES.md``; the modules: its "Where the rules live";
content data (PROVISIONAL where no source gives it) and the options:
``contracts/orrery_contracts/spacecraft/``.
"""

from games.spacecraft.game import GAME
from orrery_contracts.spacecraft.options import SpacecraftOptions

__all__ = ["GAME", "SpacecraftOptions"]
