"""Replay as a viewer: only table_view output, hidden facts stay hidden at every seq.

Differential method (as in the games' hidden-information tests): change a hidden fact in
a log (and re-seal it), replay both logs as every viewer, and compare. A viewer who may
not know the fact sees identical frames; the one who knows it sees the difference.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from games.table import TableState, apply_entry, table_view
from orrery_contracts.envelope import RawEnvelope
from services.replay import (
    ADMIN,
    SPECTATOR,
    AccessDenied,
    Viewer,
    authorize,
    fold,
    frames,
    parse_viewer,
    render,
    view_changes,
)
from services.transfer import export_view_lines
from tests.support.logs import find, game_log, rewrite

pytestmark = pytest.mark.unit

_json = msgspec.json.Encoder()


def rendered(entries: list[RawEnvelope], viewer: Viewer) -> list[bytes]:
    return [frame.rendered for frame in frames(entries, viewer)]


def differing(a: list[RawEnvelope], b: list[RawEnvelope], seats: int) -> dict[Viewer, list[int]]:
    """Per viewer, the indexes of the frames that differ between two logs."""
    out: dict[Viewer, list[int]] = {}
    for viewer in [SPECTATOR, *range(seats)]:
        x, y = rendered(a, viewer), rendered(b, viewer)
        assert len(x) == len(y)
        out[viewer] = [i for i in range(len(x)) if x[i] != y[i]]
    return out


def test_a_frame_is_the_table_view_of_the_log_folded_to_its_last_seq() -> None:
    entries, _ = game_log("spacecraft", 3)
    viewers: list[Viewer] = [SPECTATOR, 0, 1, 2]
    for viewer in viewers:
        seat = None if viewer == SPECTATOR else int(viewer)
        for frame in frames(entries, viewer):
            state = TableState(table_id=entries[0].table_id)
            for entry in entries[: frame.last]:
                state = apply_entry(state, entry)
            assert frame.rendered == _json.encode(table_view(state, seat))
            # a frame ends where a command's events end (what a viewer could ever see)
            assert frame.last == len(entries) or (
                entries[frame.last].command_id != entries[frame.last - 1].command_id
            )


def test_tiny_card_is_hidden_from_everyone_but_its_owner_until_the_end() -> None:
    entries, _ = game_log("tiny", 3, seed=4)
    index = find(entries, "tiny", "tiny.dealt")  # seat 0's first card, dealt at the start
    changed = rewrite(
        entries,
        index,
        "tiny",
        lambda e: msgspec.structs.replace(e, card=e.card % 6 + 1),
    )
    diff = differing(entries, changed, 3)
    last = len(rendered(entries, SPECTATOR)) - 1
    assert diff[0] and diff[0][0] <= 5  # the owner sees it from the deal on
    for viewer in (SPECTATOR, 1, 2):
        assert diff[viewer] == [last]  # everyone else only once the game is over


def test_fractured_sky_deck_order_reaches_no_viewer_at_any_seq() -> None:
    entries, _ = game_log("fractured_sky", 4, seed=2)
    index = find(entries, "fractured_sky", "fs.game_set_up")
    changed = rewrite(
        entries,
        index,
        "fractured_sky",
        lambda e: msgspec.structs.replace(e, secret_deck=list(reversed(e.secret_deck))),
    )
    assert changed[index].body != entries[index].body
    assert differing(entries, changed, 4) == {v: [] for v in [SPECTATOR, 0, 1, 2, 3]}
    # the admin sees the full state, so the deck order
    assert rendered(entries, ADMIN) != rendered(changed, ADMIN)


def test_fractured_sky_chip_value_reaches_only_its_owner() -> None:
    entries, _ = game_log("fractured_sky", 4, seed=2)
    index = next(
        i
        for i in range(len(entries))
        if (e := msgspec.msgpack.decode(entries[i].body)).get("type") == "fs.airship_placed"
        and 2 <= e["chip"] <= 8
    )
    owner = msgspec.msgpack.decode(entries[index].body)["seat"]
    changed = rewrite(
        entries, index, "fractured_sky", lambda e: msgspec.structs.replace(e, chip=e.chip + 1)
    )
    diff = differing(entries, changed, 4)
    frame_of_change = next(
        i for i, f in enumerate(frames(entries, SPECTATOR)) if f.first <= index + 1 <= f.last
    )
    assert diff[owner][0] == frame_of_change
    # the round-end reveal is a fact of its own (it carries the revealed values), so the
    # changed placement never reaches anyone else
    others: list[Viewer] = [SPECTATOR, *(s for s in range(4) if s != owner)]
    for viewer in others:
        assert diff[viewer] == []


def test_player_export_holds_only_views() -> None:
    entries, _ = game_log("tiny", 2, seed=3)
    lines = list(export_view_lines(entries, 1))
    assert lines == rendered(entries, 1)[1:]
    for line in lines:
        doc = msgspec.json.decode(line)
        assert doc["viewer"] == 1 and "entry" not in doc and "event" not in doc


def test_authorization() -> None:
    entries, tokens = game_log("tiny", 2, seed=3)
    state = fold(entries)
    authorize(state, SPECTATOR, None)
    authorize(state, 1, tokens[1])
    authorize(state, 0, "admin-secret", admin_token="admin-secret")
    authorize(state, ADMIN, "admin-secret", admin_token="admin-secret")
    refused: list[tuple[Viewer, str | None, str]] = [
        (1, tokens[0], "x"),
        (1, None, "x"),
        (5, tokens[0], "x"),
        (ADMIN, "guess", "admin-secret"),
        (ADMIN, "", ""),
    ]
    for viewer, token, admin in refused:
        with pytest.raises(AccessDenied):
            authorize(state, viewer, token, admin_token=admin)


def test_parse_viewer_and_view_changes() -> None:
    assert parse_viewer("2") == 2 and parse_viewer("admin") == ADMIN
    with pytest.raises(ValueError):
        parse_viewer("everyone")
    before: dict[str, Any] = {"a": 1, "b": {"c": [1, 2]}, "d": [{"x": 1}]}
    after: dict[str, Any] = {"a": 1, "b": {"c": [1, 3]}, "d": [{"x": 2}], "e": True}
    assert view_changes(before, after) == [
        ("b.c", [1, 2], [1, 3]),
        ("d[0].x", 1, 2),
        ("e", None, True),
    ]


def test_admin_render_is_the_full_state() -> None:
    entries, _ = game_log("tiny", 2, seed=3)
    doc = msgspec.json.decode(render(fold(entries, 10), ADMIN))
    assert doc["seq"] == 10 and doc["game_state"]["cards"]
