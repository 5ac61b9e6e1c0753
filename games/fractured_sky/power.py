"""Power in a region and the reward ranking (shared by objectives and round end)."""

from __future__ import annotations

import msgspec

from games.fractured_sky.state import FsState, region_platforms


class Presence(msgspec.Struct, kw_only=True):
    seat: int
    ship_power: int  # chip + adjacent own fortresses; -1 = no airship
    total: int  # ship power + own skimmers


def adjusted_chips(state: FsState) -> tuple[list[list[int]], list[int]]:
    """Chips after the over-10 rule: every chip reduced by the excess (floor 0)."""
    chips: list[list[int]] = []
    excess: list[int] = []
    for row in state.airships:
        total = sum(v for v in row if v >= 0)
        over = max(0, total - 10)
        excess.append(over)
        chips.append([v if v < 0 else max(0, v - over) for v in row])
    return chips, excess


def presences(state: FsState, chips: list[list[int]], region: int) -> list[Presence]:
    """Every participant with an airship or skimmer in ``region``."""
    platforms = region_platforms(state)[region]
    found: list[Presence] = []
    for seat in range(state.participants):
        chip = chips[seat][region]
        skim = state.skimmers[seat][region]
        if chip < 0 and skim == 0:
            continue
        ship = -1
        if chip >= 0:
            forts = state.fortresses[seat]
            ship = chip + sum(forts[p] for p in platforms)
        found.append(Presence(seat=seat, ship_power=ship, total=max(ship, 0) + skim))
    return found


def ranking(found: list[Presence], order: list[int]) -> list[Presence]:
    """Eligible presences (power >= 1), best first; ties to the earlier turn order."""
    position = {seat: i for i, seat in enumerate(order)}
    eligible = [p for p in found if p.total >= 1]
    eligible.sort(key=lambda p: (-p.total, position.get(p.seat, len(order) + p.seat)))
    return eligible


def market_count(state: FsState, seat: int, region: int) -> int:
    markets = state.markets[seat]
    return sum(markets[p] for p in region_platforms(state)[region])
