"""Federation: every piece of static game content (the ONE content module).

Sources: the BGA game help (seed 003, Japanese) and the research
notes (summarised in ``games/federation/RULES.md``). Items marked **PROVISIONAL** are
ASSUMED by the notes (no public source found) or are this implementation's simplification of
an ASSUMED item; they are kept here so a later rules check changes data, not code.

Effects are written in a tiny language: a tuple of ``(key, n)`` pairs, applied in order.

* ``c`` / ``l`` / ``o`` — gain n coppernium / lavandium / oceanium; ``d`` — n diamonds;
  ``pp`` — n prestige points; ``ship`` — n spaceships (from reserve to hangar);
  ``auth`` — n authority steps; ``die`` — raise the assistant die by n (take it first);
  ``die_min`` — take the die and raise it to at least n;
* choices (a pending command of the player): ``crystal`` — n crystals, type chosen one at a
  time; ``token`` — n alteration tokens from a free spot of your blue level;
  ``token_l1`` — a token from blue level 1; ``project`` — advance a project of your choice
  by 1 (n times); ``check_any`` / ``check_l2`` — put a check on a mission (any / of row L2);
  ``erudite1`` — a level-1 erudite tile; ``influence`` — +1 influence on a planet of your
  choice; ``free_mission`` — perform a mission you have the level for, without a check;
* ``orange`` / ``blue`` — perform that planet's action;
  ``funding`` — also check the mission matching the space (alteration tokens only).
"""

from __future__ import annotations

Effect = tuple[tuple[str, int], ...]

# ---------------------------------------------------------------- planets and icons
PLANETS = ("orange", "blue", "yellow", "purple", "green")
ORANGE, BLUE, YELLOW, PURPLE, GREEN = range(5)

# The 12 icons = the 12 special missions on the player board (index = mission id).
ICON_NAMES = (
    "orange",
    "blue",
    "yellow",
    "purple",
    "green",
    "authority",
    "spy",
    "president",
    "project",
    "assistant",
    "ships",
    "mission_check",
)
I_AUTHORITY, I_SPY, I_PRESIDENT, I_PROJECT, I_ASSISTANT, I_SHIPS, I_CHECK = range(5, 12)
# Minimum authority level for each mission (seed: rows L2..L5).
MISSION_LEVEL = (2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5)
MAX_MISSIONS = 8

# ---------------------------------------------------------------- senate (PROVISIONAL)
# 18 spaces, index = row * 6 + column; columns 0-2 are the left wing, 3-5 the right wing.
# PROVISIONAL (notes §1.1): each wing holds every planet once, 3 rooms and 1 spy.
SENATE = (
    (ORANGE, I_AUTHORITY, BLUE, GREEN, I_SHIPS, PURPLE),
    (YELLOW, I_SPY, I_PROJECT, BLUE, I_SPY, I_ASSISTANT),
    (PURPLE, I_PRESIDENT, GREEN, ORANGE, I_CHECK, YELLOW),
)
SPACE_ICON = tuple(icon for row in SENATE for icon in row)
N_SPACES = 18
OUTER = 18  # the outer oceanium space: unlimited, no vote, no funding
# PROVISIONAL: the category each column's major project compares at game end
# (a planet index, or -1 = ships on missions).
PROJECT_CATEGORY = (ORANGE, YELLOW, PURPLE, BLUE, GREEN, -1)
COMMON = 6  # project index of the common (senatorial) project
PROJECT_MAX = 9
# Common project: crystals gained on a player's own 1st / 2nd / 3rd step (seed).
COMMON_REWARDS: tuple[Effect, ...] = ((("l", 1),), (("c", 1),), (("o", 1),))

# Ambassadors: (vote value, funding-side crystal effect) — seed.
AMBASSADORS: tuple[tuple[int, Effect], ...] = ((1, ()), (1, ()), (2, (("c", 1),)), (3, (("l", 1),)))

# Costs: (copp, lav, ocean, any crystal, diamond); oceanium may replace copp or lav.
Cost = tuple[int, int, int, int, int]
NO_COST: Cost = (0, 0, 0, 0, 0)
SPY_COST: Cost = (0, 1, 0, 0, 0)
ASSISTANT_COST: Cost = (1, 0, 0, 0, 0)
SHIPS_COST: Cost = (0, 0, 1, 0, 0)
MAX_CRYSTALS = 10
MAX_SHIPS = 8
START_SHIPS = 1
MAX_DIE = 6

# ---------------------------------------------------------------- authority (PROVISIONAL)
# Steps 1..9 (PROVISIONAL: 9 steps); step 8 = top of level 4 (medal, seed); 9 = max.
LEVEL_OF_STEP = (0, 1, 2, 2, 3, 3, 4, 4, 4, 5)
MAX_STEP = 9
MEDAL_STEP = 8
LEVEL_BOTTOM = (0, 1, 2, 4, 6, 9)  # bottom step of each level
# Round-end payment per level (seed): None = nothing to pay.
UPKEEP: tuple[Cost | None, ...] = (
    None,
    None,
    None,
    (0, 0, 0, 1, 0),
    (1, 0, 0, 0, 0),
    (0, 0, 1, 0, 0),
)

