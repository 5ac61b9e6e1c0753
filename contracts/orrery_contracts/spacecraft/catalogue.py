"""All static SPACEcraft content: junk, junkyard, workshop, parts, cards, tracks, constants.

This is the ONE content module of the game. Sources: the Japanese rules summary (seed 002)
and the research notes (summarised in ``games/spacecraft/RULES.md``). Much of the physical
content is not available in any public source; the research notes invented placeholder
values so a program can run. **PROVISIONAL** (ASSUMED, replace when the real rulebook / card
scans are known):

* the 7th junk type (``tape``, weight 3) and the tile count of every junk type;
* the workshop split into sections (columns 0-1 = section A, 2-6 = sections B) and the part
  inventory of every column (which colour variant of which shape, how many copies);
* the 4 rocket blueprint cards' requirements;
* the 30 basic design cards' conditions and points (10 per deck I / II / III);
* the 9 advanced design cards (5 shapes + 4 colours) and their side A / side B value tracks;
* the card numbers (design 1-30, blueprint 31-34, goals 35-42, advanced 47-55).

Known (stated in the seed): junk weights of screw/bulb/gear/battery/cable/propeller, 75 tiles,
board limits 4 tiles / weight 7, grid sizes and pile heights, 2+5 workshop tokens, part
weights by shape (fin 2, nose 3, connector 3, body 3, engine 4 — medium confidence), the
eight personal goals and their points, countdown 3-2-1-launch (launch 5 / 10 points),
design deck removals per player count, advanced card layouts per player count.
"""

from __future__ import annotations

from typing import NamedTuple

# --------------------------------------------------------------------------- junk tiles
#: Junk type names, indexed by junk id (events and state store the index).
JUNK_NAMES: tuple[str, ...] = ("screw", "bulb", "gear", "battery", "cable", "propeller", "tape")
#: Weight per junk id. ``tape`` (id 6) name and weight are PROVISIONAL.
JUNK_WEIGHT: tuple[int, ...] = (1, 1, 2, 2, 3, 3, 3)
#: Tiles per junk id, total 75. PROVISIONAL (no source gives the split).
JUNK_COUNT: tuple[int, ...] = (13, 13, 11, 11, 9, 9, 9)
JUNK_ID: dict[str, int] = {name: i for i, name in enumerate(JUNK_NAMES)}
N_JUNK = len(JUNK_NAMES)
TOTAL_TILES = 75

BOARD_MAX_TILES = 4
BOARD_MAX_WEIGHT = 7

# --------------------------------------------------------------------------- junkyard
#: Grid side per player count.
GRID_SIZE: dict[int, int] = {2: 4, 3: 5, 4: 5}


def pile_heights(players: int) -> list[int]:
    """Starting pile height per cell (row-major, y * size + x)."""
    size = GRID_SIZE[players]
    if players >= 3:
        return [3] * (size * size)
    centre = {(1, 1), (2, 1), (1, 2), (2, 2)}
    return [5 if (x, y) in centre else 4 for y in range(size) for x in range(size)]


# --------------------------------------------------------------------------- workshop
#: The 4 light workshop tokens (weight 1 or 2); 2 of them go to section A (columns 0-1).
LIGHT_TOKENS: tuple[int, ...] = (0, 1, 2, 3)
N_COLUMNS = 7
SECTION_A: tuple[int, ...] = (0, 1)

SHAPES: tuple[str, ...] = ("fin", "nose", "connector", "body", "engine")
COLOURS: tuple[str, ...] = ("W", "B", "G", "R")
COLOUR_NAMES: dict[str, str] = {"W": "white", "B": "blue", "G": "gold", "R": "red", "K": "grey"}
#: Junk weight needed to build one part, by shape (medium confidence, from the seed examples).
PART_WEIGHT: dict[str, int] = {"fin": 2, "nose": 3, "connector": 3, "body": 3, "engine": 4}
#: The starting body every player owns; grey matches no colour.
GREY_BODY = "body.K"


def kind(shape: str, colours: str) -> str:
    """A part kind: ``shape.colours`` (``fin.W``, ``engine.WB``; two letters = two-coloured)."""
    return f"{shape}.{colours}"


def shape_of(part_kind: str) -> str:
    return part_kind.split(".", 1)[0]


def colours_of(part_kind: str) -> str:
    """Colour letters of a kind (``K`` = grey, which counts as no colour)."""
    colours = part_kind.split(".", 1)[1]
    return "" if colours == "K" else colours


class Slot(NamedTuple):
    """One workshop compartment: a part kind in a column, with its starting supply."""

    column: int
    kind: str
    stock: int


