"""legal_commands: the pending choice's options, or a representative set of placements."""

from __future__ import annotations

from games.federation.choices import options
from games.federation.state import State
from games.federation.turn import place_candidates
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import steps as st


def legal_commands(s: State, seat: int) -> list[CommandBody]:
    if s.finished or not s.queue or s.queue[0].seat != seat:
        return []
    step = s.queue[0]
    if isinstance(step, st.Turn):
        return place_candidates(s, seat)
    if isinstance(step, st.Choice):
        return options(s, step)
    return []