# ---------------------------------------------------------------- medals (sourced)
MEDAL_PP = (0, 1, 3, 6, 10, 15, 22, 30)
# Planet medal thresholds per player count (BGA code, Meeples.php).
MEDAL_THRESHOLDS = {2: (4, 6), 3: (4, 5, 6), 4: (3, 4, 5, 6)}
MEDAL_KINDS = (*PLANETS, "authority", "intrigue")

# ---------------------------------------------------------------- orange (PROVISIONAL)
ORANGE_MAX = 8
ORANGE_FORKS = {2: (4, 3), 5: (7, 6)}  # from level: (straight, detour)
ORANGE_REWARDS: tuple[Effect, ...] = (
    (),
    (("c", 1),),
    (("l", 1),),
    (),  # level 3: its asteroid token
    (("c", 1), ("l", 1)),
    (("o", 1),),
    (),  # level 6: its asteroid token
    (("o", 1), ("c", 1)),  # level 7 (+ the 4th asteroid token, PROVISIONAL)
    (),  # level 8: its asteroid token
)
ORANGE_TOKEN_LEVELS = (3, 6, 7, 8)  # PROVISIONAL: where the 4 random tokens go
ASTEROIDS: tuple[Effect, ...] = (
    (("o", 2),),
    (("d", 1),),
    (("c", 2),),
    (("l", 2),),
    (("c", 1), ("l", 1), ("o", 1)),
    (("ship", 1),),
    (("d", 1), ("l", 1)),
    (("pp", 3), ("crystal", 1)),
)
# Dead asteroids (PROVISIONAL): 4 tokens; the taker chooses 1 diamond or 3 PP.
DEAD_ASTEROIDS = 4
DEAD_REWARDS: tuple[Effect, ...] = ((("d", 1),), (("pp", 3),))

# ---------------------------------------------------------------- blue (BGA code)
BLUE_MAX = 7
BLUE_SPOTS = 4
BLUE_POWER = (1, 2, 2, 3, 3, 3, 4)  # power of the tokens on levels 1..7
# Alteration tokens: (power, vote value (0 = a funding token), bonus effect).
ALTERATIONS: tuple[tuple[int, int, Effect], ...] = (
    # power 1, voting
    (1, 2, (("funding", 1),)),
    (1, 2, (("c", 1),)),
    (1, 2, (("auth", 1),)),
    (1, 2, (("auth", 1),)),
    (1, 2, (("die", 1),)),
    (1, 2, (("die", 1),)),
    (1, 2, (("o", 1),)),
    (1, 2, (("o", 1),)),
    (1, 2, (("c", 1),)),
    (1, 1, (("ship", 1),)),
    (1, 1, (("ship", 1),)),
    (1, 2, (("l", 2),)),
    # power 1, funding
    (1, 0, (("auth", 1),)),
    (1, 0, (("auth", 1),)),
    (1, 0, (("die", 1),)),
    (1, 0, (("o", 1),)),
    (1, 0, (("o", 1),)),
    (1, 0, (("c", 2),)),
    (1, 0, (("l", 2),)),
    (1, 0, (("c", 1), ("l", 1))),
    (1, 0, (("c", 1), ("l", 1))),
    # power 2
    (2, 3, (("die", 1),)),
    (2, 3, (("o", 1),)),
    (2, 2, (("auth", 1), ("die", 1))),
    (2, 2, (("ship", 1),)),
    (2, 3, (("auth", 1),)),
    (2, 3, (("auth", 1),)),
    (2, 0, (("die", 1), ("funding", 1))),
    (2, 0, (("c", 1), ("o", 1))),
    (2, 0, (("l", 1), ("o", 1))),
    (2, 0, (("auth", 1), ("funding", 1))),
    # power 3
    (3, 4, (("o", 1),)),
    (3, 4, (("die", 1),)),
    (3, 4, (("die", 1),)),
    (3, 3, (("ship", 1),)),
    (3, 3, (("ship", 1),)),
    (3, 6, (("l", -1),)),  # vote 6 but pay 1 lavandium
    (3, 4, (("l", 1), ("c", 1))),
    (3, 4, (("auth", 1),)),
    (3, 4, (("auth", 1),)),
    (3, 2, (("d", 1),)),
    (3, 0, (("auth", 2),)),
    (3, 0, (("o", 2),)),
    (3, 0, (("d", 1),)),
    (3, 0, (("c", 1), ("project", 1))),
    # power 4
    (4, 6, (("o", 1),)),
    (4, 4, (("c", 1), ("o", 1), ("d", 1))),
    (4, 5, (("die", 1), ("auth", 1))),
    (4, 5, (("project", 1),)),
    (4, 0, (("c", 1), ("o", 1), ("d", 1))),
    (4, 0, (("project", 2),)),
)

# ---------------------------------------------------------------- yellow (PROVISIONAL)
# Stalls left to right: (cost, lower reward); the upper reward is the lower one ×3.
STALLS: tuple[tuple[Cost, Effect], ...] = (
    (NO_COST, (("c", 1),)),
    ((1, 0, 0, 0, 0), (("o", 1),)),
    ((0, 1, 0, 0, 0), (("d", 1),)),
    ((0, 0, 1, 0, 0), (("ship", 1),)),
    ((0, 0, 0, 2, 0), (("token", 1),)),
    ((0, 0, 0, 0, 1), (("pp", 3),)),
)
UPPER_FACTOR = 3

