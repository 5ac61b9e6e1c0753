"""Federation events (tag prefix ``fed.``): fat facts, evolve only applies them and
never reads today's content data (``catalogue``): amounts gained and paid are in the
events, the setup content in ``fed.set_up`` and the neutral votes in each round's start.

Fields added after rules version 1 have defaults equal to what rules version 1 used, so a
log written before a field existed replays exactly as it was played. Rules version 3
typed the queue steps (``fed.queued``, ``steps.py``); the untyped ``fed.pushed`` of older
logs is read through ``legacy.upcast``.
"""

from __future__ import annotations

import msgspec

from orrery_contracts.base import EventBody
from orrery_contracts.federation.legacy import LegacyStep
from orrery_contracts.federation.steps import AnyStep

#: Planet medal thresholds per player count of rules version 1 (logs whose ``fed.set_up``
#: predates the ``medal_thresholds`` field).
V1_MEDAL_THRESHOLDS: dict[int, tuple[int, ...]] = {2: (4, 6), 3: (4, 5, 6), 4: (3, 4, 5, 6)}


class SetUp(EventBody, frozen=True, tag="fed.set_up"):
    orange_tokens: list[int]  # per level 0..8, -1 = no token
    blue_tokens: list[list[int]]  # 7 levels x 4 spots
    production: list[int]
    mega: list[list[int]]  # criteria per megastructure
    start_tiles: list[int]
    deep_space: list[int]
    laws: list[list[int]]  # left and right stacks, top last
    start_player: int
    # Content the fold needs (defaults: rules version 1).
    start_ships: int = 1  # spaceships in each hangar at the start
    dead_asteroids: int = 4
    erudite_stock: list[int] = msgspec.field(default_factory=lambda: [3, 3, 1])  # per level
    medal_thresholds: list[int] = []  # planet medals, lowest first; [] = rules version 1


class Queued(EventBody, frozen=True, tag="fed.queued"):
    """Steps put at the front of the queue, to run in the given order."""

    steps: list[AnyStep]


class Pushed(EventBody, frozen=True, tag="fed.pushed"):
    """``fed.queued`` of rules versions 1 and 2 (untyped steps, upcast when folded)."""

    steps: list[LegacyStep]


class Popped(EventBody, frozen=True, tag="fed.popped"):
    pass


class Gained(EventBody, frozen=True, tag="fed.gained"):
    """Resource change of a seat: copp, lav, ocean, diamond, pp, ships (hangar)."""

    seat: int
    copp: int = 0
    lav: int = 0
    ocean: int = 0
    diamond: int = 0
    pp: int = 0
    ships: int = 0
    reason: str = ""


class AuthoritySet(EventBody, frozen=True, tag="fed.authority"):
    seat: int
    step: int


class DieSet(EventBody, frozen=True, tag="fed.die"):
    seat: int
    value: int


class Placed(EventBody, frozen=True, tag="fed.placed"):
    seat: int
    ambassador: int
    space: int
    funding: bool
    die: bool
    token: int
    votes: int


class Checked(EventBody, frozen=True, tag="fed.checked"):
    seat: int
    mission: int


class MissionDone(EventBody, frozen=True, tag="fed.mission_done"):
    seat: int
    mission: int


class MedalTaken(EventBody, frozen=True, tag="fed.medal_taken"):
    seat: int
    kind: str
    threshold: int = 0


class OrangeMoved(EventBody, frozen=True, tag="fed.orange"):
    seat: int
    level: int


class BlueMoved(EventBody, frozen=True, tag="fed.blue"):
    seat: int
    level: int


class Revealed(EventBody, frozen=True, tag="fed.revealed"):
    track: str  # "orange" or "blue"
    level: int


class TokenTaken(EventBody, frozen=True, tag="fed.token_taken"):
    seat: int
    level: int
    spot: int
    token: int


class DeadTaken(EventBody, frozen=True, tag="fed.dead_taken"):
    seat: int
    reward: int


class StallTaken(EventBody, frozen=True, tag="fed.stall_taken"):
    seat: int
    stall: int
    upper: bool


class EruditeTaken(EventBody, frozen=True, tag="fed.erudite_taken"):
    seat: int
    tile: int


class TileUsed(EventBody, frozen=True, tag="fed.tile_used"):
    seat: int
    tile: int


class Built(EventBody, frozen=True, tag="fed.built"):
    seat: int
    structure: int
    multiplier: int = 0


class ProjectAdvanced(EventBody, frozen=True, tag="fed.project_advanced"):
    project: int
    seat: int = -1  # for the common project: the seat whose marker moves


class InfluenceAdded(EventBody, frozen=True, tag="fed.influence_added"):
    seat: int
    planet: int


class StartTileTaken(EventBody, frozen=True, tag="fed.start_tile_taken"):
    seat: int
    tile: int


class DeepSpaceTaken(EventBody, frozen=True, tag="fed.deep_space_taken"):
    seat: int
    index: int
    tile: int


class PresidentTaken(EventBody, frozen=True, tag="fed.president"):
    seat: int


class RoundStarted(EventBody, frozen=True, tag="fed.round_started"):
    chance = True  # laws drawn, blocked and neutral spaces placed
    round: int
    left_law: int
    right_law: int
    laws: list[list[int]]  # both stacks after the draw
    next_laws: list[int] = []  # round 4: the laws of round 5 (left, right)
    blocked: list[int] = []
    neutral: list[int] = []
    neutral_votes: int = 1  # votes of each neutral tile (default: rules version 1)


class LawPassed(EventBody, frozen=True, tag="fed.law_passed"):
    side: int
    planet: int
    left_votes: int
    right_votes: int


class RoundEnded(EventBody, frozen=True, tag="fed.round_ended"):
    round: int
    start_player: int


class Finished(EventBody, frozen=True, tag="fed.finished"):
    points: list[int]
