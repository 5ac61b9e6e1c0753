"""``determinize``: a full Fractured Sky state consistent with one seat's view.

What the seat sees is copied from its view. What it does not see is drawn from what it
has not seen: the chip values of other players' airships (of each airship's public
chip class, from that player's chips not known to be elsewhere), the secret cards it has
not scouted and the exploration deck (the active regions no visible card shows), other
players' exploration draws (as many as their explorer airships could have drawn), the
objectives it has not peeked (each of its tray slot's icon, from the deck of this table
size), and the automated opponents' hidden action cards and power tokens. A bot plans
on such states; it never reads the real one.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from games.fractured_sky.state import (
    PHASE_FINISHED,
    RES_INDEX,
    FracturedSkyState,
    PendingChoice,
    ScoutRecord,
)
from orrery_contracts.base import CommandBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import views as vw


def determinize(
    view: vw.FracturedSkyView, seat: int, rng: Random, legal: Sequence[CommandBody] = ()
) -> FracturedSkyState:
    """A state consistent with ``seat``'s view (``legal`` unused: the view holds every fact)."""
    del legal
    participants = len(view.players)
    n_regions = cat.REGION_COUNT
    state = FracturedSkyState(
        seats=view.seats,
        participants=participants,
        regions=list(view.regions_active),
        slot_count=view.slot_count,
        phase=PHASE_FINISHED if view.finished else view.phase,
        round=view.round,
        turn=view.turn,
        order=list(view.order),
        next_slots=list(view.next_slots),
        resources=[[p.gold, p.iron, p.wood] for p in view.players],
        started=[p.started for p in view.players],
        stardust=[p.stardust for p in view.players],
        supply=view.stardust_supply,
        board_stardust=[0] * n_regions,
        ships=[cat.AIRSHIPS - p.airships_left for p in view.players],
        airships=[[-1] * n_regions for _ in range(participants)],
        explorer=[-1] * n_regions,
        skimmers=[[0] * n_regions for _ in range(participants)],
        fortresses=[[p.fortresses[s] for p in view.platforms] for s in range(participants)],
        markets=[[p.markets[s] for p in view.platforms] for s in range(participants)],
        public_card=view.public_card,
        scouting=view.scouting,
        objectives_revealed=sum(o.revealed for o in view.objectives),
        peeks=[
            [o.position for o in view.objectives if s in o.peeked_by] for s in range(participants)
        ],
        revealed=view.revealed,
        region_results=list(view.region_results),
        objective_results=list(view.objective_results),
        secret_open=[c.opened for c in view.secret_cards],
        difficulty=view.difficulty or "easy",
        ai_flipped=[list(a.flipped) for a in view.ais],
        ai_out=[list(a.out_tokens) for a in view.ais],
        ai_tally=[a.tally for a in view.ais],
        ai_market_threshold=view.ais[0].threshold if view.ais else 0,
        region_count=n_regions,
        platform_count=cat.PLATFORM_COUNT,
    )
    _board(state, view, seat, rng)
    _secret_cards(state, view, seat, rng)
    _objectives(state, view, rng)
    _pending(state, view, seat)
    _ais(state, view, rng)
    return state


def _board(state: FracturedSkyState, view: vw.FracturedSkyView, seat: int, rng: Random) -> None:
    """Stardust, skimmers and airships. A chip value the seat cannot see (another
    player's before the reveal; every original value after it, the view showing the
    values the over-10 rule left) is drawn from the owner's chips of the airship's class
    that are not accounted for."""
    unknown: dict[int, list[int]] = {}  # participant -> regions whose chip value is drawn
    if view.revealed:
        state.chips_revealed = [[-1] * state.region_count for _ in range(state.participants)]
    for region in view.regions:
        r = region.index
        state.board_stardust[r] = region.stardust
        for s, count in enumerate(region.skimmers):
            state.skimmers[s][r] = count
        for ship in region.airships:
            if ship.explorer:
                state.explorer[r] = ship.seat
            if view.revealed and ship.chip is not None:
                state.chips_revealed[ship.seat][r] = ship.chip
            if ship.chip is not None and not view.revealed:
                state.airships[ship.seat][r] = ship.chip
            else:
                unknown.setdefault(ship.seat, []).append(r)
                state.airships[ship.seat][r] = 0  # a placeholder until drawn
    for s, regions in unknown.items():
        if s >= state.seats:
            continue  # an automated opponent's tokens: drawn with its pool (_ais)
        if s == seat and view.my_chips is not None:
            left = list(cat.CHIPS)
            for value in view.my_chips:
                left.remove(value)
        else:
            left = list(cat.CHIPS)
            for r, value in enumerate(state.airships[s]):
                if value >= 0 and r not in regions:
                    left.remove(value)
        rng.shuffle(left)
        for r in regions:
            white = _ship_class(view, s, r) == cat.CHIP_WHITE
            pick = next(v for v in left if (v in cat.WHITE_CHIPS) == white)
            left.remove(pick)
            state.airships[s][r] = pick


