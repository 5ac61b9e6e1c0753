"""``evolve``: apply one fact to the state (no decisions, no randomness).

One small function per event, found by the event's type in a dict; an event this game
does not know is an error (a log of another game, or a newer rules version), never
silently skipped. It reads no content data that could change: costs paid are in the
events, and the setup event records the market-card threshold, the stardust supply and
the board size.
"""

from __future__ import annotations

from typing import Any

from games.folds import fold_functions
from games.fractured_sky.state import (
    PHASE_FINISHED,
    PHASE_PLAY,
    PHASE_REWARDS,
    PHASE_SCOUT,
    PHASE_SLOT,
    RES_INDEX,
    FracturedSkyState,
    PendingChoice,
    ScoutRecord,
    ai_threshold,
)
from orrery_contracts.base import EventBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import events as ev

_list_copy = list.copy


def _reset_round(state: FracturedSkyState) -> None:
    # each table's rows copied from one (``map`` makes no comprehension per table)
    n = state.participants
    regions = state.region_count
    state.ships = [0] * n
    state.airships = [*map(_list_copy, [[-1] * regions] * n)]
    state.explorer = [-1] * regions
    state.skimmers = [*map(_list_copy, [[0] * regions] * n)]
    state.drawn = [*map(_list_copy, [[]] * n)]
    state.scouts = []
    state.scouting = -1
    state.next_slots = [-1] * state.slot_count
    state.revealed = False
    state.chips_revealed = []
    state.pending = []
    state.secret_taken = [0] * len(state.secret_cards)
    state.secret_open = [False] * len(state.secret_cards)
    state.ai_flipped = [*map(_list_copy, [[]] * (n - state.seats))]


def _ai_round(
    state: FracturedSkyState, decks: list[list[int]], out: list[list[int]], pools: list[list[int]]
) -> None:
    state.ai_deck = [*map(list, decks)]
    state.ai_out = [*map(list, out)]
    state.ai_pool = [*map(list, pools)]


def _gain(state: FracturedSkyState, seat: int, resource: int, amount: int) -> None:
    """Resources for a player; for an AI they go on its market card (if it has one)."""
    if seat < state.seats:
        state.resources[seat][resource] += amount
    elif ai_threshold(state):
        state.ai_tally[seat - state.seats] += amount


def _pay(state: FracturedSkyState, seat: int, cost: tuple[int, int, int]) -> None:
    res = state.resources[seat]
    res[0] -= cost[0]
    res[1] -= cost[1]
    res[2] -= cost[2]


def _on_game_set_up(state: FracturedSkyState, e: ev.GameSetUp) -> None:
    n = e.participants
    state.seats = e.seats
    state.participants = n
    state.difficulty = e.difficulty
    threshold = e.ai_market_threshold
    state.ai_market_threshold = (
        threshold if threshold >= 0 else ev.V1_AI_MARKET_THRESHOLD.get(e.difficulty, 0)
    )
    state.region_count = e.region_count
    state.platform_count = e.platform_count
    state.regions = list(e.regions)
    state.slot_count = e.slot_count
    state.order = list(e.order)
    state.resources = [[0, 0, 0] for _ in range(n)]
    state.ai_tally = [0] * (n - e.seats)
    for seat, gold in enumerate(e.setup_gold):
        _gain(state, seat, cat.GOLD, gold)
    state.started = [s >= e.seats for s in range(n)]
    state.stardust = [0] * n
    state.board_stardust = [0] * e.region_count
    state.board_stardust[e.public_card] += e.public_stardust
    state.supply = e.stardust_tokens - e.public_stardust
    state.fortresses = [[0] * e.platform_count for _ in range(n)]
    state.markets = [[0] * e.platform_count for _ in range(n)]
    state.public_card = e.public_card
    state.secret_cards = list(e.secret_cards)
    state.secret_deck = list(e.secret_deck)
    state.objectives = list(e.objectives)
    state.objectives_revealed = 0
    state.peeks = [[] for _ in range(n)]
    state.round = 1
    _ai_round(state, e.ai_decks, e.ai_out, e.ai_pools)
    _reset_round(state)


def _on_round_revealed(state: FracturedSkyState, e: ev.RoundRevealed) -> None:
    state.phase = PHASE_REWARDS
    state.turn = -1
    state.revealed = True
    if e.objective >= 0:
        state.objectives_revealed = e.objective + 1
    board = state.board_stardust
    for region, count in enumerate(e.stardust_placed):
        if count:  # most regions get none
            board[region] += count
            state.supply -= count
    state.chips_revealed = [*map(list, e.chips)]
    state.region_results = []


