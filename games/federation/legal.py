"""Legality: whether a command is accepted and why not (``problem``), and the commands
that are (``legal_commands``).

``problem(state, seat, command)`` is the one check ``decide`` raises and
``legal_commands`` asks: the pending step first (the game is running, a step waits, it
is this seat's), then either the placement (``fed.place`` answers a ``Turn``:
``place_problem``) or the answer to the pending choice, accepted exactly when it is one
of ``choices.options`` (the very list ``legal_commands`` gives).

``legal_commands`` lists every command ``decide`` accepts: the pending choice's options,
or every placement ``place_problem`` accepts (each free ambassador × free space × side ×
die × token, and the outer space).
"""

from __future__ import annotations

from functools import lru_cache

from games.federation.choices import CHOICE_TYPES, END_TURN, IS_OPTION, options
from games.federation.payments import Holding, can_settle, holding
from games.federation.placement import placement_items
from games.federation.state import FederationState
from games.rejection import (
    CANNOT_AFFORD,
    GAME_OVER,
    ILLEGAL_COMMAND,
    NOT_AN_OPTION,
    NOT_YOUR_TURN,
    UNKNOWN_SPACE,
    WRONG_PHASE,
    Rejected,
)
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import COMMAND_TYPES
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import steps as st

_COMMAND_TYPES = frozenset(COMMAND_TYPES)
# the commands that answer an after-placement choice: any other is "wrong phase" outright
_ANSWERS: dict[type[st.Step], tuple[type[CommandBody], ...]] = {
    st.AfterPlacement: (cmd.Mission, cmd.UseTile, cmd.EndTurn),
}

# ---------------------------------------------------------------- the check


def problem(state: FederationState, seat: int, command: CommandBody) -> Rejected | None:
    """The rejection ``decide`` gives for this command, or None when it is accepted.

    Refusals come in the order of every game: the game is over, the seat has no player,
    not this game's command, then the pending step (its seat, then what answers it). The
    path of an accepted command, the seat of the pending step sending a Federation
    command, is checked first (``decide`` runs it for every command): the other checks
    are made only once the step has refused.
    """
    if state.finished:
        return Rejected(GAME_OVER, "the game is over")
    queue = state.queue
    if queue and seat == queue[0].seat:
        step = queue[0]
        if type(command) is cmd.Place:
            if type(step) is st.Turn:
                return place_problem(state, seat, command)
            return Rejected(WRONG_PHASE, f"a {step.kind} choice is pending")
        return answer_problem(state, step, command)
    if not 0 <= seat < len(state.players):
        return Rejected(NOT_YOUR_TURN, "no such seat")
    if type(command) not in _COMMAND_TYPES:
        return _not_federation()
    if not queue:
        return Rejected(WRONG_PHASE, "nothing to decide")
    return Rejected(NOT_YOUR_TURN, "another seat must act now")


def _not_federation() -> Rejected:
    return Rejected(ILLEGAL_COMMAND, "not a Federation command")


def _wrong_phase(command: CommandBody, message: str) -> Rejected:
    """A command the pending step does not take: ``wrong_phase``, unless it is not a
    Federation command at all."""
    if type(command) not in _COMMAND_TYPES:
        return _not_federation()
    return Rejected(WRONG_PHASE, message)


def answer_problem(
    state: FederationState, step: st.AnyStep, command: CommandBody
) -> Rejected | None:
    """The answer to a pending choice: accepted exactly when it is one of its options.

    A command of another kind than the choice asks for is ``wrong_phase``; one of the
    right kind that is not offered now is ``not_an_option``.
    """
    kind = type(step)  # (exact types: steps are final classes)
    if kind not in CHOICE_TYPES:
        if kind is st.Turn:
            return _wrong_phase(command, "place an ambassador first")
        return _wrong_phase(command, f"a {step.kind} step is pending")
    allowed = _ANSWERS.get(kind)
    if allowed is not None and type(command) not in allowed:
        return _wrong_phase(command, f"a {step.kind} choice is pending")
    if kind is st.AfterPlacement and command == END_TURN:
        return None  # always an option (the last): no need to list the others
    is_option = IS_OPTION.get(kind)  # (surely_an_option, its lookup written out)
    if is_option is not None and is_option(state, step, command):
        return None  # an option, told without listing them (a refusal lists them)
    opts = options(state, step)
    if command not in opts:
        if allowed is None and (not opts or type(command) is not type(opts[0])):
            return _wrong_phase(command, f"a {step.kind} choice is pending")
        return Rejected(NOT_AN_OPTION, "that choice is not available now")
    return None


