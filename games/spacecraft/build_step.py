"""The build step of a turn: build up to two parts and rearrange the rocket at will
(``sc.build``, ``sc.arrange``). What a part costs is ``workshop.py``, where it may go
``rocket.py``; the first rocket to meet the blueprint in normal play starts the countdown.
"""

from __future__ import annotations

from functools import lru_cache
from operator import attrgetter

from games.rejection import WRONG_PHASE, Rejected
from games.spacecraft import rocket
from games.spacecraft.state import SpacecraftState
from games.spacecraft.workshop import (
    SLOT_COST,
    accepted_payment,
    paid_ids,
    pay_problem,
    slot_problem,
)
from orrery_contracts.base import EventBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import Arrange, Build, Placement
from orrery_contracts.spacecraft.events import Arranged, CountdownTriggered, PartBuilt

_KIND_OF = attrgetter("kind")


def _build_step(state: SpacecraftState) -> Rejected | None:
    if state.step != "build":
        if state.step == "design":
            return Rejected("build_step_over", "parts are built before design cards")
        return Rejected(WRONG_PHASE, "leave the junkyard first")
    return None


def _layout_problem(
    state: SpacecraftState, seat: int, layout: list[Placement], extra: str
) -> Rejected | None:
    return layout_check(state.rockets[seat], layout, extra)


def layout_check(current: list[Placement], layout: list[Placement], extra: str) -> Rejected | None:
    """Whether ``layout`` may replace the rocket ``current`` (with the part ``extra``
    added, when given): exactly its parts, in a valid layout."""
    kinds = [p.kind for p in current]
    if extra:
        kinds.append(extra)
    if sorted(kinds) != sorted(p.kind for p in layout):
        return Rejected("layout_mismatch", "the layout must hold exactly your rocket's parts")
    reason = rocket.layout_problem(layout)
    if reason is not None:
        return Rejected("invalid_layout", reason)
    return None


def building_problem(state: SpacecraftState, seat: int) -> Rejected | None:
    """Whether ``seat`` may build a part at all now (any compartment)."""
    found = _build_step(state)
    if found is None and state.builds >= 2:
        return Rejected("build_limit", "at most 2 parts per turn")
    return found


def fit_problem(state: SpacecraftState, seat: int, kind: str) -> Rejected | None:
    """Whether a part of ``kind`` fits the rocket, rearranged if need be."""
    if rocket.shape(kind) not in rocket.fitting_shapes(tuple(map(_KIND_OF, state.rockets[seat]))):
        return Rejected("does_not_fit", "that part cannot fit your rocket")
    return None


def build_problem(state: SpacecraftState, c: Build, seat: int) -> Rejected | None:
    found = building_problem(state, seat) or slot_problem(state, c.slot)
    found = found or pay_problem(state, seat, c.slot, c.pay)
    if found is not None:
        return found
    kind = cat.SLOTS[c.slot].kind
    if c.layout is not None:
        return _layout_problem(state, seat, list(c.layout), kind)
    return fit_problem(state, seat, kind)


def build_at_once(state: SpacecraftState, c: Build, seat: int) -> list[EventBody] | None:
    """``build``'s events when ``build_problem`` surely accepts the command, worked out
    with its check (the usual build: no layout given, in the build step, a compartment
    in stock, a payment that pays, a part that fits); None otherwise, for the caller to
    ask ``build_problem`` (the one source of every rejection)."""
    slot = c.slot
    if (
        c.layout is not None
        or state.step != "build"
        or state.builds >= 2
        or not 0 <= slot < _SLOT_COUNT
        or state.supply[slot] <= 0
    ):
        return None
    column, need, kind = _SLOT_FACTS[slot]
    paid = accepted_payment(tuple(state.beside[seat]), state.tokens[column], need, tuple(c.pay))
    if paid is None:
        return None
    placed = rocket.fitted(tuple(state.rockets[seat]), kind)
    if placed is None:
        return None
    return _part_built(state, seat, slot, kind, list(paid), list(placed))


# Each compartment's column, part weight and part kind.
_SLOT_FACTS = tuple((*cost, slot.kind) for cost, slot in zip(SLOT_COST, cat.SLOTS, strict=True))
_SLOT_COUNT = len(cat.SLOTS)


def build(state: SpacecraftState, c: Build, seat: int) -> list[EventBody]:
    kind = cat.SLOTS[c.slot].kind
    if c.layout is not None:
        layout = list(c.layout)
    else:
        placed = rocket.place_new(state.rockets[seat], kind)
        assert placed is not None, "a feasible part always finds a layout"
        layout = placed
    return _part_built(state, seat, c.slot, kind, sorted(paid_ids(c.pay) or []), layout)


def _part_built(
    state: SpacecraftState,
    seat: int,
    slot: int,
    kind: str,
    paid: list[int],
    layout: list[Placement],
) -> list[EventBody]:
    """The part built, and the countdown when it is the first rocket to meet the
    blueprint in normal play."""
    events: list[EventBody] = [PartBuilt(seat=seat, slot=slot, kind=kind, paid=paid, layout=layout)]
    if (
        state.holder < 0
        and state.phase == "play"
        and rocket.meets_blueprint(layout, state.blueprint)
    ):
        events.append(CountdownTriggered(seat=seat))
    return events


def arrange_problem(state: SpacecraftState, c: Arrange, seat: int) -> Rejected | None:
    return _build_step(state) or _layout_problem(state, seat, list(c.layout), "")


def arrange_at_once(state: SpacecraftState, c: Arrange, seat: int) -> list[EventBody] | None:
    """``arrange``'s events when ``arrange_problem`` accepts the command, else None (the
    layout's check made once per rocket and layout: a search tries the same
    rearrangement again and again)."""
    if state.step != "build" or not _arranges(tuple(state.rockets[seat]), tuple(c.layout)):
        return None
    return arrange(state, c, seat)


@lru_cache(maxsize=1024)
def _arranges(current: tuple[Placement, ...], layout: tuple[Placement, ...]) -> bool:
    """Whether ``layout_check`` accepts ``layout`` in place of the rocket ``current``."""
    return layout_check(list(current), list(layout), "") is None


def arrange(state: SpacecraftState, c: Arrange, seat: int) -> list[EventBody]:
    return [Arranged(seat=seat, layout=list(c.layout))]
