"""legal_commands: a representative set of commands decide accepts (never empty for the seat
to move). Builds come with one cheapest payment each and automatic placement; one
alternative arrangement (the automatic layout) is offered once per build step."""

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
from games.spacecraft.junkyard import search_targets, visit_targets
from games.spacecraft.state import NO_CARD, SpacecraftState


def cheapest_payment(beside: list[int], token: int, need: int) -> list[int] | None:
    """Junk ids (one ``token`` included) of the least total weight >= ``need``, fewest tiles
    on ties; None when unaffordable."""
    if beside[token] <= 0:
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
            if any(combo.count(t) > avail[t] for t in set(combo)):
                continue
            weight = sum(cat.JUNK_WEIGHT[t] for t in combo)
            if weight >= rest:
                key = (weight, size, combo)
                if best is None or key < best:
                    best = key
    if best is None:
        return None
    return sorted([token, *best[2]])


def _builds(state: SpacecraftState, seat: int) -> list[CommandBody]:
    out: list[CommandBody] = []
    beside = state.beside[seat]
    if not any(beside):
        return out
    counts = rocket.shape_counts(p.kind for p in state.rockets[seat])
    for i, slot in enumerate(cat.SLOTS):
        if state.supply[i] <= 0:
            continue
        shape = rocket.shape(slot.kind)
        counts[shape] += 1
        fits = rocket.feasible_counts(counts)
        counts[shape] -= 1
        if not fits:
            continue
        pay = cheapest_payment(beside, state.tokens[slot.column], cat.PART_WEIGHT[shape])
        if pay is not None:
            out.append(Build(slot=i, pay=[cat.JUNK_NAMES[t] for t in pay]))
    return out


def _design(state: SpacecraftState, seat: int) -> list[CommandBody]:
    out: list[CommandBody] = []
    layout = state.rockets[seat]
    if state.variant == "advanced":
        if not state.marked and state.markers_left[seat] > 0:
            for card, side, marks in zip(
                state.adv_cards, state.adv_sides, state.adv_marks, strict=True
            ):
                if len(marks) < len(cat.advanced_track(card, side)):
                    out.append(Mark(card=card))
        return out
    if state.reserved_now:
        return out
    if state.designs < 2:
        options = [c for c in state.lower if c != NO_CARD]
        if state.reserved[seat] != NO_CARD:
            options.append(state.reserved[seat])
        for card in options:
            if rocket.meets_design(layout, cat.DESIGN_BY_ID[card]):
                out.append(Fulfil(card=card))
    if state.designs == 0 and state.reserved[seat] == NO_CARD:
        out += [Reserve(card=c) for c in state.lower if c != NO_CARD]
    return out


def legal_commands(state: SpacecraftState, seat: int) -> list[CommandBody]:
    if state.phase == "goals":
        if 0 <= seat < state.players and state.goals[seat] == NO_CARD:
            return [ChooseGoal(goal=g) for g in state.goal_options[seat]]
        return []
    if state.phase not in ("play", "final") or seat != state.current:
        return []
    size = state.size
    if state.step == "action":
        if state.phase == "final":
            return [Leave()]
        if state.pawns[seat] < 0:
            return [Visit(x=c % size, y=c // size) for c in visit_targets(state)]
        out: list[CommandBody] = [
            Search(x=c % size, y=c // size) for c in search_targets(state, seat)
        ]
        out.append(Leave())
        return out
    out = []
    if state.step == "build":
        if state.builds < 2:
            out += _builds(state, seat)
        if not state.arranged:
            current = state.rockets[seat]
            auto = rocket.auto_layout([p.kind for p in current])
            if auto is not None and auto != current:
                out.append(Arrange(layout=auto))
    out += _design(state, seat)
    out.append(EndTurn())
    return out
