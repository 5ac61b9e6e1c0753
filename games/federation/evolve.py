"""``evolve``: apply one Federation event to the state, in place (facts only).

A fold function per event, looked up by the event's exact type (``FOLDS``); an event
this game does not know is an error, never silently ignored. It reads no content data:
amounts, setup content and neutral votes are in the events (see
``orrery_contracts.federation.events``). The untyped steps of rules versions 1 and 2
(``fed.pushed``) are upcast here as they are read.

``evolve`` also forgets ``LOOKED``, the state ``decide.play`` last left with every "at
once" check looked at: an event folded from outside ``play`` may change what those
checks count, so the next ``play`` of that state looks at everything again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from games.federation.state import FederationState
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation.legacy import upcast


def _popped(s: FederationState, e: ev.Popped) -> None:
    s.queue.pop(0)


def _queued(s: FederationState, e: ev.Queued) -> None:
    s.queue[0:0] = e.steps


def _project_advanced(s: FederationState, e: ev.ProjectAdvanced) -> None:
    s.projects[e.project] += 1
    if e.project == cat.COMMON and e.seat >= 0:
        s.players[e.seat].common += 1


def _authority_set(s: FederationState, e: ev.AuthoritySet) -> None:
    s.players[e.seat].authority_step = e.step


def _die_set(s: FederationState, e: ev.DieSet) -> None:
    s.players[e.seat].die = e.value


def _checked(s: FederationState, e: ev.Checked) -> None:
    s.players[e.seat].checks[e.mission] = True


def _mission_done(s: FederationState, e: ev.MissionDone) -> None:
    p = s.players[e.seat]
    p.missions[e.mission] = True
    p.hangar -= 1


def _medal_taken(s: FederationState, e: ev.MedalTaken) -> None:
    s.players[e.seat].medals.append(e.kind)
    supply = s.medal_supply
    supply[e.kind] = supply[e.kind][1:]  # a new tuple: copies of the state share supplies


def _orange_moved(s: FederationState, e: ev.OrangeMoved) -> None:
    s.players[e.seat].orange = e.level


def _blue_moved(s: FederationState, e: ev.BlueMoved) -> None:
    s.players[e.seat].blue = e.level


def _revealed(s: FederationState, e: ev.Revealed) -> None:
    shown = s.orange_shown if e.track == "orange" else s.blue_shown
    shown[e.level] = True


def _token_taken(s: FederationState, e: ev.TokenTaken) -> None:
    s.blue_tokens[e.level - 1][e.spot] = -1
    s.players[e.seat].tokens.append(e.token)


def _dead_taken(s: FederationState, e: ev.DeadTaken) -> None:
    s.dead_left -= 1


def _stall_taken(s: FederationState, e: ev.StallTaken) -> None:
    s.players[e.seat].stalls[e.stall] = 2 if e.upper else 1


def _erudite_taken(s: FederationState, e: ev.EruditeTaken) -> None:
    s.players[e.seat].erudite.append(e.tile)
    s.erudite_stock[e.tile] -= 1


def _tile_used(s: FederationState, e: ev.TileUsed) -> None:
    s.players[e.seat].erudite_used.append(e.tile)


def _built(s: FederationState, e: ev.Built) -> None:
    s.players[e.seat].built.append(e.structure)
    if e.structure >= len(s.production):  # a megastructure
        s.mega_filled[e.structure - len(s.production)] += 1


def _influence_added(s: FederationState, e: ev.InfluenceAdded) -> None:
    s.players[e.seat].inf_bonus[e.planet] += 1


def _start_tile_taken(s: FederationState, e: ev.StartTileTaken) -> None:
    p = s.players[e.seat]
    p.start_tile = e.tile
    p.tile_missions += 1
    s.start_tiles.remove(e.tile)


def _deep_space_taken(s: FederationState, e: ev.DeepSpaceTaken) -> None:
    p = s.players[e.seat]
    p.deep_space.append(e.tile)
    p.tile_missions += 1
    s.deep_space.pop(e.index)


def _president_taken(s: FederationState, e: ev.PresidentTaken) -> None:
    s.president_next = e.seat


def _law_passed(s: FederationState, e: ev.LawPassed) -> None:
    pass  # the law's points come as ``fed.gained``


def _finished(s: FederationState, e: ev.Finished) -> None:
    s.finished = True
    s.final_points = list(e.points)


def _pushed(s: FederationState, e: ev.Pushed) -> None:  # rules versions 1 and 2 only
    s.queue[0:0] = [upcast(step) for step in e.steps]


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
    s.law_stacks = [*map(tuple, e.laws)]
    s.next_laws = list(e.next_laws)
    # every space cleared (in place, each row at once)
    s.space_seat[:] = _NO_SEATS
    s.space_votes[:] = _NO_VOTES
    s.space_funding[:] = _NO_FLAGS
    s.space_die[:] = _NO_FLAGS
    s.space_token[:] = _NO_SEATS
    for i in e.blocked:
        s.space_seat[i] = -2
    for i in e.neutral:
        s.space_seat[i] = -3
        s.space_votes[i] = e.neutral_votes


_NO_SEATS = (-1,) * cat.N_SPACES  # a free space's seat, and no alteration token on it
_NO_VOTES = (0,) * cat.N_SPACES
_NO_FLAGS = (False,) * cat.N_SPACES


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
    s.mega = [*map(tuple, e.mega)]
    s.mega_filled = [0] * len(e.mega)
    s.start_tiles = list(e.start_tiles)
    s.deep_space = list(e.deep_space)
    s.law_stacks = [*map(tuple, e.laws)]
    s.start_player = e.start_player
    for p in s.players:
        p.hangar = e.start_ships
    s.dead_left = e.dead_asteroids
    s.erudite_stock = [n for _ in cat.PLANETS for n in e.erudite_stock]
    thresholds = e.medal_thresholds or ev.V1_MEDAL_THRESHOLDS[s.seats]
    for planet in cat.PLANETS:
        s.medal_supply[planet] = tuple(thresholds)


# The fold of each event, by its exact type (events are never subclassed): one lookup
# and one call, where a ``match`` tries its cases one after the other. The working state
# (``working_copy.Ctx``) folds through this very table.
FOLDS: dict[type[msgspec.Struct], Callable[[FederationState, Any], None]] = {
    ev.Popped: _popped,
    ev.Queued: _queued,
    ev.Gained: _gained,
    ev.Placed: _placed,
    ev.ProjectAdvanced: _project_advanced,
    ev.AuthoritySet: _authority_set,
    ev.DieSet: _die_set,
    ev.Checked: _checked,
    ev.MissionDone: _mission_done,
    ev.MedalTaken: _medal_taken,
    ev.OrangeMoved: _orange_moved,
    ev.BlueMoved: _blue_moved,
    ev.Revealed: _revealed,
    ev.TokenTaken: _token_taken,
    ev.DeadTaken: _dead_taken,
    ev.StallTaken: _stall_taken,
    ev.EruditeTaken: _erudite_taken,
    ev.TileUsed: _tile_used,
    ev.Built: _built,
    ev.InfluenceAdded: _influence_added,
    ev.StartTileTaken: _start_tile_taken,
    ev.DeepSpaceTaken: _deep_space_taken,
    ev.PresidentTaken: _president_taken,
    ev.RoundStarted: _round_started,
    ev.RoundEnded: _round_ended,
    ev.SetUp: _set_up,
    ev.LawPassed: _law_passed,
    ev.Finished: _finished,
    ev.Pushed: _pushed,
}


class _Looked:
    """The one state ``decide.play`` last left looked at (every "at once" check looked at
    after the events that touched it), or None. Held here, beside the folds, so that a
    fold from outside ``play`` forgets it."""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state: FederationState | None = None


LOOKED = _Looked()


# Written out rather than taken from ``games.folds.fold_functions``: a fold from outside
# ``play`` forgets the state's look too (one identity test per event).
def evolve(state: FederationState, event: Any) -> FederationState:
    try:  # (a subscript, cheaper than ``get`` when the type is known, as it nearly is)
        fold = FOLDS[type(event)]
    except KeyError:
        raise TypeError(f"not a Federation event: {type(event).__name__}") from None
    if LOOKED.state is state:
        LOOKED.state = None
    fold(state, event)
    return state


def evolve_all(state: FederationState, events: list[Any]) -> None:
    if LOOKED.state is state:
        LOOKED.state = None
    for event in events:
        try:
            fold = FOLDS[type(event)]
        except KeyError:
            raise TypeError(f"not a Federation event: {type(event).__name__}") from None
        fold(state, event)
