"""status: whose move it is and what phase the game is in: the step at the queue's front
(its kind is the phase, its seat the one to move)."""

from __future__ import annotations

from games.federation.state import FederationState
from games.protocol import Status


def status(state: FederationState) -> Status:
    if state.finished:
        return Status(phase="finished", finished=True, round=state.round)
    step = state.queue[0] if state.queue else None
    if step is None:
        return Status(phase="setup", round=state.round)
    return Status(phase=step.kind, to_move=(step.seat,), round=state.round)
