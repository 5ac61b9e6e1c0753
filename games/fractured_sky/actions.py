"""``decide``: validate one command and return the events it causes.

Validation is ``check`` alone (``accepts`` wraps it); ``legal_commands`` lists exactly the
candidates ``check`` accepts, so the two cannot drift apart. Events record what was paid.

Rejection codes (besides the shared ``not_your_turn``, ``wrong_phase``, ``game_over``,
``cannot_afford``, ``illegal_command``): ``unknown_seat``, ``already_chosen``,
``bad_amounts``, ``bad_resource``, ``unknown_region``, ``region_taken``, ``chip_used``,
``unknown_platform``, ``supply_exhausted``, ``unknown_card``, ``already_scouted``,
``unknown_objective``, ``objective_revealed``, ``already_peeked``, ``slot_unavailable``,
``no_pending_choice``.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

from contracts.base import CommandBody, EventBody
from contracts.fractured_sky import catalogue as cat
from contracts.fractured_sky import commands as cmd
from contracts.fractured_sky import events as ev
from games.fractured_sky.ai import open_secret, run_automation
from games.fractured_sky.evolve import evolve
from games.fractured_sky.round_end import after_rewards, finish_round
from games.fractured_sky.state import (
    PHASE_FINISHED,
    PHASE_PLAY,
    PHASE_REWARDS,
    PHASE_SCOUT,
    PHASE_SLOT,
    PHASE_START,
    RES_INDEX,
    FsState,
    ai_mode,
    clone,
    unused_chips,
)
from games.fractured_sky.turns import emit, free_slots, next_seat, slot_gold
from games.rejection import (
    CANNOT_AFFORD,
    GAME_OVER,
    ILLEGAL_COMMAND,
    NOT_YOUR_TURN,
    WRONG_PHASE,
    Rejected,
)

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


def can_afford(have: list[int], cost: tuple[int, int, int]) -> bool:
    return have[0] >= cost[0] and have[1] >= cost[1] and have[2] >= cost[2]


def _amounts(gold: int, iron: int, wood: int, total: int) -> tuple[int, int, int]:
    if min(gold, iron, wood) < 0 or gold + iron + wood != total:
        raise Rejected("bad_amounts", f"the amounts must be non-negative and sum to {total}")
    return gold, iron, wood


def _resource(name: str | None) -> int:
    if name not in RES_INDEX:
        raise Rejected("bad_resource", "resource must be gold, iron or wood")
    return RES_INDEX[name]


def _end_turn(state: FsState, seat: int, events: list[EventBody], rng: Random) -> None:
    """Hand the turn on, or end the round when everybody has placed 3 airships."""
    ships = list(state.ships)
    for event in events:
        if isinstance(event, ev.AirshipPlaced):
            ships[event.seat] += 1
    nxt = next_seat(state, seat, ships)
    if 0 <= nxt < state.seats:
        events.append(ev.TurnBegan(seat=nxt))
        return
    sim = clone(state)
    for event in events:
        evolve(sim, event)
    if nxt >= 0:
        emit(sim, events, ev.TurnBegan(seat=nxt))
    else:
        events.extend(finish_round(sim, rng))
    run_automation(sim, events, rng)


# ---------------------------------------------------------------- checks
# Each ``_check_*`` raises the rejection ``decide`` gives; ``check`` (and ``accepts``) is
# the one validation that ``decide`` and ``legal_commands`` share.


def _check_choose_start(state: FsState, c: cmd.ChooseStart, seat: int) -> None:
    if state.started[seat]:
        raise Rejected("already_chosen", "you already chose your starting resources")
    _amounts(c.gold, c.iron, c.wood, cat.STARTING_RESOURCES)


def _check_trade(state: FsState, c: cmd.Trade, seat: int) -> None:
    give = _amounts(c.gold, c.iron, c.wood, cat.TRADE_GIVE_TOTAL)
    _resource(c.get)
    if not can_afford(state.resources[seat], give):
        raise Rejected(CANNOT_AFFORD, "you do not hold the resources you offer")


def _region(state: FsState, region: int) -> None:
    if region not in state.regions:
        raise Rejected("unknown_region", "no such region in this game")


def _check_place_airship(state: FsState, c: cmd.PlaceAirship, seat: int) -> None:
    _region(state, c.region)
    if state.airships[seat][c.region] >= 0:
        raise Rejected("region_taken", "you already have an airship in that region")
    if c.chip not in unused_chips(state, seat):
        raise Rejected("chip_used", "you have no unused power chip of that value")


def _check_choose_slot(state: FsState, c: cmd.ChooseSlot, seat: int) -> None:
    if c.slot not in free_slots(state):
        raise Rejected("slot_unavailable", "that turn slot is taken or not in use")


def _platform(platform: int) -> None:
    if not 0 <= platform < cat.PLATFORM_COUNT:
        raise Rejected("unknown_platform", "no such floating platform")


def building_problem(state: FsState, seat: int, fortress: bool) -> Rejected | None:
    """Why ``seat`` cannot build a fortress (or a market) anywhere now, or None."""
    built = state.fortresses[seat] if fortress else state.markets[seat]
    supply = cat.FORTRESS_SUPPLY if fortress else cat.MARKET_SUPPLY
    if sum(built) >= supply:
        return Rejected("supply_exhausted", "you have no such building left")
    cost = cat.FORTRESS_COST if fortress else cat.MARKET_COST
    if not can_afford(state.resources[seat], cost):
        return Rejected(CANNOT_AFFORD, "you cannot pay for that building")
    return None


def skimmer_problem(state: FsState, seat: int) -> Rejected | None:
    """Why ``seat`` cannot place a skimmer anywhere now, or None."""
    if sum(state.skimmers[seat]) >= cat.SKIMMER_SUPPLY:
        return Rejected("supply_exhausted", "you have no skimmer left")
    if not can_afford(state.resources[seat], cat.SKIMMER_COST):
        return Rejected(CANNOT_AFFORD, "a skimmer costs 1 iron and 1 wood")
    return None


def _check_build(state: FsState, c: cmd.BuildFortress | cmd.BuildMarket, seat: int) -> None:
    _platform(c.platform)
    problem = building_problem(state, seat, isinstance(c, cmd.BuildFortress))
    if problem is not None:
        raise problem


def _check_skimmer(state: FsState, c: cmd.PlaceSkimmer, seat: int) -> None:
    _region(state, c.region)
    problem = skimmer_problem(state, seat)
    if problem is not None:
        raise problem


def scouted_by(state: FsState, seat: int) -> set[int]:
    return {r.card for r in state.scouts if r.seat == seat}


def _check_scout(state: FsState, c: cmd.Scout, seat: int) -> None:
    if not 0 <= c.card < len(state.secret_cards):
        raise Rejected("unknown_card", "no secret stardust card in that position")
    if c.card in scouted_by(state, seat):
        raise Rejected("already_scouted", "you already scouted that card")
    if not can_afford(state.resources[seat], cat.SCOUT_COST):
        raise Rejected(CANNOT_AFFORD, "scouting costs 2 gold")


def _check_scout_take(state: FsState, c: cmd.ScoutTake, seat: int) -> None:
    if c.resource is not None:
        index = _resource(c.resource)
        region = state.secret_cards[state.scouting]
        if cat.RESOURCES[index] not in cat.REGIONS[region].resources:
            raise Rejected("bad_resource", "take a resource shown on the card, or nothing")


def _check_peek(state: FsState, c: cmd.Peek, seat: int) -> None:
    if not 0 <= c.objective < len(state.objectives):
        raise Rejected("unknown_objective", "no objective card in that position")
    if c.objective < state.objectives_revealed:
        raise Rejected("objective_revealed", "that objective is already face up")
    if c.objective in state.peeks[seat]:
        raise Rejected("already_peeked", "you already peeked at that objective")
    pay = _amounts(c.gold, c.iron, c.wood, cat.PEEK_COST_TOTAL)
    if not can_afford(state.resources[seat], pay):
        raise Rejected(CANNOT_AFFORD, "you do not hold the resources you offer")


def _check_choose_resource(state: FsState, c: cmd.ChooseResource, seat: int) -> None:
    mine = [p for p in state.pending if p.seat == seat]
    if not mine:
        raise Rejected("no_pending_choice", "you have no resource to choose")
    if _resource(c.resource) not in mine[0].options:
        raise Rejected("bad_resource", "choose one of the offered resources")


_CHECKS: dict[type[CommandBody], Callable[[FsState, Any, int], None]] = {
    cmd.ChooseStart: _check_choose_start,
    cmd.Trade: _check_trade,
    cmd.PlaceAirship: _check_place_airship,
    cmd.ChooseSlot: _check_choose_slot,
    cmd.BuildFortress: _check_build,
    cmd.BuildMarket: _check_build,
    cmd.PlaceSkimmer: _check_skimmer,
    cmd.Scout: _check_scout,
    cmd.ScoutTake: _check_scout_take,
    cmd.Peek: _check_peek,
    cmd.ChooseResource: _check_choose_resource,
}


def check(state: FsState, command: CommandBody, seat: int) -> None:
    """Raise the :class:`Rejected` that ``decide`` gives for this command, or return.

    The free trade (2 resources for 1) is allowed at any time while the game runs
    (rule choice 12): in every phase, on or off the seat's turn.
    """
    if state.phase == PHASE_FINISHED:
        raise Rejected(GAME_OVER, "the game is over")
    if not 0 <= seat < state.seats:
        raise Rejected("unknown_seat", "no such seat at this table")
    validate = _CHECKS.get(type(command))
    if validate is None:
        raise Rejected(ILLEGAL_COMMAND, "not a Fractured Sky command")
    if not isinstance(command, cmd.Trade):
        if not isinstance(command, PHASE_COMMANDS[state.phase]):
            raise Rejected(WRONG_PHASE, f"that command is not possible now ({state.phase})")
        if state.phase in TURN_PHASES and seat != state.turn:
            raise Rejected(NOT_YOUR_TURN, f"it is seat {state.turn}'s turn")
    validate(state, command, seat)


def accepts(state: FsState, command: CommandBody, seat: int) -> bool:
    """Whether ``decide`` accepts the command (the test ``legal_commands`` applies)."""
    try:
        check(state, command, seat)
    except Rejected:
        return False
    return True


# ---------------------------------------------------------------- events (after check)


def _choose_start(state: FsState, c: cmd.ChooseStart, seat: int, rng: Random) -> list[EventBody]:
    events: list[EventBody] = [ev.StartChosen(seat=seat, gold=c.gold, iron=c.iron, wood=c.wood)]
    if all(state.started[s] or s == seat for s in range(state.seats)):
        events.append(ev.TurnBegan(seat=state.order[0]))
    return events


def _trade(state: FsState, c: cmd.Trade, seat: int, rng: Random) -> list[EventBody]:
    return [ev.Traded(seat=seat, gold=c.gold, iron=c.iron, wood=c.wood, get=c.get)]


def _place_airship(state: FsState, c: cmd.PlaceAirship, seat: int, rng: Random) -> list[EventBody]:
    explorer = state.explorer[c.region] < 0
    events: list[EventBody] = [
        ev.AirshipPlaced(seat=seat, region=c.region, chip=c.chip, explorer=explorer)
    ]
    if explorer and state.secret_deck:
        events.append(ev.ExplorationDrawn(seat=seat, card=state.secret_deck[0]))
    if state.ships[seat] + 1 < cat.AIRSHIPS:
        _end_turn(state, seat, events, rng)
        return events
    free = free_slots(state)
    if len(free) == 1:
        events.append(ev.SlotTaken(seat=seat, slot=free[0], gold=slot_gold(state, free[0])))
        _end_turn(state, seat, events, rng)
    else:
        events.append(ev.SlotPending(seat=seat))
    return events


def _choose_slot(state: FsState, c: cmd.ChooseSlot, seat: int, rng: Random) -> list[EventBody]:
    events: list[EventBody] = [ev.SlotTaken(seat=seat, slot=c.slot, gold=slot_gold(state, c.slot))]
    _end_turn(state, seat, events, rng)
    return events


def _build(
    state: FsState, c: cmd.BuildFortress | cmd.BuildMarket, seat: int, rng: Random
) -> list[EventBody]:
    if isinstance(c, cmd.BuildFortress):
        gold, iron, wood = cat.FORTRESS_COST
        event: EventBody = ev.FortressBuilt(
            seat=seat, platform=c.platform, gold=gold, iron=iron, wood=wood
        )
    else:
        gold, iron, wood = cat.MARKET_COST
        event = ev.MarketBuilt(seat=seat, platform=c.platform, gold=gold, iron=iron, wood=wood)
    events: list[EventBody] = [event]
    _end_turn(state, seat, events, rng)
    return events


def _skimmer(state: FsState, c: cmd.PlaceSkimmer, seat: int, rng: Random) -> list[EventBody]:
    gold, iron, wood = cat.SKIMMER_COST
    events: list[EventBody] = [
        ev.SkimmerPlaced(seat=seat, region=c.region, gold=gold, iron=iron, wood=wood)
    ]
    _end_turn(state, seat, events, rng)
    return events


def _scout(state: FsState, c: cmd.Scout, seat: int, rng: Random) -> list[EventBody]:
    gold, iron, wood = cat.SCOUT_COST
    return [ev.Scouted(seat=seat, card=c.card, gold=gold, iron=iron, wood=wood)]


def _scout_take(state: FsState, c: cmd.ScoutTake, seat: int, rng: Random) -> list[EventBody]:
    card = state.scouting
    events: list[EventBody] = [ev.ScoutFinished(seat=seat, card=card, resource=c.resource)]
    taken = state.secret_taken[card] + (c.resource is not None)
    if (
        ai_mode(state)
        and not state.secret_open[card]
        and c.resource is not None
        and taken >= cat.SCOUT_REVEAL_AT
    ):
        events.append(open_secret(state, card))
    _end_turn(state, seat, events, rng)
    return events


def _peek(state: FsState, c: cmd.Peek, seat: int, rng: Random) -> list[EventBody]:
    events: list[EventBody] = [
        ev.Peeked(seat=seat, objective=c.objective, gold=c.gold, iron=c.iron, wood=c.wood)
    ]
    _end_turn(state, seat, events, rng)
    return events


def _choose_resource(
    state: FsState, c: cmd.ChooseResource, seat: int, rng: Random
) -> list[EventBody]:
    events: list[EventBody] = [ev.ResourceChosen(seat=seat, resource=c.resource)]
    if len(state.pending) == 1:
        sim = clone(state)
        evolve(sim, events[0])
        events.extend(after_rewards(sim, rng))
        run_automation(sim, events, rng)
    return events


_EVENTS: dict[type[CommandBody], Callable[[FsState, Any, int, Random], list[EventBody]]] = {
    cmd.ChooseStart: _choose_start,
    cmd.Trade: _trade,
    cmd.PlaceAirship: _place_airship,
    cmd.ChooseSlot: _choose_slot,
    cmd.BuildFortress: _build,
    cmd.BuildMarket: _build,
    cmd.PlaceSkimmer: _skimmer,
    cmd.Scout: _scout,
    cmd.ScoutTake: _scout_take,
    cmd.Peek: _peek,
    cmd.ChooseResource: _choose_resource,
}


def decide(state: FsState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    check(state, command, seat)
    return _EVENTS[type(command)](state, command, seat, rng)
