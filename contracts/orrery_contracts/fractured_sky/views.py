"""Fractured Sky per-seat view (what one seat, or a spectator, may know)."""

from __future__ import annotations

import msgspec

from orrery_contracts.base import ViewBody
from orrery_contracts.fractured_sky.events import Choice, ObjectiveOutcome, RegionOutcome


class AirshipView(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    chip_class: str  # "white" (1 or 10), "black" (0, 2..9) or "token" (an AI's): public
    chip: int | None = None  # own chip, or every chip after the round-end reveal
    explorer: bool = False


class RegionView(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    stardust: int
    airships: list[AirshipView]
    skimmers: list[int]  # per seat


class PlatformView(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    fortresses: list[int]  # per seat
    markets: list[int]  # per seat


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    gold: int
    iron: int
    wood: int
    stardust: int
    airships_left: int
    fortresses_left: int
    markets_left: int
    skimmers_left: int
    started: bool  # starting resources chosen
    next_slot: int  # 1-based slot taken in the next column, 0 = not yet
    pending_choices: int
    ai: bool = False  # an automated opponent (1-2 player games)


class ScoutMark(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    resource: str | None = None  # the resource taken (public), None = the large space


class SecretCardView(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    scouts: list[ScoutMark]
    region: int | None = None  # known to this seat (scouted) or revealed
    opened: bool = False  # 1-2 players: revealed early after two resources were taken


class ObjectiveView(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    icon: str
    revealed: bool
    peeked_by: list[int]
    card: int | None = None  # revealed, or peeked by this seat


class AiView(msgspec.Struct, frozen=True, kw_only=True):
    """The public state of an automated opponent."""

    seat: int  # participant number (after the human seats)
    name: str
    flipped: list[int]  # action cards flipped this round, in order
    cards_left: int
    out_tokens: list[int]  # tokens set aside (face up) this round
    tally: int  # resources on its market card
    threshold: int  # resources per stardust, 0 = no market card (easy)
    markets_left: int
    fortresses_left: int
    skimmers_left: int


class FracturedSkyView(ViewBody, frozen=True):
    seat: int | None
    round: int
    phase: str
    turn: int  # seat whose turn it is (-1 outside play)
    seats: int
    regions_active: list[int]
    slot_count: int
    order: list[int]  # current column: seat per slot
    next_slots: list[int]  # next column: seat per 1-based slot - 1, -1 = free
    public_card: int
    stardust_supply: int
    revealed: bool  # the round-end reveal happened (chips and secret cards public)
    regions: list[RegionView]
    platforms: list[PlatformView]
    players: list[PlayerView]
    secret_cards: list[SecretCardView]
    objectives: list[ObjectiveView]
    objective_results: list[ObjectiveOutcome]
    region_results: list[RegionOutcome]  # the latest round's resolution
    my_chips: list[int] | None = None  # unused chips of this seat
    my_drawn: list[int] | None = None  # regions of secret cards drawn when exploring
    my_choices: list[Choice] | None = None  # pending resource choices, oldest first
    scouting: int = -1  # tray position this seat is scouting (choose what to take)
    finished: bool = False
    difficulty: str | None = None  # 1-2 player games only
    ais: list[AiView] = []
