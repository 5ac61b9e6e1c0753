"""A client generated from the served OpenAPI document (``openapi-python-client``, a tool
nobody here wrote) plays a whole game of every game with its typed models alone: the
per-game views, the legal moves as command models sent back as they are, the outcomes;
and nothing the server sends lands in a model's untyped ``additional_properties``.

The generator pins an older typer than the project, so ``dev.py`` keeps it in a virtual
environment of its own (installed on first use); the client is generated once per run.
"""

from __future__ import annotations

import asyncio
import importlib
import random
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest

from games.registry import BUILTIN
from tests.support.gateway import LiveGateway, live_gateway, unique
from tests.support.service import REPO

pytestmark = pytest.mark.gateway

PACKAGE = "orrery_api_client"
# not moves forward: an undo may go back for ever (and a bot at the other seat may
# make it stale: undo_blocked)
NOT_MOVES = ("StartTable", "LeaveTable", "JoinRequest", "CreateTable", "UndoTable")


def _generator() -> Path:
    sys.path.insert(0, str(REPO))
    try:
        dev = importlib.import_module("dev")
    finally:
        sys.path.remove(str(REPO))
    tool: Path = dev.ensure_client_generator()
    return tool


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    with live_gateway(Path(tmp_path_factory.mktemp("gw-client"))) as gateway:
        yield gateway


