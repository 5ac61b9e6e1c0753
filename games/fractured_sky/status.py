"""status: whose move it is and what phase the game is in (public facts only)."""

from __future__ import annotations

from games.fractured_sky.state import (
    PHASE_FINISHED,
    PHASE_REWARDS,
    PHASE_START,
    FracturedSkyState,
)
from games.protocol import Status


def status(state: FracturedSkyState) -> Status:
    """The seats owing their required action: every seat still to choose its start
    resources, every seat with a reward choice pending, or the seat whose turn it is;
    never a trade (a free trade makes no seat "to move", RULES.md)."""
    phase = state.phase
    if phase == PHASE_FINISHED:
        return Status(phase=phase, finished=True, round=state.round)
    if phase == PHASE_START:
        waiting = tuple(s for s in range(state.seats) if not state.started[s])
    elif phase == PHASE_REWARDS:
        waiting = tuple(sorted({p.seat for p in state.pending if p.seat < state.seats}))
    else:
        waiting = (state.turn,) if 0 <= state.turn < state.seats else ()
    return Status(phase=phase, to_move=waiting, round=state.round)
