"""The mutable Federation state (msgpack-friendly): ``FederationState`` and its players.

Neither the defaults here nor ``evolve`` read content that could change: the
setup event brings the starting ships, dead asteroids, erudite stock, medal thresholds
and the track tokens (``initial_state`` only shapes the empty state); the structural
constants used (planet names, 18 senate spaces, 7 projects, 4 ambassadors, 12 missions)
are the wire format itself.

What the rules only ever replace whole (the megastructures' criteria, the law stacks, a
medal supply once its head is taken) is held in tuples: a copy of the state (a search
copies it once per simulation) shares them, and a tuple is the same array as a list on
the wire and in snapshots.
"""

from __future__ import annotations

import msgspec

from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import steps as st


class Player(msgspec.Struct, kw_only=True):
    copp: int = 0
    lav: int = 0
    ocean: int = 0
    diamond: int = 0
    pp: int = 0
    hangar: int = 0  # the setup event fills every hangar
    authority_step: int = 1
    die: int = -1
    die_on_board: bool = False
    used: list[bool] = msgspec.field(default_factory=lambda: [False] * 4)
    checks: list[bool] = msgspec.field(default_factory=lambda: [False] * 12)
    missions: list[bool] = msgspec.field(default_factory=lambda: [False] * 12)
    tile_missions: int = 0
    medals: list[str] = msgspec.field(default_factory=list)
    orange: int = 0
    blue: int = 0
    stalls: list[int] = msgspec.field(default_factory=lambda: [0] * 6)
    erudite: list[int] = msgspec.field(default_factory=list)
    erudite_used: list[int] = msgspec.field(default_factory=list)
    built: list[int] = msgspec.field(default_factory=list)
    tokens: list[int] = msgspec.field(default_factory=list)
    common: int = 0
    inf_bonus: list[int] = msgspec.field(default_factory=lambda: [0] * 5)
    start_tile: int = -1
    deep_space: list[int] = msgspec.field(default_factory=list)
    outer: int = 0


class FederationState(msgspec.Struct, kw_only=True):
    seats: int
    law_mode: str = "all"
    prize_mode: str = "seed"
    president_mode: str = "any"
    round: int = 0
    start_player: int = 0
    president_next: int = -1
    players: list[Player] = msgspec.field(default_factory=list)
    # senate: per space the seat (-1 free, -2 blocked, -3 neutral), votes, funding side,
    # die, alteration token
    space_seat: list[int] = msgspec.field(default_factory=lambda: [-1] * cat.N_SPACES)
    space_votes: list[int] = msgspec.field(default_factory=lambda: [0] * cat.N_SPACES)
    space_funding: list[bool] = msgspec.field(default_factory=lambda: [False] * cat.N_SPACES)
    space_die: list[bool] = msgspec.field(default_factory=lambda: [False] * cat.N_SPACES)
    space_token: list[int] = msgspec.field(default_factory=lambda: [-1] * cat.N_SPACES)
    projects: list[int] = msgspec.field(default_factory=lambda: [0] * 7)
    orange_tokens: list[int] = msgspec.field(default_factory=lambda: [-1] * 9)
    orange_shown: list[bool] = msgspec.field(default_factory=lambda: [False] * 9)
    dead_left: int = 0  # the setup event counts them
    blue_tokens: list[list[int]] = msgspec.field(default_factory=list)
    blue_shown: list[bool] = msgspec.field(default_factory=lambda: [False] * 8)
    erudite_stock: list[int] = msgspec.field(default_factory=list)  # per tile, from setup
    production: list[int] = msgspec.field(default_factory=list)
    mega: list[tuple[int, ...]] = msgspec.field(default_factory=list)
    mega_filled: list[int] = msgspec.field(default_factory=list)  # per megastructure
    law_stacks: list[tuple[int, ...]] = msgspec.field(default_factory=lambda: [(), ()])
    laws: list[int] = msgspec.field(default_factory=lambda: [-1, -1])
    next_laws: list[int] = msgspec.field(default_factory=list)
    start_tiles: list[int] = msgspec.field(default_factory=list)
    deep_space: list[int] = msgspec.field(default_factory=list)
    medal_supply: dict[str, tuple[int, ...]] = msgspec.field(default_factory=dict)
    queue: list[st.AnyStep] = msgspec.field(default_factory=list)
    finished: bool = False
    final_points: list[int] = msgspec.field(default_factory=list)


def initial_state(
    seats: int, law_mode: str, prize_mode: str, president_mode: str
) -> FederationState:
    """The empty state the setup event is folded into (its shape, no content)."""
    supply: dict[str, tuple[int, ...]] = {p: () for p in cat.PLANETS}  # thresholds: setup
    supply["authority"] = (0,) * seats
    supply["intrigue"] = (0,) * seats
    return FederationState(
        seats=seats,
        law_mode=law_mode,
        prize_mode=prize_mode,
        president_mode=president_mode,
        players=[Player() for _ in range(seats)],
        medal_supply=supply,
    )
