"""``render_views`` (projections/views.py) renders every viewer of a table at once,
sharing the work that does not depend on the viewer; it must give byte for byte what
rendering each viewer on its own gives (``table_view`` per seat, encoded, nothing
shared). Random legal tables of every game and seat count are played to their end
through the table decider (lobby, clocks, undo, a seat leaving, a clock expiring), and
every state on the way is compared."""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec
import pytest

from games.codec import codec_for
from games.registry import get_game
from games.table import Caller, TableState, decide_command, seat_deadline, table_view
from orrery_contracts.table import (
    ClockOption,
    CreateTable,
    ExpireClock,
    JoinSeat,
    LeaveTable,
    StartTable,
)
from projections.views import render_views

pytestmark = pytest.mark.unit

SEED = bytes(range(32))
TOKENS = [f"secret-of-seat-{s}-0123456789abcdef" for s in range(6)]
GAMES = ["fractured_sky", "spacecraft", "federation"]
_json = msgspec.json.Encoder()


def _one_by_one(state: TableState) -> dict[int | None, bytes]:
    """The reference: each viewer rendered on its own, nothing shared between them."""
    viewers: list[int | None] = [None, *range(state.seats)]
    return {seat: _json.encode(table_view(state, seat)) for seat in viewers}


def _check(state: TableState) -> None:
    rendered = render_views(state)  # first, so it cannot lean on the reference's settling
    expected = _one_by_one(state)
    assert list(rendered) == list(expected)
    for seat, view in expected.items():
        assert rendered[seat] == view, f"seq {state.seq}: viewer {seat} differs"


class _Table:
    """A table driven through ``decide_command`` as the service drives it."""

    def __init__(self, game: str, seats: int, clock: ClockOption | None) -> None:
        self.now = 1_700_000_000_000
        self.state = TableState(table_id="t1")
        self.send(CreateTable(game=game, seats=seats, clock=clock), None)
        for s in range(seats):
            self.send(JoinSeat(name=f"bot{s}"), None, TOKENS[s])

    def send(self, command: Any, seat: int | None, token: str | None = None) -> None:
        if token is None and seat is not None:
            token = TOKENS[seat]
        decision = decide_command(self.state, command, Caller(seat, token), SEED, self.now)
        self.state = decision.state
        _check(self.state)


def _play(game: str, seats: int, seed: int) -> int:
    """Play one table to its end; the number of moves."""
    chooser = Random(seed)
    clock = ClockOption(bank_s=30, per_move_s=2, on_expiry="bot") if seed % 2 else None
    table = _Table(game, seats, clock)
    table.send(StartTable(), 0)
    codec = codec_for(game)
    leaver = chooser.randrange(seats) if seats > 2 else None
    moves = 0
    while table.state.phase == "playing":
        moves += 1
        assert moves < 3000, "no end"
        table.now += chooser.randrange(0, 4000)
        state = table.state
        if clock is not None:  # a running clock that ran out is expired first
            late = [s for s in range(seats) if (seat_deadline(state, s) or table.now) < table.now]
            if late:
                table.send(ExpireClock(seat=late[0], turn=state.turn_seq[late[0]]), None)
                continue
        views = {s: msgspec.json.decode(_json.encode(table_view(state, s))) for s in range(seats)}
        to_move = [s for s in range(seats) if s in views[s]["to_move"]]
        seat = chooser.choice(to_move)
        legal = views[seat]["legal"]
        if seat == leaver and moves > 20:
            table.send(LeaveTable(), seat)
            leaver = None
            continue
        undo = [c for c in legal if c["type"] == "table.undo"]
        if undo and chooser.random() < 0.3:
            choice = undo[0]
        else:
            moves_only = [c for c in legal if not c["type"].startswith("table.")]
            choice = chooser.choice(moves_only)
        table.send(codec.decode_command(_json.encode(choice), True), seat)
    return moves


@pytest.mark.parametrize("game", GAMES)
def test_every_viewer_renders_as_alone(game: str) -> None:
    rules = get_game(game)
    assert rules is not None
    for seats in range(rules.min_seats, rules.max_seats + 1):
        assert _play(game, seats, seed=seats) > 0


def test_a_shortcut_that_changes_one_seat_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison fails when one viewer's bytes differ (here: seat 1 shown seat 0's)."""
    real = render_views

    def leaky(state: TableState) -> dict[int | None, bytes]:
        views = real(state)
        views[1] = views[0]
        return views

    monkeypatch.setitem(globals(), "render_views", leaky)
    with pytest.raises(AssertionError, match="viewer 1 differs"):
        _play("spacecraft", 2, seed=1)
