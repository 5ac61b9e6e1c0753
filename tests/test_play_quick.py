"""``orrery play --quick GAME`` on a real terminal (a pty) against a live service with a
matchmaker and the bot runner: the player is queued, told how long they have waited,
seated at a started table with bots after ``--bots-after``, and plays it."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from orrery.cli.play import local_player
from orrery_contracts.lobby import lobby_table_decoder, lobby_table_key
from tests.support.service import LiveService, live_service
from tests.test_terminal import Terminal, play_until

pytestmark = pytest.mark.service
KEY = secrets.token_urlsafe(32)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("quick")), ORRERY_SECRET_KEY=KEY) as service:
        fast = {"ORRERY_SECRET_KEY": KEY, "ORRERY_MATCHMAKER_CYCLE_S": "0.2"}
        service.start("matchmaker", **fast)
        service.start("bots", **fast)
        yield service


def test_quick_play_seats_me_with_bots_and_i_play(
    live: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORRERY_SECRET_KEY", KEY)
    terminal = Terminal(
        "--quick", "fractured_sky", "--players", "3", "--bots-after", "1", "--name", "Quinn",
        "--redis-url", live.url,
    )  # fmt: skip
    try:
        terminal.expect("looking for a 3-player fractured_sky table")
        table = terminal.expect(r"table (m\S+) · you are seat (\d)").group(1)
        play_until(terminal, 1)
        assert not terminal.rejections()
        terminal.send("q")
        assert terminal.wait() == 0
    finally:
        terminal.close()
    # the table is a started, rated one: the seat is Quinn's verified player id
    record = lobby_table_decoder.decode(live.sync_redis().get(lobby_table_key(table)))
    assert record.state == "playing" and record.seats == 3
    assert [p.player_id for p in record.players if not p.bot] == [local_player("Quinn")]


def test_quick_play_refuses_a_table_argument_in_one_line() -> None:
    terminal = Terminal("--quick", "spacecraft", "--table", "t1")
    try:
        terminal.expect("--quick GAME finds you a table")
        assert terminal.wait() == 2
        assert "Traceback" not in terminal.text
    finally:
        terminal.close()