#: PROVISIONAL workshop inventory (74 coloured parts; the 4 grey bodies are extra).
#: Chosen so the seed's build examples work with tokens c0=screw, c1=gear, c2=cable,
#: c5=propeller.
_COLUMNS: tuple[tuple[tuple[str, int], ...], ...] = (
    (("fin.W", 3), ("nose.B", 2), ("connector.WB", 2), ("engine.R", 3)),
    (("fin.G", 3), ("nose.G", 2), ("connector.B", 2), ("body.WG", 2), ("engine.BG", 2)),
    (("fin.B", 3), ("nose.WR", 2), ("connector.GR", 2), ("body.W", 3), ("engine.G", 3)),
    (("fin.R", 3), ("nose.W", 2), ("connector.G", 2), ("body.BR", 2), ("engine.WB", 2)),
    (("fin.WB", 2), ("nose.R", 2), ("connector.R", 2), ("body.G", 2), ("engine.B", 3)),
    (("fin.BG", 2), ("nose.BG", 2), ("connector.W", 2), ("body.R", 2), ("engine.W", 3)),
    (("fin.GR", 2), ("body.B", 3), ("engine.GR", 2)),
)
SLOTS: tuple[Slot, ...] = tuple(
    Slot(column, part, n) for column, parts in enumerate(_COLUMNS) for part, n in parts
)
SLOT_OF_KIND: dict[str, int] = {s.kind: i for i, s in enumerate(SLOTS)}
ALL_KINDS: frozenset[str] = frozenset([GREY_BODY, *SLOT_OF_KIND])

# --------------------------------------------------------------------------- blueprints


class Blueprint(NamedTuple):
    id: int
    needs: dict[str, int]  # shape -> minimum count (colour irrelevant; grey body counts)


#: PROVISIONAL blueprint cards (numbers and requirements assumed).
BLUEPRINTS: tuple[Blueprint, ...] = (
    Blueprint(31, {"nose": 1, "body": 3, "engine": 2, "fin": 2, "connector": 1}),
    Blueprint(32, {"nose": 2, "body": 3, "engine": 2, "fin": 2, "connector": 1}),
    Blueprint(33, {"nose": 1, "body": 4, "engine": 2, "fin": 3, "connector": 2}),
    Blueprint(34, {"nose": 1, "body": 3, "engine": 1, "fin": 4, "connector": 2}),
)
BLUEPRINT_BY_ID: dict[int, Blueprint] = {b.id: b for b in BLUEPRINTS}

# --------------------------------------------------------------------------- personal goals
GOAL_FIN_PAIR = "fin_pair"  # pair of identical fins attached directly to one body: 7
GOAL_BODIES_BY_CONNECTOR = "bodies_by_connector"  # identical bodies joined by a connector: 7
GOAL_CONNECTOR_PAIR = "connector_pair"  # identical connectors on both sides of a body: 4
GOAL_NOSE_ENGINE = "nose_engine"  # same-colour nose and engine on the same body: 7
GOAL_NOSE_BODY = "nose_body"  # nose directly on a same-colour body: 5
GOAL_BODY_ENGINE = "body_engine"  # body attached to a same-colour engine: 5
GOAL_BODY_STACK = "body_stack"  # identical bodies attached directly to each other: 4
GOAL_NOSES_BY_CONNECTOR = "noses_by_connector"  # identical noses on connector-joined bodies: 9


class Goal(NamedTuple):
    id: int
    pattern: str
    points: int


#: The 8 personal goals (patterns and points from the seed; card numbers assumed).
GOALS: tuple[Goal, ...] = (
    Goal(35, GOAL_FIN_PAIR, 7),
    Goal(36, GOAL_BODIES_BY_CONNECTOR, 7),
    Goal(37, GOAL_CONNECTOR_PAIR, 4),
    Goal(38, GOAL_NOSE_ENGINE, 7),
    Goal(39, GOAL_NOSE_BODY, 5),
    Goal(40, GOAL_BODY_ENGINE, 5),
    Goal(41, GOAL_BODY_STACK, 4),
    Goal(42, GOAL_NOSES_BY_CONNECTOR, 9),
)
GOAL_BY_ID: dict[int, Goal] = {g.id: g for g in GOALS}
GOALS_DEALT = 2

# --------------------------------------------------------------------------- countdown
#: Countdown stack top to bottom; 0 is the launch card.
COUNTDOWN: tuple[int, ...] = (3, 2, 1, 0)
TRIGGER_BONUS: dict[str, int] = {"basic": 5, "advanced": 10}
BLUEPRINT_POINTS = 5

# --------------------------------------------------------------------------- design cards


class DesignCard(NamedTuple):
    """A basic design card; every non-empty condition must hold."""

    id: int
    deck: int  # 1, 2, 3
    points: int
    shapes: dict[str, int]  # shape -> at least
    colours: dict[str, int]  # colour letter -> at least (two-coloured parts count for each)
    width: int = 0  # at least (0 = no condition)
    height: int = 0