def _ship_class(view: vw.FracturedSkyView, seat: int, region: int) -> str:
    for r in view.regions:
        if r.index == region:
            for ship in r.airships:
                if ship.seat == seat:
                    return ship.chip_class
    raise ValueError(f"no airship of seat {seat} in region {region}")


def _secret_cards(
    state: FracturedSkyState, view: vw.FracturedSkyView, seat: int, rng: Random
) -> None:
    """The tray, the exploration deck and every seat's draws: each active region is one
    card; the cards the seat has not seen are dealt at random to the unknown places."""
    known = [c.region for c in view.secret_cards]
    mine = list(view.my_drawn or [])
    seen = {r for r in known if r is not None} | set(mine)
    unseen = [r for r in view.regions_active if r not in seen]
    rng.shuffle(unseen)
    tray = [r if r is not None else unseen.pop() for r in known]
    state.secret_cards = tray
    state.drawn = [[] for _ in range(state.participants)]
    if 0 <= seat < state.participants:
        state.drawn[seat] = mine
    # another player's explorer airship drew a card while the deck lasted
    deck_size = len(view.regions_active) - len(tray) - len(mine)
    for s in state.explorer:
        if 0 <= s < state.seats and s != seat and deck_size > 0:
            state.drawn[s].append(unseen.pop())
            deck_size -= 1
    state.secret_deck = unseen
    state.secret_taken = [0] * len(tray)
    state.scouts = []
    for position, card in enumerate(view.secret_cards):
        for mark in card.scouts:
            resource = RES_INDEX[mark.resource] if mark.resource is not None else -1
            state.scouts.append(ScoutRecord(seat=mark.seat, card=position, resource=resource))
            if resource >= 0:
                state.secret_taken[position] += 1


def _objectives(state: FracturedSkyState, view: vw.FracturedSkyView, rng: Random) -> None:
    """The objective tray: cards the seat sees kept, the rest drawn by slot icon."""
    shown = {o.card for o in view.objectives if o.card is not None}
    pool = [c for c in cat.objective_deck(state.participants) if c not in shown]
    rng.shuffle(pool)
    tray = []
    for o in view.objectives:
        if o.card is not None:
            tray.append(o.card)
            continue
        pick = next((c for c in pool if cat.OBJECTIVES[c].icon == o.icon), pool[0])
        pool.remove(pick)
        tray.append(pick)
    state.objectives = tray


def _pending(state: FracturedSkyState, view: vw.FracturedSkyView, seat: int) -> None:
    """Pending reward choices: the seat's own from its view; another seat's are the last
    ones the public region results offered it (answers take the oldest first)."""
    pending: list[PendingChoice] = []
    for s, player in enumerate(view.players):
        if s == seat and view.my_choices is not None:
            offered = view.my_choices
        else:
            offered = [c for o in view.region_results for c in o.choices if c.seat == s]
            offered = (
                offered[len(offered) - player.pending_choices :] if player.pending_choices else []
            )
        for c in offered:
            pending.append(
                PendingChoice(
                    seat=s,
                    region=c.region,
                    options=[RES_INDEX[r] for r in c.options],
                    reason=c.reason,
                )
            )
    state.pending = pending


def _ais(state: FracturedSkyState, view: vw.FracturedSkyView, rng: Random) -> None:
    """The automated opponents' action decks (the cards not flipped, shuffled) and their
    face-down power tokens (the tokens neither set aside nor known), some of which are the
    tokens on their airships."""
    state.ai_deck = []
    state.ai_pool = []
    for index, ai in enumerate(view.ais):
        deck = [c.index for c in cat.AI_DECK if c.index not in ai.flipped]
        rng.shuffle(deck)
        state.ai_deck.append(deck[: ai.cards_left])
        participant = state.seats + index
        tokens = [t.index for t in cat.AI_TOKENS if t.index not in ai.out_tokens]
        placed = [r for r, chip in enumerate(state.airships[participant]) if chip >= 0]
        rng.shuffle(tokens)
        for r in placed:  # face down (after the reveal the view shows their faces only)
            state.airships[participant][r] = tokens.pop()
        state.ai_pool.append(tokens)
