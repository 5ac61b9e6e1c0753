"""Objective cards (all ASSUMED, see the catalogue): what each one measures."""

from __future__ import annotations

from games.fractured_sky.power import Presence, ranking, region_presences
from games.fractured_sky.state import FracturedSkyState, platform_regions
from orrery_contracts.fractured_sky import catalogue as cat


def measure(
    state: FracturedSkyState,
    chips: list[list[int]],
    card: int,
    order: list[int],
    found: list[list[Presence]] | None = None,
) -> list[int]:
    """The objective's quantity per participant, at the reveal (before region rewards;
    ``found``: every region's presences, when the caller made them already)."""
    objective = cat.OBJECTIVES[card]
    kind = objective.kind
    n = state.participants
    if kind == cat.OBJ_REGION_POWER:
        values = [0] * n
        if found is None:
            found = region_presences(state, chips)
        for p in found[objective.region]:
            values[p.seat] = p.total
        return values
    if kind == cat.OBJ_MAX_POWER:
        best = [0] * n
        if found is None:
            found = region_presences(state, chips)
        for region in state.regions:
            for p in found[region]:
                if p.total > best[p.seat]:
                    best[p.seat] = p.total
        return best
    if kind == cat.OBJ_FIRST_PLACES:
        firsts = [0] * n
        if found is None:
            found = region_presences(state, chips)
        for region in state.regions:
            ranked = ranking(found[region], order)
            if ranked:
                firsts[ranked[0].seat] += 1
        return firsts
    if kind == cat.OBJ_EXPLORERS:
        explorers = [0] * n  # one pass over the regions, not one per seat
        for r in state.regions:
            seat = state.explorer[r]
            if 0 <= seat < n:
                explorers[seat] += 1
        return explorers
    if kind == cat.OBJ_FORTRESSES:
        return [sum(state.fortresses[s]) for s in range(n)]
    if kind == cat.OBJ_MARKETS:
        return [sum(state.markets[s]) for s in range(n)]
    if kind == cat.OBJ_CONNECTED:
        bridges = platform_regions(state)
        return [
            len(_bridged(state.fortresses[s], bridges) | _bridged(state.markets[s], bridges))
            for s in range(n)
        ]
    if kind == cat.OBJ_BUILDING_TYPES:
        # per seat, a region in play bridged to both a fortress and a market of the seat
        # (2 types), or else to either (1)
        bridges = platform_regions(state)
        active = set(state.regions)
        values = []
        for s in range(n):
            near_fortress = _bridged(state.fortresses[s], bridges) & active
            near_market = _bridged(state.markets[s], bridges) & active
            both = near_fortress & near_market
            values.append(2 if both else 1 if near_fortress or near_market else 0)
        return values
    if kind == cat.OBJ_SCOUTED:
        return [len({r.card for r in state.scouts if r.seat == s}) for s in range(n)]
    if kind == cat.OBJ_PEEKED:
        return [len(state.peeks[s]) for s in range(n)]
    if kind == cat.OBJ_RESOURCES:
        return [sum(state.resources[s]) for s in range(n)]
    raise ValueError(f"unknown objective kind {kind}")


def _bridged(built: list[int], bridges: tuple[tuple[int, ...], ...]) -> set[int]:
    """The regions bridged to a platform holding one of ``built`` (per platform)."""
    if not any(built):  # no building of the kind: the usual case
        return set()
    return {r for p, regs in enumerate(bridges) if built[p] for r in regs}


def winner(values: list[int], order: list[int]) -> int:
    """The seat with the most (at least 1); ties to the earlier turn order; -1 if none."""
    best = -1
    best_value = 0
    for seat in order:
        if values[seat] > best_value:
            best, best_value = seat, values[seat]
    return best