def _d(
    id: int,
    deck: int,
    points: int,
    shapes: dict[str, int] | None = None,
    colours: dict[str, int] | None = None,
    width: int = 0,
    height: int = 0,
) -> DesignCard:
    return DesignCard(id, deck, points, shapes or {}, colours or {}, width, height)


#: PROVISIONAL basic design cards (10 per deck; conditions and points assumed, except that
#: the seed shows "1 white + 2 blue" and "3 connectors" exist).
DESIGN_CARDS: tuple[DesignCard, ...] = (
    _d(1, 1, 3, shapes={"fin": 2}),
    _d(2, 1, 3, shapes={"connector": 2}),
    _d(3, 1, 3, shapes={"body": 2}),
    _d(4, 1, 3, shapes={"nose": 1, "engine": 1}),
    _d(5, 1, 3, colours={"W": 2}),
    _d(6, 1, 3, colours={"B": 2}),
    _d(7, 1, 3, colours={"G": 2}),
    _d(8, 1, 3, colours={"R": 2}),
    _d(9, 1, 3, width=3),
    _d(10, 1, 3, height=3),
    _d(11, 2, 5, shapes={"connector": 3}),
    _d(12, 2, 5, colours={"W": 1, "B": 2}),
    _d(13, 2, 5, shapes={"fin": 3}),
    _d(14, 2, 6, shapes={"engine": 2}),
    _d(15, 2, 6, shapes={"nose": 2}),
    _d(16, 2, 5, shapes={"body": 3}),
    _d(17, 2, 5, colours={"G": 1, "R": 2}),
    _d(18, 2, 5, colours={"W": 2, "G": 1}),
    _d(19, 2, 6, width=4),
    _d(20, 2, 6, height=4),
    _d(21, 3, 8, shapes={"fin": 4}),
    _d(22, 3, 9, shapes={"engine": 3}),
    _d(23, 3, 8, shapes={"body": 4}),
    _d(24, 3, 8, shapes={"connector": 4}),
    _d(25, 3, 8, colours={"W": 1, "B": 1, "G": 1, "R": 1}),
    _d(26, 3, 8, colours={"B": 3, "R": 1}),
    _d(27, 3, 7, colours={"G": 3}),
    _d(28, 3, 9, shapes={"nose": 2, "engine": 2}),
    _d(29, 3, 9, width=5),
    _d(30, 3, 9, height=5),
)
DESIGN_BY_ID: dict[int, DesignCard] = {c.id: c for c in DESIGN_CARDS}
#: Cards removed unseen from EACH deck, by player count (seed).
DECK_REMOVALS: dict[int, int] = {2: 4, 3: 3, 4: 2}
ROW_SIZE = 4

# --------------------------------------------------------------------------- advanced cards


class AdvancedCard(NamedTuple):
    """An advanced design card scoring per matching part: a shape or a colour letter."""

    id: int
    subject: str  # a shape name, or a colour letter W/B/G/R
    track_a: tuple[int, ...]
    track_b: tuple[int, ...]


#: PROVISIONAL advanced cards and value tracks (values under spaces, left to right).
#: Numbers: the seed's advanced scoring example says cards No.52 and No.55 (the two
#: rightmost) carry none of Agatha's markers, while she scores gold, white, nose, body,
#: connector and blue; so 52 and 55 are among engine, fin and red (here engine and red;
#: until rules version 2, 48 was the engine card and 52 the white one).
ADVANCED_CARDS: tuple[AdvancedCard, ...] = (
    AdvancedCard(47, "nose", (5, 7, 9, 11, 13), (6, 9, 12)),
    AdvancedCard(48, "W", (1, 2, 3, 4, 5), (2, 3, 4)),
    AdvancedCard(49, "fin", (1, 2, 3, 4, 5), (2, 3, 4)),
    AdvancedCard(50, "body", (1, 2, 3, 4, 5), (2, 3, 4)),
    AdvancedCard(51, "connector", (1, 2, 3, 4, 5), (2, 4, 6)),
    AdvancedCard(52, "engine", (2, 3, 4, 5, 6), (3, 5, 7)),
    AdvancedCard(53, "B", (1, 2, 3, 4, 5), (2, 3, 4)),
    AdvancedCard(54, "G", (1, 2, 3, 4, 5), (2, 3, 4)),
    AdvancedCard(55, "R", (1, 2, 3, 4, 5), (2, 3, 4)),
)
ADVANCED_BY_ID: dict[int, AdvancedCard] = {c.id: c for c in ADVANCED_CARDS}
#: Per player count: (cards returned to the box, cards on side A, cards on side B) (seed).
ADVANCED_LAYOUT: dict[int, tuple[int, int, int]] = {4: (1, 8, 0), 3: (1, 4, 4), 2: (3, 0, 6)}
MARKERS_PER_PLAYER = 6


def advanced_track(card_id: int, side: str) -> tuple[int, ...]:
    card = ADVANCED_BY_ID[card_id]
    return card.track_a if side == "A" else card.track_b
