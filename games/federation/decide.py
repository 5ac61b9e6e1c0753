"""``decide``: validate a command against the pending step, apply it, then run the queue.

A placement (``fed.place``) answers a ``Turn`` step and is checked by
``placement.check_place``; every other command answers the pending choice and is
accepted exactly when it is one of ``choices.options`` (the list ``legal_commands``
gives). The work is done on a copy (``games.clone``) whose events are returned.
"""

from __future__ import annotations

from random import Random

from games.clone import clone
from games.federation.automatic import after_step, drain
from games.federation.choices import answer, options
from games.federation.placement import apply_place, check_place
from games.federation.state import FederationState
from games.federation.working_copy import Ctx
from games.rejection import GAME_OVER, ILLEGAL_COMMAND, NOT_YOUR_TURN, WRONG_PHASE, Rejected
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import steps as st

# the commands that answer an after-placement choice: any other is "wrong phase" outright
_ANSWERS: dict[type[st.Choice], tuple[type[CommandBody], ...]] = {
    st.AfterPlacement: (cmd.Mission, cmd.UseTile, cmd.EndTurn),
}


def decide(state: FederationState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    step = _pending(state, seat)
    match command:
        case cmd.Place():
            ctx = _place(state, step, seat, command, rng)
        case _:
            ctx = _answer(state, step, command, rng)
    after_step(ctx)
    drain(ctx)
    return ctx.events


def _pending(state: FederationState, seat: int) -> st.AnyStep:
    """The step ``seat`` must answer now (or the rejection why it cannot act)."""
    if state.finished:
        raise Rejected(GAME_OVER, "the game is over")
    if not state.queue:
        raise Rejected(WRONG_PHASE, "nothing to decide")
    step = state.queue[0]
    if seat != step.seat:
        raise Rejected(NOT_YOUR_TURN, "another seat must act now")
    return step


def _place(
    state: FederationState, step: st.AnyStep, seat: int, command: cmd.Place, rng: Random
) -> Ctx:
    """An ambassador's placement: only on a ``Turn``, and only if ``check_place`` allows it."""
    if not isinstance(step, st.Turn):
        raise Rejected(WRONG_PHASE, f"a {step.kind} choice is pending")
    check_place(state, seat, command)
    ctx = Ctx(clone(state), rng)
    apply_place(ctx, seat, command)
    return ctx


def _answer(state: FederationState, step: st.AnyStep, command: CommandBody, rng: Random) -> Ctx:
    """The answer to a pending choice: accepted exactly when it is one of its options.

    A command of another kind than the choice asks for is ``wrong_phase``; one of the
    right kind that is not offered now is ``illegal_command``.
    """
    if isinstance(step, st.Turn):
        raise Rejected(WRONG_PHASE, "place an ambassador first")
    if not isinstance(step, st.Choice):
        raise Rejected(WRONG_PHASE, f"a {step.kind} step is pending")
    allowed = _ANSWERS.get(type(step))
    if allowed is not None and not isinstance(command, allowed):
        raise Rejected(WRONG_PHASE, f"a {step.kind} choice is pending")
    opts = options(state, step)
    if command not in opts:
        if allowed is None and (not opts or type(command) is not type(opts[0])):
            raise Rejected(WRONG_PHASE, f"a {step.kind} choice is pending")
        raise Rejected(ILLEGAL_COMMAND, "that choice is not available now")
    ctx = Ctx(clone(state), rng)
    answer(ctx, step, command)  # steps are frozen: the copy's front equals ``step``
    return ctx
