"""status: whose move it is and what phase the game is in (public facts only)."""

from __future__ import annotations

from functools import lru_cache

from games.protocol import Status
from games.spacecraft.state import NO_CARD, SpacecraftState


def status(state: SpacecraftState) -> Status:
    """Where the game stands: the phase and step, who is to move, the round."""
    rnd = (max(state.turns, 1) - 1) // state.players + 1
    if state.phase == "over":
        return Status(phase="over", finished=True, round=rnd)
    if state.phase == "goals":
        waiting = tuple(s for s, g in enumerate(state.goals) if g == NO_CARD)
        return Status(phase="goals", to_move=waiting)
    if state.phase == "setup":
        return Status(phase="setup")
    return _running(state.phase, state.step, state.current, rnd)


@lru_cache(maxsize=1024)
def _running(phase: str, step: str, current: int, rnd: int) -> Status:
    """The running game's status, made once for each (frozen, so shared): a game asks it
    after every command."""
    return Status(phase=f"{phase}.{step}", to_move=(current,), round=rnd)
