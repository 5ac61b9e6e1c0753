"""``determinize``: a full Federation state consistent with one seat's view.

Federation hides little: the face-down track tokens (orange asteroids, blue alteration
tokens), the deep-space tiles and the order of the two law stacks. Those are drawn from
what the seat has not seen: asteroid and alteration tokens of the right power from the
ones no track, space or player shows, deep-space tiles from those no player took, each
law stack from the laws not showing this round (its size as the view tells).

The view shows only the front of the queue of pending work (its kind and seat), so the
rest is rebuilt from the round's structure: the turns still to come (every ambassador
not yet placed, in turn order from the seat to move), then the executive phase, or the
rest of the executive phase. A choice's own details come from the seat's legal
commands (``legal``: the payments it may make, the structure of an income choice, the
blue level of a token choice). The view does not show which space holds a seat's
assistant die (its first voting space is taken) nor the table's options (the defaults
are taken).
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from games.federation.counts import influence
from games.federation.state import FederationState, Player, initial_state
from orrery_contracts.base import CommandBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import steps as st
from orrery_contracts.federation import views as vw
from orrery_contracts.federation.options import FederationOptions

_STEPS: dict[str, type[st.Step]] = {str(t.__struct_config__.tag): t for t in st.STEP_TYPES}
_EXECUTIVE = frozenset({"income_choice", "upkeep", "law"})


def determinize(
    view: vw.FederationView, seat: int, rng: Random, legal: Sequence[CommandBody] = ()
) -> FederationState:
    options = FederationOptions()
    n = len(view.players)
    s = initial_state(n, options.law_effect, options.project_prizes, options.president_medal)
    s.round = view.round
    s.start_player = view.start_player
    s.president_next = view.president_next
    s.players = [_player(p, view.outer[i]) for i, p in enumerate(view.players)]
    for i, space in enumerate(view.spaces):
        s.space_seat[i] = space.seat
        s.space_votes[i] = space.votes
        s.space_funding[i] = space.funding
        s.space_token[i] = space.token
    for i, p in enumerate(s.players):  # the die stands on one of the seat's voting spaces
        if p.die_on_board:
            voting = [
                k for k in range(cat.N_SPACES) if s.space_seat[k] == i and not s.space_funding[k]
            ]
            if voting:
                s.space_die[voting[0]] = True
    s.projects = list(view.projects)
    s.dead_left = view.dead_asteroids
    s.erudite_stock = list(view.erudite_stock)
    s.production = list(view.production)
    s.mega = [*map(tuple, view.mega)]
    s.mega_filled = list(view.mega_filled)
    s.laws = list(view.laws)
    s.next_laws = list(view.next_laws)
    s.start_tiles = list(view.start_tiles)
    s.finished = view.finished
    thresholds = cat.MEDAL_THRESHOLDS[n]
    for kind, size in view.medal_supply.items():
        values = list(thresholds) if kind in cat.PLANETS else [0] * n
        s.medal_supply[kind] = tuple(values[len(values) - size :] if size else ())
    _tracks(s, view, rng)
    _hidden_piles(s, view, rng)
    s.queue = _queue(view, legal)
    if view.finished:
        s.final_points = [p.pp for p in view.players]
    return s


def _player(p: vw.PlayerView, outer: int) -> Player:
    player = Player(
        copp=p.copp,
        lav=p.lav,
        ocean=p.ocean,
        diamond=p.diamond,
        pp=p.pp,
        hangar=p.hangar,
        authority_step=p.authority_step,
        die=p.die,
        die_on_board=p.die_on_board,
        used=list(p.ambassadors_used),
        checks=list(p.checks),
        missions=list(p.missions),
        tile_missions=p.tile_missions,
        medals=list(p.medals),
        orange=p.orange,
        blue=p.blue,
        stalls=list(p.stalls),
        erudite=list(p.erudite),
        erudite_used=list(p.erudite_used),
        built=list(p.built),
        tokens=list(p.tokens),
        common=p.common,
        start_tile=p.start_tile,
        deep_space=list(p.deep_space),
        outer=outer,
    )
    # the influence bonus is what the view's influence has beyond the pieces counted
    player.inf_bonus = [p.influence[k] - influence(player, k) for k in range(5)]
    return player


def _tracks(s: FederationState, view: vw.FederationView, rng: Random) -> None:
    """Track tokens: the face-up ones as seen, each face-down one drawn from the tokens of
    its kind (and power, on the blue track) that the seat sees nowhere."""
    shown_orange = {t for t in view.orange_tokens if t >= 0}
    asteroids = [a for a in range(len(cat.ASTEROIDS)) if a not in shown_orange]
    rng.shuffle(asteroids)
    s.orange_tokens = [asteroids.pop() if t == -2 else t for t in view.orange_tokens]
    s.orange_shown = [t >= 0 for t in view.orange_tokens]
    seen = {t for row in view.blue_tokens for t in row if t >= 0}
    seen |= {space.token for space in view.spaces if space.token >= 0}
    seen |= {t for p in view.players for t in p.tokens}
    by_power: dict[int, list[int]] = {}
    for token, (power, _, _) in enumerate(cat.ALTERATIONS):
        if token not in seen:
            by_power.setdefault(power, []).append(token)
    for pool in by_power.values():
        rng.shuffle(pool)
    s.blue_tokens = []
    s.blue_shown = [False] * (cat.BLUE_MAX + 1)
    s.blue_shown[1] = True
    for level, row in enumerate(view.blue_tokens):
        pool = by_power.get(cat.BLUE_POWER[level], [])
        if not any(t == -2 for t in row):
            s.blue_shown[level + 1] = True
        s.blue_tokens.append([(pool.pop() if pool else 0) if t == -2 else t for t in row])


def _hidden_piles(s: FederationState, view: vw.FederationView, rng: Random) -> None:
    """Deep-space tiles and the law stacks, drawn from what no seat has seen."""
    taken = {t for p in view.players for t in p.deep_space}
    deep = [t for t in range(len(cat.DEEP_SPACE)) if t not in taken]
    rng.shuffle(deep)
    s.deep_space = deep[: view.deep_space_left]
    stacks = []
    for side, size in enumerate(view.law_stacks):
        showing = {view.laws[side], *(view.next_laws[side : side + 1])}
        laws = [law for law in range(5) if law not in showing]
        rng.shuffle(laws)
        while len(laws) < size:  # more left than this round hides: repeat one
            laws.append(rng.randrange(5))
        stacks.append(tuple(laws[:size]))
    s.law_stacks = stacks


def _turns(view: vw.FederationView, first: int) -> list[st.AnyStep]:
    """The turns still to come this round: every ambassador not yet placed, in turn order
    from ``first``."""
    n = len(view.players)
    order = [(view.start_player + i) % n for i in range(n)]
    left = {p: cat.TURNS - sum(view.players[p].ambassadors_used) for p in order}
    start = order.index(first)
    turns: list[st.AnyStep] = []
    while any(left.values()):
        for k in range(n):
            p = order[(start + k) % n]
            if left[p]:
                turns.append(st.Turn(seat=p))
                left[p] -= 1
    return turns


def _queue(view: vw.FederationView, legal: Sequence[CommandBody]) -> list[st.AnyStep]:
    kind, seat = view.pending, view.pending_seat
    n = len(view.players)
    if view.finished or not kind or seat < 0:
        return []
    if kind == "start_pick":
        picks = [(view.start_player + n - 1 - i) % n for i in range(n)]
        rest = [p for p in picks if view.players[p].start_tile < 0 and p != seat]
        return [
            st.ChooseStartTile(seat=seat),
            *[st.ChooseStartTile(seat=p) for p in rest],
            st.BeginRound(round=1),
        ]
    if kind == "turn":
        return [*_turns(view, seat), st.ExecutivePhase(round=view.round)]
    front = _front(kind, seat, view, legal)
    order = [(view.start_player + i) % n for i in range(n)]
    if kind in _EXECUTIVE:
        later = order[order.index(seat) + 1 :]
        tail: list[st.AnyStep] = [st.FundProjects(), st.ScoreRows(), st.CountLawVotes()]
        if kind == "income_choice":
            tail = [
                *[st.CollectIncome(seat=p) for p in later],
                *[st.ChooseUpkeep(seat=p) for p in order],
                *tail,
            ]
        elif kind == "upkeep":
            tail = [*[st.ChooseUpkeep(seat=p) for p in later], *tail]
        else:
            tail = []
        return [front, *tail, st.EndRound(round=view.round)]
    after = [] if kind == "post" else [st.AfterPlacement(seat=seat)]
    nxt = order[(order.index(seat) + 1) % n]
    return [front, *after, *_turns(view, nxt), st.ExecutivePhase(round=view.round)]


def _front(
    kind: str, seat: int, view: vw.FederationView, legal: Sequence[CommandBody]
) -> st.AnyStep:
    """The pending choice at the queue's front, its details read off the legal commands."""
    match kind:
        case "pay":
            alternatives = [
                [c.copp, c.lav, c.ocean, 0, c.diamond] for c in legal if isinstance(c, cmd.Pay)
            ]
            return st.PayCost(seat=seat, alternatives=alternatives or [[0, 0, 0, 0, 0]])
        case "blue_take":
            levels = [c.level for c in legal if isinstance(c, cmd.TakeToken)]
            return st.ChooseToken(seat=seat, level=levels[0] if levels else view.players[seat].blue)
        case "income_choice":
            built = [c.structure for c in legal if isinstance(c, cmd.Income)]
            own = [b for b in view.players[seat].built if b < cat.N_PRODUCTION]
            return st.ChooseIncome(seat=seat, structure=(built or own or [0])[0])
    step: st.AnyStep = _STEPS[kind](seat=seat)  # type: ignore[assignment]
    return step
