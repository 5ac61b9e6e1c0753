"""What a player has, counted: authority level, crystals, missions, reserve, influence
and the megastructure criteria (pure functions of the state)."""

from __future__ import annotations

from games.federation.state import FederationState, Player
from orrery_contracts.federation import catalogue as cat


def level(p: Player) -> int:
    return cat.LEVEL_OF_STEP[p.authority_step]


def crystals(p: Player) -> int:
    return p.copp + p.lav + p.ocean


def missions_count(p: Player) -> int:
    """Ships on missions, start and deep-space tiles counting as completed missions."""
    return sum(p.missions) + p.tile_missions


def reserve(p: Player) -> int:
    return cat.MAX_SHIPS - p.hangar - sum(p.missions)


def influence(p: Player, planet: int) -> int:
    bonus = p.inf_bonus[planet]
    if planet == cat.ORANGE:
        return p.orange + bonus
    if planet == cat.BLUE:
        return p.blue + bonus
    if planet == cat.YELLOW:
        return sum(p.stalls) + bonus
    if planet == cat.PURPLE:
        return len(p.erudite) + bonus
    return sum(1 if b < cat.N_PRODUCTION else 2 for b in p.built) + bonus


def criterion(s: FederationState, p: Player, name: str) -> int:
    if name == "medals":
        return len(p.medals)
    if name == "missions":
        return missions_count(p)
    if name == "erudite":
        return len(p.erudite)
    if name == "authority_level":
        return level(p)
    if name == "diamonds":
        return p.diamond
    if name == "upper_stalls":
        return sum(1 for x in p.stalls if x == 2)
    if name == "production_robots":
        return sum(1 for b in p.built if b < cat.N_PRODUCTION)
    return len(p.tokens)
