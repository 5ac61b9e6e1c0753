"""legal_commands: the commands ``decide`` accepts. Candidates are kept only when the
predicates ``decide`` runs find no problem (``actions.gate`` once, then each parameter's
``*_problem``, or ``actions.accepts`` for a whole command), so no rule is written twice.

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

from functools import lru_cache
from itertools import combinations_with_replacement

from games.spacecraft import rocket
from games.spacecraft.actions import (
    accepts,
    building_problem,
    fit_problem,
    gate,
    pay_problem,
    payment_problem,
    search_cell_problem,
    searching_problem,
    slot_problem,
    visit_cell_problem,
    visiting_problem,
)
from games.spacecraft.junkyard import search_moves, visit_targets
from games.spacecraft.state import NO_CARD, SpacecraftState
from orrery_contracts.base import CommandBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import (
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


def cheapest_payment(beside: list[int], token: int, need: int) -> list[int] | None:
    """The payment (junk ids) of least total weight, fewest tiles on ties, that
    ``payment_problem`` accepts; None when it accepts no payment.

    Whether any payment exists is ``payment_problem`` on paying everything (paying more
    never hurts). The search then adds to the column's token the lightest tiles that
    reach the weight: at most ``need - weight(token)`` of them (each weighs at least 1),
    and the result is checked again by ``payment_problem``."""
    found = _cheapest(tuple(beside), token, need)
    return None if found is None else list(found)


@lru_cache(maxsize=1024)
def _cheapest(beside: tuple[int, ...], token: int, need: int) -> tuple[int, ...] | None:
    have = list(beside)
    everything = _everything(have)
    if payment_problem(have, token, need, everything) is not None:
        return None
    rest = need - cat.JUNK_WEIGHT[token]
    if rest <= 0:
        return (token,)
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
    return tuple(pay if payment_problem(have, token, need, pay) is None else everything)


def _everything(beside: list[int]) -> list[int]:
    return [t for t in range(cat.N_JUNK) for _ in range(beside[t])]


def _open(state: SpacecraftState, seat: int, kind: type[CommandBody]) -> bool:
    return gate(state, seat, kind) is None


def _builds(state: SpacecraftState, seat: int) -> list[CommandBody]:
    """One build per compartment, paid the cheapest way: listed exactly when paying every
    junk tile would be accepted (both payments are valid or neither is, the rest of the
    check is the same)."""
    out: list[CommandBody] = []
    beside = state.beside[seat]
    if not any(beside) or building_problem(state, seat) is not None:
        return out
    cheapest: dict[tuple[int, int], list[str] | None] = {}
    fits: dict[str, bool] = {}
    for i, slot in enumerate(cat.SLOTS):
        if slot_problem(state, i) is not None:
            continue
        shape = rocket.shape(slot.kind)
        if shape not in fits:  # the fit depends on the shape only
            fits[shape] = fit_problem(state, seat, slot.kind) is None
        if not fits[shape]:
            continue
        key = (state.tokens[slot.column], cat.PART_WEIGHT[shape])
        if key not in cheapest:
            pay = cheapest_payment(beside, *key)
            cheapest[key] = None if pay is None else [cat.JUNK_NAMES[t] for t in pay]
        names = cheapest[key]
        if names is not None and pay_problem(state, seat, i, names) is None:
            out.append(Build(slot=i, pay=names))
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


def _action(state: SpacecraftState, seat: int) -> list[CommandBody]:
    size = state.size
    out: list[CommandBody] = []
    if visiting_problem(state, seat) is None:
        targets = visit_targets(state)
        for c in targets:
            if visit_cell_problem(state, c % size, c // size, targets) is None:
                out.append(Visit(x=c % size, y=c // size))
    elif searching_problem(state, seat) is None:
        moves = search_moves(state, seat)
        for c in moves:
            if search_cell_problem(state, seat, c % size, c // size, moves) is None:
                out.append(Search(x=c % size, y=c // size))
    if accepts(state, Leave(), seat):
        out.append(Leave())
    return out


def legal_commands(state: SpacecraftState, seat: int) -> list[CommandBody]:
    if state.phase == "goals":
        if not _open(state, seat, ChooseGoal):
            return []
        goals = [ChooseGoal(goal=g) for g in state.goal_options[seat]]
        return [c for c in goals if accepts(state, c, seat)]
    if not _open(state, seat, Leave):  # not this seat's turn, or the game is over
        return []
    if state.step == "action":
        return _action(state, seat)
    out: list[CommandBody] = _builds(state, seat)
    if state.step == "build" and not state.arranged:
        current = state.rockets[seat]
        auto = rocket.auto_layout([p.kind for p in current])
        if auto is not None and auto != current and accepts(state, Arrange(layout=auto), seat):
            out.append(Arrange(layout=auto))
    out += _design(state, seat)
    out += [c for c in (EndTurn(),) if accepts(state, c, seat)]
    return out
