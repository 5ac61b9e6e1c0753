"""A tiny hidden-information game that exercises the platform without a real rule set.

"Twenty-one lite": each seat is dealt one secret card (1-6). In turn, a seat draws
another secret card or stands; a total over 15 busts. When everyone has stood or
busted the game ends. Points: the total (0 when bust); ties share the rank. Only the
owner sees its cards; everybody sees how many cards each seat holds.
"""

from __future__ import annotations

from random import Random
from typing import Annotated, Any

import msgspec

from games.protocol import Standing, Status
from games.rejection import NOT_YOUR_TURN, Rejected
from games.undo import UndoDeclaration
from orrery_contracts.base import CommandBody, EventBody, ViewBody

LIMIT = 15


class TinyOptions(msgspec.Struct, frozen=True, kw_only=True):
    max_cards: Annotated[int, msgspec.Meta(ge=1, le=8)] = 5  # refused outside: bad_options


class Draw(CommandBody, frozen=True, tag="tiny.draw"):
    pass


class Stand(CommandBody, frozen=True, tag="tiny.stand"):
    pass


class Dealt(EventBody, frozen=True, tag="tiny.dealt"):
    chance = True  # a draw: a command that deals cannot be taken back
    seat: int
    card: int


class Stood(EventBody, frozen=True, tag="tiny.stood"):
    seat: int


class TurnPassed(EventBody, frozen=True, tag="tiny.turn_passed"):
    to_seat: int


class Ended(EventBody, frozen=True, tag="tiny.ended"):
    pass


TinyCommand = Draw | Stand
TinyEvent = Dealt | Stood | TurnPassed | Ended


class TinyState(msgspec.Struct, kw_only=True):
    max_cards: int
    cards: list[list[int]]
    done: list[bool]
    turn: int = 0
    finished: bool = False


class TinySeat(msgspec.Struct, frozen=True, kw_only=True):
    card_count: int
    done: bool
    cards: list[int] | None = None


class TinyView(ViewBody, frozen=True):
    seats: list[TinySeat]
    turn: int
    finished: bool
    totals: list[int] | None = None


def _total(cards: list[int]) -> int:
    total = sum(cards)
    return 0 if total > LIMIT else total


class TinyGame:
    name = "tiny"
    title = "Twenty-one lite (test game)"
    rules_version = "1"
    min_seats = 1
    max_seats = 4
    options_type = TinyOptions
    state_type = TinyState
    command_types: tuple[type[CommandBody], ...] = (Draw, Stand)
    event_types: tuple[type[EventBody], ...] = (Dealt, Stood, TurnPassed, Ended)
    view_type = TinyView
    undo = UndoDeclaration()  # ``Dealt`` is chance; standing can be taken back

    def initial_state(self, options: Any, seats: int) -> TinyState:
        return TinyState(
            max_cards=options.max_cards,
            cards=[[] for _ in range(seats)],
            done=[False] * seats,
        )

    def setup(self, options: Any, seats: int, rng: Random) -> list[EventBody]:
        return [Dealt(seat=s, card=rng.randint(1, 6)) for s in range(seats)]

    def decide(
        self, state: TinyState, command: CommandBody, seat: int, rng: Random
    ) -> list[EventBody]:
        if state.finished:
            raise Rejected("game_over", "the game is over")
        if seat != state.turn:
            raise Rejected(NOT_YOUR_TURN, f"it is seat {state.turn}'s turn")
        events: list[EventBody] = []
        if isinstance(command, Draw):
            if len(state.cards[seat]) >= state.max_cards:
                raise Rejected("hand_full", "you hold the most cards allowed")
            card = rng.randint(1, 6)
            events.append(Dealt(seat=seat, card=card))
            over = sum(state.cards[seat]) + card > LIMIT
            full = len(state.cards[seat]) + 1 >= state.max_cards
            if over or full:
                events.append(Stood(seat=seat))
        else:
            events.append(Stood(seat=seat))
        done = list(state.done)
        if any(isinstance(e, Stood) for e in events):
            done[seat] = True
        if all(done):
            events.append(Ended())
        else:
            nxt = (seat + 1) % len(done)
            while done[nxt]:
                nxt = (nxt + 1) % len(done)
            events.append(TurnPassed(to_seat=nxt))
        return events

    def evolve(self, state: TinyState, event: EventBody) -> TinyState:
        if isinstance(event, Dealt):
            state.cards[event.seat].append(event.card)
        elif isinstance(event, Stood):
            state.done[event.seat] = True
        elif isinstance(event, TurnPassed):
            state.turn = event.to_seat
        elif isinstance(event, Ended):
            state.finished = True
        return state

    def view(self, state: TinyState, seat: int | None) -> TinyView:
        return TinyView(
            seats=[
                TinySeat(
                    card_count=len(cards),
                    done=state.done[s],
                    cards=list(cards) if (s == seat or state.finished) else None,
                )
                for s, cards in enumerate(state.cards)
            ],
            turn=state.turn,
            finished=state.finished,
            totals=[_total(c) for c in state.cards] if state.finished else None,
        )

    def legal_commands(self, state: TinyState, seat: int) -> list[CommandBody]:
        if state.finished or seat != state.turn:
            return []
        legal: list[CommandBody] = [Stand()]
        if len(state.cards[seat]) < state.max_cards:
            legal.insert(0, Draw())
        return legal

    def score(self, state: TinyState) -> Standing:
        # public facts only (games.protocol): the totals are secret until the end
        if not state.finished:
            return Standing(points=(0,) * len(state.cards), ranks=(1,) * len(state.cards))
        points = tuple(_total(c) for c in state.cards)
        ranks = tuple(1 + sum(1 for q in points if q > p) for p in points)
        return Standing(points=points, ranks=ranks)

    def status(self, state: TinyState) -> Status:
        if state.finished:
            return Status(phase="finished", finished=True)
        return Status(phase="play", to_move=(state.turn,))


GAME = TinyGame()
