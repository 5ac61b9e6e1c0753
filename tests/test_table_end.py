"""A table's end time in the pure table decider (no server): ``table.end`` is refused
before ``ends_at`` (and on a table without one), and after it the seats the game waits
on concede and the table finishes as ``deadline`` with the standing of that moment.
Every log is audited (re-decided from its recorded times) and folded again."""

from __future__ import annotations

import pytest

from orrery_contracts.table import (
    CreateTable,
    EndRequest,
    JoinSeat,
    SeatLeft,
    StartTable,
    TableFinished,
)
from tests.support.tinygame import Stand
from tests.test_clock import Log

pytestmark = pytest.mark.unit

ENDS_AT = 60_000


def table(seats: int, ends_at: int | None = ENDS_AT) -> Log:
    log = Log("ending")
    log.send(CreateTable(game="tiny", seats=seats, ends_at=ends_at), None, 9_000)
    for s in range(seats):
        log.send(JoinSeat(name=f"P{s}", token_hash=f"h{s}"), None, 9_100 + s)
    log.send(StartTable(), 0, 10_000)
    return log


def test_the_end_is_refused_before_the_end_time_and_without_one() -> None:
    log = table(2)
    assert log.refused(EndRequest(), None, ENDS_AT - 1) == "not_expired"
    unending = table(2, ends_at=None)
    assert unending.refused(EndRequest(), None, 10**13) == "not_expired"
    lobby = Log("lobby")
    lobby.send(CreateTable(game="tiny", seats=2, ends_at=ENDS_AT), None, 9_000)
    assert lobby.refused(EndRequest(), None, ENDS_AT) == "not_started"
    log.check()


def test_the_seat_to_move_at_the_end_time_concedes_and_the_table_ends_as_deadline() -> None:
    log = table(3)
    log.send(Stand(), 0, 20_000)  # seat 1 to move, and it never does
    events = log.send(EndRequest(), None, ENDS_AT)
    assert events[0] == SeatLeft(seat=1, conceded=True)
    finished = events[-1]
    assert isinstance(finished, TableFinished) and finished.reason == "deadline"
    assert log.state.phase == "finished" and log.state.left == [False, True, False]
    # the seat that held the table up ranks after both that did not
    ranks = finished.standing.ranks
    assert ranks[1] > max(ranks[0], ranks[2])
    assert log.refused(EndRequest(), None, ENDS_AT + 1) == "game_over"
    log.check()
