"""Set-up: the empty deterministic state and the opening events (every random draw recorded)."""

from __future__ import annotations

from random import Random

from games.spacecraft.state import NO_CARD, OFF_BOARD, SpacecraftState
from orrery_contracts.base import EventBody
from orrery_contracts.spacecraft import SpacecraftOptions
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import Placement
from orrery_contracts.spacecraft.events import (
    AdvancedLaid,
    BlueprintDrawn,
    DesignsLaid,
    GoalsDealt,
    JunkyardLaid,
    WorkshopLaid,
)


def initial_state(options: SpacecraftOptions, seats: int) -> SpacecraftState:
    """The empty state; the workshop stock and the markers come with the setup events."""
    return SpacecraftState(
        variant=options.variant,
        players=seats,
        pawns=[OFF_BOARD] * seats,
        goal_options=[[] for _ in range(seats)],
        goals=[NO_CARD] * seats,
        markers_left=[0] * seats,
        boards=[[] for _ in range(seats)],
        beside=[[0] * cat.N_JUNK for _ in range(seats)],
        paid=[0] * cat.N_JUNK,
        returned=[0] * cat.N_JUNK,
        rockets=[[Placement(kind=cat.GREY_BODY, x=0, y=0)] for _ in range(seats)],
        fulfilled=[[] for _ in range(seats)],
        reserved=[NO_CARD] * seats,
    )


def setup(options: SpacecraftOptions, seats: int, rng: Random) -> list[EventBody]:
    """The opening events: junkyard, workshop, blueprint, design cards, goals dealt."""
    events: list[EventBody] = []
    # junkyard
    returned = [1 if seats == 2 else 0] * cat.N_JUNK
    tiles = [t for t, n in enumerate(cat.JUNK_COUNT) for _ in range(n - returned[t])]
    rng.shuffle(tiles)
    piles: list[list[int]] = []
    at = 0
    for height in cat.pile_heights(seats):
        piles.append(tiles[at : at + height])
        at += height
    events.append(JunkyardLaid(size=cat.GRID_SIZE[seats], piles=piles, returned=returned))
    # workshop tokens: 2 of the 4 light ones in section A, the rest shuffled into the others
    light = list(cat.LIGHT_TOKENS)
    rng.shuffle(light)
    rest = light[2:] + [t for t in range(cat.N_JUNK) if t not in cat.LIGHT_TOKENS]
    rng.shuffle(rest)
    events.append(WorkshopLaid(tokens=light[:2] + rest, supply=[s.stock for s in cat.SLOTS]))
    events.append(BlueprintDrawn(card=rng.choice(cat.BLUEPRINTS).id))
    # design cards
    if options.variant == "advanced":
        cards = [c.id for c in cat.ADVANCED_CARDS]
        rng.shuffle(cards)
        n_removed, n_a, n_b = cat.ADVANCED_LAYOUT[seats]
        shown = cards[n_removed:]
        events.append(
            AdvancedLaid(
                cards=shown,
                sides=["A"] * n_a + ["B"] * n_b,
                removed=sorted(cards[:n_removed]),
                markers=cat.MARKERS_PER_PLAYER,
            )
        )
    else:
        deck: list[int] = []
        removed: list[int] = []
        k = cat.DECK_REMOVALS[seats]
        for level in (1, 2, 3):
            cards = [c.id for c in cat.DESIGN_CARDS if c.deck == level]
            rng.shuffle(cards)
            removed += cards[:k]
            deck += cards[k:]
        n = cat.ROW_SIZE
        events.append(
            DesignsLaid(lower=deck[:n], upper=deck[n : 2 * n], deck=deck[2 * n :], removed=removed)
        )
    # personal goals: two each
    goals = [g.id for g in cat.GOALS]
    rng.shuffle(goals)
    for seat in range(seats):
        d = cat.GOALS_DEALT
        events.append(GoalsDealt(seat=seat, options=sorted(goals[d * seat : d * seat + d])))
    return events
