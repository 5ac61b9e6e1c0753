"""The design step of a turn: basic variant, fulfil up to two design cards or reserve one
(``sc.fulfil``, ``sc.reserve``); advanced variant, place one marker (``sc.mark``). A
design step may follow the build step directly (no part built)."""

from __future__ import annotations

from games.rejection import SUPPLY_EXHAUSTED, WRONG_PHASE, Rejected
from games.spacecraft import rocket
from games.spacecraft.state import NO_CARD, SpacecraftState
from orrery_contracts.base import EventBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import Fulfil, Mark, Reserve
from orrery_contracts.spacecraft.events import DesignFulfilled, DesignReserved, MarkerPlaced


def _design_step(state: SpacecraftState, variant: str) -> Rejected | None:
    if state.step not in ("build", "design"):
        return Rejected(WRONG_PHASE, "leave the junkyard first")
    if state.variant != variant:
        return Rejected("wrong_variant", f"only in the {variant} variant")
    return None


def fulfilling_problem(state: SpacecraftState) -> Rejected | None:
    """Whether the seat to move may fulfil a design card at all now (any card)."""
    found = _design_step(state, "basic")
    if found is not None:
        return found
    if state.reserved_now:
        return Rejected("already_reserved", "you reserved a card instead of fulfilling")
    if state.designs >= 2:
        return Rejected("design_limit", "at most 2 design cards per turn")
    return None


def fulfil_card_problem(state: SpacecraftState, card: int, seat: int) -> Rejected | None:
    """Whether ``seat`` may fulfil ``card``, once it may fulfil at all."""
    if card == NO_CARD or (card not in state.lower and card != state.reserved[seat]):
        return Rejected("card_not_available", "that card is not in the lower row nor reserved")
    if not rocket.meets_design_card(state.rockets[seat], card):
        return Rejected("requirements_not_met", "your rocket does not meet that design")
    return None


def fulfil_problem(state: SpacecraftState, c: Fulfil, seat: int) -> Rejected | None:
    return fulfilling_problem(state) or fulfil_card_problem(state, c.card, seat)


def fulfil_at_once(state: SpacecraftState, c: Fulfil, seat: int) -> list[EventBody] | None:
    """``fulfil``'s events when ``fulfil_problem`` surely accepts the command, worked out
    with its check (the basic variant's build or design step, a card of the lower row
    the rocket meets, no card reserved this turn, fewer than two fulfilled); None
    otherwise, for the caller to ask ``fulfil_problem``."""
    card = c.card
    lower = state.lower
    step = state.step
    if (
        (step != "build" and step != "design")
        or state.variant != "basic"
        or state.reserved_now
        or state.designs >= 2
        or card == NO_CARD
        or card not in lower
        or not rocket.meets_design_card(state.rockets[seat], card)
    ):
        return None
    return [DesignFulfilled(seat=seat, card=card, slot=lower.index(card))]


def fulfil(state: SpacecraftState, c: Fulfil, seat: int) -> list[EventBody]:
    slot = state.lower.index(c.card) if c.card in state.lower else -1
    return [DesignFulfilled(seat=seat, card=c.card, slot=slot)]


def reserving_problem(state: SpacecraftState, seat: int) -> Rejected | None:
    """Whether ``seat`` may reserve a design card at all now (any card)."""
    found = _design_step(state, "basic")
    if found is not None:
        return found
    if state.designs > 0:
        return Rejected("already_fulfilled", "reserve only when you fulfilled no design")
    if state.reserved_now or state.reserved[seat] != NO_CARD:
        return Rejected("reserve_full", "you may hold only one reserved card")
    return None


def reserve_card_problem(state: SpacecraftState, card: int) -> Rejected | None:
    """Whether ``card`` may be reserved, once reserving is possible at all."""
    if card == NO_CARD or card not in state.lower:
        return Rejected("card_not_available", "that card is not in the lower row")
    return None


def reserve_problem(state: SpacecraftState, c: Reserve, seat: int) -> Rejected | None:
    return reserving_problem(state, seat) or reserve_card_problem(state, c.card)


def reserve(state: SpacecraftState, c: Reserve, seat: int) -> list[EventBody]:
    return [DesignReserved(seat=seat, card=c.card, slot=state.lower.index(c.card))]


def mark_problem(state: SpacecraftState, c: Mark, seat: int) -> Rejected | None:
    found = _design_step(state, "advanced")
    if found is not None:
        return found
    if state.marked:
        return Rejected("already_marked", "one marker per turn")
    if state.markers_left[seat] <= 0:
        return Rejected(SUPPLY_EXHAUSTED, "you have no markers left")
    if c.card not in state.adv_cards:
        return Rejected("card_not_available", "that card is not on display")
    i = state.adv_cards.index(c.card)
    if len(state.adv_marks[i]) >= len(cat.advanced_track(c.card, state.adv_sides[i])):
        return Rejected("card_full", "that card has no free space")
    return None


def mark(state: SpacecraftState, c: Mark, seat: int) -> list[EventBody]:
    space = len(state.adv_marks[state.adv_cards.index(c.card)])
    return [MarkerPlaced(seat=seat, card=c.card, space=space)]
