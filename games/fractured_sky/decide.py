"""``decide``: validate one command and return the events it causes.

Validation is ``legal.problem`` alone (the predicates ``legal_commands`` lists with, so
the two cannot drift apart; every rejection code is raised there). Then one
function per command builds its events; they record what was paid. A command that
hands the turn to an automated opponent or ends the round runs the rest here, on a
working state (``games.working``: a private copy that folds each event emitted): AI turns
and the round end are events of the command that caused them. ``play`` (a search's
decide + evolve) runs the same rules with the state it is given as the working state
(the caller owns it), and folds the events of a command that needed none; its most
frequent commands (a placement or a slot that hands the turn to a person, a trade) it
checks with ``problem``'s own predicate and folds where it makes their events.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

from games.clone import clone
from games.fractured_sky.ai import open_secret, run_automation
from games.fractured_sky.evolve import FOLDS, evolve, evolve_all
from games.fractured_sky.legal import (
    CHIP_COPIES,
    SOUND_TRADES,
    airship_problem,
    not_fractured_sky,
    problem,
    slot_problem,
    trade_problem,
)
from games.fractured_sky.round_end import after_rewards, finish_round
from games.fractured_sky.state import (
    PHASE_FINISHED,
    PHASE_PLAY,
    PHASE_SLOT,
    RES_INDEX,
    FracturedSkyState,
    ai_mode,
)
from games.fractured_sky.turns import next_seat, only_free_slot, slot_gold
from games.working import Working
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import commands as cmd
from orrery_contracts.fractured_sky import events as ev

Take = Callable[[FracturedSkyState], FracturedSkyState]  # the working state from the state
# A command's events, and whether they were folded into the working state ``take`` gave
# (``play``'s take gives the state itself: its events are then folded already).
Made = tuple[list[EventBody], bool]


# ``TurnBegan`` of the first seats, made once: the event nearly every command ends with
# is a value (frozen, ints only), so every command may record the same object.
_TURN_BEGAN_SEATS = 8
_TURN_BEGAN = tuple(ev.TurnBegan(seat=seat) for seat in range(_TURN_BEGAN_SEATS))


def decide(
    state: FracturedSkyState, command: CommandBody, seat: int, rng: Random
) -> list[EventBody]:
    refusal = problem(state, seat, command)
    if refusal is not None:
        raise refusal
    return _decide(state, command, seat, rng, clone)[0]


def _own(state: FracturedSkyState) -> FracturedSkyState:
    """``play``'s working state: the state itself."""
    return state


