"""What one seat (or a spectator) sees of a Federation game."""

from __future__ import annotations

import msgspec

from orrery_contracts.base import ViewBody


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    copp: int
    lav: int
    ocean: int
    diamond: int
    pp: int
    hangar: int
    reserve: int
    authority_step: int
    authority_level: int
    die: int  # -1 = no die yet
    die_on_board: bool
    ambassadors_used: list[bool]
    checks: list[bool]
    missions: list[bool]
    tile_missions: int
    medals: list[str]
    orange: int
    blue: int
    stalls: list[int]
    erudite: list[int]
    erudite_used: list[int]
    built: list[int]
    tokens: list[int]
    common: int
    influence: list[int]
    start_tile: int
    deep_space: list[int]


class SpaceView(msgspec.Struct, frozen=True, kw_only=True):
    icon: int
    seat: int = -1  # -1 free, -2 blocked, -3 neutral vote tile
    votes: int = 0
    funding: bool = False
    token: int = -1


class FederationView(ViewBody, frozen=True):
    seat: int | None
    round: int
    start_player: int
    president_next: int
    pending: str
    pending_seat: int
    spaces: list[SpaceView]
    outer: list[int]  # ambassadors on the outer space per seat
    projects: list[int]
    orange_tokens: list[int]  # per level, -1 none, -2 face down
    dead_asteroids: int
    blue_tokens: list[list[int]]  # per level per spot: token id, -1 taken, -2 face down
    erudite_stock: list[int]  # per tile id: how many remain
    production: list[int]
    mega: list[list[int]]
    mega_filled: list[int]
    laws: list[int]  # current left and right law (planet), -1 none
    next_laws: list[int]
    law_stacks: list[int]  # sizes only
    start_tiles: list[int]
    deep_space_left: int
    medal_supply: dict[str, int]
    players: list[PlayerView]
    finished: bool
