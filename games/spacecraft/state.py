"""The mutable SPACEcraft state: one flat msgspec Struct, msgpack friendly.

Its defaults are empty and read no content data: ``setup.initial_state`` sizes the lists
for the seats, the set-up events fill in the junkyard, the workshop and the cards. A copy
is ``games.clone.clone``.
"""

from __future__ import annotations

import msgspec

from orrery_contracts.spacecraft.commands import Placement

NO_CARD = -1
OFF_BOARD = -1


class SpacecraftState(msgspec.Struct, kw_only=True):
    variant: str
    players: int
    # junkyard: cell index = y * size + x; pile = junk ids bottom -> top. A pile is a
    # tuple, replaced whole when its top tile is taken: a copy of the state shares the
    # piles (a search copies the state once per simulation; the form on the wire and in
    # snapshots is the same array as a list's).
    size: int = 0
    piles: list[tuple[int, ...]] = []
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
