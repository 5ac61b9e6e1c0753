"""``setup``: the empty initial state and the opening events (every draw recorded).

The catalogue is read here, never in ``evolve``: ``GameSetUp`` carries the content the
fold needs. The options are already valid (``FracturedSkyOptions``' types, checked when
``games/table/state.py`` decodes them), and so is the seat count (``min_seats``/``max_seats``).
"""

from __future__ import annotations

from functools import lru_cache
from random import Random

from games.fractured_sky.state import FracturedSkyState
from orrery_contracts.base import EventBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky.events import GameSetUp
from orrery_contracts.fractured_sky.options import FracturedSkyOptions


def initial_state(options: FracturedSkyOptions, seats: int) -> FracturedSkyState:
    participants = seats + cat.ai_count(seats)
    return FracturedSkyState(
        seats=seats,
        participants=participants,
        regions=list(cat.active_regions(participants)),
        slot_count=cat.turn_slot_count(participants),
        difficulty=options.difficulty,
    )


# ``Random.shuffle`` draws each position's partner with this method, unless a subclass
# of ``Random`` draws its integers another way (``Random.__init_subclass__``).
_RANDBELOW_BY_BITS = Random._randbelow_with_getrandbits  # type: ignore[attr-defined]


def shuffle(rng: Random, items: list[int]) -> None:
    """``rng.shuffle(items)``: the same draws in the same order, so the same order of
    ``items`` (Fisher-Yates from the end, each partner below ``i + 1`` drawn by
    ``getrandbits`` and drawn again while too large), without the two method calls per
    element ``Random.shuffle`` makes. A generator that draws integers otherwise
    shuffles itself."""
    if type(rng)._randbelow is not _RANDBELOW_BY_BITS:  # type: ignore[attr-defined]
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i, n, k in _steps(len(items)):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


@lru_cache(maxsize=64)
def _steps(length: int) -> tuple[tuple[int, int, int], ...]:
    """``shuffle``'s steps for ``length`` items: each position ``i`` from the end, the
    bound ``n`` of its partner and the bits ``k`` a draw below ``n`` takes."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, length)))


def deal_ai(rng: Random, ais: int) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """Each AI's shuffled action deck, its 3 set-aside tokens and its face-down tokens."""
    decks: list[list[int]] = []
    out: list[list[int]] = []
    pools: list[list[int]] = []
    for _ in range(ais):
        deck = [c.index for c in cat.AI_DECK]
        shuffle(rng, deck)
        tokens = [t.index for t in cat.AI_TOKENS]
        shuffle(rng, tokens)
        decks.append(deck)
        out.append(sorted(tokens[: cat.AI_OUT_OF_PLAY]))
        pools.append(tokens[cat.AI_OUT_OF_PLAY :])
    return decks, out, pools


def deal_objectives(deck: list[int]) -> tuple[list[int], list[int]]:
    """Fill the tray left to right by back icon; a card with no free matching slot is
    discarded. ``deck`` is already shuffled (top first)."""
    slots = [-1] * len(cat.OBJECTIVE_SLOT_ICONS)
    discarded: list[int] = []
    for card in deck:
        if all(s >= 0 for s in slots):
            break
        icon = cat.OBJECTIVES[card].icon
        for i, slot_icon in enumerate(cat.OBJECTIVE_SLOT_ICONS):
            if slots[i] < 0 and slot_icon == icon:
                slots[i] = card
                break
        else:
            discarded.append(card)
    return slots, discarded


def setup(options: FracturedSkyOptions, seats: int, rng: Random) -> list[EventBody]:
    ais = cat.ai_count(seats)
    participants = seats + ais
    regions = list(cat.active_regions(participants))
    first = rng.randrange(seats)
    # people clockwise from the first player, automated opponents last
    order = [(first + i) % seats for i in range(seats)] + list(range(seats, participants))
    golden = cat.gold_slots(participants)
    setup_gold = [0] * participants
    for slot, seat in enumerate(order, start=1):
        if slot in golden:
            setup_gold[seat] += 1
    public = rng.choice(regions)
    deck = list(regions)
    shuffle(rng, deck)
    objectives = list(cat.objective_deck(participants))
    shuffle(rng, objectives)
    tray, discarded = deal_objectives(objectives)
    if seats == 1:  # solo: no objectives
        tray, discarded = [], []
    decks, out, pools = deal_ai(rng, ais)
    difficulty = options.difficulty if ais else "easy"
    return [
        GameSetUp(
            seats=seats,
            participants=participants,
            regions=regions,
            slot_count=cat.turn_slot_count(participants),
            order=order,
            setup_gold=setup_gold,
            public_card=public,
            public_stardust=1,
            secret_cards=deck[:1],
            secret_deck=deck[1:],
            objectives=tray,
            discarded_objectives=discarded,
            difficulty=difficulty,
            ai_decks=decks,
            ai_out=out,
            ai_pools=pools,
            ai_market_threshold=cat.AI_MARKET_THRESHOLD[difficulty] if ais else 0,
            stardust_tokens=cat.STARDUST_TOKENS,
            region_count=cat.REGION_COUNT,
            platform_count=cat.PLATFORM_COUNT,
        )
    ]
