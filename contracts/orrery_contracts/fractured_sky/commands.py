"""Fractured Sky commands (tag prefix ``fs.``).

Regions, platforms, secret-card and objective positions are 0-based indexes (see
``catalogue``); turn-order ``slot`` numbers are 1-based as printed on the board.
"""

from __future__ import annotations

from typing import Literal

from orrery_contracts.base import CommandBody

Resource = Literal["gold", "iron", "wood"]


class ChooseStart(CommandBody, frozen=True, kw_only=True, tag="fs.choose_start"):
    """Setup: pick any 4 starting resources (counts must sum to 4)."""

    gold: int = 0
    iron: int = 0
    wood: int = 0


class Trade(CommandBody, frozen=True, kw_only=True, tag="fs.trade"):
    """Free action at any time while the game runs (on or off your turn, in any phase):
    give any 2 resources (counts summing to 2), get 1 of any type."""

    gold: int = 0
    iron: int = 0
    wood: int = 0
    get: Resource


class PlaceAirship(CommandBody, frozen=True, kw_only=True, tag="fs.place_airship"):
    """Action: place an airship carrying one of your unused power chips (value 0..10)."""

    region: int
    chip: int


class ChooseSlot(CommandBody, frozen=True, kw_only=True, tag="fs.choose_slot"):
    """After your third airship: take a free turn slot (1-based) in the next column."""

    slot: int


class BuildFortress(CommandBody, frozen=True, kw_only=True, tag="fs.build_fortress"):
    """Action: pay 3 iron, put a fortress on a floating platform."""

    platform: int


class BuildMarket(CommandBody, frozen=True, kw_only=True, tag="fs.build_market"):
    """Action: pay 1 gold + 2 wood, put a market on a floating platform."""

    platform: int


class PlaceSkimmer(CommandBody, frozen=True, kw_only=True, tag="fs.place_skimmer"):
    """Action: pay 1 iron + 1 wood, put a skimmer in a region (+1 power this round)."""

    region: int


class Scout(CommandBody, frozen=True, kw_only=True, tag="fs.scout"):
    """Action: pay 2 gold and look at a secret stardust card you have not scouted."""

    card: int


class ScoutTake(CommandBody, frozen=True, kw_only=True, tag="fs.scout_take"):
    """Finish a scout: take one of the card's region resources (public), or nothing."""

    resource: Resource | None = None


class Peek(CommandBody, frozen=True, kw_only=True, tag="fs.peek"):
    """Action: pay any 2 resources and look at a face-down objective you have not peeked."""

    objective: int
    gold: int = 0
    iron: int = 0
    wood: int = 0


class ChooseResource(CommandBody, frozen=True, kw_only=True, tag="fs.choose_resource"):
    """Round end: answer your oldest pending resource choice (rank reward or market)."""

    resource: Resource
