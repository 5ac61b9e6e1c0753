"""``decide``: validate a command, apply it, then run the queue.

Validation is ``legal.problem`` alone (the check ``legal_commands`` asks as well). A
placement (``fed.place``) answers a ``Turn`` step (``placement.apply_place``); every other
command answers the pending choice (``choices.answer``). The work is done on a copy
(``games.clone``) whose events are returned; ``play`` (a search's decide + evolve) does
the same work on the state it is given, which the caller owns.
"""

from __future__ import annotations

from random import Random

from games.clone import clone
from games.federation.automatic import after_step, drain, may_be_due
from games.federation.choices import ANSWERS, answer
from games.federation.evolve import LOOKED
from games.federation.legal import problem
from games.federation.placement import apply_place
from games.federation.state import FederationState
from games.federation.working_copy import Ctx
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.federation import commands as cmd


def decide(state: FederationState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    found = problem(state, seat, command)
    if found is not None:
        raise found
    return _run(Ctx(clone(state), rng), command, seat)


def play(state: FederationState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    """``decide``, its events folded into ``state`` as they are emitted (the caller owns
    ``state``; a rejection raises before it changes). A search plays many commands, so
    ``_run`` is written out here.

    The first look of the "at once" checks (``after_step``) is asked directly, and of
    everything only when needed: a state this very function left (``evolve.LOOKED``:
    nothing folded into it since, ``evolve`` forgets it) had every check looked at after
    the events that touched it, so only what this command's own events touch can be due,
    as in the queue's loop. Any other state (a copy, one read or folded, one made by
    hand) is looked at whole; a state changed by hand after ``play`` is changed in a
    copy (``games.clone``), as the checks cannot see a change no event made."""
    found = problem(state, seat, command)
    if found is not None:
        raise found
    looked = LOOKED.state is state
    LOOKED.state = None  # (until this command is through)
    ctx = Ctx(state, rng)
    if looked:
        ctx.touched = 0  # what the command's events touch, from here on
    if type(command) is cmd.Place:
        apply_place(ctx, seat, command)
    else:
        step = state.queue[0]  # a choice (``problem`` said so): its answer, looked up here
        ANSWERS[type(step)](ctx, step, command)
    if looked:
        if ctx.touched:
            after_step(ctx)
    else:
        due = may_be_due(state)  # after_step's first look (every seat and planet)
        if due:
            ctx.touched = due
            after_step(ctx)
        else:
            ctx.touched = 0
    drain(ctx)
    LOOKED.state = state
    return ctx.events


def _run(ctx: Ctx, command: CommandBody, seat: int) -> list[EventBody]:
    if type(command) is cmd.Place:
        apply_place(ctx, seat, command)
    else:
        answer(ctx, ctx.state.queue[0], command)  # steps are frozen: the copy's front is the step
    after_step(ctx)
    drain(ctx)
    return ctx.events
