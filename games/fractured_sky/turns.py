"""Turn order: who moves next, and the turn slots, for the commands of people and the
turns of automated opponents alike (who is to move now: ``status.py``)."""

from __future__ import annotations

from games.fractured_sky.state import FracturedSkyState
from orrery_contracts.fractured_sky import catalogue as cat

_AIRSHIPS = cat.AIRSHIPS


def free_slots(state: FracturedSkyState) -> list[int]:
    """1-based turn slots still free in the next column (only slots <= participants)."""
    next_slots = state.next_slots
    return [i + 1 for i in range(state.participants) if next_slots[i] < 0]


def only_free_slot(state: FracturedSkyState) -> int:
    """The one free slot (1-based) of ``free_slots``, or 0 when more or none are free
    (counted without a list: a free slot holds -1)."""
    usable = state.next_slots[: state.participants]
    return usable.index(-1) + 1 if usable.count(-1) == 1 else 0


def slot_gold(state: FracturedSkyState, slot: int) -> int:
    return 1 if slot in cat.gold_slots(state.participants) else 0


def next_seat(state: FracturedSkyState, seat: int, ships: list[int], placing: int = 0) -> int:
    """The next participant in turn order after ``seat`` still placing airships
    (``placing``: airships ``seat`` places now, not yet counted in ``ships``)."""
    order = state.order
    start = order.index(seat) + 1
    if start < len(order) and ships[order[start]] < _AIRSHIPS:
        return order[start]  # the usual case, the very next one: no slice of the order
    for candidate in order[start:]:  # after the seat, then from the front up to it
        if ships[candidate] < _AIRSHIPS:
            return candidate
    for candidate in order[: start - 1]:
        if ships[candidate] < _AIRSHIPS:
            return candidate
    return seat if ships[seat] + placing < _AIRSHIPS else -1
