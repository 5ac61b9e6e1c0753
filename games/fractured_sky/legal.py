"""Legality: whether a command is accepted and why not (``problem``), and the commands
that are (``legal_commands``).

``problem(state, seat, command)`` is the one check ``decide`` raises: ``gate`` for the
phase and turn, then one predicate per parameter (each ``*_problem`` returns the
rejection, or None).
``legal_commands`` enumerates candidates and keeps those the very same predicates accept
(``gate`` once per kind of command, then each parameter), so no rule is written twice
and the two cannot drift apart. The lists are complete: every (region, chip value)
airship placement, every platform or region for a building, every card, every objective
with every way to pay two resources, and every 2-for-1 trade (at most ~200 commands).

The free trade is legal at any time while the game runs (RULES.md, rule choice 12), so
it is listed for every seat the moment it holds two resources, also for seats that are
not to move. ``status().to_move`` never counts trades: a seat is "to move" only for its required
action, and as every trade lowers the seat's resources by one, random legal play (bots,
the zombie moves of seats that left) still reaches the end.

The rejection codes are written where they are raised, here; each names one situation in
every game (RULES.md lists this game's, ``games/README.md`` every code's situation).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from games.fractured_sky.state import (
    PHASE_FINISHED,
    PHASE_PLAY,
    PHASE_REWARDS,
    PHASE_SCOUT,
    PHASE_SLOT,
    PHASE_START,
    RES_INDEX,
    FracturedSkyState,
    unused_chips,
)
from games.fractured_sky.turns import free_slots
from games.rejection import (
    ALREADY_CHOSEN,
    BAD_RESOURCE,
    CANNOT_AFFORD,
    GAME_OVER,
    ILLEGAL_COMMAND,
    NOT_AN_OPTION,
    NOT_YOUR_TURN,
    SUPPLY_EXHAUSTED,
    WRONG_PHASE,
    Rejected,
)
from orrery_contracts.base import CommandBody
from orrery_contracts.fractured_sky import COMMAND_TYPES
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import commands as cmd

ACTIONS = (
    cmd.PlaceAirship,
    cmd.BuildFortress,
    cmd.BuildMarket,
    cmd.PlaceSkimmer,
    cmd.Scout,
    cmd.Peek,
)
PHASE_COMMANDS: dict[str, tuple[type[CommandBody], ...]] = {
    PHASE_START: (cmd.ChooseStart,),
    PHASE_PLAY: ACTIONS,
    PHASE_SCOUT: (cmd.ScoutTake,),
    PHASE_SLOT: (cmd.ChooseSlot,),
    PHASE_REWARDS: (cmd.ChooseResource,),
}
TURN_PHASES = (PHASE_PLAY, PHASE_SCOUT, PHASE_SLOT)
_TURN_COMMANDS = {phase: PHASE_COMMANDS[phase] for phase in TURN_PHASES}
_COMMAND_TYPES = frozenset(COMMAND_TYPES)


def can_afford(have: Sequence[int], cost: tuple[int, int, int]) -> bool:
    return have[0] >= cost[0] and have[1] >= cost[1] and have[2] >= cost[2]


# ---------------------------------------------------------------- the predicates


def gate(state: FracturedSkyState, seat: int, kind: type[CommandBody]) -> Rejected | None:
    """Whether ``seat`` may send a command of this kind now at all (phase and turn). In
    every game the same order: the game is over, the seat has no player, not this game's
    command, then the phase and the turn.

    The free trade (2 resources for 1) is allowed at any time while the game runs
    (RULES.md, rule choice 12): in every phase, on or off the seat's turn.
    """
    phase = state.phase
    # the usual cases, accepted at once (the checks below find nothing to refuse in
    # them): a command of the phase from the seat whose turn it is, or a trade
    if 0 <= seat < state.seats:
        if seat == state.turn and kind in _TURN_COMMANDS.get(phase, ()):
            return None
        if kind is cmd.Trade and phase != PHASE_FINISHED:
            return None
    if phase == PHASE_FINISHED:
        return Rejected(GAME_OVER, "the game is over")
    if not 0 <= seat < state.seats:
        return Rejected(NOT_YOUR_TURN, "no such seat at this table")
    if kind not in _COMMAND_TYPES:
        return not_fractured_sky()
    if kind is cmd.Trade:
        return None
    if kind not in PHASE_COMMANDS[state.phase]:
        return Rejected(WRONG_PHASE, f"that command is not possible now ({state.phase})")
    if state.phase in TURN_PHASES and seat != state.turn:
        return Rejected(NOT_YOUR_TURN, f"it is seat {state.turn}'s turn")
    return None


def not_fractured_sky() -> Rejected:
    return Rejected(ILLEGAL_COMMAND, "not a Fractured Sky command")


def amounts_problem(gold: int, iron: int, wood: int, total: int) -> Rejected | None:
    if min(gold, iron, wood) < 0 or gold + iron + wood != total:
        return Rejected("bad_amounts", f"the amounts must be non-negative and sum to {total}")
    return None


def resource_problem(name: str | None) -> Rejected | None:
    if name not in RES_INDEX:
        return Rejected(BAD_RESOURCE, "resource must be gold, iron or wood")
    return None


def start_problem(
    state: FracturedSkyState, seat: int, gold: int, iron: int, wood: int
) -> Rejected | None:
    if state.started[seat]:
        return Rejected(ALREADY_CHOSEN, "you already chose your starting resources")
    return amounts_problem(gold, iron, wood, cat.STARTING_RESOURCES)


def offer_problem(
    state: FracturedSkyState, seat: int, gold: int, iron: int, wood: int
) -> Rejected | None:
    """Paying 2 resources of your choice (a trade's offer, a peek's cost)."""
    return held_problem(state.resources[seat], gold, iron, wood)


def held_problem(held: Sequence[int], gold: int, iron: int, wood: int) -> Rejected | None:
    """An offer of resources from ``held`` (the offering seat's gold, iron, wood)."""
    if not can_afford(held, (gold, iron, wood)):
        return Rejected(CANNOT_AFFORD, "you do not hold the resources you offer")
    return None


def pointless_problem(gold: int, iron: int, wood: int, get: str) -> Rejected | None:
    """A trade that pays with the resource it asks for ("2 wood for 1 wood", "1 gold and
    1 wood for 1 gold") only returns part of what was paid: no player would make it, so
    it is refused and never listed (rule choice: the rule text allows any 2 for any 1)."""
    if (gold, iron, wood)[RES_INDEX[get]] > 0:
        return Rejected(
            "pointless_trade", f"that trade pays {get} for {get}: it only gives back what you pay"
        )
    return None


def trade_problem(state: FracturedSkyState, seat: int, c: cmd.Trade) -> Rejected | None:
    if c in SOUND_TRADES:  # the checks that read no state passed: only the holding left
        return held_problem(state.resources[seat], c.gold, c.iron, c.wood)
    return (
        amounts_problem(c.gold, c.iron, c.wood, cat.TRADE_GIVE_TOTAL)
        or resource_problem(c.get)
        or pointless_problem(c.gold, c.iron, c.wood, c.get)
        or offer_problem(state, seat, c.gold, c.iron, c.wood)
    )


# Every trade whose amounts, resource and sense are right (what trade_problem's checks
# that read no state accept): a set of values, asked by one lookup.
_GIVE = cat.TRADE_GIVE_TOTAL
SOUND_TRADES = frozenset(
    cmd.Trade(gold=g, iron=i, wood=_GIVE - g - i, get=r)  # type: ignore[arg-type]
    for g in range(_GIVE + 1)
    for i in range(_GIVE + 1 - g)
    for r in cat.RESOURCES
    if not pointless_problem(g, i, _GIVE - g - i, r)
)


def region_problem(state: FracturedSkyState, region: int) -> Rejected | None:
    if region not in state.regions:
        return Rejected("unknown_region", "no such region in this game")
    return None


CHIP_COPIES: dict[int, int] = {c: cat.CHIPS.count(c) for c in cat.CHIPS}  # per chip value


def airship_problem(state: FracturedSkyState, seat: int, region: int, chip: int) -> Rejected | None:
    """A placement's region (in play, without the seat's airship), then its chip."""
    if region not in state.regions:
        return region_problem(state, region)
    row = state.airships[seat]
    if row[region] >= 0:
        return Rejected("region_taken", "you already have an airship in that region")
    # ``chip not in unused_chips(...)`` without the list: every copy of the value placed
    if CHIP_COPIES.get(chip, 0) <= row.count(chip):
        return Rejected("chip_used", "you have no unused power chip of that value")
    return None


def slot_problem(state: FracturedSkyState, slot: int) -> Rejected | None:
    if type(slot) is int:  # ``slot in free_slots(state)``, without the list
        free = 1 <= slot <= state.participants and state.next_slots[slot - 1] < 0
    else:
        free = slot in free_slots(state)
    if not free:
        return Rejected("slot_unavailable", "that turn slot is taken or not in use")
    return None


def platform_problem(platform: int) -> Rejected | None:
    if not 0 <= platform < cat.PLATFORM_COUNT:
        return Rejected("unknown_platform", "no such floating platform")
    return None


def building_problem(state: FracturedSkyState, seat: int, fortress: bool) -> Rejected | None:
    """Why ``seat`` cannot build a fortress (or a market) anywhere now, or None."""
    short = _building_short(state, seat, fortress)
    if short is _SUPPLY:
        return Rejected(SUPPLY_EXHAUSTED, "you have no such building left")
    if short is _PAY:
        return Rejected(CANNOT_AFFORD, "you cannot pay for that building")
    return None


def skimmer_problem(state: FracturedSkyState, seat: int) -> Rejected | None:
    """Why ``seat`` cannot place a skimmer anywhere now, or None."""
    short = _skimmer_short(state, seat)
    if short is _SUPPLY:
        return Rejected(SUPPLY_EXHAUSTED, "you have no skimmer left")
    if short is _PAY:
        return Rejected(CANNOT_AFFORD, "a skimmer costs 1 iron and 1 wood")
    return None


# What a building or a skimmer lacks (the listing asks this, and makes no refusal only
# to throw it away; the predicates above turn it into the refusal).
_SUPPLY = "supply"
_PAY = "pay"


def _building_short(state: FracturedSkyState, seat: int, fortress: bool) -> str | None:
    built = state.fortresses[seat] if fortress else state.markets[seat]
    if sum(built) >= (cat.FORTRESS_SUPPLY if fortress else cat.MARKET_SUPPLY):
        return _SUPPLY
    if not can_afford(state.resources[seat], cat.FORTRESS_COST if fortress else cat.MARKET_COST):
        return _PAY
    return None


def _skimmer_short(state: FracturedSkyState, seat: int) -> str | None:
    if sum(state.skimmers[seat]) >= cat.SKIMMER_SUPPLY:
        return _SUPPLY
    if not can_afford(state.resources[seat], cat.SKIMMER_COST):
        return _PAY
    return None


def scouted_by(state: FracturedSkyState, seat: int) -> set[int]:
    return {r.card for r in state.scouts if r.seat == seat}


def scout_problem(state: FracturedSkyState, seat: int, card: int) -> Rejected | None:
    if not 0 <= card < len(state.secret_cards):
        return Rejected("unknown_card", "no secret stardust card in that position")
    if card in scouted_by(state, seat):
        return Rejected("already_scouted", "you already scouted that card")
    if not can_afford(state.resources[seat], cat.SCOUT_COST):
        return Rejected(CANNOT_AFFORD, "scouting costs 2 gold")
    return None


def scout_take_problem(state: FracturedSkyState, resource: str | None) -> Rejected | None:
    if resource is None:
        return None
    problem = resource_problem(resource)
    region = cat.REGIONS[state.secret_cards[state.scouting]]
    if problem is None and resource not in region.resources:
        return Rejected(NOT_AN_OPTION, "take a resource shown on the card, or nothing")
    return problem


def objective_problem(state: FracturedSkyState, seat: int, objective: int) -> Rejected | None:
    if not 0 <= objective < len(state.objectives):
        return Rejected("unknown_objective", "no objective card in that position")
    if objective < state.objectives_revealed:
        return Rejected("objective_revealed", "that objective is already face up")
    if objective in state.peeks[seat]:
        return Rejected("already_peeked", "you already peeked at that objective")
    return None


def peek_pay_problem(
    state: FracturedSkyState, seat: int, gold: int, iron: int, wood: int
) -> Rejected | None:
    return amounts_problem(gold, iron, wood, cat.PEEK_COST_TOTAL) or offer_problem(
        state, seat, gold, iron, wood
    )


def choice_problem(state: FracturedSkyState, seat: int, resource: str) -> Rejected | None:
    for first in state.pending:  # the seat's first pending choice
        if first.seat == seat:
            break
    else:
        return Rejected("no_pending_choice", "you have no resource to choose")
    problem = resource_problem(resource)
    if problem is None and RES_INDEX[resource] not in first.options:
        return Rejected(NOT_AN_OPTION, "choose one of the offered resources")
    return problem


def problem(state: FracturedSkyState, seat: int, command: CommandBody) -> Rejected | None:
    """The rejection ``decide`` gives for this command, or None when it is accepted."""
    kind = type(command)
    if not (
        0 <= seat < state.seats
        and (
            (seat == state.turn and kind in _TURN_COMMANDS.get(state.phase, ()))
            or (kind is cmd.Trade and state.phase != PHASE_FINISHED)
        )
    ):  # not one of ``gate``'s usual cases, which it accepts at once: asked without the call
        found = gate(state, seat, kind)
        if found is not None:
            return found
    # A ``match`` on ``type(command)`` with dotted value patterns: a case that misses is
    # one compare of two classes (a class pattern is an ``isinstance`` through msgspec's
    # metaclass, several times dearer); ``c`` is ``Any`` because mypy does
    # not narrow ``command`` from ``type(command)``. The most frequent commands first.
    c: Any = command
    match kind:
        case cmd.PlaceAirship:
            return airship_problem(state, seat, c.region, c.chip)
        case cmd.Trade:
            return trade_problem(state, seat, c)
        case cmd.ChooseSlot:
            return slot_problem(state, c.slot)
        case cmd.Peek:
            return objective_problem(state, seat, c.objective) or peek_pay_problem(
                state, seat, c.gold, c.iron, c.wood
            )
        case cmd.ChooseStart:
            return start_problem(state, seat, c.gold, c.iron, c.wood)
        case cmd.ChooseResource:
            return choice_problem(state, seat, c.resource)
        case cmd.PlaceSkimmer:
            return region_problem(state, c.region) or skimmer_problem(state, seat)
        case cmd.BuildMarket:
            return platform_problem(c.platform) or building_problem(state, seat, fortress=False)
        case cmd.Scout:
            return scout_problem(state, seat, c.card)
        case cmd.ScoutTake:
            return scout_take_problem(state, c.resource)
        case cmd.BuildFortress:
            return platform_problem(c.platform) or building_problem(state, seat, fortress=True)
        case _:  # ``gate`` refuses other commands first
            return not_fractured_sky()


# ---------------------------------------------------------------- the listing


_PAIRS: tuple[tuple[int, int, int], ...] = tuple(
    (g, i, 2 - g - i) for g in range(3) for i in range(3 - g)
)
_FOURS: tuple[tuple[int, int, int], ...] = tuple(
    (g, i, 4 - g - i) for g in range(5) for i in range(5 - g)
)
_CHIP_VALUES = sorted(set(cat.CHIPS))


def _open(state: FracturedSkyState, seat: int, kind: type[CommandBody]) -> bool:
    return gate(state, seat, kind) is None


# The commands the play phase lists are few values, frozen: each is made once and the
# listing hands out the same objects (an ``extend`` of a slice, not a command made per
# entry; random play and a search list them at every step).
_PLACE_AIRSHIP = tuple(
    tuple(cmd.PlaceAirship(region=r, chip=c) for c in _CHIP_VALUES) for r in range(cat.REGION_COUNT)
)
_BUILD_FORTRESS = tuple(cmd.BuildFortress(platform=p) for p in range(cat.PLATFORM_COUNT))
_BUILD_MARKET = tuple(cmd.BuildMarket(platform=p) for p in range(cat.PLATFORM_COUNT))
_PLACE_SKIMMER = tuple(cmd.PlaceSkimmer(region=r) for r in range(cat.REGION_COUNT))
_PEEKS: dict[tuple[int, int, int, int], cmd.Peek] = {}


_CHOOSE_SLOT: dict[int, cmd.ChooseSlot] = {}


def _choose_slot(slot: int) -> cmd.ChooseSlot:
    found = _CHOOSE_SLOT.get(slot)
    if found is None:
        found = _CHOOSE_SLOT[slot] = cmd.ChooseSlot(slot=slot)
    return found


def _peek(objective: int, gold: int, iron: int, wood: int) -> cmd.Peek:
    key = (objective, gold, iron, wood)
    found = _PEEKS.get(key)
    if found is None:
        found = _PEEKS[key] = cmd.Peek(objective=objective, gold=gold, iron=iron, wood=wood)
    return found


def _actions(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    """The play phase's actions. Each candidate is kept when its predicates accept it;
    a cheap look first skips what they would refuse anyway (a region not in play or
    holding the seat's airship, every card when scouting is unaffordable), so refusals
    are not made only to be thrown away; where the look is the predicate's whole test
    (a region in play and free of the seat's airship, a platform of the board, a card
    not yet scouted by the seat, an objective face down and not yet peeked by it), the
    predicate is not asked again."""
    out: list[CommandBody] = []
    if not _open(state, seat, cmd.PlaceAirship):  # the same gate for every action
        return out
    ordered, skimmers = _board(tuple(state.regions))
    ships = state.airships[seat]
    # airship_problem's chip test, asked of the seat's unused chips once
    placements = _placements(tuple(unused_chips(state, seat)))
    for r in ordered:
        if ships[r] < 0:
            out.extend(placements[r])
    if _building_short(state, seat, True) is None:  # building_problem, without a refusal
        out.extend(_BUILD_FORTRESS)
    if _building_short(state, seat, False) is None:
        out.extend(_BUILD_MARKET)
    if _skimmer_short(state, seat) is None:  # skimmer_problem, without a refusal
        out.extend(skimmers)
    held = state.resources[seat]
    if can_afford(held, cat.SCOUT_COST):
        scouts = _scouts(len(state.secret_cards))
        if state.scouts:  # a card the seat scouted this round is not offered again
            scouted = scouted_by(state, seat)
            out.extend([c for c in scouts if c.card not in scouted])
        else:
            out.extend(scouts)
    holding = tuple(held)
    if _peek_pays(holding):
        peeked = state.peeks[seat]
        for objective in range(state.objectives_revealed, len(state.objectives)):
            if objective not in peeked:
                out.extend(_peek_offers(holding, objective))
    return out


@lru_cache(maxsize=16)
def _scouts(cards: int) -> tuple[cmd.Scout, ...]:
    """A scout of each of ``cards`` secret cards, in tray order: made once per tray size."""
    return tuple(cmd.Scout(card=c) for c in range(cards))


@lru_cache(maxsize=64)
def _board(regions: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[CommandBody, ...]]:
    """The regions in play in index order, and the skimmer placements there: made once
    per board."""
    active = set(regions)
    ordered = tuple(r for r in range(cat.REGION_COUNT) if r in active)
    return ordered, tuple(_PLACE_SKIMMER[r] for r in ordered)


@lru_cache(maxsize=1024)
def _peek_offers(held: tuple[int, ...], objective: int) -> tuple[CommandBody, ...]:
    """The peeks at ``objective`` a seat holding ``held`` may offer: made once per
    holding and objective."""
    return tuple(_peek(objective, g, i, w) for g, i, w in _peek_pays(held))


@lru_cache(maxsize=256)
def _placements(unused: tuple[int, ...]) -> tuple[tuple[CommandBody, ...], ...]:
    """Per region, the airship placements of the chip values in ``unused`` (a seat's
    unused chips), in the order of the values: made once per set of unused chips."""
    chips = [i for i, c in enumerate(_CHIP_VALUES) if c in unused]
    return tuple(tuple(row[i] for i in chips) for row in _PLACE_AIRSHIP)


@lru_cache(maxsize=256)
def _peek_pays(held: tuple[int, ...]) -> tuple[tuple[int, int, int], ...]:
    """The payments of a peek a seat holding ``held`` may offer (``peek_pay_problem``'s
    predicates, which read nothing else: asked once per holding)."""
    return tuple(
        (g, i, w)
        for g, i, w in _PAIRS
        if not amounts_problem(g, i, w, cat.PEEK_COST_TOTAL) and not held_problem(held, g, i, w)
    )


def _starts(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    if not _open(state, seat, cmd.ChooseStart):
        return []
    return [
        cmd.ChooseStart(gold=g, iron=i, wood=w)
        for g, i, w in _FOURS
        if not start_problem(state, seat, g, i, w)
    ]


def _choices(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    if not _open(state, seat, cmd.ChooseResource):
        return []
    return [
        cmd.ChooseResource(resource=r)  # type: ignore[arg-type]
        for r in cat.RESOURCES
        if not choice_problem(state, seat, r)
    ]


def _takes(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    if not _open(state, seat, cmd.ScoutTake):
        return []
    takes: list[str | None] = [None, *cat.RESOURCES]
    return [
        cmd.ScoutTake(resource=r)  # type: ignore[arg-type]
        for r in takes
        if not scout_take_problem(state, r)
    ]


def _slots(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    if not _open(state, seat, cmd.ChooseSlot):
        return []
    # slot_problem's whole test is the free slots: asked once, not once per slot
    free = free_slots(state)
    return [_choose_slot(s) for s in range(1, state.slot_count + 1) if s in free]


# the listing of each phase's required action, by its first command kind
_LISTINGS = {
    cmd.ChooseStart: _starts,
    cmd.ChooseResource: _choices,
    cmd.ScoutTake: _takes,
    cmd.ChooseSlot: _slots,
    ACTIONS[0]: _actions,
}


def _required(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    """The seat's required action in this phase (not the trades): only the listing of
    the phase's own commands is asked (``gate`` refuses every other kind by phase, and
    each listing still asks ``gate`` first)."""
    kinds = PHASE_COMMANDS.get(state.phase)
    return _LISTINGS[kinds[0]](state, seat) if kinds else []


@lru_cache(maxsize=256)
def _trades(held: tuple[int, ...]) -> tuple[CommandBody, ...]:
    """Every trade a seat holding ``held`` (gold, iron, wood) may offer, at any time
    while the game runs: ``trade_problem``'s predicates depend on nothing else, so the
    list is made once per holding."""
    gives = [
        (g, i, w)
        for g, i, w in _PAIRS
        if not amounts_problem(g, i, w, cat.TRADE_GIVE_TOTAL) and not held_problem(held, g, i, w)
    ]
    gets = [r for r in cat.RESOURCES if not resource_problem(r)]
    return tuple(
        cmd.Trade(gold=g, iron=i, wood=w, get=r)  # type: ignore[arg-type]
        for g, i, w in gives
        for r in gets
        if not pointless_problem(g, i, w, r)
    )


def legal_commands(state: FracturedSkyState, seat: int) -> list[CommandBody]:
    if not _open(state, seat, cmd.Trade):  # game over, or not a seat of a person
        return []
    out = _required(state, seat)
    if sum(state.resources[seat]) >= cat.TRADE_GIVE_TOTAL:  # else no offer is possible
        out.extend(_trades(tuple(state.resources[seat])))
    return out
