"""Turn notifications end to end, with real servers on loopback: players of a live
gateway, two real ``orrery notifier`` processes side by side, an SMTP server (aiosmtpd)
and a Web Push service that checks each request's VAPID JWT and decrypts its RFC 8291
body with the subscription's keys (tests/support/notify.py).

What they prove: the confirmation mail and its signed link; a turn mail with a working
one-click unsubscribe (RFC 8058); one digest for three waiting tables; a push decrypted
by the browser's keys, and a subscription dropped once the push service answers 404 or
410; no mail while the player holds a live socket; quiet hours in the player's own time
zone and the hourly limit hold messages, the tables still waiting, until they end; "your
tournament table is ready" when a round is paired; no address or endpoint in any log,
stream, other key or another player's answer; and a notifier killed mid-delivery loses
nothing and sends nothing twice."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
import redis as sync_redis

from notify.vapid import new_private_key, public_key
from orrery.runtime import spawn, stop_processes
from orrery_contracts import keys
from tests.support.gateway import LiveGateway, Player, error_of, live_gateway, sign_up, unique
from tests.support.notify import PushService, SmtpServer

pytestmark = pytest.mark.gateway

VAPID = new_private_key()
PER_HOUR = 3  # no other test here sends a player more than this (the limit's own)


class Stack:
    def __init__(self, live: LiveGateway, smtp: SmtpServer, push: PushService, log: Path) -> None:
        self.live = live
        self.smtp = smtp
        self.push = push
        self.log = log
        self.notifiers: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        return self.live.url

    def start_notifier(self, **env: str) -> subprocess.Popen[bytes]:
        settings = {
            "ORRERY_SECRET_KEY": self.live.key,
            "ORRERY_VAPID_PRIVATE_KEY": VAPID,
            "ORRERY_SMTP_URL": self.smtp.url,
            "ORRERY_PUBLIC_URL": self.live.url,
            "ORRERY_PUSH_HOSTS": self.push.origin,
            "ORRERY_NOTIFY_ACTIVE_S": "1",
            "ORRERY_NOTIFY_GATHER_S": "0.5",
            "ORRERY_NOTIFY_CLAIM_MS": "2000",
            "ORRERY_NOTIFY_LEASE_MS": "2000",
            "ORRERY_NOTIFY_PER_HOUR": str(PER_HOUR),
            **env,
        }
        with self.log.open("ab") as out:
            process = spawn("notifier", self.live.redis_url, 0, settings, stderr=out)
        self.notifiers.append(process)
        return process

    def logs(self) -> str:
        return self.log.read_text(errors="replace") + self.live.logs()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder = Path(tmp_path_factory.mktemp("notify"))
    with (
        SmtpServer() as smtp,
        PushService() as push,
        live_gateway(folder, bots=False, ORRERY_PUSH_HOSTS=push.origin) as live,
    ):
        push.vapid_public = public_key(VAPID)
        built = Stack(live, smtp, push, folder / "notifier.log")
        for _ in range(2):  # side by side: every count of messages below holds for two
            built.start_notifier()
        ready = sync_redis.Redis.from_url(live.redis_url)
        deadline = time.monotonic() + 30
        while not ready.exists(keys.NOTIFY_VAPID):  # a notifier runs (its key published)
            assert time.monotonic() < deadline, built.logs()[-3000:]
            time.sleep(0.05)
        ready.close()
        try:
            yield built
        finally:
            stop_processes(built.notifiers)


@pytest.fixture
async def http(stack: Stack) -> Any:
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        yield client


def _link(message: Any, path: str) -> str:
    found = re.search(r"(http://\S+" + re.escape(path) + r"\?token=\S+)", message.get_content())
    assert found, message.get_content()
    return found.group(1)


async def _confirmed(stack: Stack, player: Player, channels: list[str]) -> str:
    """Give the player an address, open the confirmation link mailed to it; the address."""
    address = f"{player.name}@example.org"
    put = await player.http.put(
        "/v1/players/me/email", headers=player.headers, json={"email": address}
    )
    assert put.status_code == 202, put.text
    (mail,) = await asyncio.to_thread(stack.smtp.mailbox.wait_for, address)
    assert mail["Subject"] == "Confirm your address for Orrery"
    opened = await player.http.get(_link(mail, "/v1/email/verify"))
    assert opened.status_code == 200 and "Address confirmed" in opened.text
    state = (await player.get("/v1/players/me/email")).json()
    assert state == {"email": address, "state": "verified"}
    chosen = await player.http.put(
        "/v1/players/me/notifications", headers=player.headers, json={"channels": channels}
    )
    assert chosen.status_code == 200 and chosen.json()["email"] == "verified", chosen.text
    return address


async def _my_turn(player: Player) -> str:
    """A started one-seat table of the test game: it waits for the player at once."""
    table: str = (await player.create_table("tiny", 1))["table_id"]
    await player.join(table)
    await player.start(table)
    return table


async def test_confirmation_turn_mail_and_one_click_unsubscribe(stack: Stack, http: Any) -> None:
    ann = await sign_up(http, unique("ann"))
    address = await _confirmed(stack, ann, ["email"])
    table = await _my_turn(ann)
    mails = await asyncio.to_thread(stack.smtp.mailbox.wait_for, address, 2)
    turn = mails[1]
    assert turn["Subject"] == "Your turn: Tiny" and table in turn.get_content()
    assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = turn["List-Unsubscribe"].strip("<>")
    assert unsubscribe == _link(turn, "/v1/email/unsubscribe")
    page = await http.get(unsubscribe)  # opening it changes nothing (mail scanners open links)
    assert page.status_code == 200 and 'method="post"' in page.text
    assert "email" in (await ann.get("/v1/players/me/notifications")).json()["channels"]
    done = await http.post(
        unsubscribe,
        content=b"List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert done.status_code == 200 and "Unsubscribed" in done.text
    assert (await ann.get("/v1/players/me/notifications")).json()["channels"] == []
    await _my_turn(ann)
    await asyncio.sleep(2.5)
    assert len(stack.smtp.mailbox.to(address)) == 2  # no more mail
    # a link is for its purpose only: the unsubscribe token confirms nothing
    token = unsubscribe.split("token=", 1)[1]
    wrong = await http.get(f"/v1/email/verify?token={token}")
    assert wrong.status_code == 400
    forged = await http.get(f"/v1/email/verify?token={token[:-4]}AAAA")
    assert forged.status_code == 400


async def test_three_waiting_tables_become_one_digest(stack: Stack, http: Any) -> None:
    bea = await sign_up(http, unique("bea"))
    address = await _confirmed(stack, bea, ["email"])
    tables = [await _my_turn(bea) for _ in range(3)]
    mails = await asyncio.to_thread(stack.smtp.mailbox.wait_for, address, 2)
    digest = mails[1]
    assert digest["Subject"] == "3 tables wait for your move"
    assert all(table in digest.get_content() for table in tables)
    await asyncio.sleep(2.0)
    assert len(stack.smtp.mailbox.to(address)) == 2
    turns = (await bea.get("/v1/players/me/turns")).json()["tables"]
    assert sorted(t["table_id"] for t in turns) == sorted(tables)


async def test_push_is_signed_and_encrypted_and_a_gone_subscription_is_dropped(
    stack: Stack, http: Any
) -> None:
    cal = await sign_up(http, unique("cal"))
    browser = stack.push.subscribe(unique("sub"))
    added = await cal.post("/v1/players/me/push", browser.json())
    assert added.status_code == 201 and added.json() == {"push_subscriptions": 1}
    prefs = (await cal.get("/v1/players/me/notifications")).json()
    assert prefs["push_subscriptions"] == 1 and prefs["vapid_public_key"] == public_key(VAPID)
    table = await _my_turn(cal)
    deadline = time.monotonic() + 30
    while not browser.received and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    (payload,) = browser.received
    assert payload == {  # as docs/gateway.md describes it to a service worker
        "type": "your_turn",
        "title": "Your turn — Orrery",
        "body": f"Tiny, table {table}",
        "url": f"/#/table/{table}",
        "tables": [table],
    }
    # beside it, one the push service does not know (404): dropped, the other kept
    unknown = stack.push.subscribe(unique("sub"))
    unknown_name = unknown.endpoint.rsplit("/", 1)[1]
    del stack.push.subscriptions[unknown_name]
    assert (await cal.post("/v1/players/me/push", unknown.json())).status_code == 201
    second = await _my_turn(cal)
    assert await _push_subscriptions_become(stack, cal, 1, (unknown_name, 404))
    assert [p["tables"] for p in browser.received] == [[table], [second]]
    # then the first is gone (410): dropped too
    name = browser.endpoint.rsplit("/", 1)[1]
    stack.push.gone.add(name)
    await _my_turn(cal)
    assert await _push_subscriptions_become(stack, cal, 0, (name, 410))


async def _push_subscriptions_become(
    stack: Stack, player: Player, count: int, answer: tuple[str, int]
) -> bool:
    """Once the push service gave ``answer`` (waited for without the player's requests,
    which would keep them present, their turn unsent), they read ``count``
    subscriptions."""
    deadline = time.monotonic() + 30
    while answer not in stack.push.answered and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    while time.monotonic() < deadline:
        kept = (await player.get("/v1/players/me/notifications")).json()["push_subscriptions"]
        if kept == count:
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_player_with_an_open_socket_gets_no_mail(stack: Stack, http: Any) -> None:
    dan = await sign_up(http, unique("dan"))
    address = await _confirmed(stack, dan, ["email"])
    async with dan.notices():
        await asyncio.sleep(0.5)  # (the socket's first frame passed)
        table = await _my_turn(dan)
        await asyncio.sleep(3.0)  # without the socket the mail would be here by now
        assert len(stack.smtp.mailbox.to(address)) == 1  # the confirmation only
    # deferred, not dropped: the table still waits for a delivery once the player is away
    redis = sync_redis.Redis.from_url(stack.live.redis_url)
    assert redis.hget(keys.notify_waiting_key(dan.player_id), table) is not None


async def test_a_player_making_requests_gets_no_mail_until_they_stop(
    stack: Stack, http: Any
) -> None:
    """Present by their requests alone, no socket (ORRERY_NOTIFY_ACTIVE_S is 1 s here; a
    busy player's request is written once a second, and counted that much longer)."""
    ivy = await sign_up(http, unique("ivy"))
    address = await _confirmed(stack, ivy, ["email"])
    table = await _my_turn(ivy)
    until = time.monotonic() + 5.0  # without the requests the mail would be here by now
    while time.monotonic() < until:
        assert (await ivy.get("/v1/players/me")).status_code == 200
        await asyncio.sleep(0.25)
    assert len(stack.smtp.mailbox.to(address)) == 1  # the confirmation only
    mails = await asyncio.to_thread(stack.smtp.mailbox.wait_for, address, 2)
    assert table in mails[1].get_content()


async def _due_after(stack: Stack, player: Player, after_ms: int) -> int:
    """When the player's next delivery is due, once it is scheduled after ``after_ms``."""
    redis = sync_redis.Redis.from_url(stack.live.redis_url)
    try:
        deadline = time.monotonic() + 30
        while True:
            due = redis.zscore(keys.NOTIFY_DUE, player.player_id)
            if due is not None and due > after_ms:
                return int(due)
            assert time.monotonic() < deadline, f"due at {due}"
            await asyncio.sleep(0.05)
    finally:
        redis.close()


def _still_waiting(stack: Stack, player: Player, table: str) -> bool:
    redis = sync_redis.Redis.from_url(stack.live.redis_url)
    try:
        return redis.hget(keys.notify_waiting_key(player.player_id), table) is not None
    finally:
        redis.close()


async def test_quiet_hours_in_the_players_time_zone_hold_the_mail(stack: Stack, http: Any) -> None:
    gil = await sign_up(http, unique("gil"))
    address = await _confirmed(stack, gil, ["email"])
    zone = "Asia/Kathmandu"  # +05:45: hours read in the server's zone would be others
    local = dt.datetime.now(ZoneInfo(zone)).replace(second=0, microsecond=0)
    ends = local + dt.timedelta(hours=2)
    quiet = {"start": f"{local - dt.timedelta(hours=1):%H:%M}", "end": f"{ends:%H:%M}"}
    chosen = await gil.http.put(
        "/v1/players/me/notifications",
        headers=gil.headers,
        json={"channels": ["email"], "quiet_hours": quiet, "time_zone": zone},
    )
    assert chosen.status_code == 200, chosen.text
    table = await _my_turn(gil)
    # held until the quiet hours end, 2 hours from now in Kathmandu
    due = await _due_after(stack, gil, int(time.time() * 1000) + 3_600_000)
    assert due == int(ends.timestamp() * 1000)
    assert len(stack.smtp.mailbox.to(address)) == 1  # the confirmation only
    assert _still_waiting(stack, gil, table)


async def test_past_the_hourly_limit_tables_wait_for_the_next_hour(stack: Stack, http: Any) -> None:
    hal = await sign_up(http, unique("hal"))
    address = await _confirmed(stack, hal, ["email"])
    for told in range(1, PER_HOUR + 1):
        await _my_turn(hal)
        await asyncio.to_thread(stack.smtp.mailbox.wait_for, address, 1 + told)
    redis = sync_redis.Redis.from_url(stack.live.redis_url)
    try:  # (a message is counted once the mail server has it: the count may trail it)
        deadline = time.monotonic() + 10
        while True:
            sent = redis.zrange(keys.notify_rate_key(hal.player_id), 0, -1, withscores=True)
            if len(sent) >= PER_HOUR or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
    finally:
        redis.close()
    assert len(sent) == PER_HOUR
    table = await _my_turn(hal)
    # due again an hour after the first of the hour's messages, not before
    due = await _due_after(stack, hal, int(time.time() * 1000) + 600_000)
    assert due == int(min(float(entry[1]) for entry in sent)) + 3_600_000
    assert len(stack.smtp.mailbox.to(address)) == 1 + PER_HOUR
    assert _still_waiting(stack, hal, table)


async def test_refusals(stack: Stack, http: Any) -> None:
    eve = await sign_up(http, unique("eve"))
    bad = await eve.http.put("/v1/players/me/email", headers=eve.headers, json={"email": "x@y"})
    assert bad.status_code == 422 and error_of(bad) == "bad_email"
    evil = {"endpoint": "http://169.254.169.254/latest", "keys": {"p256dh": "x", "auth": "y"}}
    refused = await eve.post("/v1/players/me/push", evil)
    assert refused.status_code == 422 and error_of(refused) == "bad_endpoint"
    zone = await eve.http.put(
        "/v1/players/me/notifications", headers=eve.headers, json={"time_zone": "Mars/Olympus"}
    )
    assert zone.status_code == 422 and error_of(zone) == "bad_time_zone"
    quiet = {"channels": ["push"], "quiet_hours": {"start": "22:00", "end": "07:30"},
             "time_zone": "Europe/Paris"}  # fmt: skip
    kept = await eve.http.put("/v1/players/me/notifications", headers=eve.headers, json=quiet)
    assert kept.status_code == 200 and kept.json()["quiet_hours"] == quiet["quiet_hours"]
    assert (await http.get("/v1/email/verify?token=nonsense")).status_code == 400


async def test_a_paired_tournament_table_is_mailed_to_players_who_are_away(
    stack: Stack, http: Any
) -> None:
    """A round is paired: each player (a confirmed address, no live socket) gets "your
    tournament table is ready" with the table's link, through the same deliveries as a
    turn (one message for the table, though its first move waits for one of them)."""
    field = [await sign_up(http, unique(name)) for name in ("tna", "tnb")]
    addresses = [await _confirmed(stack, p, ["email"]) for p in field]
    organiser = stack.live.service.start(
        "matchmaker",
        ORRERY_SECRET_KEY=stack.live.key,
        ORRERY_TOURNAMENT_CYCLE_S="0.1",
        ORRERY_TOURNAMENT_LEASE_MS="1500",
    )
    try:
        made = await field[0].post(
            "/v1/tournaments", {"game": "tiny", "format": "swiss", "seats": 2, "rounds": 1}
        )
        assert made.status_code == 201, made.text
        tournament_id = made.json()["tournament_id"]
        for p in field:
            entered = await p.post(f"/v1/tournaments/{tournament_id}/register")
            assert entered.status_code == 200, entered.text
        started = await field[0].post(f"/v1/tournaments/{tournament_id}/start")
        assert started.status_code == 200, started.text
        for address in addresses:
            mails = await asyncio.to_thread(stack.smtp.mailbox.wait_for, address, 2)
            ready = mails[1]
            assert ready["Subject"] == "Your tournament table is ready: Tiny"
            shown = (await field[0].get(f"/v1/tournaments/{tournament_id}")).json()
            (table,) = shown["round_list"][0]["tables"]
            text = ready.get_content()
            assert f"{stack.url}/#/table/{table['table_id']}" in text
            assert f"tournament {tournament_id} round 1" in text
        await asyncio.sleep(2.0)  # the turn at that table is not told again
        assert [len(stack.smtp.mailbox.to(a)) for a in addresses] == [2, 2]
    finally:
        organiser.terminate()
        organiser.wait(20)


def _personal_data(stack: Stack) -> tuple[set[str], set[str]]:
    """The addresses and push endpoints the tests above left, and their players."""
    redis = sync_redis.Redis.from_url(stack.live.redis_url)
    secrets: set[str] = set()
    players: set[str] = set()
    try:
        for key in redis.scan_iter("orrery:{pd}:*"):
            if b":vapid" in key:
                continue
            players.add(key.decode().rsplit(":", 1)[1])
            for value in redis.hgetall(key).values():
                text = value.decode()
                secrets |= set(re.findall(r"[\w.+-]+@example\.org", text))
                secrets |= set(re.findall(r"http://127\.0\.0\.1:\d+/push/\w+", text))
    finally:
        redis.close()
    secrets |= {s.endpoint for s in stack.push.subscriptions.values()}
    assert secrets and players, "the tests above left addresses and endpoints"
    return secrets, players


async def test_no_address_or_endpoint_in_another_players_answers(stack: Stack, http: Any) -> None:
    """After the tests above: a player reading whatever one may read of the others (their
    profiles and presence, every table listed, its detail, view and chat, the
    leaderboard) and of themselves finds no address and no endpoint."""
    secrets, players = _personal_data(stack)
    zed = await sign_up(http, unique("zed"))
    answers = [
        await zed.get("/v1/players/presence", players=",".join(sorted(players)[:50])),
        await zed.get("/v1/players/me"),
        await zed.get("/v1/players/me/friends"),
        await zed.get("/v1/players/me/notifications"),
        await zed.get("/v1/leaderboard/tiny", limit=100),
    ]
    answers += [await zed.get(f"/v1/players/{player}") for player in sorted(players)]
    tables: set[str] = set()
    for state in ("open", "playing", "finished"):
        listed = await zed.get("/v1/tables", state=state, limit=100)
        answers.append(listed)
        tables |= {t["table_id"] for t in listed.json()["tables"]}
    assert tables, "the tests above left tables"
    for table in sorted(tables):
        for path in ("", "/view", "/chat"):
            answers.append(await zed.get(f"/v1/tables/{table}{path}"))
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    read = "\n".join(a.text for a in answers)
    assert not [s for s in secrets if s in read]


def test_no_address_or_endpoint_leaves_through_another_channel(stack: Stack) -> None:
    """After the tests above: the addresses and endpoints are in the personal-data keys
    and nowhere else: no log line, no stream entry, no other key."""
    secrets, _ = _personal_data(stack)
    redis = sync_redis.Redis.from_url(stack.live.redis_url)
    logs = stack.logs()
    assert not [s for s in secrets if s in logs]
    for key in redis.scan_iter("orrery:*"):
        if key.startswith(b"orrery:{pd}:"):
            continue
        kind = redis.type(key)
        if kind == b"string":
            blob = redis.get(key) or b""
        elif kind == b"hash":
            blob = b" ".join(k + b"=" + v for k, v in redis.hgetall(key).items())
        elif kind == b"stream":
            blob = repr(redis.xrange(key)).encode()
        elif kind == b"zset":
            blob = b" ".join(redis.zrange(key, 0, -1))
        elif kind in (b"set",):
            blob = b" ".join(redis.smembers(key))
        else:
            blob = repr(redis.lrange(key, 0, -1)).encode()
        leaked = [s for s in secrets if s.encode() in blob]
        assert not leaked, (key, leaked)


@pytest.mark.slow
@pytest.mark.parametrize("step", ["claim", "send"])
async def test_a_notifier_killed_mid_delivery_loses_nothing_and_sends_nothing_twice(
    stack: Stack, http: Any, step: str
) -> None:
    """Killed between its claim and the send (nothing sent: the next notifier sends it),
    or right after the send was marked (the next one settles it and sends nothing)."""
    stop_processes(stack.notifiers)  # only the drill's notifiers from here on
    stack.notifiers.clear()
    fay = await sign_up(http, unique("fay"))
    doomed = stack.start_notifier(ORRERY_FAULT_KILL_NOTIFIER_AFTER=step)
    address = await _confirmed(stack, fay, ["email"])
    table = await _my_turn(fay)
    await asyncio.to_thread(doomed.wait, 30)
    assert doomed.returncode == -9  # killed mid-delivery
    assert len(stack.smtp.mailbox.to(address)) == (1 if step == "claim" else 2)
    assert _still_waiting(stack, fay, table)  # not settled
    stack.start_notifier()
    mails = await asyncio.to_thread(stack.smtp.mailbox.wait_for, address, 2)
    assert table in mails[1].get_content()
    deadline = time.monotonic() + 30
    while _still_waiting(stack, fay, table):  # settled by the next notifier
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    await asyncio.sleep(3.0)  # past another lease: nothing more
    assert len(stack.smtp.mailbox.to(address)) == 2