def place_problem(s: FederationState, seat: int, c: cmd.Place) -> Rejected | None:
    """Why ``seat`` may not place ``c`` now (its turn is already checked), or None: a
    placement is allowed exactly when its costs can be paid (``payments.can_settle`` over
    ``placement.placement_items``)."""
    p = s.players[seat]
    if not 0 <= c.ambassador < 4:
        return Rejected("unknown_ambassador", "no such ambassador")
    if p.used[c.ambassador]:
        return Rejected("ambassador_used", "that ambassador is already placed this round")
    if not 0 <= c.space <= cat.OUTER:
        return Rejected(UNKNOWN_SPACE, "no such space")
    outer = c.space == cat.OUTER
    if not outer:
        taken = s.space_seat[c.space]
        if taken == -2:
            return Rejected("space_blocked", "that space is blocked this round")
        if taken != -1:
            return Rejected("space_taken", "that space is occupied")
    if c.die:
        if c.funding or outer:
            return Rejected("die_not_allowed", "the die goes only with a voting ambassador")
        if p.die < 0 or p.die_on_board:
            return Rejected("no_die", "you have no assistant die in hand")
    if c.token >= 0:
        if c.token not in p.tokens:
            return Rejected("no_token", "you do not hold that alteration token")
        if outer:
            return Rejected("token_not_allowed", "no alteration token on the outer space")
        if (cat.ALTERATIONS[c.token][1] > 0) == c.funding:
            return Rejected(
                "token_mismatch",
                "voting tokens go on the voting side, funding ones on the funding side",
            )
    if outer and c.funding:
        return Rejected("funding_not_allowed", "the outer space counts for neither side")
    if not payable((p.copp, p.lav, p.ocean, p.diamond), seat, c):  # (holding, written out)
        return Rejected(CANNOT_AFFORD, "you cannot pay for that action")
    return None


@lru_cache(maxsize=16384)
def payable(held: Holding, seat: int, c: cmd.Place) -> bool:
    """Whether a seat holding ``held`` can go through the gains and costs of placement
    ``c`` (``payments.can_settle`` of ``placement.placement_items``): the last check of
    ``place_problem``, and the one a turn's listing asks of each combination (a pure
    function of the three, cached: one lookup where it would take two)."""
    items = placement_items(seat, c)
    return not items or can_settle(held, items)  # nothing to pay: settled (uncached)


# ---------------------------------------------------------------- the listing


# Placements are few values and frozen: each is made once (per ambassador and space, by
# token, die and side) and every listing hands out the same objects.
_PLACES: list[list[dict[int, cmd.Place]]] = [[{} for _ in range(cat.OUTER + 1)] for _ in range(4)]


def _place(amb: int, space: int, token: int, die: bool, funding: bool) -> cmd.Place:
    made = _PLACES[amb][space]
    key = token * 4 + die * 2 + funding
    found = made.get(key)
    if found is None:
        found = made[key] = cmd.Place(
            ambassador=amb, space=space, funding=funding, die=die, token=token
        )
    return found


def _placements(s: FederationState, seat: int) -> list[CommandBody]:
    """Every placement ``place_problem`` accepts, in listing order: each free ambassador
    on each free space, voting (with or without the die) or funding, with no token or
    with each held token on its side; and the outer space.

    Built so that every check of ``place_problem`` but the last holds by construction;
    the last, whether the seat can pay (``can_settle`` of ``placement_items``), depends
    on the space, the side and the token, and on the ambassador only on the funding side
    (its reward), never on the die: it is asked once per such combination."""
    p = s.players[seat]
    ambassadors = [amb for amb in range(4) if not p.used[amb]]
    if not ambassadors:
        return []
    held = holding(p)
    tokens = sorted(set(p.tokens))
    voting = [-1, *(t for t in tokens if cat.ALTERATIONS[t][1] > 0)]
    funding = [-1, *(t for t in tokens if cat.ALTERATIONS[t][1] == 0)]
    dice = (False, True) if p.die >= 0 and not p.die_on_board else (False,)
    free = [space for space in range(cat.N_SPACES) if s.space_seat[space] == -1]

    first = ambassadors[0]  # a voting placement's cost is the same with any ambassador
    votes = {
        space: [t for t in voting if payable(held, seat, _place(first, space, t, False, False))]
        for space in free
    }
    outer = payable(held, seat, _place(first, cat.OUTER, -1, False, False))
    out: list[CommandBody] = []
    for amb in ambassadors:
        made = _PLACES[amb]
        for space in free:
            here = made[space]
            for token in votes[space]:
                for with_die in dice:  # _place, its lookup written out (the hot loop)
                    c = here.get(token * 4 + with_die * 2)
                    out.append(c if c is not None else _place(amb, space, token, with_die, False))
            for token in funding:
                c = _place(amb, space, token, False, True)
                if payable(held, seat, c):
                    out.append(c)
        if outer:
            out.append(_place(amb, cat.OUTER, -1, False, False))
    return out


def legal_commands(s: FederationState, seat: int) -> list[CommandBody]:
    if s.finished or not s.queue or s.queue[0].seat != seat:
        return []
    step = s.queue[0]
    if isinstance(step, st.Turn):
        return _placements(s, seat)
    if not isinstance(step, st.Choice):
        # only a state cut inside a command has an automatic step in front: the rules do
        # not answer for it (services/replay.py's unfinished_command counts on an error)
        raise TypeError(f"a {step.kind!r} step runs inside a command: no seat answers it")
    return options(s, step)
