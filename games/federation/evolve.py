"""``evolve``: apply one Federation event to the state, in place (facts only).

One ``match`` on the event type, one case per event; an event this game does not know
is an error, never silently ignored. It reads no content data: amounts, setup content and
neutral votes are in the events (see ``orrery_contracts.federation.events``). The
untyped steps of rules versions 1 and 2 (``fed.pushed``) are upcast here as they are read.
"""

from __future__ import annotations

import msgspec

from games.federation.state import FederationState
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation.legacy import upcast


def evolve(s: FederationState, e: msgspec.Struct) -> FederationState:
    # cases in the order of how often they come up in play (a match tries them in turn)
    match e:
        case ev.Popped():
            s.queue.pop(0)
        case ev.Queued():
            s.queue[0:0] = e.steps
        case ev.Gained():
            _gained(s, e)
        case ev.Placed():
            _placed(s, e)
        case ev.ProjectAdvanced():
            s.projects[e.project] += 1
            if e.project == cat.COMMON and e.seat >= 0:
                s.players[e.seat].common += 1
        case ev.AuthoritySet():
            s.players[e.seat].authority_step = e.step
        case ev.Pushed():
            s.queue[0:0] = [upcast(step) for step in e.steps]
        case ev.DieSet():
            s.players[e.seat].die = e.value
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


def _gained(s: FederationState, e: ev.Gained) -> None:
    p = s.players[e.seat]
    p.copp += e.copp
    p.lav += e.lav
    p.ocean += e.ocean
    p.diamond += e.diamond
    p.pp += e.pp
    p.hangar += e.ships


def _placed(s: FederationState, e: ev.Placed) -> None:
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


def _round_started(s: FederationState, e: ev.RoundStarted) -> None:
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


def _round_ended(s: FederationState, e: ev.RoundEnded) -> None:
    for p in s.players:
        p.used = [False] * 4
        p.die_on_board = False
        p.outer = 0
    s.start_player = e.start_player
    s.president_next = -1
    s.laws = [-1, -1]


def _set_up(s: FederationState, e: ev.SetUp) -> None:
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