def play(state: FracturedSkyState, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
    """``decide``, its events folded into ``state`` (the caller owns ``state``; a
    rejection raises before it changes)."""
    kind = type(command)
    c: Any = command  # mypy does not narrow ``command`` from ``type(command)``
    if 0 <= seat < state.seats:  # the frequent commands, checked and folded here
        if kind is cmd.PlaceAirship and seat == state.turn and state.phase == PHASE_PLAY:
            return _play_placement(state, c, seat, rng)
        if kind is cmd.ChooseSlot and seat == state.turn and state.phase == PHASE_SLOT:
            return _play_slot(state, c, seat, rng)
        if kind is cmd.Trade and state.phase != PHASE_FINISHED:
            return _play_trade(state, c, seat)
    refusal = problem(state, seat, command)
    if refusal is not None:
        raise refusal
    # ``_decide`` without its own call: ``problem`` accepted the command, so it has a maker
    return _folded(state, _MAKERS[kind](state, command, seat, rng, _own))


def _folded(state: FracturedSkyState, made: Made) -> list[EventBody]:
    """The events ``made`` by a maker ``play`` called, folded into ``state`` if the maker
    did not fold them."""
    events, folded = made
    if not folded:  # events of this game's own making: each type has its fold
        for event in events:
            FOLDS[type(event)](state, event)
    return events


# ``play``'s frequent commands: a placement that hands the turn to a person or leaves
# the seat its slot to choose, a slot that hands the turn to a person, and a trade.
# ``problem`` accepts such a command from the seat to move (or a trade) at once, as
# ``gate`` does, and then asks one predicate: here its usual acceptance is asked
# without the call, and what that does not accept the predicate itself judges, so
# every refusal is still the predicate's own.
# The events are the makers' own, and the state changes where they are made are their
# folds' (``evolve.py``), with what the situation fixes already known (a person moves
# in the play phase): fewer calls for each. The round's end and an automated
# opponent's turn are made by the makers and folded as usual.


def _play_placement(
    state: FracturedSkyState, c: cmd.PlaceAirship, seat: int, rng: Random
) -> list[EventBody]:
    region = c.region
    chip = c.chip
    row = state.airships[seat]
    # ``airship_problem``'s acceptance (a region in play without the seat's airship, an
    # unused chip of the value) asked without the call; what it does not accept at once
    # the predicate itself judges, and refuses
    if not (
        region in state.regions and row[region] < 0 and row.count(chip) < CHIP_COPIES.get(chip, 0)
    ):
        refusal = airship_problem(state, seat, region, chip)
        if refusal is not None:
            raise refusal
    ships = state.ships
    last: EventBody  # the placement's last event: the turn handed on, or a slot to choose
    if ships[seat] + 1 < cat.AIRSHIPS:
        order = state.order
        after = order.index(seat) + 1
        if after < len(order) and ships[order[after]] < cat.AIRSHIPS:
            nxt = order[after]  # ``next_seat``'s usual case, the very next one
        else:
            nxt = next_seat(state, seat, ships, True)
        if not 0 <= nxt < state.seats:  # an automated opponent's turn, or the round end
            return _folded(state, _place_airship(state, c, seat, rng, _own))
        last = _TURN_BEGAN[nxt] if nxt < _TURN_BEGAN_SEATS else ev.TurnBegan(seat=nxt)
        state.turn = nxt  # TurnBegan in the play phase
    elif only_free_slot(state):  # the last free slot, taken at once: the round's end
        return _folded(state, _place_airship(state, c, seat, rng, _own))
    else:  # the seat's last airship: its slot to choose
        last = ev.SlotPending(seat=seat)
        state.phase = PHASE_SLOT  # SlotPending
        state.turn = seat
    explorers = state.explorer
    explorer = explorers[region] < 0
    placed = ev.AirshipPlaced(seat=seat, region=region, chip=chip, explorer=explorer)
    row[region] = chip  # AirshipPlaced (a person's)
    ships[seat] += 1
    if not explorer:
        return [placed, last]
    explorers[region] = seat
    deck = state.secret_deck
    if not deck:
        return [placed, last]
    card = deck.pop(0)  # ExplorationDrawn: the top card
    state.drawn[seat].append(card)
    return [placed, ev.ExplorationDrawn(seat=seat, card=card), last]


def _play_slot(
    state: FracturedSkyState, c: cmd.ChooseSlot, seat: int, rng: Random
) -> list[EventBody]:
    slot = c.slot
    next_slots = state.next_slots
    # ``slot_problem``'s acceptance (a free slot in use) asked without the call; what it
    # does not accept at once the predicate itself judges, and refuses
    if not (type(slot) is int and 1 <= slot <= state.participants and next_slots[slot - 1] < 0):
        refusal = slot_problem(state, slot)
        if refusal is not None:
            raise refusal
    ships = state.ships
    order = state.order
    after = order.index(seat) + 1
    if after < len(order) and ships[order[after]] < cat.AIRSHIPS:
        nxt = order[after]  # ``next_seat``'s usual case, the very next one
    else:
        nxt = next_seat(state, seat, ships)
    if not 0 <= nxt < state.seats:  # an automated opponent's turn, or the round end
        return _folded(state, _choose_slot(state, c, seat, rng, _own))
    gold = slot_gold(state, slot)
    next_slots[slot - 1] = seat  # SlotTaken
    if gold:
        state.resources[seat][cat.GOLD] += gold
    state.phase = PHASE_PLAY  # TurnBegan
    state.turn = nxt
    turn = _TURN_BEGAN[nxt] if nxt < _TURN_BEGAN_SEATS else ev.TurnBegan(seat=nxt)
    return [ev.SlotTaken(seat=seat, slot=slot, gold=gold), turn]


def _play_trade(state: FracturedSkyState, c: cmd.Trade, seat: int) -> list[EventBody]:
    gold = c.gold
    iron = c.iron
    wood = c.wood
    res = state.resources[seat]
    # ``trade_problem``'s usual acceptance (a sound trade the seat can pay) without the
    # call; what it does not accept at once the predicate itself judges, and refuses
    if not (c in SOUND_TRADES and res[0] >= gold and res[1] >= iron and res[2] >= wood):
        refusal = trade_problem(state, seat, c)
        if refusal is not None:
            raise refusal
    get = c.get
    res[0] -= gold  # Traded
    res[1] -= iron
    res[2] -= wood
    res[RES_INDEX[get]] += 1
    return [ev.Traded(seat=seat, gold=gold, iron=iron, wood=wood, get=get)]


def _decide(
    state: FracturedSkyState, command: CommandBody, seat: int, rng: Random, take: Take
) -> Made:
    make = _MAKERS.get(type(command))  # commands are never subclassed: the exact type
    if make is None:  # ``problem`` refuses other commands first
        raise not_fractured_sky()
    return make(state, command, seat, rng, take)


def _end_turn(
    state: FracturedSkyState,
    seat: int,
    events: list[EventBody],
    rng: Random,
    take: Take,
    placed: bool = False,
) -> Made:
    """``events`` and then: the turn handed on, or the round ended when everybody has
    placed 3 airships (with the turns of automated opponents in between). ``placed``:
    ``events`` place one of the seat's airships (a placement's, the only command that
    places one), not yet folded into ``state``."""
    nxt = next_seat(state, seat, state.ships, placed)
    if 0 <= nxt < state.seats:
        events.append(_TURN_BEGAN[nxt] if nxt < _TURN_BEGAN_SEATS else ev.TurnBegan(seat=nxt))
        return events, False
    work = Working(take(state), FOLDS, events)
    evolve_all(work.state, events)  # recorded already: folded only
    if nxt >= 0:
        work.emit(ev.TurnBegan(seat=nxt))
    else:
        finish_round(work, rng)
    run_automation(work, rng)
    return work.events, True


def _choose_start(
    state: FracturedSkyState, c: cmd.ChooseStart, seat: int, rng: Random, take: Take
) -> Made:
    events: list[EventBody] = [ev.StartChosen(seat=seat, gold=c.gold, iron=c.iron, wood=c.wood)]
    started = state.started  # every other person has started (seat < seats)
    if all(started[:seat]) and all(started[seat + 1 : state.seats]):
        events.append(ev.TurnBegan(seat=state.order[0]))
    return events, False


def _trade(state: FracturedSkyState, c: cmd.Trade, seat: int, rng: Random, take: Take) -> Made:
    return [ev.Traded(seat=seat, gold=c.gold, iron=c.iron, wood=c.wood, get=c.get)], False


def _place_airship(
    state: FracturedSkyState, c: cmd.PlaceAirship, seat: int, rng: Random, take: Take
) -> Made:
    region = c.region
    explorer = state.explorer[region] < 0
    events: list[EventBody] = [
        ev.AirshipPlaced(seat=seat, region=region, chip=c.chip, explorer=explorer)
    ]
    deck = state.secret_deck
    if explorer and deck:
        events.append(ev.ExplorationDrawn(seat=seat, card=deck[0]))
    if state.ships[seat] + 1 < cat.AIRSHIPS:
        return _end_turn(state, seat, events, rng, take, True)
    slot = only_free_slot(state)
    if slot:  # the last free slot: taken at once
        events.append(ev.SlotTaken(seat=seat, slot=slot, gold=slot_gold(state, slot)))
        return _end_turn(state, seat, events, rng, take, True)
    events.append(ev.SlotPending(seat=seat))
    return events, False


def _choose_slot(
    state: FracturedSkyState, c: cmd.ChooseSlot, seat: int, rng: Random, take: Take
) -> Made:
    taken = ev.SlotTaken(seat=seat, slot=c.slot, gold=slot_gold(state, c.slot))
    return _end_turn(state, seat, [taken], rng, take)


def _paid(cost: tuple[int, int, int]) -> dict[str, int]:
    """A catalogue cost as the ``gold``/``iron``/``wood`` fields of the event paying it."""
    gold, iron, wood = cost
    return {"gold": gold, "iron": iron, "wood": wood}


def _build_fortress(
    state: FracturedSkyState, c: cmd.BuildFortress, seat: int, rng: Random, take: Take
) -> Made:
    built = ev.FortressBuilt(seat=seat, platform=c.platform, **_paid(cat.FORTRESS_COST))
    return _end_turn(state, seat, [built], rng, take)


def _build_market(
    state: FracturedSkyState, c: cmd.BuildMarket, seat: int, rng: Random, take: Take
) -> Made:
    built = ev.MarketBuilt(seat=seat, platform=c.platform, **_paid(cat.MARKET_COST))
    return _end_turn(state, seat, [built], rng, take)


def _place_skimmer(
    state: FracturedSkyState, c: cmd.PlaceSkimmer, seat: int, rng: Random, take: Take
) -> Made:
    placed = ev.SkimmerPlaced(seat=seat, region=c.region, **_paid(cat.SKIMMER_COST))
    return _end_turn(state, seat, [placed], rng, take)


def _scout(state: FracturedSkyState, c: cmd.Scout, seat: int, rng: Random, take: Take) -> Made:
    return [ev.Scouted(seat=seat, card=c.card, **_paid(cat.SCOUT_COST))], False


def _scout_take(
    state: FracturedSkyState, c: cmd.ScoutTake, seat: int, rng: Random, take: Take
) -> Made:
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
    return _end_turn(state, seat, events, rng, take)


def _peek(state: FracturedSkyState, c: cmd.Peek, seat: int, rng: Random, take: Take) -> Made:
    peeked = ev.Peeked(seat=seat, objective=c.objective, gold=c.gold, iron=c.iron, wood=c.wood)
    return _end_turn(state, seat, [peeked], rng, take)


def _choose_resource(
    state: FracturedSkyState, c: cmd.ChooseResource, seat: int, rng: Random, take: Take
) -> Made:
    chosen = ev.ResourceChosen(seat=seat, resource=c.resource)
    if len(state.pending) != 1:  # other choices still pending: the round waits
        return [chosen], False
    work = Working(evolve(take(state), chosen), FOLDS, [chosen])
    after_rewards(work, rng)
    run_automation(work, rng)
    return work.events, True


# The events of each command kind (every kind ``problem`` accepts), by the command's
# exact type: one lookup finds the function, where a ``match`` tries its cases in turn.
_MAKERS: dict[type[CommandBody], Callable[..., Made]] = {
    cmd.PlaceAirship: _place_airship,
    cmd.Trade: _trade,
    cmd.ChooseSlot: _choose_slot,
    cmd.Peek: _peek,
    cmd.ChooseStart: _choose_start,
    cmd.ChooseResource: _choose_resource,
    cmd.PlaceSkimmer: _place_skimmer,
    cmd.BuildMarket: _build_market,
    cmd.Scout: _scout,
    cmd.ScoutTake: _scout_take,
    cmd.BuildFortress: _build_fortress,
}
