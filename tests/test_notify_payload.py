"""What the notifier's push message says (notify/notifier.py ``push_payload``), as
docs/gateway.md describes it to a service worker: one table opens that table; several
are one message with their count in the title, opening the client's start page; a
tournament table ready says so, and is not told twice when its first turn waits too."""

from __future__ import annotations

import pytest

from notify.mail import ReadyTable
from notify.models import WaitingTable
from notify.notifier import push_payload

pytestmark = pytest.mark.unit


def _waiting(table_id: str, game: str = "spacecraft") -> WaitingTable:
    return WaitingTable(table_id=table_id, game=game, seat=0, seq=7)


def test_one_table_opens_it() -> None:
    assert push_payload([_waiting("t1")]) == {
        "type": "your_turn",
        "title": "Your turn — Orrery",
        "body": "SPACEcraft, table t1",
        "url": "/#/table/t1",
        "tables": ["t1"],
    }


def test_several_tables_are_one_message() -> None:
    payload = push_payload([_waiting("t1"), _waiting("t2", "federation"), _waiting("t3")])
    assert payload["title"] == "(3) Your turn — Orrery"
    assert payload["url"] == "/#/" and payload["tables"] == ["t1", "t2", "t3"]
    assert payload["body"].splitlines() == [
        "SPACEcraft, table t1",
        "Federation, table t2",
        "SPACEcraft, table t3",
    ]


def test_a_tournament_table_ready_is_told_once() -> None:
    ready = ReadyTable(table_id="t9", game="federation", tournament_id="tn1", round=2)
    payload = push_payload([_waiting("t9", "federation")], [ready])
    assert payload == {
        "type": "tournament",
        "title": "Your tournament table is ready — Orrery",
        "body": "Federation, tournament table t9",
        "url": "/#/table/t9",
        "tables": ["t9"],
    }