def _on_region_resolved(state: FracturedSkyState, e: ev.RegionResolved) -> None:
    o = e.outcome
    if o.stardust_seat >= 0:
        state.stardust[o.stardust_seat] += o.stardust
        state.board_stardust[o.region] -= o.stardust
    if o.gains:
        seats = state.seats
        resources = state.resources
        for gain in o.gains:  # the frequent case, a player's resources, without a call
            if gain.seat < seats:
                resources[gain.seat][RES_INDEX[gain.resource]] += gain.amount
            else:
                _gain(state, gain.seat, RES_INDEX[gain.resource], gain.amount)
    for choice in o.choices:
        state.pending.append(
            PendingChoice(
                seat=choice.seat,
                region=choice.region,
                options=[*map(RES_INDEX.__getitem__, choice.options)],
                reason=choice.reason,
            )
        )
    state.region_results.append(o)


def _on_resource_chosen(state: FracturedSkyState, e: ev.ResourceChosen) -> None:
    for i, pending in enumerate(state.pending):
        if pending.seat == e.seat:
            del state.pending[i]
            break
    state.resources[e.seat][RES_INDEX[e.resource]] += 1


def _on_round_set_up(state: FracturedSkyState, e: ev.RoundSetUp) -> None:
    state.round = e.round
    state.order = list(e.order)
    state.public_card = e.public_card
    state.board_stardust[e.public_card] += e.public_stardust
    state.supply -= e.public_stardust
    state.secret_cards = list(e.secret_cards)
    state.secret_deck = list(e.secret_deck)
    state.phase = PHASE_PLAY
    state.turn = -1
    _ai_round(state, e.ai_decks, e.ai_out, e.ai_pools)
    _reset_round(state)


def _on_airship_placed(state: FracturedSkyState, event: ev.AirshipPlaced) -> None:
    seat = event.seat
    state.airships[seat][event.region] = event.chip
    state.ships[seat] += 1
    if event.explorer:
        state.explorer[event.region] = seat
    if seat >= state.seats:
        state.ai_pool[seat - state.seats].remove(event.chip)


def _on_traded(state: FracturedSkyState, event: ev.Traded) -> None:
    res = state.resources[event.seat]
    res[0] -= event.gold
    res[1] -= event.iron
    res[2] -= event.wood
    res[RES_INDEX[event.get]] += 1


def _on_fortress_built(state: FracturedSkyState, event: ev.FortressBuilt) -> None:
    _pay(state, event.seat, (event.gold, event.iron, event.wood))
    state.fortresses[event.seat][event.platform] += 1


def _on_market_built(state: FracturedSkyState, event: ev.MarketBuilt) -> None:
    _pay(state, event.seat, (event.gold, event.iron, event.wood))
    state.markets[event.seat][event.platform] += 1


def _on_skimmer_placed(state: FracturedSkyState, event: ev.SkimmerPlaced) -> None:
    _pay(state, event.seat, (event.gold, event.iron, event.wood))
    state.skimmers[event.seat][event.region] += 1


def _on_scouted(state: FracturedSkyState, event: ev.Scouted) -> None:
    _pay(state, event.seat, (event.gold, event.iron, event.wood))
    state.scouts.append(ScoutRecord(seat=event.seat, card=event.card))
    state.scouting = event.card
    state.phase = PHASE_SCOUT


def _on_scout_finished(state: FracturedSkyState, event: ev.ScoutFinished) -> None:
    state.scouting = -1
    if event.resource is not None:
        index = RES_INDEX[event.resource]
        state.resources[event.seat][index] += 1
        state.secret_taken[event.card] += 1
        for record in reversed(state.scouts):
            if record.seat == event.seat and record.card == event.card:
                record.resource = index
                break


def _on_peeked(state: FracturedSkyState, event: ev.Peeked) -> None:
    _pay(state, event.seat, (event.gold, event.iron, event.wood))
    state.peeks[event.seat].append(event.objective)


def _on_start_chosen(state: FracturedSkyState, event: ev.StartChosen) -> None:
    res = state.resources[event.seat]
    res[0] += event.gold
    res[1] += event.iron
    res[2] += event.wood
    state.started[event.seat] = True


