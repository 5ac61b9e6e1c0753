"""Shared helpers for the Federation tests: reach a state, run steps by hand."""

from __future__ import annotations

from random import Random

from games.clone import clone
from games.federation import GAME, FederationOptions
from games.federation.automatic import after_step, drain
from games.federation.evolve import evolve
from games.federation.state import FederationState
from games.federation.working_copy import Ctx
from games.playthrough import fold
from games.rng import derive_rng
from orrery_contracts.base import EventBody
from orrery_contracts.federation import steps as st


def opening(seats: int, seed: int = 1, options: FederationOptions | None = None) -> FederationState:
    opts = options or FederationOptions()
    events = GAME.setup(opts, seats, derive_rng(seed.to_bytes(16, "big"), 0))
    return fold(GAME, opts, seats, events)


def play_until(
    state: FederationState, kind: str, seed: int = 0, limit: int = 5000, round: int = 0
) -> FederationState:
    """Random legal play until the pending step is ``kind`` (in round >= ``round``)."""
    chooser = Random(seed)
    for _ in range(limit):
        status = GAME.status(state)
        if status.finished:
            raise AssertionError(f"finished before reaching {kind}")
        if state.queue[0].kind == kind and state.round >= round:
            return state
        seat = status.to_move[0]
        command = chooser.choice(GAME.legal_commands(state, seat))
        for e in GAME.decide(state, command, seat, Random(chooser.random())):
            state = evolve(state, e)
    raise AssertionError(f"never reached {kind}")


def run_steps(
    state: FederationState, *steps: st.AnyStep, seed: int = 0
) -> tuple[FederationState, list[EventBody]]:
    """Put steps at the front of a copy's queue and run the automatic part."""
    ctx = Ctx(clone(state), Random(seed))
    ctx.push(*steps)
    drain(ctx)
    return ctx.state, ctx.events


def settle(state: FederationState) -> tuple[FederationState, list[EventBody]]:
    ctx = Ctx(clone(state), Random(0))
    after_step(ctx)
    drain(ctx)
    return ctx.state, ctx.events
