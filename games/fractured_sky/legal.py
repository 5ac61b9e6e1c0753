"""``legal_commands``: exactly the commands ``decide`` accepts from a seat.

Candidates are enumerated here and kept only when the predicates ``decide`` runs
(``actions.gate`` once per kind of command, then the ``*_problem`` of each parameter)
find no problem, so no rule is written twice. The lists are
complete: every (region, chip value) airship placement, every platform or region for a
building, every card, every objective with every way to pay two resources, and every
2-for-1 trade (at most ~200 commands).

The free trade is legal at any time while the game runs (rule choice 12), so it is listed
for every seat the moment it holds two resources, also for seats that are not to move.
``status().to_move`` never counts trades: a seat is "to move" only for its required
action, and as every trade lowers the seat's resources by one, random legal play (bots,
the zombie moves of seats that left) still reaches the end.
"""

from __future__ import annotations

from games.fractured_sky.actions import (
    airship_region_problem,
    amounts_problem,
    building_problem,
    chip_problem,
    choice_problem,
    gate,
    objective_problem,
    offer_problem,
    peek_pay_problem,
    platform_problem,
    pointless_problem,
    region_problem,
    resource_problem,
    scout_problem,
    scout_take_problem,
    skimmer_problem,
    slot_problem,
    start_problem,
)
from games.fractured_sky.state import FracturedSkyState
from orrery_contracts.base import CommandBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import commands as cmd

_PAIRS: tuple[tuple[int, int, int], ...] = tuple(
    (g, i, 2 - g - i) for g in range(3) for i in range(3 - g)
)
_FOURS: tuple[tuple[int, int, int], ...] = tuple(
    (g, i, 4 - g - i) for g in range(5) for i in range(5 - g)
)
_CHIP_VALUES = sorted(set(cat.CHIPS))


def _open(state: FracturedSkyState, seat: int, kind: type[CommandBody]) -> bool:
    return gate(state, seat, kind) is None


def _actions(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    out: list[CommandBody] = []
    if not _open(state, seat, cmd.PlaceAirship):  # the same gate for every action
        return out
    regions = [r for r in range(cat.REGION_COUNT) if not airship_region_problem(state, seat, r)]
    chips = [c for c in _CHIP_VALUES if not chip_problem(state, seat, c)]
    out.extend(cmd.PlaceAirship(region=r, chip=c) for r in regions for c in chips)
    platforms = [p for p in range(cat.PLATFORM_COUNT) if not platform_problem(p)]
    if not building_problem(state, seat, fortress=True):
        out.extend(cmd.BuildFortress(platform=p) for p in platforms)
    if not building_problem(state, seat, fortress=False):
        out.extend(cmd.BuildMarket(platform=p) for p in platforms)
    if not skimmer_problem(state, seat):
        regions = [r for r in range(cat.REGION_COUNT) if not region_problem(state, r)]
        out.extend(cmd.PlaceSkimmer(region=r) for r in regions)
    cards = range(len(state.secret_cards))
    out.extend(cmd.Scout(card=c) for c in cards if not scout_problem(state, seat, c))
    pays = [pay for pay in _PAIRS if not peek_pay_problem(state, seat, *pay)]
    for objective in range(len(state.objectives)):
        if not objective_problem(state, seat, objective):
            out.extend(cmd.Peek(objective=objective, gold=g, iron=i, wood=w) for g, i, w in pays)
    return out


def _required(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    """The seat's required action in this phase (not the trades)."""
    if _open(state, seat, cmd.ChooseStart):
        return [
            cmd.ChooseStart(gold=g, iron=i, wood=w)
            for g, i, w in _FOURS
            if not start_problem(state, seat, g, i, w)
        ]
    if _open(state, seat, cmd.ChooseResource):
        return [
            cmd.ChooseResource(resource=r)  # type: ignore[arg-type]
            for r in cat.RESOURCES
            if not choice_problem(state, seat, r)
        ]
    if _open(state, seat, cmd.ScoutTake):
        takes: list[str | None] = [None, *cat.RESOURCES]
        return [
            cmd.ScoutTake(resource=r)  # type: ignore[arg-type]
            for r in takes
            if not scout_take_problem(state, r)
        ]
    if _open(state, seat, cmd.ChooseSlot):
        slots = range(1, state.slot_count + 1)
        return [cmd.ChooseSlot(slot=s) for s in slots if not slot_problem(state, s)]
    return _actions(state, seat)


def legal_commands(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    if not _open(state, seat, cmd.Trade):  # game over, or not a seat of a person
        return []
    out = _required(state, seat)
    if sum(state.resources[seat]) >= cat.TRADE_GIVE_TOTAL:  # else no offer is possible
        # ``trade_problem`` = the amounts, the resource asked for, the offer held
        gives = [
            (g, i, w)
            for g, i, w in _PAIRS
            if not amounts_problem(g, i, w, cat.TRADE_GIVE_TOTAL)
            and not offer_problem(state, seat, g, i, w)
        ]
        gets = [r for r in cat.RESOURCES if not resource_problem(r)]
        out.extend(
            cmd.Trade(gold=g, iron=i, wood=w, get=r)  # type: ignore[arg-type]
            for g, i, w in gives
            for r in gets
            if not pointless_problem(g, i, w, r)
        )
    return out
