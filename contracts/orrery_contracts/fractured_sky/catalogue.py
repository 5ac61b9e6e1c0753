"""Fractured Sky: ALL static game content (the one content module).

Indexes used on the wire: regions, platforms, secret-card positions and objective
positions are 0-based indexes into the tuples below / the tray; turn-order slots are
1-based, as printed on the board. Resources are the strings ``gold``, ``iron``, ``wood``.

PROVISIONAL: the research notes (summarised in games/fractured_sky/RULES.md) found no public
source for the items marked ASSUMED below. They are proposals consistent with the seed rules
and will change when the real rulebook/board is available:

* the 10th region's name ("Unknown Isle") and the left-to-right board order (§1.6);
* every region's resource pair except "Sinister Spires produces gold" (§1.6);
* the floating platforms and their bridges (§2.2), and unlimited buildings per platform;
* gold icons on the turn track other than 3-slot side slot 3 and 5-slot side slot 4 (§4.1);
* the objective card texts, their back icons and the 5 tray slot icons (§5.3);
* the stardust token count (§8.2);
* the AI action deck (14 cards), the compass on each card and the 9 AI tokens (§7.2),
  and the AI skimmer supply.

Confirmed (seed or two sources): 12 chips 0,0,1..10 with 1 and 10 white-bordered; costs;
supplies of 5 markets / 5 fortresses / 5 skimmers / 3 airships; 5 rounds; removal of
Frosty Fjord and Wayward Wood with 1-3 participants; one secret card per round number;
the AI difficulty table (buildings 2/3/4, market card none/6/5, high tokens 1/1/2).
"""

from __future__ import annotations

from typing import get_args

import msgspec

from orrery_contracts.fractured_sky.options import Difficulty

RESOURCES: tuple[str, ...] = ("gold", "iron", "wood")
GOLD, IRON, WOOD = 0, 1, 2

ROUNDS = 5
AIRSHIPS = 3
POWER_LIMIT = 10
STARTING_RESOURCES = 4

