"""``legal_commands``: every command listed here is accepted by ``decide``.

The lists are complete: every (region, chip value) airship placement, every platform or
region for an affordable building, every unscouted card, every unpeeked objective with
every affordable way to pay two resources, and every 2-for-1 trade (at most ~200).
"""

from __future__ import annotations

from contracts.base import CommandBody
from contracts.fractured_sky import catalogue as cat
from contracts.fractured_sky import commands as cmd
from games.fractured_sky.actions import can_afford, scouted_by
from games.fractured_sky.state import (
    PHASE_PLAY,
    PHASE_REWARDS,
    PHASE_SCOUT,
    PHASE_SLOT,
    PHASE_START,
    FsState,
    unused_chips,
)
from games.fractured_sky.turns import free_slots

_PAIRS: tuple[tuple[int, int, int], ...] = tuple(
    (g, i, 2 - g - i) for g in range(3) for i in range(3 - g)
)
_FOURS: tuple[tuple[int, int, int], ...] = tuple(
    (g, i, 4 - g - i) for g in range(5) for i in range(5 - g)
)


def _play(state: FsState, seat: int) -> list[CommandBody]:
    have = state.resources[seat]
    out: list[CommandBody] = []
    row = state.airships[seat]
    chips = sorted(set(unused_chips(state, seat)))
    for region in state.regions:
        if row[region] < 0:
            out.extend(cmd.PlaceAirship(region=region, chip=chip) for chip in chips)
    if sum(state.fortresses[seat]) < cat.FORTRESS_SUPPLY and can_afford(have, cat.FORTRESS_COST):
        out.extend(cmd.BuildFortress(platform=p) for p in range(cat.PLATFORM_COUNT))
    if sum(state.markets[seat]) < cat.MARKET_SUPPLY and can_afford(have, cat.MARKET_COST):
        out.extend(cmd.BuildMarket(platform=p) for p in range(cat.PLATFORM_COUNT))
    if sum(state.skimmers[seat]) < cat.SKIMMER_SUPPLY and can_afford(have, cat.SKIMMER_COST):
        out.extend(cmd.PlaceSkimmer(region=r) for r in state.regions)
    if can_afford(have, cat.SCOUT_COST):
        done = scouted_by(state, seat)
        out.extend(cmd.Scout(card=c) for c in range(len(state.secret_cards)) if c not in done)
    payable = [p for p in _PAIRS if can_afford(have, p)]
    for position in range(state.objectives_revealed, len(state.objectives)):
        if position not in state.peeks[seat]:
            out.extend(cmd.Peek(objective=position, gold=g, iron=i, wood=w) for g, i, w in payable)
    for g, i, w in payable:
        out.extend(cmd.Trade(gold=g, iron=i, wood=w, get=r) for r in cat.RESOURCES)  # type: ignore[arg-type]
    return out


def legal_commands(state: FsState, seat: int) -> list[CommandBody]:
    phase = state.phase
    if phase == PHASE_START:
        if seat >= state.seats or state.started[seat]:
            return []
        return [cmd.ChooseStart(gold=g, iron=i, wood=w) for g, i, w in _FOURS]
    if phase == PHASE_REWARDS:
        for pending in state.pending:
            if pending.seat == seat:
                return [
                    cmd.ChooseResource(resource=cat.RESOURCES[r])  # type: ignore[arg-type]
                    for r in pending.options
                ]
        return []
    if seat != state.turn:
        return []
    if phase == PHASE_PLAY:
        return _play(state, seat)
    if phase == PHASE_SCOUT:
        region = cat.REGIONS[state.secret_cards[state.scouting]]
        takes: list[CommandBody] = [cmd.ScoutTake()]
        takes.extend(cmd.ScoutTake(resource=r) for r in dict.fromkeys(region.resources))  # type: ignore[arg-type]
        return takes
    if phase == PHASE_SLOT:
        return [cmd.ChooseSlot(slot=s) for s in free_slots(state)]
    return []
