"""The table decider's ``Decision`` (games/table/decide.py): the state it returns is the table
folded from the events it decided, exactly as a reader folds the log; the state it was
given is left as it was; the caller's secret is checked and only its hash recorded."""

from __future__ import annotations

import hashlib
from random import Random
from typing import Any

import msgspec
import pytest

from games.codec import codec_for, json_encoder, msgpack_encoder
from games.registry import all_games
from games.rejection import Rejected
from games.table import (
    Caller,
    Decision,
    TableState,
    advance,
    decide_command,
    encode_snapshot,
    settle_turns,
    table_view,
    token_hash,
)
from orrery_contracts.table import CreateTable, JoinSeat, LeaveTable, StartTable

pytestmark = pytest.mark.unit

SEED = bytes(range(32))
TOKENS = [f"secret-of-seat-{s}-0123456789abcdef" for s in range(6)]


def _log_fold(before: TableState, decision: Decision, now: int) -> TableState:
    """The events decoded as from the log and folded onto a copy of ``before``."""
    state = msgspec.msgpack.decode(encode_snapshot(before), type=_Snapshot).restore(before)
    codec = codec_for(state.game or getattr(decision.command, "game", None))
    for i, event in enumerate(decision.events):
        body = codec.decode_event(msgpack_encoder.encode(event))
        state = advance(
            state, body, state.seq + 1, "", now, opens_command=i == 0, actor=decision.seat
        )
    return state


class _Snapshot(msgspec.Struct):
    rules_version: str
    table: TableState
    game_state: bytes | None

    def restore(self, like: TableState) -> TableState:
        if self.game_state is not None:
            self.table.game_state = msgspec.msgpack.decode(
                self.game_state, type=type(like.game_state)
            )
        return self.table


def _fingerprint(state: TableState) -> bytes:
    return encode_snapshot(state)


def _decide(state: TableState, command: Any, caller: Caller, now: int) -> TableState:
    before = _fingerprint(settle_turns(state))  # deciding settles the turns, nothing else
    decision = decide_command(state, command, caller, SEED, now)
    assert _fingerprint(state) == before  # the given state is untouched
    expected = _log_fold(state, decision, now)
    assert _fingerprint(decision.state) == _fingerprint(expected)
    assert decision.state.phase == expected.phase
    return decision.state


@pytest.mark.parametrize("game", sorted(all_games()))
def test_the_decided_state_is_the_logs_fold(game: str) -> None:
    chooser = Random(7)
    seats = 3 if game != "tiny" else 2
    now = 1_700_000_000_000
    state = TableState(table_id="t1")
    state = _decide(state, CreateTable(game=game, seats=seats, options={}), Caller(None, None), now)
    for s in range(seats):
        joined = decide_command(state, JoinSeat(name=f"p{s}"), Caller(5, TOKENS[s]), SEED, now)
        assert joined.seat is None and joined.joined_seat == s
        assert joined.command.token_hash == token_hash(TOKENS[s])  # the hash, never the secret
        assert TOKENS[s].encode() not in msgpack_encoder.encode(joined.command)
        state = _decide(state, JoinSeat(name=f"p{s}"), Caller(None, TOKENS[s]), now)
    state = _decide(state, StartTable(), Caller(0, TOKENS[0]), now)
    codec = codec_for(game)
    moves = 0
    while state.phase == "playing" and moves < 400:
        now += 1000
        seat = chooser.choice(table_view(state, 0).to_move)
        legal = msgspec.json.decode(json_encoder.encode(table_view(state, seat)))["legal"]
        choice = chooser.choice([c for c in legal if c["type"] != "table.leave"])
        command = codec.decode_command(msgspec.json.encode(choice), True)
        if moves == 10 and seats > 2:
            command = LeaveTable()  # the table moves for this seat from now on
        state = _decide(state, command, Caller(seat, TOKENS[seat]), now)
        moves += 1
    assert state.phase == "finished" or moves == 400


def test_a_wrong_or_weak_secret_is_refused_before_the_rules() -> None:
    now = 1_700_000_000_000
    state = decide_command(
        TableState(table_id="t2"), CreateTable(game="tiny", seats=2), Caller(None, None), SEED, now
    ).state
    with pytest.raises(Rejected) as weak:
        decide_command(state, JoinSeat(name="Ann"), Caller(None, "short"), SEED, now)
    assert weak.value.code == "weak_token"
    state = decide_command(state, JoinSeat(name="Ann"), Caller(None, TOKENS[0]), SEED, now).state
    for caller in (Caller(0, TOKENS[1]), Caller(None, TOKENS[0]), Caller(1, TOKENS[0])):
        with pytest.raises(Rejected) as refused:
            decide_command(state, StartTable(), caller, SEED, now)
        assert refused.value.code == "unauthorized"
    with pytest.raises(Rejected) as missing:
        decide_command(TableState(table_id="nope"), StartTable(), Caller(0, "x"), b"", now)
    assert missing.value.code == "no_such_table"
    assert hashlib.sha256(TOKENS[0].encode()).hexdigest() == state.token_hashes[0]


def test_an_unrated_table_says_so_and_a_rated_ones_creation_encodes_as_before() -> None:
    now = 1_700_000_000_000
    friendly = decide_command(
        TableState(table_id="t1"),
        CreateTable(game="tiny", seats=2, rated=False),
        Caller(None, None),
        SEED,
        now,
    )
    assert friendly.state.rated is False
    assert msgspec.msgpack.decode(msgpack_encoder.encode(friendly.events[0]))["rated"] is False
    assert _log_fold(TableState(table_id="t1"), friendly, now).rated is False
    ranked = decide_command(
        TableState(table_id="t2"), CreateTable(game="tiny", seats=2), Caller(None, None), SEED, now
    )
    assert ranked.state.rated is True
    # the field is absent from a rated table's event: an old log re-decides to its bytes
    assert "rated" not in msgspec.msgpack.decode(msgpack_encoder.encode(ranked.events[0]))
    # an old command (no "rated") decodes rated
    old = msgspec.msgpack.encode({"type": "table.create", "game": "tiny", "seats": 2})
    assert codec_for("tiny").decode_command(old, False).rated is True
