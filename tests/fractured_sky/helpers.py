"""Helpers to build Fractured Sky positions for the worked examples."""

from __future__ import annotations

from random import Random

from games.fractured_sky import GAME
from games.fractured_sky.state import PHASE_SLOT, FracturedSkyState
from games.playthrough import fold
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import commands as cmd
from orrery_contracts.fractured_sky import events as ev

OPTIONS = GAME.options_type()
REGION = {r.key: r.index for r in cat.REGIONS}
PLATFORM = {p.key: p.index for p in cat.PLATFORMS}


def run(
    state: FracturedSkyState, seat: int, command: CommandBody, seed: int = 0
) -> list[EventBody]:
    events = GAME.decide(state, command, seat, Random(seed))
    for event in events:
        GAME.evolve(state, event)
    return events


def started(
    seats: int,
    *,
    seed: int = 0,
    start: tuple[int, int, int] = (2, 0, 2),
    order: list[int] | None = None,
    difficulty: str = "easy",
) -> FracturedSkyState:
    """A game in round 1 after setup and the starting choice, with a controlled board:
    no stardust anywhere, turn order ``order`` (default 0, 1, 2, ...), resources ``start``."""
    options = GAME.options_type(difficulty=difficulty)
    state = fold(GAME, options, seats, GAME.setup(options, seats, Random(seed)))
    state.order = list(order if order is not None else range(state.participants))
    state.resources = [[0, 0, 0] for _ in range(state.participants)]
    state.ai_tally = [0] * (state.participants - seats)
    for seat in range(seats):
        run(state, seat, cmd.ChooseStart(gold=2, iron=0, wood=2))
    state.resources = [list(start) if s < seats else [0, 0, 0] for s in range(state.participants)]
    clear_stardust(state)
    return state


def clear_stardust(state: FracturedSkyState) -> None:
    state.supply += sum(state.board_stardust)
    state.board_stardust = [0] * cat.REGION_COUNT


def put_stardust(state: FracturedSkyState, region: int, count: int = 1) -> None:
    state.board_stardust[region] += count
    state.supply -= count


def set_secret(state: FracturedSkyState, cards: list[int]) -> None:
    """Put ``cards`` face down on the tray; the other active regions form the deck."""
    state.secret_cards = list(cards)
    state.secret_deck = [r for r in state.regions if r not in cards]
    state.secret_taken = [0] * len(cards)
    state.secret_open = [False] * len(cards)


def play_round(
    state: FracturedSkyState,
    placements: dict[int, list[tuple[int, int]]],
    slots: dict[int, int] | None = None,
    seed: int = 0,
) -> list[EventBody]:
    """Place every seat's airships in turn order (region, chip), taking ``slots``."""
    todo = {seat: list(p) for seat, p in placements.items()}
    events: list[EventBody] = []
    first_round = state.round
    while state.round == first_round and state.phase in ("play", "slot") and state.turn >= 0:
        seat = state.turn
        if state.phase == PHASE_SLOT:
            assert slots is not None
            events += run(state, seat, cmd.ChooseSlot(slot=slots[seat]), seed)
            continue
        region, chip = todo[seat].pop(0)
        events += run(state, seat, cmd.PlaceAirship(region=region, chip=chip), seed)
    return events


def of_type(events: list[EventBody], kind: type[EventBody]) -> list[EventBody]:
    return [e for e in events if isinstance(e, kind)]


def resolved(events: list[EventBody], region: int) -> ev.RegionOutcome:
    for e in events:
        if isinstance(e, ev.RegionResolved) and e.outcome.region == region:
            return e.outcome
    raise AssertionError(f"region {region} not resolved")


def answer_all(state: FracturedSkyState) -> list[EventBody]:
    """Answer every pending resource choice with its first option."""
    events: list[EventBody] = []
    while state.pending:
        pending = state.pending[0]
        resource = cat.RESOURCES[pending.options[0]]
        events += run(state, pending.seat, cmd.ChooseResource(resource=resource))  # type: ignore[arg-type]
    return events
