"""Undo (``table.undo``): random games of every game with random undos.

Property: after an undo every viewer's view equals the view it had at ``to_seq`` (but for
``seq``); ``legal`` offers ``table.undo`` exactly when decide accepts it; a hidden fact
changed in a log with undos reaches no viewer who may not know it (the differential
method of tests/test_replay.py); the audit re-decides every undo; export and import
keep it. Then each refusal reason, and clocks.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rejection import Rejected
from games.table import (
    TableState,
    advance,
    apply_entry,
    decide_table,
    decode_snapshot,
    encode_snapshot,
    settle_turns,
    table_view,
    token_hash,
)
from orrery_client.bot import choose
from orrery_contracts.envelope import RawEnvelope
from orrery_contracts.fractured_sky import commands as fs
from orrery_contracts.table import (
    ClockOption,
    CreateTable,
    JoinSeat,
    StartTable,
    TableUndone,
    UndoTable,
)
from services.audit import audit_entries
from services.replay import SPECTATOR, Viewer, frames, play_log
from services.transfer import export_lines, read_log_lines
from tests.support import tinygame as tiny
from tests.support.logs import event_of, rewrite

pytestmark = pytest.mark.unit

GAMES = [
    ("spacecraft", 2),
    ("spacecraft", 4),
    ("federation", 2),
    ("federation", 3),
    ("fractured_sky", 1),
    ("fractured_sky", 3),
]
_json = msgspec.json.Encoder()
UNDO = {"type": "table.undo", "to_seq": None}  # as a view's legal lists it
# what a view says of the latest command, not of the game: after an undo they tell the
# undo, at ``to_seq`` the command before it
AFTER_THE_FACT = ("seq", "actor", "undone_by")


def views_by_boundary(entries: list[RawEnvelope], seats: int) -> dict[int, list[Any]]:
    """Per command boundary seq: every viewer's view (decoded, without ``seq``), after
    checking that each seat's ``legal`` offers ``table.undo`` exactly when decide
    accepts it there."""
    state = TableState(table_id=entries[0].table_id)
    out: dict[int, list[Any]] = {}
    for index, entry in enumerate(entries):
        state = apply_entry(state, entry)
        if index + 1 < len(entries) and entries[index + 1].command_id == entry.command_id:
            continue
        seen = []
        for seat in [None, *range(seats)]:
            view = msgspec.json.decode(_json.encode(table_view(state, seat)))
            if seat is not None and state.phase == "playing":
                offered = UNDO in view["legal"]
                assert offered == accepts_undo(state, seat), (entry.seq, seat)
            for key in AFTER_THE_FACT:
                del view[key]
            seen.append(view)
        out[entry.seq] = seen
    return out


def accepts_undo(state: TableState, seat: int) -> bool:
    try:
        decide_table(state, UndoTable(), seat, b"s" * 32)
    except Rejected as rejected:
        assert rejected.code in ("undo_blocked", "seat_left"), rejected.code
        return False
    return True


def undos(entries: list[RawEnvelope], game: str) -> list[tuple[int, TableUndone]]:
    out = []
    for entry in entries:
        event = event_of(entry, game)
        if isinstance(event, TableUndone):
            out.append((entry.seq, event))
    return out


@pytest.mark.parametrize(("game", "seats"), GAMES)
@given(seed=st.integers(min_value=0, max_value=2**31))
@settings(max_examples=3, deadline=None)
def test_after_an_undo_every_view_is_the_view_at_to_seq(game: str, seats: int, seed: int) -> None:
    entries, _ = play_log(game, seats, seed, undo_chance=0.35)
    taken = undos(entries, game)
    views = views_by_boundary(entries, seats)
    for seq, event in taken:
        assert event.from_seq == seq - 1 and event.to_seq < event.from_seq
        assert views[seq] == views[event.to_seq], f"{game}: undo at seq {seq}"
    if game != "fractured_sky":  # its turns are mostly one action: undos are rare
        assert taken, "no undo was taken: the test proves nothing"


# A hidden fact per game that no seat and no spectator may ever see.
HIDDEN: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "fractured_sky": (
        "fs.game_set_up",
        lambda e: msgspec.structs.replace(e, secret_deck=list(reversed(e.secret_deck))),
    ),
    "spacecraft": (
        "sc.designs_laid",
        lambda e: msgspec.structs.replace(e, deck=list(reversed(e.deck))),
    ),
    "federation": (
        "fed.set_up",
        lambda e: msgspec.structs.replace(e, laws=[list(reversed(s)) for s in e.laws]),
    ),
}


@pytest.mark.parametrize(
    ("game", "seats"), [("fractured_sky", 3), ("spacecraft", 3), ("federation", 2)]
)
def test_hidden_facts_stay_hidden_across_undos(game: str, seats: int) -> None:
    entries, _ = play_log(game, seats, 11, undo_chance=0.35)
    assert undos(entries, game)
    tag, change = HIDDEN[game]
    index = next(i for i, e in enumerate(entries) if msgspec.msgpack.decode(e.body)["type"] == tag)
    changed = rewrite(entries, index, game, change)
    assert changed[index].body != entries[index].body
    viewers: list[Viewer] = [SPECTATOR, *range(seats)]
    for viewer in viewers:
        a = [f.rendered for f in frames(entries, viewer)]
        b = [f.rendered for f in frames(changed, viewer)]
        assert a == b, f"{game}: viewer {viewer} sees the hidden fact"


@pytest.mark.parametrize(
    ("game", "seats"), [("spacecraft", 2), ("federation", 2), ("fractured_sky", 2)]
)
def test_audit_and_export_re_decide_undos(game: str, seats: int) -> None:
    entries, _ = play_log(game, seats, 5, undo_chance=0.35)
    report = audit_entries(entries)
    assert report.verdict == "PASSED", report.as_dict()
    assert report.commands == report.commands_redecided
    again = read_log_lines(export_lines(entries))
    assert again == entries
    # a forged undo (to a seq the seat could not go back to) fails the audit
    seq, event = undos(entries, game)[-1] if undos(entries, game) else (0, None)
    if event is not None:
        forged = rewrite(entries, seq - 1, game, lambda e: msgspec.structs.replace(e, to_seq=0))
        assert audit_entries(forged).verdict != "PASSED"


# ---------------------------------------------------------------- each reason


class Table:
    """A table decided and folded in memory, as the worker does."""

    def __init__(self, game: str, seats: int, clock: ClockOption | None = None) -> None:
        self.state = TableState(table_id="t")
        self.now = 1_000_000
        self.seed = b"x" * 32
        self.run(CreateTable(game=game, seats=seats, clock=clock), None)
        for seat in range(seats):
            self.run(JoinSeat(name=f"P{seat}", seat=seat, token_hash=token_hash("t" * 22)), None)
        self.run(StartTable(), 0)

    def run(self, body: Any, seat: int | None, after_ms: int = 1000) -> list[Any]:
        self.now += after_ms
        events = decide_table(self.state, body, seat, self.seed, self.now)
        for i, event in enumerate(events):
            self.state = advance(
                self.state,
                event,
                self.state.seq + 1,
                "h",
                self.now,
                opens_command=i == 0,
                actor=seat,
            )
        settle_turns(self.state)
        return events

    def refused(self, seat: int, to_seq: int | None = None) -> str:
        with pytest.raises(Rejected) as caught:
            self.run(UndoTable(to_seq=to_seq), seat)
        assert caught.value.code == "undo_blocked"
        assert caught.value.detail is not None
        if to_seq is None:
            assert UNDO not in self.legal(seat)
        reason: str = caught.value.detail["reason"]
        return reason

    def legal(self, seat: int) -> list[Any]:
        return msgspec.json.decode(_json.encode(table_view(self.state, seat)))["legal"]

    def view(self, seat: int | None) -> Any:
        view = msgspec.json.decode(_json.encode(table_view(self.state, seat)))
        for key in AFTER_THE_FACT:
            del view[key]
        return view

    def to_move(self) -> list[int]:
        return list(table_view(self.state, None).to_move)

    def play(self, seat: int, tag: str) -> Any:
        body = next(c for c in table_view(self.state, seat).legal if c.__struct_config__.tag == tag)
        self.run(body, seat)
        return body


def spacecraft_to_build_step(clock: ClockOption | None = None) -> tuple[Table, int]:
    """A SPACEcraft table where the seat to move has just left the junkyard."""
    table = Table("spacecraft", 2, clock)
    for seat in range(2):
        table.play(seat, "sc.choose_goal")
    while True:
        seat = table.to_move()[0]
        tags = [c.__struct_config__.tag for c in table_view(table.state, seat).legal]
        if "sc.leave" in tags:
            table.play(seat, "sc.leave")
            return table, seat
        table.play(seat, "sc.visit" if "sc.visit" in tags else "sc.search")


def test_undo_step_by_step_within_a_spacecraft_turn() -> None:
    table, seat = spacecraft_to_build_step()
    other = 1 - seat
    at_leave = [table.view(v) for v in (None, 0, 1)]
    leave_seq = table.state.seq
    assert UNDO in table.legal(seat)
    assert UNDO not in table.legal(other)
    assert table.refused(other) == "turn_ended"
    table.play(seat, "sc.reserve")
    (undone,) = table.run(UndoTable(), seat)
    assert undone == TableUndone(seat=seat, from_seq=leave_seq + 1, to_seq=leave_seq)
    assert [table.view(v) for v in (None, 0, 1)] == at_leave
    # back over the leave too, then nothing is left of this turn
    turn_began = table.state.turn_seq[seat]
    assert table.refused(seat, to_seq=turn_began - 1) == "turn_ended"
    table.run(UndoTable(to_seq=turn_began), seat)
    assert table.refused(seat) == "nothing_to_undo"
    assert table.refused(seat, to_seq=table.state.seq) == "nothing_to_undo"
    # the turn goes on as if nothing happened, and ends
    table.play(seat, "sc.leave")
    table.play(seat, "sc.end_turn")
    assert table.refused(seat) == "turn_ended"
    assert table.refused(other) == "nothing_to_undo"


def test_a_revealing_command_cannot_be_taken_back() -> None:
    table = Table("fractured_sky", 3)
    for seat in range(3):
        table.run(fs.ChooseStart(gold=4, iron=0, wood=0), seat)
    seat = table.to_move()[0]
    table.play(seat, "fs.scout")  # the seat sees a secret card, then takes a resource
    assert table.to_move() == [seat]
    assert table.refused(seat) == "revealed"


def test_a_draw_of_chance_cannot_be_taken_back() -> None:
    table = Table("tiny", 1)
    table.run(tiny.Draw(), 0)
    assert table.to_move() == [0]
    assert table.refused(0) == "random"


def test_another_players_command_blocks_the_undo() -> None:
    table = Table("fractured_sky", 3)
    for seat in range(3):
        table.run(fs.ChooseStart(gold=2, iron=1, wood=1), seat)
    seat = table.to_move()[0]
    other = (seat + 1) % 3
    table.run(fs.Trade(gold=1, iron=1, wood=0, get="wood"), seat)
    assert UNDO in table.legal(seat)
    table.run(fs.Trade(gold=1, iron=0, wood=1, get="iron"), other)  # a free trade off-turn
    assert table.refused(seat) == "other_player"
    assert table.refused(other) == "turn_ended"


def test_the_clock_keeps_running_and_gives_no_time_back() -> None:
    clock = ClockOption(bank_s=100, per_move_s=10)
    table, seat = spacecraft_to_build_step(clock)
    before = table.state.remaining_ms[seat]
    turn = table.state.turn_seq[seat]
    table.play(seat, "sc.reserve")  # 1 s later: -1 s, +10 s for the next move
    earned = table.state.remaining_ms[seat]
    assert earned == before - 1000 + 10_000
    table.run(UndoTable(), seat, after_ms=3000)
    # the move's 10 s are withdrawn; the 1 s it took and the 3 s since stay spent
    assert table.state.remaining_ms[seat] == earned - 10_000
    assert table.state.turn_seq[seat] == turn  # the same turn: no new "your turn" notice
    since = table.state.since_ms[seat]
    table.play(seat, "sc.reserve")
    assert table.state.remaining_ms[seat] == earned - 10_000 - (table.now - since) + 10_000


@pytest.mark.parametrize(("game", "seats"), [("spacecraft", 3), ("federation", 2)])
def test_snapshots_keep_what_an_undo_restores(game: str, seats: int) -> None:
    """A worker folding from a snapshot (taken anywhere, mid-turn too) gets the same
    table as a fold of the whole log, undos included."""
    entries, _ = play_log(game, seats, 8, undo_chance=0.35)
    assert undos(entries, game)
    whole = TableState(table_id=entries[0].table_id)
    for entry in entries:
        whole = apply_entry(whole, entry)
    resumed = TableState(table_id=entries[0].table_id)
    for index, entry in enumerate(entries):
        resumed = apply_entry(resumed, entry)
        if index % 7 == 3:
            again = decode_snapshot(encode_snapshot(resumed))
            assert again is not None
            resumed = again
    assert msgspec.msgpack.encode(resumed) == msgspec.msgpack.encode(whole)


def test_bots_never_undo() -> None:
    view = {"legal": [UNDO, {"type": "table.leave"}]}
    assert choose(view, Random(1)) is None
    view = {"legal": [UNDO, {"type": "sc.end_turn"}, {"type": "table.leave"}]}
    assert all(choose(view, Random(n)) == {"type": "sc.end_turn"} for n in range(20))
