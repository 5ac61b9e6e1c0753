"""``evolve``: apply one Federation event to the state, in place (facts only).

One ``match`` on the event type, one case per event; an event this game does not know
is an error, never silently ignored. It reads no content data: amounts, setup content and
neutral votes are in the events (see ``orrery_contracts.federation.events``). The
untyped steps of rules versions 1 and 2 (``fed.pushed``) are upcast here as they are read.
"""

from __future__ import annotations

from typing import Any

import msgspec

from games.federation.state import FederationState
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation.legacy import upcast


def evolve(s: FederationState, e: msgspec.Struct) -> FederationState:
    # ``match type(e)`` with dotted value patterns: a case that misses costs one compare of
    # two classes, where a class pattern (``case ev.Popped():``) costs an ``isinstance``
    # through msgspec's metaclass, several times more (events are never subclassed). The
    # cases stand in the order of how often they come up in play. ``x`` is ``Any``: mypy
    # does not narrow ``e`` from ``type(e)``.
    x: Any = e
    match type(e):
        case ev.Popped:
            s.queue.pop(0)
        case ev.Queued:
            s.queue[0:0] = x.steps
        case ev.Gained:
            _gained(s, x)
        case ev.Placed:
            _placed(s, x)
        case ev.ProjectAdvanced:
            s.projects[x.project] += 1
            if x.project == cat.COMMON and x.seat >= 0:
                s.players[x.seat].common += 1
        case ev.AuthoritySet:
            s.players[x.seat].authority_step = x.step
        case ev.DieSet:
            s.players[x.seat].die = x.value
        case ev.Checked:
            s.players[x.seat].checks[x.mission] = True
        case ev.MissionDone:
            p = s.players[x.seat]
            p.missions[x.mission] = True
            p.hangar -= 1
        case ev.MedalTaken:
            s.players[x.seat].medals.append(x.kind)
            s.medal_supply[x.kind].pop(0)
        case ev.OrangeMoved:
            s.players[x.seat].orange = x.level
        case ev.BlueMoved:
            s.players[x.seat].blue = x.level
        case ev.Revealed:
            shown = s.orange_shown if x.track == "orange" else s.blue_shown
            shown[x.level] = True
        case ev.TokenTaken:
            s.blue_tokens[x.level - 1][x.spot] = -1
            s.players[x.seat].tokens.append(x.token)
        case ev.DeadTaken:
            s.dead_left -= 1
        case ev.StallTaken:
            s.players[x.seat].stalls[x.stall] = 2 if x.upper else 1
        case ev.EruditeTaken:
            s.players[x.seat].erudite.append(x.tile)
            s.erudite_stock[x.tile] -= 1
        case ev.TileUsed:
            s.players[x.seat].erudite_used.append(x.tile)
        case ev.Built:
            s.players[x.seat].built.append(x.structure)
            if x.structure >= len(s.production):  # a megastructure
                s.mega_filled[x.structure - len(s.production)] += 1
        case ev.InfluenceAdded:
            s.players[x.seat].inf_bonus[x.planet] += 1
        case ev.StartTileTaken:
            p = s.players[x.seat]
            p.start_tile = x.tile
            p.tile_missions += 1
            s.start_tiles.remove(x.tile)
        case ev.DeepSpaceTaken:
            p = s.players[x.seat]
            p.deep_space.append(x.tile)
            p.tile_missions += 1
            s.deep_space.pop(x.index)
        case ev.PresidentTaken:
            s.president_next = x.seat
        case ev.RoundStarted:
            _round_started(s, x)
        case ev.RoundEnded:
            _round_ended(s, x)
        case ev.SetUp:
            _set_up(s, x)
        case ev.LawPassed:
            pass  # the law's points come as ``fed.gained``
        case ev.Finished:
            s.finished = True
            s.final_points = list(x.points)
        case ev.Pushed:  # rules versions 1 and 2 only
            s.queue[0:0] = [upcast(step) for step in x.steps]
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
