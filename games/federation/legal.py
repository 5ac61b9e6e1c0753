"""legal_commands: the pending choice's options, or a representative set of placements."""

from __future__ import annotations

from games.federation.choices import options
from games.federation.placement import place_candidates
from games.federation.state import FederationState
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import steps as st


def legal_commands(s: FederationState, seat: int) -> list[CommandBody]:
    if s.finished or not s.queue or s.queue[0].seat != seat:
        return []
    step = s.queue[0]
    if isinstance(step, st.Turn):
        return place_candidates(s, seat)
    if not isinstance(step, st.Choice):
        # only a state cut inside a command has an automatic step in front: the rules do
        # not answer for it (services/replay.py's unfinished_command counts on an error)
        raise TypeError(f"a {step.kind!r} step runs inside a command: no seat answers it")
    return options(s, step)
