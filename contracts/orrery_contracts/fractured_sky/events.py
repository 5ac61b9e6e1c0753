"""Fractured Sky events (tag prefix ``fs.``): the facts ``evolve`` folds.

Events are fat: each carries everything ``evolve`` needs, so replay never re-runs rules
and never reads today's content data (``catalogue``): what a seat paid or gained is in
the event. Some events carry hidden facts (chip values, secret deck order, exploration
draws); only ``view`` decides who may see them.

Fields added after rules version 1 have defaults equal to what rules version 1 used, so a
log written before a field existed replays exactly as it was played.
"""

from __future__ import annotations

import msgspec

from orrery_contracts.base import EventBody

#: Rules version 1 recorded no market-card threshold: it was the difficulty's (catalogue
#: at the time). Used only for logs whose ``GameSetUp`` predates the field.
V1_AI_MARKET_THRESHOLD: dict[str, int] = {"easy": 0, "medium": 6, "hard": 5}


class Gain(msgspec.Struct, frozen=True, kw_only=True):
    """Resources a seat receives automatically (reason: rank_both, rank_one, market)."""

    seat: int
    resource: str
    amount: int = 1
    reason: str


class Choice(msgspec.Struct, frozen=True, kw_only=True):
    """A resource a seat must pick (reason: rank_one or market) from ``options``."""

    seat: int
    region: int
    options: list[str]
    reason: str


class RegionOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """The public result of resolving one region at round end."""

    region: int
    power: list[int]  # per seat; -1 = not present in the region
    ranking: list[int]  # eligible seats, best rank first (ties by end-of-round order)
    stardust_seat: int = -1
    stardust: int = 0
    gains: list[Gain] = []
    choices: list[Choice] = []


class ObjectiveOutcome(msgspec.Struct, frozen=True, kw_only=True):
    round: int
    position: int
    card: int
    values: list[int]  # the measured quantity per seat
    winner: int = -1  # -1: nobody reached 1


class GameSetUp(EventBody, frozen=True, kw_only=True, tag="fs.game_set_up"):
    seats: int
    participants: int
    regions: list[int]  # active regions, left to right
    slot_count: int
    order: list[int]  # first column: seat in slot 1, 2, ...
    setup_gold: list[int]  # gold per seat from covered gold icons
    public_card: int
    public_stardust: int  # tokens placed on the public card's region
    secret_cards: list[int]  # hidden: region of each face-down secret card
    secret_deck: list[int]  # hidden: unused secret deck, top first
    objectives: list[int]  # hidden: card index in each tray position
    discarded_objectives: list[int]  # hidden
    difficulty: str = "easy"  # automated opponents only (1-2 players)
    ai_decks: list[list[int]] = []  # hidden: per AI, action cards top first
    ai_out: list[list[int]] = []  # public: per AI, tokens set aside this round
    ai_pools: list[list[int]] = []  # hidden: per AI, face-down tokens top first
    # Content the fold needs (defaults: rules version 1). ``ai_market_threshold``: AI
    # resources per stardust on the market card, 0 = no market card (AI resources are
    # ignored), -1 = not recorded (rules version 1: by ``difficulty``).
    ai_market_threshold: int = -1
    stardust_tokens: int = 40
    region_count: int = 10
    platform_count: int = 9


class StartChosen(EventBody, frozen=True, kw_only=True, tag="fs.start_chosen"):
    seat: int
    gold: int
    iron: int
    wood: int


class TurnBegan(EventBody, frozen=True, kw_only=True, tag="fs.turn_began"):
    seat: int


class Traded(EventBody, frozen=True, kw_only=True, tag="fs.traded"):
    seat: int
    gold: int
    iron: int
    wood: int
    get: str


class AirshipPlaced(EventBody, frozen=True, kw_only=True, tag="fs.airship_placed"):
    seat: int
    region: int
    chip: int  # hidden until the round-end reveal
    explorer: bool  # placed in the region's exploration slot


class ExplorationDrawn(EventBody, frozen=True, kw_only=True, tag="fs.exploration_drawn"):
    seat: int
    card: int  # hidden: region of the drawn secret card (not secret this round)


class SlotPending(EventBody, frozen=True, kw_only=True, tag="fs.slot_pending"):
    seat: int


class SlotTaken(EventBody, frozen=True, kw_only=True, tag="fs.slot_taken"):
    seat: int
    slot: int  # 1-based
    gold: int


