"""``legal_commands``: exactly the commands ``decide`` accepts from a seat.

Candidates are enumerated here and each one is kept only if ``actions.check`` (the one
validation ``decide`` runs) accepts it, so no rule is written twice. The lists are
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

from collections.abc import Iterator

from contracts.base import CommandBody
from contracts.fractured_sky import catalogue as cat
from contracts.fractured_sky import commands as cmd
from games.fractured_sky.actions import accepts
from games.fractured_sky.state import (
    PHASE_FINISHED,
    PHASE_PLAY,
    PHASE_REWARDS,
    PHASE_SCOUT,
    PHASE_SLOT,
    PHASE_START,
    FsState,
    unused_chips,
)

_PAIRS: tuple[tuple[int, int, int], ...] = tuple(
    (g, i, 2 - g - i) for g in range(3) for i in range(3 - g)
)
_FOURS: tuple[tuple[int, int, int], ...] = tuple(
    (g, i, 4 - g - i) for g in range(5) for i in range(5 - g)
)
_TRADES: tuple[cmd.Trade, ...] = tuple(
    cmd.Trade(gold=g, iron=i, wood=w, get=r)  # type: ignore[arg-type]
    for g, i, w in _PAIRS
    for r in cat.RESOURCES
)
_RESOURCES: tuple[cmd.ChooseResource, ...] = tuple(
    cmd.ChooseResource(resource=r)  # type: ignore[arg-type]
    for r in cat.RESOURCES
)


def _actions(state: FsState, seat: int) -> Iterator[CommandBody]:
    chips = sorted(set(unused_chips(state, seat)))
    for region in state.regions:
        for chip in chips:
            yield cmd.PlaceAirship(region=region, chip=chip)
    for p in range(cat.PLATFORM_COUNT):
        yield cmd.BuildFortress(platform=p)
    for p in range(cat.PLATFORM_COUNT):
        yield cmd.BuildMarket(platform=p)
    for r in state.regions:
        yield cmd.PlaceSkimmer(region=r)
    for c in range(len(state.secret_cards)):
        yield cmd.Scout(card=c)
    for position in range(state.objectives_revealed, len(state.objectives)):
        for g, i, w in _PAIRS:
            yield cmd.Peek(objective=position, gold=g, iron=i, wood=w)


def _required(state: FsState, seat: int) -> Iterator[CommandBody]:
    """Candidates for the seat's required action in this phase (not the trades)."""
    phase = state.phase
    if phase == PHASE_START:
        for g, i, w in _FOURS:
            yield cmd.ChooseStart(gold=g, iron=i, wood=w)
    elif phase == PHASE_REWARDS:
        yield from _RESOURCES
    elif seat != state.turn:
        return
    elif phase == PHASE_PLAY:
        yield from _actions(state, seat)
    elif phase == PHASE_SCOUT:
        yield cmd.ScoutTake()
        for r in cat.RESOURCES:
            yield cmd.ScoutTake(resource=r)  # type: ignore[arg-type]
    elif phase == PHASE_SLOT:
        for slot in range(1, state.slot_count + 1):
            yield cmd.ChooseSlot(slot=slot)


def legal_commands(state: FsState, seat: int) -> list[CommandBody]:
    if state.phase == PHASE_FINISHED or not 0 <= seat < state.seats:
        return []
    out = [c for c in _required(state, seat) if accepts(state, c, seat)]
    if sum(state.resources[seat]) >= cat.TRADE_GIVE_TOTAL:
        out.extend(c for c in _TRADES if accepts(state, c, seat))
    return out
