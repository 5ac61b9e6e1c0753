"""The mutable Federation state (msgpack-friendly) and ``evolve``: facts applied in place.

``evolve`` reads no content that could change, and neither do the defaults here: the
setup event brings the starting ships, dead asteroids, erudite stock, medal thresholds
and the track tokens (``initial_state`` only shapes the empty state); the structural
constants used (planet names, 18 senate spaces, 7 projects, 4 ambassadors, 12 missions)
are the wire format itself.
"""

from __future__ import annotations

import msgspec

from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st
from orrery_contracts.federation.legacy import upcast


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


class State(msgspec.Struct, kw_only=True):
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
    mega: list[list[int]] = msgspec.field(default_factory=list)
    mega_filled: list[int] = msgspec.field(default_factory=list)  # per megastructure
    law_stacks: list[list[int]] = msgspec.field(default_factory=lambda: [[], []])
    laws: list[int] = msgspec.field(default_factory=lambda: [-1, -1])
    next_laws: list[int] = msgspec.field(default_factory=list)
    start_tiles: list[int] = msgspec.field(default_factory=list)
    deep_space: list[int] = msgspec.field(default_factory=list)
    medal_supply: dict[str, list[int]] = msgspec.field(default_factory=dict)
    queue: list[st.AnyStep] = msgspec.field(default_factory=list)
    finished: bool = False
    final_points: list[int] = msgspec.field(default_factory=list)


def initial_state(seats: int, law_mode: str, prize_mode: str, president_mode: str) -> State:
    supply: dict[str, list[int]] = {p: [] for p in cat.PLANETS}  # thresholds: setup
    supply["authority"] = [0] * seats
    supply["intrigue"] = [0] * seats
    return State(
        seats=seats,
        law_mode=law_mode,
        prize_mode=prize_mode,
        president_mode=president_mode,
        players=[Player() for _ in range(seats)],
        medal_supply=supply,
    )


def evolve(s: State, e: msgspec.Struct) -> State:
    match e:
        case ev.Popped():
            s.queue.pop(0)
        case ev.Queued():
            s.queue[0:0] = e.steps
        case ev.Pushed():
            s.queue[0:0] = [upcast(step) for step in e.steps]
        case ev.Gained():
            _gained(s, e)
        case ev.AuthoritySet():
            s.players[e.seat].authority_step = e.step
        case ev.DieSet():
            s.players[e.seat].die = e.value
        case ev.Placed():
            _placed(s, e)
        case ev.Checked():
            s.players[e.seat].checks[e.mission] = True
        case ev.MissionDone():
            p = s.players[e.seat]
            p.missions[e.mission] = True
            p.hangar -= 1
        case ev.MedalTaken():
            s.players[e.seat].medals.append(e.kind)
            s.medal_supply[e.kind].pop(0)
        case ev.OrangeMoved():
            s.players[e.seat].orange = e.level
        case ev.BlueMoved():
            s.players[e.seat].blue = e.level
        case ev.Revealed():
            shown = s.orange_shown if e.track == "orange" else s.blue_shown
            shown[e.level] = True
        case ev.TokenTaken():
            s.blue_tokens[e.level - 1][e.spot] = -1
            s.players[e.seat].tokens.append(e.token)
        case ev.DeadTaken():
            s.dead_left -= 1
        case ev.StallTaken():
            s.players[e.seat].stalls[e.stall] = 2 if e.upper else 1
        case ev.EruditeTaken():
            s.players[e.seat].erudite.append(e.tile)
            s.erudite_stock[e.tile] -= 1
        case ev.TileUsed():
            s.players[e.seat].erudite_used.append(e.tile)
        case ev.Built():
            s.players[e.seat].built.append(e.structure)
            if e.structure >= len(s.production):  # a megastructure
                s.mega_filled[e.structure - len(s.production)] += 1
        case ev.ProjectAdvanced():
            s.projects[e.project] += 1
            if e.project == cat.COMMON and e.seat >= 0:
                s.players[e.seat].common += 1
        case ev.InfluenceAdded():
            s.players[e.seat].inf_bonus[e.planet] += 1
        case ev.StartTileTaken():
            p = s.players[e.seat]
            p.start_tile = e.tile
            p.tile_missions += 1
            s.start_tiles.remove(e.tile)
        case ev.DeepSpaceTaken():
            p = s.players[e.seat]
            p.deep_space.append(e.tile)
            p.tile_missions += 1
            s.deep_space.pop(e.index)
        case ev.PresidentTaken():
            s.president_next = e.seat
        case ev.RoundStarted():
            _round_started(s, e)
        case ev.RoundEnded():
            _round_ended(s, e)
        case ev.SetUp():
            _set_up(s, e)
        case ev.LawPassed():
            pass  # the law's points come as ``fed.gained``
        case ev.Finished():
            s.finished = True
            s.final_points = list(e.points)
        case _:
            raise TypeError(f"Federation has no event {type(e).__name__}")
    return s


def _gained(s: State, e: ev.Gained) -> None:
    p = s.players[e.seat]
    p.copp += e.copp
    p.lav += e.lav
    p.ocean += e.ocean
    p.diamond += e.diamond
    p.pp += e.pp
    p.hangar += e.ships


def _placed(s: State, e: ev.Placed) -> None:
    p = s.players[e.seat]
    p.used[e.ambassador] = True
    if e.token >= 0:
        p.tokens.remove(e.token)
    if e.space == cat.OUTER:
        p.outer += 1
        return
    s.space_seat[e.space] = e.seat
    s.space_votes[e.space] = e.votes
    s.space_funding[e.space] = e.funding
    s.space_die[e.space] = e.die
    s.space_token[e.space] = e.token
    if e.die:
        p.die_on_board = True


def _round_started(s: State, e: ev.RoundStarted) -> None:
    s.round = e.round
    s.laws = [e.left_law, e.right_law]
    s.law_stacks = [list(x) for x in e.laws]
    s.next_laws = list(e.next_laws)
    for i in range(cat.N_SPACES):
        s.space_seat[i] = -1
        s.space_votes[i] = 0
        s.space_funding[i] = False
        s.space_die[i] = False
        s.space_token[i] = -1
    for i in e.blocked:
        s.space_seat[i] = -2
    for i in e.neutral:
        s.space_seat[i] = -3
        s.space_votes[i] = e.neutral_votes


def _round_ended(s: State, e: ev.RoundEnded) -> None:
    for p in s.players:
        p.used = [False] * 4
        p.die_on_board = False
        p.outer = 0
    s.start_player = e.start_player
    s.president_next = -1
    s.laws = [-1, -1]


def _set_up(s: State, e: ev.SetUp) -> None:
    s.orange_tokens = list(e.orange_tokens)
    s.blue_tokens = [list(x) for x in e.blue_tokens]
    s.blue_shown[1] = True
    s.production = list(e.production)
    s.mega = [list(x) for x in e.mega]
    s.mega_filled = [0] * len(e.mega)
    s.start_tiles = list(e.start_tiles)
    s.deep_space = list(e.deep_space)
    s.law_stacks = [list(x) for x in e.laws]
    s.start_player = e.start_player
    for p in s.players:
        p.hangar = e.start_ships
    s.dead_left = e.dead_asteroids
    s.erudite_stock = [n for _ in cat.PLANETS for n in e.erudite_stock]
    thresholds = e.medal_thresholds or ev.V1_MEDAL_THRESHOLDS[s.seats]
    for planet in cat.PLANETS:
        s.medal_supply[planet] = list(thresholds)