# ---------------------------------------------------------------- purple (PROVISIONAL)
# Erudite tile id = colour * 3 + (level - 1). Per colour: 3 level-1 tiles face up,
# 3 level-2 and 1 level-3 face down (seed). Timing: "now" (lightning), "planet" (after
# your next action on the tile's planet), "loop" (now or on any later turn of yours).
ERUDITE_STOCK = (3, 3, 1)
ERUDITE: tuple[tuple[str, Effect], ...] = (
    ("now", (("crystal", 2),)),  # orange 1
    ("planet", (("orange", 1),)),  # orange 2: one more orange step
    ("loop", (("d", 1), ("pp", 3))),  # orange 3
    ("planet", (("token", 1),)),  # blue 1: a 2nd alteration token
    ("now", (("token", 1),)),  # blue 2
    ("loop", (("pp_per_medal", 2),)),  # blue 3: 2 PP per medal, max 10
    ("planet", (("c", 1),)),  # yellow 1 (simplified from "ignore the stall cost once")
    ("now", (("d", 1),)),  # yellow 2
    ("loop", (("pp_per_upper", 2),)),  # yellow 3
    ("now", (("pp", 2),)),  # purple 1
    ("now", (("auth", 1), ("pp", 2))),  # purple 2
    ("now", (("pp", 6),)),  # purple 3
    ("planet", (("crystal", 1),)),  # green 1 (simplified from "build 1 crystal cheaper")
    ("now", (("ship", 1),)),  # green 2
    ("loop", (("retrigger", 1),)),  # green 3: fire one of your production structures
)
PP_PER_MEDAL_CAP = 10

# ---------------------------------------------------------------- green (PROVISIONAL)
# Production structures: (cost, effect fired when built and at every income).
PRODUCTION: tuple[tuple[Cost, Effect], ...] = (
    ((1, 1, 0, 0, 0), (("o", 1),)),
    ((0, 0, 0, 2, 0), (("c", 1), ("l", 1))),
    ((1, 0, 1, 0, 0), (("ship", 1),)),
    ((0, 0, 0, 2, 0), (("auth", 1),)),
    ((0, 0, 0, 0, 1), (("pp", 2),)),
    ((0, 0, 0, 2, 0), (("die", 1),)),
    ((0, 1, 1, 0, 0), (("d", 1),)),
    ((0, 0, 0, 2, 0), (("token", 1),)),
)
N_PRODUCTION = 4  # drawn per game
N_MEGA = 4  # megastructures per game, each defined by 2 random criterion tokens
MEGA_COSTS: tuple[Cost, ...] = ((0, 0, 0, 3, 0), (0, 0, 0, 1, 1))  # either one
MEGA_SLOTS = (3, 2, 1)
MEGA_CRITERIA = (
    "medals",
    "missions",
    "erudite",
    "authority_level",
    "diamonds",
    "upper_stalls",
    "production_robots",
    "alteration_tokens",
)

# ---------------------------------------------------------------- tiles (PROVISIONAL)
START_TILES: tuple[Effect, ...] = (
    (("c", 2), ("check_l2", 1)),
    (("l", 2), ("token_l1", 1)),  # simplified: the power-1 token comes from blue level 1
    (("o", 1), ("ship", 1)),
    (("auth", 2),),
    (("die_min", 2), ("c", 1)),
    (("d", 1), ("l", 1)),
    (("orange", 1), ("blue", 1)),
    (("erudite1", 1), ("c", 1)),
)
DEEP_SPACE: tuple[Effect, ...] = (
    (("pp", 8),),
    (("ship", 2), ("pp", 2)),
    (("d", 2),),
    (("project", 1), ("pp", 3)),
    (("crystal", 3),),
    (("influence", 1),),
    (("free_mission", 1),),
    (("token", 1), ("pp", 2)),  # simplified from "a power-3 alteration token"
)

# ---------------------------------------------------------------- laws and prizes
LAW_PP_PER_LEVEL = 2  # seed: "~ planet level × 2 VP"
# Project majority prizes by player count (seed). CONFLICT: the English help gives
# 12/8/4 for 4 players (table option ``project_prizes="en"``).
PRIZES = {4: (16, 8, 4), 3: (14, 6), 2: (10, 4)}
PRIZES_EN = {4: (12, 8, 4), 3: (14, 6), 2: (10, 4)}
TWO_PLAYER_TIE = 7
TWO_PLAYER_GAP = 2

# ---------------------------------------------------------------- 2-3 players (PROVISIONAL)
# Per round: blocked spaces per wing, neutral vote tiles per row per wing pattern.
BLOCKED_PER_WING = {2: 2, 3: 1, 4: 0}
NEUTRAL_PER_ROW = {2: 2, 3: 1, 4: 0}
NEUTRAL_VOTES = 1

ROUNDS = 5
TURNS = 4