class FortressBuilt(EventBody, frozen=True, kw_only=True, tag="fs.fortress_built"):
    seat: int
    platform: int
    # what was paid (defaults: the rules-version-1 cost, 3 iron)
    gold: int = 0
    iron: int = 3
    wood: int = 0


class MarketBuilt(EventBody, frozen=True, kw_only=True, tag="fs.market_built"):
    seat: int
    platform: int
    # what was paid (defaults: the rules-version-1 cost, 1 gold + 2 wood)
    gold: int = 1
    iron: int = 0
    wood: int = 2


class SkimmerPlaced(EventBody, frozen=True, kw_only=True, tag="fs.skimmer_placed"):
    seat: int
    region: int
    # what was paid (defaults: the rules-version-1 cost, 1 iron + 1 wood)
    gold: int = 0
    iron: int = 1
    wood: int = 1


class Scouted(EventBody, frozen=True, kw_only=True, tag="fs.scouted"):
    seat: int
    card: int  # tray position of the secret card
    # what was paid (defaults: the rules-version-1 cost, 2 gold)
    gold: int = 2
    iron: int = 0
    wood: int = 0


class ScoutFinished(EventBody, frozen=True, kw_only=True, tag="fs.scout_finished"):
    seat: int
    card: int
    resource: str | None = None


class Peeked(EventBody, frozen=True, kw_only=True, tag="fs.peeked"):
    seat: int
    objective: int
    gold: int
    iron: int
    wood: int


class RoundRevealed(EventBody, frozen=True, kw_only=True, tag="fs.round_revealed"):
    round: int
    objective: int  # tray position flipped, -1 when none is left
    objective_card: int
    secret_cards: list[int]  # regions of the revealed secret cards
    stardust_placed: list[int]  # per region index: tokens placed from the supply
    chips: list[list[int]]  # [seat][region]: chip after the over-10 reduction, -1 none
    excess: list[int]  # per seat: how far the chip total exceeded 10


class ObjectiveScored(EventBody, frozen=True, kw_only=True, tag="fs.objective_scored"):
    outcome: ObjectiveOutcome


class RegionResolved(EventBody, frozen=True, kw_only=True, tag="fs.region_resolved"):
    outcome: RegionOutcome


class ResourceChosen(EventBody, frozen=True, kw_only=True, tag="fs.resource_chosen"):
    seat: int
    resource: str


class RoundSetUp(EventBody, frozen=True, kw_only=True, tag="fs.round_set_up"):
    """Cleanup of the previous round and the opening of ``round``."""

    chance = True  # the decks reshuffled, the public card and the AIs' tokens drawn

    round: int
    order: list[int]  # the new column
    public_card: int
    public_stardust: int
    secret_cards: list[int]  # hidden
    secret_deck: list[int]  # hidden
    ai_decks: list[list[int]] = []  # hidden: per AI, reshuffled action deck
    ai_out: list[list[int]] = []  # public: per AI, tokens set aside this round
    ai_pools: list[list[int]] = []  # hidden: per AI, face-down tokens top first


class GameEnded(EventBody, frozen=True, kw_only=True, tag="fs.game_ended"):
    order: list[int]  # final turn order (the tie-break)
    points: list[int]
    ranks: list[int]


class SecretOpened(EventBody, frozen=True, kw_only=True, tag="fs.secret_opened"):
    """1-2 players: two resources were taken from a secret card, so it is revealed now."""

    card: int
    region: int
    stardust: int


class AiCardFlipped(EventBody, frozen=True, kw_only=True, tag="fs.ai_card_flipped"):
    """An automated opponent flips its top action card (``executed``: it could act)."""

    seat: int  # the AI's participant number
    card: int
    executed: bool


class AiBuilt(EventBody, frozen=True, kw_only=True, tag="fs.ai_built"):
    seat: int
    kind: str  # "market" or "fortress"; the AI never pays
    platform: int


class AiSkimmerPlaced(EventBody, frozen=True, kw_only=True, tag="fs.ai_skimmer_placed"):
    seat: int
    region: int


class AiScouted(EventBody, frozen=True, kw_only=True, tag="fs.ai_scouted"):
    seat: int
    card: int


class AiConverted(EventBody, frozen=True, kw_only=True, tag="fs.ai_converted"):
    """An AI's market card reached its threshold: the resources become 1 stardust."""

    seat: int
    spent: int
    stardust: int
