"""``FracturedSkyState``, the mutable game state (msgpack-friendly), and small lookups.

The state's defaults never read the catalogue: the board size, the stardust supply and
the market-card threshold come from ``GameSetUp``, so a log folds the same after the
content data changes. The lookups (bridges, unused chips) are for ``decide`` and
``view``, which may read today's content.
"""

from __future__ import annotations

import msgspec

from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky.events import ObjectiveOutcome, RegionOutcome

RES_INDEX: dict[str, int] = {name: i for i, name in enumerate(cat.RESOURCES)}

PHASE_START = "start"  # every seat picks its 4 starting resources (any order)
PHASE_PLAY = "play"  # the seat ``turn`` takes one action
PHASE_SCOUT = "scout"  # the seat ``turn`` decides what to take from the card it scouted
PHASE_SLOT = "slot"  # the seat ``turn`` picks its turn slot after its third airship
PHASE_REWARDS = "rewards"  # round end: seats answer their pending resource choices
PHASE_FINISHED = "finished"


class ScoutRecord(msgspec.Struct, kw_only=True):
    seat: int
    card: int
    resource: int = -1  # -1: nothing taken (or not decided yet)


class PendingChoice(msgspec.Struct, kw_only=True):
    seat: int
    region: int
    options: list[int]
    reason: str


class FracturedSkyState(msgspec.Struct, kw_only=True):
    seats: int
    # Participants take turns; seats 0..seats-1 are people. Automated opponents (the
    # 1-2 player rules) would be participants numbered from ``seats`` upward.
    participants: int
    regions: list[int]
    slot_count: int
    phase: str = PHASE_START
    round: int = 1
    turn: int = -1
    order: list[int] = []
    next_slots: list[int] = []  # seat per 1-based slot - 1, -1 = free
    resources: list[list[int]] = []  # [seat][gold, iron, wood]
    started: list[bool] = []
    stardust: list[int] = []
    supply: int = 0  # stardust tokens left; set from ``GameSetUp.stardust_tokens``
    board_stardust: list[int] = []  # per region index
    ships: list[int] = []  # airships placed this round, per seat
    airships: list[list[int]] = []  # [seat][region]: chip value, -1 = none
    explorer: list[int] = []  # per region: seat in the exploration slot, -1 = none
    skimmers: list[list[int]] = []  # [seat][region]
    fortresses: list[list[int]] = []  # [seat][platform]
    markets: list[list[int]] = []  # [seat][platform]
    public_card: int = -1
    secret_cards: list[int] = []  # tray: region per position (hidden until reveal)
    secret_deck: list[int] = []  # unused secret cards, top first (hidden)
    drawn: list[list[int]] = []  # per seat: exploration draws this round (private)
    scouts: list[ScoutRecord] = []
    scouting: int = -1  # tray position being scouted by ``turn`` (PHASE_SCOUT)
    objectives: list[int] = []  # card per tray position (hidden until flipped)
    objectives_revealed: int = 0
    peeks: list[list[int]] = []  # per seat: objective positions peeked
    revealed: bool = False
    chips_revealed: list[list[int]] = []  # [seat][region] after the reveal
    pending: list[PendingChoice] = []
    region_results: list[RegionOutcome] = []
    objective_results: list[ObjectiveOutcome] = []
    # 1-2 players: secret cards opened early, resources taken from each tray card
    secret_taken: list[int] = []
    secret_open: list[bool] = []
    # Automated opponents, indexed by ``participant - seats``.
    difficulty: str = "easy"
    ai_deck: list[list[int]] = []  # action cards left, top first (hidden)
    ai_flipped: list[list[int]] = []  # flipped this round (public); last = previous card
    ai_out: list[list[int]] = []  # tokens set aside this round (public)
    ai_pool: list[list[int]] = []  # face-down tokens left, top first (hidden)
    ai_tally: list[int] = []  # resources on the market card
    # Content recorded at setup (``GameSetUp``), so the fold never reads the catalogue.
    ai_market_threshold: int = 0  # AI resources per stardust; 0 = no market card
    region_count: int = 0
    platform_count: int = 0


def is_ai(state: FracturedSkyState, participant: int) -> bool:
    return participant >= state.seats


def ai_mode(state: FracturedSkyState) -> bool:
    """A 1-2 player game with automated opponents (and its special scouting rule)."""
    return state.participants > state.seats


def _bridges(active: frozenset[int]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(r for r in p.regions if r in active) for p in cat.PLATFORMS)


# Bridges per platform restricted to the active regions, keyed by "small table?".
_PLATFORM_REGIONS = {
    small: _bridges(frozenset(cat.active_regions(3 if small else 5))) for small in (False, True)
}
_REGION_PLATFORMS = {
    small: tuple(
        tuple(p for p, regs in enumerate(_PLATFORM_REGIONS[small]) if r in regs)
        for r in range(cat.REGION_COUNT)
    )
    for small in (False, True)
}


def platform_regions(state: FracturedSkyState) -> tuple[tuple[int, ...], ...]:
    return _PLATFORM_REGIONS[state.participants <= cat.SMALL_TABLE_MAX]


def region_platforms(state: FracturedSkyState) -> tuple[tuple[int, ...], ...]:
    return _REGION_PLATFORMS[state.participants <= cat.SMALL_TABLE_MAX]


def unused_chips(state: FracturedSkyState, seat: int) -> list[int]:
    chips = list(cat.CHIPS)
    for value in state.airships[seat]:
        if value >= 0:
            chips.remove(value)
    return chips


def chip_class(value: int) -> str:
    return cat.CHIP_WHITE if value in cat.WHITE_CHIPS else cat.CHIP_BLACK


def end_order(state: FracturedSkyState) -> list[int]:
    """The next column (end-of-round turn order), complete once every seat chose."""
    return [s for s in state.next_slots if s >= 0]


def ai_threshold(state: FracturedSkyState) -> int:
    """AI resources per stardust on the market card (0: no card), as recorded at setup."""
    return state.ai_market_threshold