@pytest.fixture(scope="module")
def api(live: LiveGateway, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The generated package (``api.client``, ``api.models``, ``api.api.<tag>``)."""
    folder = tmp_path_factory.mktemp("generated")
    document = folder / "openapi.json"
    document.write_bytes(httpx.get(f"{live.url}/v1/openapi.json", timeout=30).content)
    generate = [str(_generator()), "generate", "--path", str(document), "--meta", "none"]
    run = subprocess.run(
        [*generate, "--output-path", str(folder / PACKAGE)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # every schema became a model: nothing was dropped as unprocessable
    assert "Unable to" not in run.stdout + run.stderr, run.stdout + run.stderr
    sys.path.insert(0, str(folder))
    try:
        package = importlib.import_module(PACKAGE)
        for module in ("client", "models", "types"):
            importlib.import_module(f"{PACKAGE}.{module}")
        yield package
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _call(api: Any, tag: str, operation: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.api.{tag}.{operation}")


def _untyped(value: Any, path: str = "$") -> list[str]:
    """Where a parsed answer holds members no schema named (additional_properties)."""
    found: list[str] = []
    if attrs.has(type(value)):
        fields = [f.name for f in attrs.fields(type(value)) if f.name != "additional_properties"]
        # a map (``dict[str, int]``: ratings, a supply by colour) is a model of no fields
        # whose entries are its additional properties; an object's must be none
        if fields and getattr(value, "additional_properties", {}):
            found.append(f"{path}: {sorted(value.additional_properties)}")
        for name in fields:
            found += _untyped(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _untyped(item, f"{path}[{i}]")
    return found


def _model(api: Any, name: str) -> Any:
    return getattr(importlib.import_module(f"{PACKAGE}.models"), name)


async def _signed_in(api: Any, base_url: str) -> Any:
    models = importlib.import_module(f"{PACKAGE}.models")
    name = unique("Gen")
    anonymous = api.Client(base_url=base_url, timeout=httpx.Timeout(30.0))
    created = await _call(api, "players", "create_player").asyncio(
        client=anonymous, body=models.NewPlayer(name=name, password="a good password")
    )
    assert isinstance(created, models.PlayerCreated), created
    session = await _call(api, "sessions", "create_session").asyncio(
        client=anonymous, body=models.Credentials(name=name, password="a good password")
    )
    assert isinstance(session, models.Session), session
    assert session.expires_at.tzinfo is not None  # a datetime, from format: date-time
    return api.AuthenticatedClient(
        base_url=base_url, token=session.token, timeout=httpx.Timeout(30.0)
    )


@pytest.mark.parametrize("game", sorted(BUILTIN))
async def test_a_generated_client_plays_a_whole_game(
    live: LiveGateway, api: Any, game: str
) -> None:
    models = importlib.import_module(f"{PACKAGE}.models")
    client = await _signed_in(api, live.url)
    camel = "".join(part.title() for part in game.split("_"))
    new_table = _model(api, f"New{camel}Table")
    game_enum = _model(api, f"New{camel}TableGame")
    view_type = _model(api, f"{camel}TableView")
    made = await _call(api, "tables", "create_table").asyncio(
        client=client, body=new_table(game=game_enum(game), seats=2)
    )
    assert isinstance(made, models.TableMade), made
    table = made.table_id
    seat = await _call(api, "tables", "join_table").asyncio(
        client=client, table_id=table, body=models.JoinIn()
    )
    assert isinstance(seat, models.SeatOut) and seat.seat == 0, seat
    bot = await _call(api, "tables", "add_bot").asyncio(
        client=client, table_id=table, body=models.BotIn()
    )
    assert isinstance(bot, models.SeatOut) and bot.seat == 1, bot
    started = await _call(api, "tables", "start_table").asyncio(client=client, table_id=table)
    assert isinstance(started, models.Accepted), started

    rng = random.Random(29)
    get_view = _call(api, "play", "get_view")
    send_command = _call(api, "play", "send_command")
    moves = 0
    async with asyncio.timeout(240):
        while True:
            view = await get_view.asyncio(client=client, table_id=table)
            assert isinstance(view, view_type), view
            assert not _untyped(view), _untyped(view)
            if view.phase.value == "finished":
                break
            legal = [m for m in view.legal if type(m).__name__ not in NOT_MOVES]
            if view.viewer not in view.to_move or not legal:
                await asyncio.sleep(0.05)
                continue
            move = rng.choice(legal)
            outcome = await send_command.asyncio(
                client=client,
                table_id=table,
                body=models.CommandIn(command_id=uuid.uuid4().hex, body=move),
            )
            # accepted, or refused because the view I chose from was already stale
            assert isinstance(outcome, models.Accepted | models.ErrorBody), outcome
            if isinstance(outcome, models.ErrorBody):
                assert outcome.outcome.value == "rejected" and outcome.code, outcome
            moves += 1
    assert moves > 0 and view.standing is not None and view.seed
    # the replay of the table's first move, typed the same way, with where it stands
    replay = await _call(api, "replay", "get_replay").asyncio(client=client, table_id=table, step=1)
    assert type(replay).__name__ == f"{camel}ReplayView", replay
    assert replay.replay.step == 1 and not _untyped(replay)
    # the typed leaderboard and the error body of an unknown game
    board = await _call(api, "leaderboard", "get_leaderboard").asyncio(
        client=client, game=_model(api, "GetLeaderboardGame")(game)
    )
    assert isinstance(board, models.Leaderboard)


async def test_a_generated_client_reaches_notifications_friends_and_reports(
    live: LiveGateway, api: Any
) -> None:
    """Preferences, an address, a push subscription and my turns; a friend request both
    ways and the friends list; a report on a chat line: through the generated
    operations and models alone."""
    models = importlib.import_module(f"{PACKAGE}.models")
    ann = await _signed_in(api, live.url)
    ben = await _signed_in(api, live.url)
    get_me = _call(api, "players", "get_me")
    ann_id = (await get_me.asyncio(client=ann)).player_id
    ben_id = (await get_me.asyncio(client=ben)).player_id

    prefs = models.NotificationPrefs(
        channels=[_model(api, "NotificationPrefsChannelsItem")("push")],
        quiet_hours=models.QuietHours(start="22:00", end="07:30"),
        time_zone="Europe/Paris",
    )
    kept = await _call(api, "notifications", "set_notifications").asyncio(client=ann, body=prefs)
    assert isinstance(kept, models.Notifications) and not _untyped(kept), kept
    assert kept.quiet_hours.end == "07:30" and kept.time_zone == "Europe/Paris"
    address = await _call(api, "notifications", "set_email").asyncio(
        client=ann, body=models.EmailIn(email=f"{ann_id}@example.org")
    )
    assert isinstance(address, models.EmailStatus) and address.state.value == "pending"
    subscription = models.PushSubscriptionIn(
        endpoint=f"https://fcm.googleapis.com/fcm/send/{ann_id}",
        keys=models.PushKeys(p256dh="BKey", auth="auth"),
    )
    pushed = await _call(api, "notifications", "add_push_subscription").asyncio(
        client=ann, body=subscription
    )
    assert isinstance(pushed, models.PushState) and pushed.push_subscriptions == 1, pushed
    dropped = await _call(api, "notifications", "delete_push_subscription").asyncio_detailed(
        client=ann, body=models.PushEndpoint(endpoint=subscription.endpoint)
    )
    assert dropped.status_code == 204
    turns = await _call(api, "notifications", "my_turns").asyncio(client=ann)
    assert isinstance(turns, models.MyTurns) and turns.tables == []

    befriend = _call(api, "friends", "befriend_player")
    asked = await befriend.asyncio(client=ann, player_id=ben_id)
    assert isinstance(asked, models.Friendship) and asked.state.value == "requested", asked
    accepted = await befriend.asyncio(client=ben, player_id=ann_id)
    assert isinstance(accepted, models.Friendship) and accepted.state.value == "friends"
    friends = await _call(api, "friends", "list_friends").asyncio(client=ann)
    assert isinstance(friends, models.Friends) and not _untyped(friends), friends
    assert [f.player_id for f in friends.friends] == [ben_id]

    made = await _call(api, "tables", "create_table").asyncio(
        client=ann,
        body=_model(api, "NewTinyTable")(game=_model(api, "NewTinyTableGame")("tiny"), seats=2),
    )
    table = made.table_id
    for client in (ann, ben):
        await _call(api, "tables", "join_table").asyncio(
            client=client, table_id=table, body=models.JoinIn()
        )
    said = await _call(api, "chat", "post_chat").asyncio(
        client=ben, table_id=table, body=models.ChatIn(text="a rude line")
    )
    report = await _call(api, "reports", "report_chat").asyncio(
        client=ann, table_id=table, message_id=said.id, body=models.ReportIn(reason="rude")
    )
    assert isinstance(report, models.ReportOut) and not _untyped(report), report
    assert report.messages == 1
