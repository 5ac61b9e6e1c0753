"""Turn order: who is to move now (``status``) and who moves next, for the commands of
people and the turns of automated opponents alike."""

from __future__ import annotations

from games.fractured_sky.evolve import evolve
from games.fractured_sky.state import (
    PHASE_FINISHED,
    PHASE_REWARDS,
    PHASE_START,
    FracturedSkyState,
)
from games.protocol import Status
from orrery_contracts.base import EventBody
from orrery_contracts.fractured_sky import catalogue as cat


def status(state: FracturedSkyState) -> Status:
    """The seats owing their required action (never a trade: rule choice 12)."""
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


def emit(sim: FracturedSkyState, events: list[EventBody], event: EventBody) -> None:
    """Record an event and apply it to the private simulation state."""
    events.append(event)
    evolve(sim, event)


def free_slots(state: FracturedSkyState) -> list[int]:
    """1-based turn slots still free in the next column (only slots <= participants)."""
    return [i + 1 for i in range(state.participants) if state.next_slots[i] < 0]


def slot_gold(state: FracturedSkyState, slot: int) -> int:
    return 1 if slot in cat.gold_slots(state.participants) else 0


def next_seat(state: FracturedSkyState, seat: int, ships: list[int]) -> int:
    """The next participant in turn order after ``seat`` still placing airships."""
    order = state.order
    n = len(order)
    start = order.index(seat)
    for step in range(1, n + 1):
        candidate = order[(start + step) % n]
        if ships[candidate] < cat.AIRSHIPS:
            return candidate
    return -1
