"""legal_commands: the commands ``decide`` accepts, each kept only if ``actions.check`` (the
one validation ``decide`` runs) accepts it, so no rule is written twice.

Exact for every command with a small parameter space: goals, visits, searches, leave, the
design cards (fulfil / reserve / mark) and end turn. Two commands take free-form
parameters and are listed by one representative each:

* ``sc.build``: one build per workshop compartment that some payment can pay for, with
  the cheapest such payment (least weight, then fewest tiles) and automatic placement;
  any other valid payment or layout is accepted too. A compartment is listed exactly when
  paying every junk tile beside the board would be accepted.
* ``sc.arrange``: the automatic layout, once per build step and only when it differs
  from the rocket (``decide`` accepts any number of rearrangements; listing one keeps
  random play from rearranging forever).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from contracts.base import CommandBody
from contracts.spacecraft import catalogue as cat
from contracts.spacecraft.commands import (
    Arrange,
    Build,
    ChooseGoal,
    EndTurn,
    Fulfil,
    Leave,
    Mark,
    Reserve,
    Search,
    Visit,
)
from games.spacecraft import rocket
from games.spacecraft.actions import accepts, payment_problem
from games.spacecraft.junkyard import search_moves, visit_targets
from games.spacecraft.state import NO_CARD, SpacecraftState


def cheapest_payment(beside: list[int], token: int, need: int) -> list[int] | None:
    """The payment (junk ids) of least total weight, fewest tiles on ties, that
    ``payment_problem`` accepts; None when it accepts no payment.

    Whether any payment exists is ``payment_problem`` on paying everything (paying more
    never hurts). The search then adds to the column's token the lightest tiles that
    reach the weight: at most ``need - weight(token)`` of them (each weighs at least 1),
    and the result is checked again by ``payment_problem``."""
    everything = _everything(beside)
    if payment_problem(beside, token, need, everything) is not None:
        return None
    rest = need - cat.JUNK_WEIGHT[token]
    if rest <= 0:
        return [token]
    avail = list(beside)
    avail[token] -= 1
    types = [t for t in range(cat.N_JUNK) if avail[t] > 0]
    best: tuple[int, int, tuple[int, ...]] | None = None
    for size in range(1, rest + 1):
        for combo in combinations_with_replacement(types, size):
            weight = sum(cat.JUNK_WEIGHT[t] for t in combo)
            if weight < rest or any(combo.count(t) > avail[t] for t in set(combo)):
                continue
            key = (weight, size, combo)
            if best is None or key < best:
                best = key
    pay = sorted([token, *best[2]]) if best is not None else everything
    return pay if payment_problem(beside, token, need, pay) is None else everything


def _everything(beside: list[int]) -> list[int]:
    return [t for t in range(cat.N_JUNK) for _ in range(beside[t])]


def _builds(state: SpacecraftState, seat: int) -> list[CommandBody]:
    """One build per compartment, paid the cheapest way: listed exactly when paying every
    junk tile would be accepted (both payments are valid or neither is, the rest of the
    check is the same)."""
    out: list[CommandBody] = []
    beside = state.beside[seat]
    if not any(beside):
        return out
    cheapest: dict[tuple[int, int], list[str] | None] = {}
    for i, slot in enumerate(cat.SLOTS):
        key = (state.tokens[slot.column], cat.PART_WEIGHT[rocket.shape(slot.kind)])
        if key not in cheapest:
            pay = cheapest_payment(beside, *key)
            cheapest[key] = None if pay is None else [cat.JUNK_NAMES[t] for t in pay]
        names = cheapest[key]
        if names is not None:
            command = Build(slot=i, pay=names)
            if accepts(state, command, seat):
                out.append(command)
    return out


def _design(state: SpacecraftState, seat: int) -> list[CommandBody]:
    if state.variant == "advanced":
        candidates: list[CommandBody] = [Mark(card=card) for card in state.adv_cards]
    else:
        lower = [c for c in state.lower if c != NO_CARD]
        mine = [state.reserved[seat]] if state.reserved[seat] != NO_CARD else []
        candidates = [Fulfil(card=c) for c in lower + mine]
        candidates += [Reserve(card=c) for c in lower]
    return [c for c in candidates if accepts(state, c, seat)]


def legal_commands(state: SpacecraftState, seat: int) -> list[CommandBody]:
    if state.phase == "goals":
        if not 0 <= seat < state.players:
            return []
        goals = [ChooseGoal(goal=g) for g in state.goal_options[seat]]
        return [c for c in goals if accepts(state, c, seat)]
    if state.phase not in ("play", "final") or seat != state.current:
        return []
    size = state.size
    candidates: list[CommandBody]
    if state.step == "action":
        if state.phase == "final" or state.pawns[seat] < 0:
            candidates = [Visit(x=c % size, y=c // size) for c in visit_targets(state)]
        else:
            candidates = [Search(x=c % size, y=c // size) for c in search_moves(state, seat)]
        candidates.append(Leave())
        return [c for c in candidates if accepts(state, c, seat)]
    out: list[CommandBody] = []
    if state.step == "build":
        out += _builds(state, seat)
        if not state.arranged:
            current = state.rockets[seat]
            auto = rocket.auto_layout([p.kind for p in current])
            if auto is not None and auto != current and accepts(state, Arrange(layout=auto), seat):
                out.append(Arrange(layout=auto))
    out += _design(state, seat)
    out += [c for c in (EndTurn(),) if accepts(state, c, seat)]
    return out
