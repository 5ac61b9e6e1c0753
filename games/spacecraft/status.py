"""status: whose move it is and what phase the game is in (public facts only)."""

from __future__ import annotations

from functools import lru_cache

from games.protocol import Status
from games.spacecraft.state import NO_CARD, SpacecraftState


def status(state: SpacecraftState) -> Status:
    """Where the game stands: the phase and step, who is to move, the round."""
    phase = state.phase
    if phase == "play" or phase == "final":  # the running game: asked after every command
        return _running(phase, state.step, state.current, state.turns, state.players)
    rnd = (max(state.turns, 1) - 1) // state.players + 1
    if phase == "over":
        return Status(phase="over", finished=True, round=rnd)
    if phase == "goals":
        waiting = tuple(s for s, g in enumerate(state.goals) if g == NO_CARD)
        return Status(phase="goals", to_move=waiting)
    if phase == "setup":
        return Status(phase="setup")
    return _running(phase, state.step, state.current, state.turns, state.players)


@lru_cache(maxsize=1024)
def _running(phase: str, step: str, current: int, turns: int, players: int) -> Status:
    """The running game's status, made once for each (frozen, so shared)."""
    rnd = (max(turns, 1) - 1) // players + 1
    return Status(phase=f"{phase}.{step}", to_move=(current,), round=rnd)
