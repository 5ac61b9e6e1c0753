"""``decide``: validate one command and return the events it causes.

Validation is ``problem`` alone (``check`` raises what it finds); ``legal_commands`` asks
the same predicates, so the two cannot drift apart. Events record what was paid.

Rejection codes (besides the shared ``not_your_turn``, ``wrong_phase``, ``game_over``,
``cannot_afford``, ``illegal_command``): ``unknown_seat``, ``already_chosen``,
``bad_amounts``, ``bad_resource``, ``unknown_region``, ``region_taken``, ``chip_used``,
``unknown_platform``, ``supply_exhausted``, ``unknown_card``, ``already_scouted``,
``unknown_objective``, ``objective_revealed``, ``already_peeked``, ``slot_unavailable``,
``no_pending_choice``, ``pointless_trade``.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

from games.clone import clone
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
    FracturedSkyState,
    ai_mode,
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
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import commands as cmd
from orrery_contracts.fractured_sky import events as ev

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


def _end_turn(state: FracturedSkyState, seat: int, events: list[EventBody], rng: Random) -> None:
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
# Each ``*_problem`` returns the rejection ``decide`` gives, or None. ``check`` combines
# them for one command; ``legal_commands`` asks the very same predicates (``gate`` once
# per kind of command, then each parameter), so the two cannot drift apart.


def gate(state: FracturedSkyState, seat: int, kind: type[CommandBody]) -> Rejected | None:
    """Whether ``seat`` may send a command of this kind now at all (phase and turn).

    The free trade (2 resources for 1) is allowed at any time while the game runs
    (rule choice 12): in every phase, on or off the seat's turn.
    """
    if state.phase == PHASE_FINISHED:
        return Rejected(GAME_OVER, "the game is over")
    if not 0 <= seat < state.seats:
        return Rejected("unknown_seat", "no such seat at this table")
    if kind not in _CHECKS:
        return Rejected(ILLEGAL_COMMAND, "not a Fractured Sky command")
    if kind is cmd.Trade:
        return None
    if kind not in PHASE_COMMANDS[state.phase]:
        return Rejected(WRONG_PHASE, f"that command is not possible now ({state.phase})")
    if state.phase in TURN_PHASES and seat != state.turn:
        return Rejected(NOT_YOUR_TURN, f"it is seat {state.turn}'s turn")
    return None


def amounts_problem(gold: int, iron: int, wood: int, total: int) -> Rejected | None:
    if min(gold, iron, wood) < 0 or gold + iron + wood != total:
        return Rejected("bad_amounts", f"the amounts must be non-negative and sum to {total}")
    return None


def resource_problem(name: str | None) -> Rejected | None:
    if name not in RES_INDEX:
        return Rejected("bad_resource", "resource must be gold, iron or wood")
    return None


def start_problem(
    state: FracturedSkyState, seat: int, gold: int, iron: int, wood: int
) -> Rejected | None:
    if state.started[seat]:
        return Rejected("already_chosen", "you already chose your starting resources")
    return amounts_problem(gold, iron, wood, cat.STARTING_RESOURCES)


def offer_problem(
    state: FracturedSkyState, seat: int, gold: int, iron: int, wood: int
) -> Rejected | None:
    """Paying 2 resources of your choice (a trade's offer, a peek's cost)."""
    if not can_afford(state.resources[seat], (gold, iron, wood)):
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
    return (
        amounts_problem(c.gold, c.iron, c.wood, cat.TRADE_GIVE_TOTAL)
        or resource_problem(c.get)
        or pointless_problem(c.gold, c.iron, c.wood, c.get)
        or offer_problem(state, seat, c.gold, c.iron, c.wood)
    )


def region_problem(state: FracturedSkyState, region: int) -> Rejected | None:
    if region not in state.regions:
        return Rejected("unknown_region", "no such region in this game")
    return None


def airship_region_problem(state: FracturedSkyState, seat: int, region: int) -> Rejected | None:
    problem = region_problem(state, region)
    if problem is None and state.airships[seat][region] >= 0:
        return Rejected("region_taken", "you already have an airship in that region")
    return problem


def chip_problem(state: FracturedSkyState, seat: int, chip: int) -> Rejected | None:
    if chip not in unused_chips(state, seat):
        return Rejected("chip_used", "you have no unused power chip of that value")
    return None


def slot_problem(state: FracturedSkyState, slot: int) -> Rejected | None:
    if slot not in free_slots(state):
        return Rejected("slot_unavailable", "that turn slot is taken or not in use")
    return None


def platform_problem(platform: int) -> Rejected | None:
    if not 0 <= platform < cat.PLATFORM_COUNT:
        return Rejected("unknown_platform", "no such floating platform")
    return None


def building_problem(state: FracturedSkyState, seat: int, fortress: bool) -> Rejected | None:
    """Why ``seat`` cannot build a fortress (or a market) anywhere now, or None."""
    built = state.fortresses[seat] if fortress else state.markets[seat]
    supply = cat.FORTRESS_SUPPLY if fortress else cat.MARKET_SUPPLY
    if sum(built) >= supply:
        return Rejected("supply_exhausted", "you have no such building left")
    cost = cat.FORTRESS_COST if fortress else cat.MARKET_COST
    if not can_afford(state.resources[seat], cost):
        return Rejected(CANNOT_AFFORD, "you cannot pay for that building")
    return None


def skimmer_problem(state: FracturedSkyState, seat: int) -> Rejected | None:
    """Why ``seat`` cannot place a skimmer anywhere now, or None."""
    if sum(state.skimmers[seat]) >= cat.SKIMMER_SUPPLY:
        return Rejected("supply_exhausted", "you have no skimmer left")
    if not can_afford(state.resources[seat], cat.SKIMMER_COST):
        return Rejected(CANNOT_AFFORD, "a skimmer costs 1 iron and 1 wood")
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
        return Rejected("bad_resource", "take a resource shown on the card, or nothing")
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
    mine = [p for p in state.pending if p.seat == seat]
    if not mine:
        return Rejected("no_pending_choice", "you have no resource to choose")
    problem = resource_problem(resource)
    if problem is None and RES_INDEX[resource] not in mine[0].options:
        return Rejected("bad_resource", "choose one of the offered resources")
    return problem


_CHECKS: dict[type[CommandBody], Callable[[FracturedSkyState, Any, int], Rejected | None]] = {
    cmd.ChooseStart: lambda s, c, seat: start_problem(s, seat, c.gold, c.iron, c.wood),
    cmd.Trade: lambda s, c, seat: trade_problem(s, seat, c),
    cmd.PlaceAirship: lambda s, c, seat: (
        airship_region_problem(s, seat, c.region) or chip_problem(s, seat, c.chip)
    ),
    cmd.ChooseSlot: lambda s, c, seat: slot_problem(s, c.slot),
    cmd.BuildFortress: lambda s, c, seat: (
        platform_problem(c.platform) or building_problem(s, seat, fortress=True)
    ),
    cmd.BuildMarket: lambda s, c, seat: (
        platform_problem(c.platform) or building_problem(s, seat, fortress=False)
    ),
    cmd.PlaceSkimmer: lambda s, c, seat: region_problem(s, c.region) or skimmer_problem(s, seat),
    cmd.Scout: lambda s, c, seat: scout_problem(s, seat, c.card),
    cmd.ScoutTake: lambda s, c, seat: scout_take_problem(s, c.resource),
    cmd.Peek: lambda s, c, seat: (
        objective_problem(s, seat, c.objective) or peek_pay_problem(s, seat, c.gold, c.iron, c.wood)
    ),
    cmd.ChooseResource: lambda s, c, seat: choice_problem(s, seat, c.resource),
}


def problem(state: FracturedSkyState, command: CommandBody, seat: int) -> Rejected | None:
    """The rejection ``decide`` gives for this command, or None when it is accepted."""
    kind = type(command)
    return gate(state, seat, kind) or _CHECKS[kind](state, command, seat)


def check(state: FracturedSkyState, command: CommandBody, seat: int) -> None:
    found = problem(state, command, seat)
    if found is not None:
        raise found


def accepts(state: FracturedSkyState, command: CommandBody, seat: int) -> bool:
    """Whether ``decide`` accepts the command."""
    return problem(state, command, seat) is None


# ---------------------------------------------------------------- events (after check)


def _choose_start(
    state: FracturedSkyState, c: cmd.ChooseStart, seat: int, rng: Random
) -> list[EventBody]:
    events: list[EventBody] = [ev.StartChosen(seat=seat, gold=c.gold, iron=c.iron, wood=c.wood)]
    if all(state.started[s] or s == seat for s in range(state.seats)):
        events.append(ev.TurnBegan(seat=state.order[0]))
    return events


def _trade(state: FracturedSkyState, c: cmd.Trade, seat: int, rng: Random) -> list[EventBody]:
    return [ev.Traded(seat=seat, gold=c.gold, iron=c.iron, wood=c.wood, get=c.get)]


def _place_airship(
    state: FracturedSkyState, c: cmd.PlaceAirship, seat: int, rng: Random
) -> list[EventBody]:
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


def _choose_slot(
    state: FracturedSkyState, c: cmd.ChooseSlot, seat: int, rng: Random
) -> list[EventBody]:
    events: list[EventBody] = [ev.SlotTaken(seat=seat, slot=c.slot, gold=slot_gold(state, c.slot))]
    _end_turn(state, seat, events, rng)
    return events


def _build(
    state: FracturedSkyState, c: cmd.BuildFortress | cmd.BuildMarket, seat: int, rng: Random
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


def _skimmer(
    state: FracturedSkyState, c: cmd.PlaceSkimmer, seat: int, rng: Random
) -> list[EventBody]:
    gold, iron, wood = cat.SKIMMER_COST
    events: list[EventBody] = [
        ev.SkimmerPlaced(seat=seat, region=c.region, gold=gold, iron=iron, wood=wood)
    ]
    _end_turn(state, seat, events, rng)
    return events


def _scout(state: FracturedSkyState, c: cmd.Scout, seat: int, rng: Random) -> list[EventBody]:
    gold, iron, wood = cat.SCOUT_COST
    return [ev.Scouted(seat=seat, card=c.card, gold=gold, iron=iron, wood=wood)]


def _scout_take(
    state: FracturedSkyState, c: cmd.ScoutTake, seat: int, rng: Random
) -> list[EventBody]:
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


def _peek(state: FracturedSkyState, c: cmd.Peek, seat: int, rng: Random) -> list[EventBody]:
    events: list[EventBody] = [
        ev.Peeked(seat=seat, objective=c.objective, gold=c.gold, iron=c.iron, wood=c.wood)
    ]
    _end_turn(state, seat, events, rng)
    return events


def _choose_resource(
    state: FracturedSkyState, c: cmd.ChooseResource, seat: int, rng: Random
) -> list[EventBody]:
    events: list[EventBody] = [ev.ResourceChosen(seat=seat, resource=c.resource)]
    if len(state.pending) == 1:
        sim = clone(state)
        evolve(sim, events[0])
        events.extend(after_rewards(sim, rng))
        run_automation(sim, events, rng)
    return events


_EVENTS: dict[
    type[CommandBody], Callable[[FracturedSkyState, Any, int, Random], list[EventBody]]
] = {
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


def decide(
    state: FracturedSkyState, command: CommandBody, seat: int, rng: Random
) -> list[EventBody]:
    check(state, command, seat)
    return _EVENTS[type(command)](state, command, seat, rng)
