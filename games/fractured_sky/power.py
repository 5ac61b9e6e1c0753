"""Power in a region and the reward ranking (shared by objectives and round end)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import msgspec

from games.fractured_sky.state import FracturedSkyState, region_platforms
from orrery_contracts.fractured_sky import catalogue as cat


class Presence(msgspec.Struct, gc=False):
    """Made positionally (``Presence(seat, ship_power, total)``): the round end makes a
    few dozen. Only ints inside, so the garbage collector need not track them."""

    seat: int
    ship_power: int  # chip + adjacent own fortresses; -1 = no airship
    total: int  # ship power + own skimmers


def ai_faces(state: FracturedSkyState, row: list[int], board: list[int]) -> list[int]:
    """An AI's revealed powers: its token(s) with the highest high face in regions holding
    stardust turn to the high face (1, or 2 on hard), the others to the low face."""
    placed = [r for r in state.regions if row[r] >= 0]
    candidates = [r for r in placed if board[r] > 0]
    candidates.sort(key=lambda r: -cat.AI_TOKENS[row[r]].high)  # stable: leftmost first
    high = set(candidates[: cat.AI_HIGH_TOKENS[state.difficulty]])
    faces = [-1] * len(row)
    for r in placed:
        token = cat.AI_TOKENS[row[r]]
        faces[r] = token.high if r in high else token.low
    return faces


def adjusted_chips(
    state: FracturedSkyState, board: list[int] | None = None
) -> tuple[list[list[int]], list[int]]:
    """Chips after the over-10 rule: every chip reduced by the excess (floor 0). AIs
    ignore the limit; their tokens show the face the rotation rule gives (``board``:
    stardust per region after the reveal)."""
    chips, excess, _ = reveal(state, board)
    return chips, excess


def reveal(
    state: FracturedSkyState, board: list[int] | None = None
) -> tuple[list[list[int]], list[int], list[list[Presence]]]:
    """``adjusted_chips`` and the ``region_presences`` of those chips, made in one pass
    over each participant's airships (the round end needs both)."""
    per_region = region_platforms(state)
    found: list[list[Presence]] = [[] for _ in per_region]
    chips: list[list[int]] = []
    excess: list[int] = []
    seats = state.seats
    skimmers = state.skimmers
    fortresses = state.fortresses
    for seat, row in enumerate(state.airships):
        skims = skimmers[seat]
        forts = fortresses[seat]
        if seat >= seats:
            faces = ai_faces(state, row, board or state.board_stardust)
            chips.append(_present(found, seat, faces, 0, skims, forts, per_region))
            excess.append(0)
            continue
        over = sum(row) + row.count(-1) - 10  # the chips' total (-1 marks no airship)
        over = over if over > 0 else 0
        chips.append(_present(found, seat, row, over, skims, forts, per_region))
        excess.append(over)
    return chips, excess, found


def presences(state: FracturedSkyState, chips: list[list[int]], region: int) -> list[Presence]:
    """Every participant with an airship or skimmer in ``region``, in seat order."""
    return region_presences(state, chips)[region]


def region_presences(state: FracturedSkyState, chips: list[list[int]]) -> list[list[Presence]]:
    """``presences`` of every region at once (indexed by region), in one pass over each
    participant's chips: the round end asks every region, and nothing it emits changes
    a presence (chips, skimmers and fortresses stay as they are until the next round)."""
    per_region = region_platforms(state)
    found: list[list[Presence]] = [[] for _ in per_region]
    skimmers = state.skimmers
    fortresses = state.fortresses
    for seat in range(state.participants):
        _present(found, seat, chips[seat], 0, skimmers[seat], fortresses[seat], per_region)
    return found


def _present(
    found: list[list[Presence]],
    seat: int,
    row: list[int],
    over: int,
    skims: list[int],
    forts: list[int],
    per_region: tuple[tuple[int, ...], ...],
) -> list[int]:
    """Add ``seat``'s presences to ``found`` (per region) from its chips ``row`` (-1: no
    airship), each chip first reduced by ``over`` (the over-10 rule: max(0, chip -
    over)); returns the chips so reduced (a new list)."""
    shown = row[:]
    if not any(skims) and not any(forts):
        # the usual row: airships alone, each as strong as its chip
        for region, chip in enumerate(row):
            if chip >= 0:
                if over:
                    chip = shown[region] = chip - over if chip > over else 0
                found[region].append(Presence(seat, chip, chip))
        return shown
    for region, chip in enumerate(row):
        if chip < 0:
            skim = skims[region]
            if skim:
                found[region].append(Presence(seat, -1, skim))
            continue
        if over:
            chip = shown[region] = chip - over if chip > over else 0
        ship = chip  # never below 0: the chip and the fortresses lifting it
        for p in per_region[region]:  # one to three platforms: no generator
            ship += forts[p]
        found[region].append(Presence(seat, ship, ship + skims[region]))
    return shown


def ranking(found: list[Presence], order: list[int]) -> list[Presence]:
    """Eligible presences (power >= 1), best first; ties to the earlier turn order."""
    if len(found) < 2:  # nothing to order (most regions hold zero or one): no comprehension
        return [found[0]] if found and found[0].total >= 1 else []
    eligible = [p for p in found if p.total >= 1]
    if len(eligible) < 2:
        return eligible
    eligible.sort(key=rank_key(tuple(order)))
    return eligible


@lru_cache(maxsize=256)
def rank_key(order: tuple[int, ...]) -> Callable[[Presence], tuple[int, int]]:
    """The ranking's sort key for a turn order (made once per order: the round end ranks
    every region in the same one)."""
    position = {seat: i for i, seat in enumerate(order)}
    late = len(order)

    def key(p: Presence) -> tuple[int, int]:
        return -p.total, position.get(p.seat, late + p.seat)

    return key