# Chips: two zeros, 1..10. 1 and 10 have a white border, the rest a black one.
CHIPS: tuple[int, ...] = (0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
WHITE_CHIPS: frozenset[int] = frozenset({1, 10})
CHIP_WHITE = "white"
CHIP_BLACK = "black"

# Costs as (gold, iron, wood).
FORTRESS_COST: tuple[int, int, int] = (0, 3, 0)
MARKET_COST: tuple[int, int, int] = (1, 0, 2)
SKIMMER_COST: tuple[int, int, int] = (0, 1, 1)
SCOUT_COST: tuple[int, int, int] = (2, 0, 0)
PEEK_COST_TOTAL = 2  # any two resources
TRADE_GIVE_TOTAL = 2  # any two resources for one of any type

FORTRESS_SUPPLY = 5
MARKET_SUPPLY = 5
SKIMMER_SUPPLY = 5

# ASSUMED (§8.2): enough stardust tokens for the maximum a game can place (about 25).
STARDUST_TOKENS = 40

SMALL_TABLE_MAX = 3  # 1-3 participants: 3-slot turn track and two regions removed


class Region(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    key: str
    name: str
    x: int
    y: int  # 1 = north row, 0 = south row
    resources: tuple[str, str]
    removed_small: bool = False  # removed with 1-3 participants
    provisional: bool = True


class Platform(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    key: str
    x: float
    y: float
    regions: tuple[int, ...]  # bridge-connected regions (all printed bridges)
    provisional: bool = True


# ASSUMED board (§1.6): order = left-to-right resolution order.
REGIONS: tuple[Region, ...] = (
    Region(
        index=0,
        key="frosty_fjord",
        name="Frosty Fjord",
        x=0,
        y=1,
        resources=("iron", "gold"),
        removed_small=True,
    ),
    Region(
        index=1,
        key="careening_cliffs",
        name="Careening Cliffs",
        x=1,
        y=0,
        resources=("iron", "iron"),
    ),
    Region(index=2, key="molten_moor", name="Molten Moor", x=2, y=1, resources=("iron", "gold")),
    Region(
        index=3,
        key="peaceful_plains",
        name="Peaceful Plains",
        x=3,
        y=0,
        resources=("wood", "gold"),
    ),
    Region(
        index=4,
        key="torrential_tropics",
        name="Torrential Tropics",
        x=4,
        y=1,
        resources=("wood", "wood"),
    ),
    Region(
        index=5,
        key="dreadful_desert",
        name="Dreadful Desert",
        x=5,
        y=0,
        resources=("gold", "iron"),
    ),
    Region(
        index=6,
        key="sinister_spires",
        name="Sinister Spires",
        x=6,
        y=1,
        resources=("gold", "iron"),  # gold confirmed by the seed, iron ASSUMED
    ),
    Region(index=7, key="creepy_cove", name="Creepy Cove", x=7, y=0, resources=("gold", "wood")),
    Region(index=8, key="region_10", name="Unknown Isle", x=8, y=1, resources=("wood", "iron")),
    Region(
        index=9,
        key="wayward_wood",
        name="Wayward Wood",
        x=9,
        y=0,
        resources=("wood", "gold"),
        removed_small=True,
    ),
)
REGION_COUNT = len(REGIONS)

# ASSUMED platforms and bridges (§2.2). With 1-3 participants, bridges to removed regions
# are ignored (a platform keeps its other bridges and stays buildable).
PLATFORMS: tuple[Platform, ...] = (
    Platform(index=0, key="p1", x=0.5, y=0.5, regions=(0, 1)),
    Platform(index=1, key="p2", x=1.5, y=0.5, regions=(0, 1, 2, 3)),
    Platform(index=2, key="p3", x=3.0, y=1.2, regions=(2, 4)),
    Platform(index=3, key="p4", x=3.5, y=0.5, regions=(2, 3, 4, 5)),
    Platform(index=4, key="p5", x=4.0, y=-0.2, regions=(3, 5)),
    Platform(index=5, key="p6", x=5.5, y=0.5, regions=(4, 5, 6, 7)),
    Platform(index=6, key="p7", x=6.5, y=0.5, regions=(6, 7, 8)),
    Platform(index=7, key="p8", x=7.5, y=0.5, regions=(6, 7, 8, 9)),
    Platform(index=8, key="p9", x=8.5, y=0.5, regions=(8, 9)),
)
PLATFORM_COUNT = len(PLATFORMS)

# Turn track: slots per column by side, and the 1-based slots showing a gold icon.
# Confirmed: slot 3 on the 3-slot side, slot 4 on the 5-slot side. ASSUMED: slot 5 too.
TURN_SLOTS_SMALL = 3
TURN_SLOTS_LARGE = 5
GOLD_SLOTS_SMALL: frozenset[int] = frozenset({3})
GOLD_SLOTS_LARGE: frozenset[int] = frozenset({4, 5})  # 5 is ASSUMED

# Objectives (ALL ASSUMED, §5.3): back icons, tray slot icons, card list.
ICON_FLEET = "fleet"
ICON_BUILD = "build"
ICON_INTEL = "intel"
OBJECTIVE_SLOT_ICONS: tuple[str, ...] = (ICON_INTEL, ICON_FLEET, ICON_BUILD, ICON_FLEET, ICON_BUILD)

# Objective kinds: the player with the most of the measured quantity (at least 1) wins
# 1 stardust; ties go to the earlier seat in the end-of-round turn order.
OBJ_REGION_POWER = "region_power"  # highest final power in `region`
OBJ_MAX_POWER = "max_power"  # highest single-region final power
OBJ_FIRST_PLACES = "first_places"  # most regions where ranked 1st
OBJ_EXPLORERS = "explorers"  # most own airships in exploration slots
OBJ_FORTRESSES = "fortresses"  # most fortresses on the board
OBJ_MARKETS = "markets"  # most markets on the board
OBJ_CONNECTED = "connected_regions"  # most distinct regions bridged to own buildings
OBJ_BUILDING_TYPES = "building_types"  # most own building types bridged to one region
OBJ_SCOUTED = "scouted"  # most secret cards scouted this round
OBJ_PEEKED = "peeked"  # most objective cards peeked
OBJ_RESOURCES = "resources"  # most resources held (when the objective is scored)


class Objective(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    key: str
    icon: str
    kind: str
    text: str
    region: int = -1  # for OBJ_REGION_POWER
    provisional: bool = True


def _objectives() -> tuple[Objective, ...]:
    cards: list[Objective] = [
        Objective(
            index=r.index,
            key=f"o{r.index + 1:02d}",
            icon=ICON_FLEET,
            kind=OBJ_REGION_POWER,
            text=f"Sovereign of {r.name}: highest power in {r.name}",
            region=r.index,
        )
        for r in REGIONS
    ]
    extra = (
        (ICON_FLEET, OBJ_MAX_POWER, "Highest power in a single region"),
        (ICON_FLEET, OBJ_FIRST_PLACES, "Most regions where you rank first"),
        (ICON_FLEET, OBJ_EXPLORERS, "Most airships in exploration slots"),
        (ICON_BUILD, OBJ_FORTRESSES, "Most fortresses on the board"),
        (ICON_BUILD, OBJ_MARKETS, "Most markets on the board"),
        (ICON_BUILD, OBJ_CONNECTED, "Most distinct regions connected to your buildings"),
        (ICON_BUILD, OBJ_BUILDING_TYPES, "Most building types connected to a single region"),
        (ICON_INTEL, OBJ_SCOUTED, "Most secret stardust cards scouted this round"),
        (ICON_INTEL, OBJ_PEEKED, "Most objective cards peeked"),
        (ICON_INTEL, OBJ_RESOURCES, "Most resources held"),
    )
    for icon, kind, text in extra:
        index = len(cards)
        cards.append(
            Objective(index=index, key=f"o{index + 1:02d}", icon=icon, kind=kind, text=text)
        )
    return tuple(cards)


OBJECTIVES: tuple[Objective, ...] = _objectives()


def active_regions(participants: int) -> tuple[int, ...]:
    """Region indexes in play, left to right."""
    small = participants <= SMALL_TABLE_MAX
    return tuple(r.index for r in REGIONS if not (small and r.removed_small))


def turn_slot_count(participants: int) -> int:
    return TURN_SLOTS_SMALL if participants <= SMALL_TABLE_MAX else TURN_SLOTS_LARGE


def gold_slots(participants: int) -> frozenset[int]:
    return GOLD_SLOTS_SMALL if participants <= SMALL_TABLE_MAX else GOLD_SLOTS_LARGE


def objective_deck(participants: int) -> tuple[int, ...]:
    """Objective card indexes in the deck (region cards of removed regions left out)."""
    active = set(active_regions(participants))
    return tuple(o.index for o in OBJECTIVES if o.kind != OBJ_REGION_POWER or o.region in active)


# ---------------------------------------------------------------------------------------
# 1-2 player automated opponents (the "AI"). The difficulty table is confirmed by the
# seed; the action deck, the compasses and the AI airship tokens are ASSUMED (§7.2).

AI_NAMES: tuple[str, ...] = ("black", "orange")
DIFFICULTIES: tuple[str, ...] = get_args(Difficulty)
AI_BUILDINGS: dict[str, int] = {"easy": 2, "medium": 3, "hard": 4}  # per building type
AI_MARKET_THRESHOLD: dict[str, int] = {"easy": 0, "medium": 6, "hard": 5}  # 0 = no card
AI_HIGH_TOKENS: dict[str, int] = {"easy": 1, "medium": 1, "hard": 2}
AI_SKIMMERS = 5  # ASSUMED
AI_OUT_OF_PLAY = 3  # tokens revealed and set aside at each round start
SCOUT_REVEAL_AT = 2  # 1-2 players: a secret card is revealed after 2 resources taken

# Compass points as (dx, dy) with north = +y and east = +x.
COMPASS: dict[str, tuple[int, int]] = {
    "n": (0, 1),
    "ne": (1, 1),
    "e": (1, 0),
    "se": (1, -1),
    "s": (0, -1),
    "sw": (-1, -1),
    "w": (-1, 0),
    "nw": (-1, 1),
}

AI_AIRSHIP = "airship"
AI_SCOUT = "scout"
AI_MARKET = "market"
AI_FORTRESS = "fortress"
AI_SKIMMER = "skimmer"


class AiCard(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    action: str
    large: str  # compass point of the large star
    small: str  # compass point of the small star
    provisional: bool = True


class AiToken(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    high: int
    low: int
    provisional: bool = True


_AI_DECK_SPEC: tuple[tuple[str, str, str], ...] = (
    (AI_AIRSHIP, "n", "e"),
    (AI_AIRSHIP, "se", "w"),
    (AI_AIRSHIP, "w", "n"),
    (AI_AIRSHIP, "ne", "s"),
    (AI_AIRSHIP, "sw", "e"),
    (AI_AIRSHIP, "e", "s"),
    (AI_SCOUT, "nw", "e"),
    (AI_SCOUT, "s", "w"),
    (AI_MARKET, "e", "n"),
    (AI_MARKET, "nw", "s"),
    (AI_FORTRESS, "w", "s"),
    (AI_FORTRESS, "se", "n"),
    (AI_SKIMMER, "n", "w"),
    (AI_SKIMMER, "sw", "n"),
)
AI_DECK: tuple[AiCard, ...] = tuple(
    AiCard(index=i, action=a, large=large, small=small)
    for i, (a, large, small) in enumerate(_AI_DECK_SPEC)
)
AI_TOKENS: tuple[AiToken, ...] = tuple(
    AiToken(index=i, high=h, low=lo)
    for i, (h, lo) in enumerate(
        ((9, 2), (8, 1), (8, 3), (7, 2), (7, 0), (6, 3), (6, 1), (5, 2), (4, 0))
    )
)


def ai_count(seats: int) -> int:
    """Automated opponents: 2 in solo, 1 with two players, none from three players."""
    return max(0, 3 - seats)