def _on_objective_scored(state: FracturedSkyState, event: ev.ObjectiveScored) -> None:
    if event.outcome.winner >= 0:
        state.stardust[event.outcome.winner] += 1
        state.supply -= 1
    state.objective_results.append(event.outcome)


def _on_ai_card_flipped(state: FracturedSkyState, event: ev.AiCardFlipped) -> None:
    state.ai_deck[event.seat - state.seats].remove(event.card)
    state.ai_flipped[event.seat - state.seats].append(event.card)


def _on_ai_built(state: FracturedSkyState, event: ev.AiBuilt) -> None:
    built = state.fortresses if event.kind == cat.AI_FORTRESS else state.markets
    built[event.seat][event.platform] += 1


def _on_ai_skimmer_placed(state: FracturedSkyState, event: ev.AiSkimmerPlaced) -> None:
    state.skimmers[event.seat][event.region] += 1


def _on_ai_scouted(state: FracturedSkyState, event: ev.AiScouted) -> None:
    state.scouts.append(ScoutRecord(seat=event.seat, card=event.card))
    state.secret_taken[event.card] += 1


def _on_secret_opened(state: FracturedSkyState, event: ev.SecretOpened) -> None:
    state.secret_open[event.card] = True
    state.board_stardust[event.region] += event.stardust
    state.supply -= event.stardust


def _on_ai_converted(state: FracturedSkyState, event: ev.AiConverted) -> None:
    state.ai_tally[event.seat - state.seats] -= event.spent
    state.stardust[event.seat] += event.stardust
    state.supply -= event.stardust


def _on_game_ended(state: FracturedSkyState, event: ev.GameEnded) -> None:
    state.phase = PHASE_FINISHED
    state.turn = -1
    state.order = list(event.order)


def _on_turn_began(state: FracturedSkyState, e: ev.TurnBegan) -> None:
    if state.phase != PHASE_PLAY:  # mostly the play goes on: no store
        state.phase = PHASE_PLAY
    state.turn = e.seat


def _on_exploration_drawn(state: FracturedSkyState, e: ev.ExplorationDrawn) -> None:
    state.secret_deck.remove(e.card)
    state.drawn[e.seat].append(e.card)


def _on_slot_taken(state: FracturedSkyState, e: ev.SlotTaken) -> None:
    state.next_slots[e.slot - 1] = e.seat
    if e.gold:  # most slots pay nothing
        _gain(state, e.seat, cat.GOLD, e.gold)


def _on_slot_pending(state: FracturedSkyState, e: ev.SlotPending) -> None:
    state.phase = PHASE_SLOT
    state.turn = e.seat


# Event type → its fold. Events are never subclassed, so the exact type is the event's
# kind: one dict lookup finds the function, where a ``match`` tries its cases in turn
# (a class pattern on a msgspec Struct costs an ``isinstance`` through its metaclass).
# Each function is typed for its event; the dict's values are ``Any`` for that reason.
FOLDS: dict[type[EventBody], Any] = {
    ev.RegionResolved: _on_region_resolved,
    ev.TurnBegan: _on_turn_began,
    ev.AirshipPlaced: _on_airship_placed,
    ev.ExplorationDrawn: _on_exploration_drawn,
    ev.SlotTaken: _on_slot_taken,
    ev.Traded: _on_traded,
    ev.SlotPending: _on_slot_pending,
    ev.AiCardFlipped: _on_ai_card_flipped,
    ev.AiBuilt: _on_ai_built,
    ev.RoundRevealed: _on_round_revealed,
    ev.ObjectiveScored: _on_objective_scored,
    ev.RoundSetUp: _on_round_set_up,
    ev.ResourceChosen: _on_resource_chosen,
    ev.Peeked: _on_peeked,
    ev.StartChosen: _on_start_chosen,
    ev.AiSkimmerPlaced: _on_ai_skimmer_placed,
    ev.AiScouted: _on_ai_scouted,
    ev.AiConverted: _on_ai_converted,
    ev.SkimmerPlaced: _on_skimmer_placed,
    ev.Scouted: _on_scouted,
    ev.ScoutFinished: _on_scout_finished,
    ev.MarketBuilt: _on_market_built,
    ev.FortressBuilt: _on_fortress_built,
    ev.SecretOpened: _on_secret_opened,
    ev.GameSetUp: _on_game_set_up,
    ev.GameEnded: _on_game_ended,
}


evolve, evolve_all = fold_functions(FOLDS, "Fractured Sky")
