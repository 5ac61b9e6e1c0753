"""``determinize``: a full SPACEcraft state consistent with one seat's view.

What the seat sees is copied from its view. What it does not see is drawn from what it
has not seen: the tiles under the top of each junkyard pile (from the tiles no board,
pile top or player shows; the view does not say which tiles were paid for parts, so
those stay among the candidates), the order of the design deck (each level's unseen
cards, the deck holding the last cards of the level-ordered deal), the card another
player reserved, and, while goals are chosen, the other players' goal options. The
per-turn flags the view does not carry (a card reserved or a marker placed this turn,
a rocket rearranged this turn) are taken as not done.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from games.spacecraft.state import NO_CARD, OFF_BOARD, SpacecraftState
from orrery_contracts.base import CommandBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft import views as vw

_JUNK = {name: i for i, name in enumerate(cat.JUNK_NAMES)}


def determinize(
    view: vw.SpacecraftView, seat: int, rng: Random, legal: Sequence[CommandBody] = ()
) -> SpacecraftState:
    """A state consistent with ``seat``'s view (``legal`` unused: the view holds every fact)."""
    del legal
    players = len(view.seats)
    size = view.grid_size
    over = view.phase == "over"
    state = SpacecraftState(
        variant=view.variant,
        players=players,
        size=size,
        returned=[1 if players == 2 else 0] * cat.N_JUNK,
        pawns=[p.pawn[1] * size + p.pawn[0] if p.pawn else OFF_BOARD for p in view.seats],
        tokens=[_JUNK[t] for t in view.tokens],
        supply=list(view.supply),
        blueprint=view.blueprint,
        goals=[p.goal if p.goal is not None else NO_CARD for p in view.seats],
        lower=list(view.lower),
        upper=list(view.upper),
        adv_cards=[a.card for a in view.advanced],
        adv_sides=[a.side for a in view.advanced],
        adv_marks=[list(a.markers) for a in view.advanced],
        markers_left=[p.markers_left for p in view.seats],
        boards=[[_JUNK[t] for t in p.board] for p in view.seats],
        beside=[[p.beside.get(name, 0) for name in cat.JUNK_NAMES] for p in view.seats],
        paid=[0] * cat.N_JUNK,
        rockets=[list(p.rocket) for p in view.seats],
        fulfilled=[list(p.fulfilled) for p in view.seats],
        reserved=[p.reserved if p.reserved is not None else NO_CARD for p in view.seats],
        phase=view.phase,
        step=view.step,
        current=view.current,
        turns=players,
        builds=view.builds_this_turn,
        designs=view.designs_this_turn,
        holder=view.countdown_holder if view.countdown_holder is not None else -1,
        countdown=_countdown(view.countdown_top),
        final_order=list(view.final_order),
        points=list(view.points) if over and view.points is not None else [],
        ranks=list(view.ranks) if over and view.ranks is not None else [],
    )
    _junkyard(state, view, rng)
    _goals(state, view, seat, rng)
    if view.variant != "advanced":
        _designs(state, view, seat, rng)
    return state


def _countdown(top: int | None) -> int:
    """Cards left in the countdown stack from the number showing on it."""
    return 4 if top is None else 4 - cat.COUNTDOWN.index(top)


def _junkyard(state: SpacecraftState, view: vw.SpacecraftView, rng: Random) -> None:
    """Each pile's top as seen; the tiles under it drawn from the unseen tiles."""
    unseen = [t for t, n in enumerate(cat.JUNK_COUNT) for _ in range(n - state.returned[t])]
    seen = [_JUNK[c.top] for c in view.junkyard if c.top is not None]
    for s in range(state.players):
        seen += state.boards[s]
        seen += [t for t, n in enumerate(state.beside[s]) for _ in range(n)]
    for t in seen:
        unseen.remove(t)
    rng.shuffle(unseen)
    piles = []
    for cell in view.junkyard:
        pile = [unseen.pop() for _ in range(cell.height - 1)] if cell.height else []
        if cell.top is not None:
            pile.append(_JUNK[cell.top])
        piles.append(tuple(pile))
    state.piles = piles
    for t in unseen:  # the rest left the game (paid for parts) as far as the seat knows
        state.paid[t] += 1


def _goals(state: SpacecraftState, view: vw.SpacecraftView, seat: int, rng: Random) -> None:
    """Goal options: the seat's own while choosing; another seat's drawn from the goals
    neither dealt to the seat nor shown."""
    state.goal_options = [[] for _ in range(state.players)]
    if view.phase != "goals":
        return
    mine = view.seats[seat].goal_options or [] if 0 <= seat < state.players else []
    shown = {g for g in state.goals if g != NO_CARD}
    pool = [g.id for g in cat.GOALS if g.id not in mine and g.id not in shown]
    rng.shuffle(pool)
    for s in range(state.players):
        if s == seat:
            state.goal_options[s] = list(mine)
        elif state.goals[s] == NO_CARD:
            state.goal_options[s] = sorted(pool.pop() for _ in range(cat.GOALS_DEALT))
        else:
            state.goal_options[s] = [state.goals[s]]


def _designs(state: SpacecraftState, view: vw.SpacecraftView, seat: int, rng: Random) -> None:
    """The design deck (the last ``deck_size`` cards of the level 1, 2, 3 deal, each
    level's part drawn from that level's unseen cards), other players' reserved cards and
    the cards removed at setup."""
    seen = {c for c in view.lower + view.upper if c != NO_CARD}
    for p in view.seats:
        seen.update(p.fulfilled)
        if p.reserved is not None:
            seen.add(p.reserved)
    unseen = {
        level: [c.id for c in cat.DESIGN_CARDS if c.deck == level and c.id not in seen]
        for level in (1, 2, 3)
    }
    for cards in unseen.values():
        rng.shuffle(cards)
    removals = cat.DECK_REMOVALS[state.players]
    left = view.deck_size
    deck: list[int] = []
    for level in (3, 2, 1):  # the deck's bottom is level 3
        in_deck = min(left, sum(c.deck == level for c in cat.DESIGN_CARDS) - removals)
        in_deck = min(in_deck, len(unseen[level]))
        deck = unseen[level][:in_deck] + deck
        del unseen[level][:in_deck]
        left -= in_deck
    state.deck = deck
    rest = [c for level in (1, 2, 3) for c in unseen[level]]
    rng.shuffle(rest)
    for s, p in enumerate(view.seats):
        if p.has_reserved and p.reserved is None and s != seat and rest:
            state.reserved[s] = rest.pop()
    state.removed_designs = sorted(rest)
