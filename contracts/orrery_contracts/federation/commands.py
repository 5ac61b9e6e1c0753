"""Federation commands (tag prefix ``fed.``). See games/federation/RULES.md for when each
is legal. Ids refer to orrery_contracts.federation.catalogue."""

from __future__ import annotations

from orrery_contracts.base import CommandBody


class Place(CommandBody, frozen=True, tag="fed.place"):
    """Place ambassador 0-3 on senate space 0-17 (or 18 = outer oceanium space)."""

    ambassador: int
    space: int
    funding: bool = False
    die: bool = False  # add the assistant die (vote side only)
    token: int = -1  # alteration token id to attach, -1 = none


class Fork(CommandBody, frozen=True, tag="fed.fork"):
    straight: bool


class TakeToken(CommandBody, frozen=True, tag="fed.take_token"):
    level: int
    spot: int


class DeadAsteroid(CommandBody, frozen=True, tag="fed.dead_asteroid"):
    reward: int  # index into catalogue.DEAD_REWARDS


class Stall(CommandBody, frozen=True, tag="fed.stall"):
    stall: int
    upper: bool = False


class Erudite(CommandBody, frozen=True, tag="fed.erudite"):
    tile: int  # colour * 3 + level - 1


class Build(CommandBody, frozen=True, tag="fed.build"):
    structure: int  # 0-3 production structure on the board, 4-7 megastructure


class Project(CommandBody, frozen=True, tag="fed.project"):
    project: int  # 0-5 major project (column), 6 = common project


class Check(CommandBody, frozen=True, tag="fed.check"):
    mission: int


class Spy(CommandBody, frozen=True, tag="fed.spy"):
    target: int  # icon id of the copied action


class Pay(CommandBody, frozen=True, tag="fed.pay"):
    copp: int = 0
    lav: int = 0
    ocean: int = 0
    diamond: int = 0


class Discard(CommandBody, frozen=True, tag="fed.discard"):
    copp: int = 0
    lav: int = 0
    ocean: int = 0


class Crystal(CommandBody, frozen=True, tag="fed.crystal"):
    kind: int  # 0 coppernium, 1 lavandium, 2 oceanium


class StartTile(CommandBody, frozen=True, tag="fed.start_tile"):
    tile: int


class DeepSpace(CommandBody, frozen=True, tag="fed.deep_space"):
    index: int  # position among the remaining face-down tiles


class Influence(CommandBody, frozen=True, tag="fed.influence"):
    planet: int


class Medal(CommandBody, frozen=True, tag="fed.medal"):
    kind: str


class Retrigger(CommandBody, frozen=True, tag="fed.retrigger"):
    structure: int


class Income(CommandBody, frozen=True, tag="fed.income"):
    """Executive income (optional): take or skip one built production structure."""

    structure: int
    take: bool = True


class Upkeep(CommandBody, frozen=True, tag="fed.upkeep"):
    """Keep ``level`` (its bottom step if lower than now) paying the crystals given."""

    level: int
    copp: int = 0
    lav: int = 0
    ocean: int = 0


class LawChoice(CommandBody, frozen=True, tag="fed.law"):
    side: int  # 0 left, 1 right


class Mission(CommandBody, frozen=True, tag="fed.mission"):
    mission: int


class UseTile(CommandBody, frozen=True, tag="fed.use_tile"):
    tile: int


class EndTurn(CommandBody, frozen=True, tag="fed.end_turn"):
    pass
