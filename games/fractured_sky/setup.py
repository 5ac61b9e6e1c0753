"""Options, the empty initial state and the opening events (every draw recorded)."""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec

from contracts.base import EventBody
from contracts.fractured_sky import catalogue as cat
from contracts.fractured_sky.events import GameSetUp
from games.fractured_sky.state import FsState
from games.rejection import BAD_OPTIONS, Rejected

MIN_SEATS = 3
MAX_SEATS = 5


class FracturedSkyOptions(msgspec.Struct, frozen=True, kw_only=True):
    """No options yet (the 1-2 player AI difficulty will be added here)."""


def validate_options(options: Any, seats: int) -> None:
    if not isinstance(options, FracturedSkyOptions):
        raise Rejected(BAD_OPTIONS, "options must be FracturedSkyOptions")
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise Rejected(BAD_OPTIONS, f"Fractured Sky needs {MIN_SEATS} to {MAX_SEATS} players")


def initial_state(options: Any, seats: int) -> FsState:
    return FsState(
        seats=seats,
        participants=seats,
        regions=list(cat.active_regions(seats)),
        slot_count=cat.turn_slot_count(seats),
    )


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


def setup(options: Any, seats: int, rng: Random) -> list[EventBody]:
    participants = seats
    regions = list(cat.active_regions(participants))
    first = rng.randrange(participants)
    order = [(first + i) % participants for i in range(participants)]
    golden = cat.gold_slots(participants)
    setup_gold = [0] * participants
    for slot, seat in enumerate(order, start=1):
        if slot in golden:
            setup_gold[seat] += 1
    public = rng.choice(regions)
    deck = list(regions)
    rng.shuffle(deck)
    objectives = list(cat.objective_deck(participants))
    rng.shuffle(objectives)
    tray, discarded = deal_objectives(objectives)
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
        )
    ]
