"""view: what one seat (or a spectator, seat None) may know; views: every viewer's at
once (the public parts built once per table). Whose move it is: ``status.py``.

Hidden from the other seats: a seat's goal while goals are chosen, its goal options and
its reserved card (:func:`_own_fields`); everything else is public.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from games.spacecraft import rocket
from games.spacecraft.state import NO_CARD, SpacecraftState
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.views import AdvancedCardView, CellView, SeatView, SpacecraftView


def _own_fields(
    state: SpacecraftState, s: int, viewer: int | None
) -> tuple[int | None, list[int] | None, int | None]:
    """The fields of seat ``s``'s part that depend on who looks: its goal (hidden from
    the others while goals are chosen), its goal options and its reserved card."""
    choosing = state.phase == "goals"
    own = viewer == s
    reserved = state.reserved[s]
    goal = state.goals[s]
    return (
        None if goal == NO_CARD or (choosing and not own) else goal,
        list(state.goal_options[s]) if own and choosing else None,
        reserved if own and reserved != NO_CARD else None,
    )


def _seat_view(state: SpacecraftState, s: int, viewer: int | None) -> SeatView:
    size = state.size
    pawn = state.pawns[s]
    layout = state.rockets[s]
    reserved = state.reserved[s]
    goal, options, own_reserved = _own_fields(state, s, viewer)
    wide, high = rocket.extent(layout)
    return SeatView(
        seat=s,
        pawn=[pawn % size, pawn // size] if pawn >= 0 else None,
        board=[cat.JUNK_NAMES[t] for t in state.boards[s]],
        beside={cat.JUNK_NAMES[t]: n for t, n in enumerate(state.beside[s]) if n},
        rocket=list(layout),
        width=wide,
        height=high,
        fulfilled=list(state.fulfilled[s]),
        has_reserved=reserved != NO_CARD,
        markers_left=state.markers_left[s],
        meets_blueprint=rocket.meets_blueprint(layout, state.blueprint),
        goal=goal,
        goal_options=options,
        reserved=own_reserved,
    )


def view(state: SpacecraftState, seat: int | None) -> SpacecraftView:
    pawn_at = {cell: s for s, cell in enumerate(state.pawns) if cell >= 0}
    junk = cat.JUNK_NAMES
    cells = [
        CellView(height=len(p), top=junk[p[-1]] if p else None, pawn=pawn_at.get(i))
        for i, p in enumerate(state.piles)
    ]
    advanced = [
        AdvancedCardView(
            card=card,
            side=side,
            subject=cat.ADVANCED_BY_ID[card].subject,
            track=list(cat.advanced_track(card, side)),
            markers=list(marks),
        )
        for card, side, marks in zip(state.adv_cards, state.adv_sides, state.adv_marks, strict=True)
    ]
    over = state.phase == "over"
    holder = state.holder if state.holder >= 0 else None
    return SpacecraftView(
        variant=state.variant,
        phase=state.phase,
        step=state.step,
        current=state.current,
        grid_size=state.size,
        junkyard=cells,
        tokens=[junk[t] for t in state.tokens],
        supply=list(state.supply),
        blueprint=state.blueprint,
        lower=list(state.lower),
        upper=list(state.upper),
        deck_size=len(state.deck),
        advanced=advanced,
        countdown_holder=holder,
        countdown_top=cat.COUNTDOWN[4 - state.countdown] if holder is not None else None,
        final_order=list(state.final_order),
        seats=[_seat_view(state, s, seat) for s in range(state.players)],
        builds_this_turn=state.builds,
        designs_this_turn=state.designs,
        points=list(state.points) if over else None,
        ranks=list(state.ranks) if over else None,
    )


def views(state: SpacecraftState, viewers: Sequence[int | None]) -> list[SpacecraftView]:
    """:func:`view` of each viewer, built once: a seat's view is the spectator's with
    its own part's viewer-dependent fields (:func:`_own_fields`) filled in."""
    shared = view(state, None)
    out = []
    for viewer in viewers:
        if viewer is None or not 0 <= viewer < len(shared.seats):
            out.append(shared)  # no part is its own: it sees what a spectator sees
            continue
        seats = list(shared.seats)
        goal, options, reserved = _own_fields(state, viewer, viewer)
        seats[viewer] = msgspec.structs.replace(
            seats[viewer], goal=goal, goal_options=options, reserved=reserved
        )
        out.append(msgspec.structs.replace(shared, seats=seats))
    return out
