"""The mutable SPACEcraft state (flat msgspec Struct, msgpack friendly) and a fast clone."""

from __future__ import annotations

import msgspec

from orrery_contracts.spacecraft.commands import Placement

NO_CARD = -1
OFF_BOARD = -1


class SpacecraftState(msgspec.Struct, kw_only=True):
    variant: str
    players: int
    # junkyard: cell index = y * size + x; pile = junk ids bottom -> top
    size: int = 0
    piles: list[list[int]] = []
    returned: list[int] = []  # junk ids per type returned to the box at setup (2 players)
    pawns: list[int] = []  # cell index or OFF_BOARD
    # workshop
    tokens: list[int] = []  # required junk id per column
    supply: list[int] = []  # per catalogue.SLOTS index
    blueprint: int = 0
    # personal goals
    goal_options: list[list[int]] = []
    goals: list[int] = []  # NO_CARD until chosen
    # basic design cards
    lower: list[int] = []
    upper: list[int] = []
    deck: list[int] = []  # top first (hidden)
    removed_designs: list[int] = []
    # advanced design cards
    adv_cards: list[int] = []
    adv_sides: list[str] = []
    adv_marks: list[list[int]] = []  # seats on each card, left to right
    adv_removed: list[int] = []
    markers_left: list[int] = []
    # players
    boards: list[list[int]] = []  # junk ids on each player board
    beside: list[list[int]] = []  # unused junk beside each board, count per junk id
    paid: list[int] = []  # junk per id paid for parts (out of the game)
    rockets: list[list[Placement]] = []
    fulfilled: list[list[int]] = []
    reserved: list[int] = []
    # flow
    phase: str = "setup"  # setup | goals | play | final | over
    step: str = "action"  # action | build | design
    current: int = 0
    turns: int = 0  # turns begun so far
    builds: int = 0  # parts built this turn
    designs: int = 0  # design cards fulfilled this turn
    reserved_now: bool = False
    marked: bool = False
    arranged: bool = False
    holder: int = -1  # countdown holder (trigger player)
    countdown: int = 4  # cards left in the countdown stack (1 = launch card only)
    final_order: list[int] = []  # seats still to take their final leave
    final_reason: str = ""
    points: list[int] = []
    ranks: list[int] = []


def clone(s: SpacecraftState) -> SpacecraftState:
    """An independent copy (lists copied; Placements are frozen and shared)."""
    return SpacecraftState(
        variant=s.variant,
        players=s.players,
        size=s.size,
        piles=[list(p) for p in s.piles],
        returned=list(s.returned),
        pawns=list(s.pawns),
        tokens=list(s.tokens),
        supply=list(s.supply),
        blueprint=s.blueprint,
        goal_options=[list(g) for g in s.goal_options],
        goals=list(s.goals),
        lower=list(s.lower),
        upper=list(s.upper),
        deck=list(s.deck),
        removed_designs=list(s.removed_designs),
        adv_cards=list(s.adv_cards),
        adv_sides=list(s.adv_sides),
        adv_marks=[list(m) for m in s.adv_marks],
        adv_removed=list(s.adv_removed),
        markers_left=list(s.markers_left),
        boards=[list(b) for b in s.boards],
        beside=[list(b) for b in s.beside],
        paid=list(s.paid),
        rockets=[list(r) for r in s.rockets],
        fulfilled=[list(f) for f in s.fulfilled],
        reserved=list(s.reserved),
        phase=s.phase,
        step=s.step,
        current=s.current,
        turns=s.turns,
        builds=s.builds,
        designs=s.designs,
        reserved_now=s.reserved_now,
        marked=s.marked,
        arranged=s.arranged,
        holder=s.holder,
        countdown=s.countdown,
        final_order=list(s.final_order),
        final_reason=s.final_reason,
        points=list(s.points),
        ranks=list(s.ranks),
    )
