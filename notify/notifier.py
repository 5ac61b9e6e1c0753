"""The notifier (``orrery notifier``; any number run side by side): tells players who are
away that tables wait for them, by Web Push and e-mail.

Input: one stream, ``orrery:{ntf}:notices``, that the views projector writes beside each
verified player's own notice stream (a ``your_turn`` and its player), the tournament
organiser too (a ``tournament`` notice: the player's table of a round just paired, told
as "your tournament table is ready", under ``tn:<table>`` in the waiting hash, turn 0 in
its dedupe key), and the gateway (``verify_email``: send the player the link that
confirms their address). Every notifier
reads it in the consumer group ``notifiers`` (XREADGROUP), and claims what a crashed one
read but never settled (XAUTOCLAIM after ``ORRERY_NOTIFY_CLAIM_MS``).

An entry is not delivered when it is read: it is queued for its player (intake.lua: the
table's newest notice in ``waiting:<player>``, the player in the ``due`` schedule, the
entry acknowledged, all in one step), so a crash before or after it loses nothing and
doubles nothing. A delivery is due ``ORRERY_NOTIFY_GATHER_S`` after the first notice;
tables that wait together become one message (a digest).

A delivery, for one player at a time (claim.lua leases the player to one notifier for
``ORRERY_NOTIFY_LEASE_MS``):

1. nothing while the player is present (a live socket, a request in the last
   ``ORRERY_NOTIFY_ACTIVE_S``), in their quiet hours, or past their hourly limit: the
   player is due again when that ends, the tables still waiting;
2. each table is checked against its spectator view: a table no longer waiting for the
   player's seat is dropped unsent;
3. each (player, table, turn) is claimed in ``sent:<player>:<table>:<turn>`` (SET NX,
   ``sending:<ms>``, kept ``ORRERY_NOTIFY_DEDUPE_S``); one already ``sent`` is dropped;
4. the message goes out (e-mail to a confirmed address, a push to each subscription; a
   subscription the push service answers 404 or 410 for is dropped);
5. each claim becomes ``sent``, and the delivered notices leave the waiting hash
   (settle.lua).

A notifier killed between 3 and 5 leaves claims marked ``sending``: the player's lease
ends, another notifier takes the player, finds the claims older than the lease and sends
them (nothing lost). The one way to send twice is a crash after the mail server or push
service accepted a message and before step 5 marked it: a window of one Redis round
trip. That repeat carries the same ``Message-ID`` and push ``Topic`` (a push service
replaces an undelivered message with a newer one of the same topic). Within the dedupe
window nothing else sends a (player, table, turn) twice: at least once across crashes,
at most once otherwise.

Addresses and endpoints never appear in a log line: lines name the player and counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec
import structlog
from redis.exceptions import ResponseError

from notify import contacts, links, mail, prefs
from notify.activity import present_until
from notify.mail import ReadyTable
from notify.models import VerifyEmail, WaitingTable
from notify.push import GONE, PushSender
from notify.settings import NotifierSettings, push_hosts
from notify.vapid import public_key
from orrery_contracts import keys
from orrery_contracts.notices import TournamentPaired, YourTurn

log = structlog.get_logger("orrery.notifier")

_HERE = Path(__file__).parent
_INTAKE = (_HERE / "intake.lua").read_text()
_CLAIM = (_HERE / "claim.lua").read_text()
_SETTLE = (_HERE / "settle.lua").read_text()

POLL_S = 0.25
BATCH = 50
RETRY_S = 30.0
GAME_TITLES = {"fractured_sky": "Fractured Sky", "spacecraft": "SPACEcraft"}

_entry = msgspec.json.Decoder(YourTurn | VerifyEmail | TournamentPaired)
_notice = msgspec.json.Decoder(YourTurn | TournamentPaired)
READY = "tn:"  # a tournament notice's field in the waiting hash: tn:<table>


def waiting_field(notice: YourTurn | TournamentPaired) -> tuple[str, int]:
    """Where a notice waits in the player's hash, and its turn in the dedupe key (a
    tournament table's "ready" is turn 0: no move has a seq below 1)."""
    if isinstance(notice, TournamentPaired):
        return READY + notice.table_id, 0
    return notice.table_id, notice.seq


class _Status(msgspec.Struct):
    phase: str = ""
    game: str = ""
    to_move: list[int] = []


_status = msgspec.json.Decoder(_Status)


def game_title(game: str) -> str:
    return GAME_TITLES.get(game, game.replace("_", " ").title())


def now_ms() -> int:
    return int(time.time() * 1000)


class Notifier:
    def __init__(
        self,
        redis: Any,
        settings: NotifierSettings,
        secret_key: str,
        vapid_key: str,
        name: str,
        partitions: int,
    ) -> None:
        self.redis = redis
        self.settings = settings
        self.secret_key = secret_key
        self.name = name
        self.partitions = partitions
        self.smtp = mail.parse_smtp_url(settings.smtp_url) if settings.smtp_url else None
        self.push = PushSender(
            vapid_key, public_key(vapid_key), settings.vapid_subject, push_hosts()
        )
        self.intake_script = redis.register_script(_INTAKE)
        self.claim_script = redis.register_script(_CLAIM)
        self.settle_script = redis.register_script(_SETTLE)
        self.http = httpx.AsyncClient(timeout=15.0)
        self.delivered = 0  # messages sent by this process

    # ------------------------------------------------------------ input

    async def ensure_group(self) -> None:
        with contextlib.suppress(ResponseError):  # BUSYGROUP: it exists
            await self.redis.xgroup_create(
                keys.NOTIFY_STREAM, keys.NOTIFIERS_GROUP, id="0", mkstream=True
            )

    async def read_new(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                found = await self.redis.xreadgroup(
                    keys.NOTIFIERS_GROUP,
                    self.name,
                    {keys.NOTIFY_STREAM: ">"},
                    count=BATCH,
                    block=1000,
                )
            except ResponseError as error:  # NOGROUP: the server lost it
                log.warning("notify_read_failed", error=str(error)[:80])
                await self.ensure_group()
                await asyncio.sleep(1.0)
                continue
            for _, entries in found or []:
                for entry_id, fields in entries:
                    await self.take_safely(entry_id, fields)

    async def claim_stale(self, stop: asyncio.Event) -> None:
        """Entries a crashed notifier read and never settled."""
        while not stop.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.2, self.settings.claim_ms / 2000))
            try:
                _, entries, *_ = await self.redis.xautoclaim(
                    keys.NOTIFY_STREAM,
                    keys.NOTIFIERS_GROUP,
                    self.name,
                    min_idle_time=self.settings.claim_ms,
                    start_id="0-0",
                    count=BATCH,
                )
            except ResponseError:
                continue
            for entry_id, fields in entries:
                if fields:
                    await self.take_safely(entry_id, fields)
                else:  # trimmed away meanwhile
                    await self.redis.xack(keys.NOTIFY_STREAM, keys.NOTIFIERS_GROUP, entry_id)

    async def take_safely(self, entry_id: bytes, fields: dict[bytes, bytes]) -> None:
        """Take an entry; one that fails stays pending, to be claimed again later."""
        try:
            await self.take(entry_id, fields)
        except Exception as error:
            log.warning("notify_entry_failed", entry=entry_id.decode(), error=type(error).__name__)

    async def take(self, entry_id: bytes, fields: dict[bytes, bytes]) -> None:
        player = fields.get(b"player", b"").decode()
        try:
            entry = _entry.decode(fields.get(b"__data__", b""))
        except (msgspec.DecodeError, msgspec.ValidationError):
            entry = None
        if not player or entry is None:
            log.warning("notify_entry_skipped", entry=entry_id.decode())
            await self.redis.xack(keys.NOTIFY_STREAM, keys.NOTIFIERS_GROUP, entry_id)
            return
        if isinstance(entry, VerifyEmail):
            await self.send_verification(player)
            await self.redis.xack(keys.NOTIFY_STREAM, keys.NOTIFIERS_GROUP, entry_id)
            return
        field, turn = waiting_field(entry)
        await self.intake_script(
            keys=[
                keys.notify_waiting_key(player),
                keys.NOTIFY_DUE,
                keys.NOTIFY_STREAM,
                keys.notify_sent_key(player, entry.table_id, turn),
            ],
            args=[
                field,
                fields[b"__data__"],
                turn,
                now_ms() + int(self.settings.gather_s * 1000),
                player,
                keys.NOTIFIERS_GROUP,
                entry_id,
            ],
        )

    async def send_verification(self, player: str) -> None:
        address, state = await contacts.email_of(self.redis, player)
        if address is None or state != "pending":
            return
        if self.smtp is None:
            log.warning("notify_no_smtp", player_id=player, purpose="verify_email")
            return
        token = links.sign(self.secret_key, "verify_email", player, address, links.VERIFY_TTL_S)
        link = f"{self.settings.public_url}/v1/email/verify?token={token}"
        try:
            await mail.send(self.smtp, mail.verification(self.settings.mail_from, address, link))
        except Exception as error:  # left pending: claimed again later
            log.warning("notify_mail_failed", player_id=player, error=type(error).__name__)
            raise
        log.info("notify_verification_sent", player_id=player)

    # ------------------------------------------------------------ deliveries

    async def deliver_due(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            started = now_ms()
            players = await self.claim_script(
                keys=[keys.NOTIFY_DUE], args=[started, self.settings.lease_ms, BATCH]
            )
            lease = started + self.settings.lease_ms  # the score claim.lua gave them
            for raw in players:
                player = raw.decode()
                try:
                    await self.deliver(player, lease)
                except Exception as error:
                    log.exception("notify_delivery_failed", player_id=player, error=str(error))
            if not players:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), POLL_S)

    async def settle(
        self, player: str, lease: int, next_ms: int, done: list[tuple[str, bytes]]
    ) -> None:
        args: list[Any] = [player, lease, next_ms]
        for table_id, notice in done:
            args += [table_id, notice]
        await self.settle_script(keys=[keys.notify_waiting_key(player), keys.NOTIFY_DUE], args=args)

    async def deliver(self, player: str, lease: int) -> None:
        s = self.settings
        now = now_ms()
        waiting = {
            k.decode(): v
            for k, v in (await self.redis.hgetall(keys.notify_waiting_key(player))).items()
        }
        every = list(waiting.items())
        chosen = await prefs.load(self.redis, player)
        address, state = await contacts.email_of(self.redis, player)
        email = self.smtp is not None and "email" in chosen.channels and state == "verified"
        subscriptions = (
            await contacts.subscriptions(self.redis, player) if "push" in chosen.channels else []
        )
        if not waiting or not (email or subscriptions):
            await self.settle(player, lease, now, every)  # nowhere to send: dropped
            return
        later = await present_until(self.redis, player, s.active_s, now)
        later = later or prefs.quiet_until(chosen, now) or await self._over_limit(player, now)
        if later:
            await self.settle(player, lease, max(later, now + 1000), [])
            return
        tables, ready, done, busy_until = await self._claim_tables(player, waiting, now)
        if not tables and not ready:
            await self.settle(player, lease, busy_until or now, done)
            return
        self._fault("claim")
        sent = await self._send(player, tables, ready, address if email else None, subscriptions)
        sent_keys = [keys.notify_sent_key(player, t.table_id, t.seq) for t in tables]
        sent_keys += [keys.notify_sent_key(player, r.table_id, 0) for r in ready]
        if not sent:  # nothing went out: the claims go, the tables wait for a retry
            await self.redis.delete(*sent_keys)
            await self.settle(player, lease, now + int(RETRY_S * 1000), done)
            return
        pipe = self.redis.pipeline(transaction=False)
        for key in sent_keys:
            pipe.set(key, "sent", xx=True, keepttl=True)
        rate = keys.notify_rate_key(player)
        pipe.zadd(rate, {f"{now}:{self.name}": now})
        pipe.pexpire(rate, 3_600_000)
        await pipe.execute()
        self.delivered += 1
        self._fault("send")
        done += [(t.table_id, waiting[t.table_id]) for t in tables]
        done += [(READY + r.table_id, waiting[READY + r.table_id]) for r in ready]
        await self.settle(player, lease, now + int(s.gather_s * 1000), done)
        log.info("notify_delivered", player_id=player, tables=len(tables), ready=len(ready))

    async def _over_limit(self, player: str, now: int) -> int | None:
        """When the player may get a message again (None: now)."""
        rate = keys.notify_rate_key(player)
        await self.redis.zremrangebyscore(rate, "-inf", now - 3_600_000)
        if int(await self.redis.zcard(rate)) < self.settings.per_hour:
            return None
        oldest = await self.redis.zrangebyscore(
            rate, "-inf", "+inf", start=0, num=1, withscores=True
        )
        return int(oldest[0][1]) + 3_600_000 if oldest else None

    async def _claim_tables(
        self, player: str, waiting: dict[str, bytes], now: int
    ) -> tuple[list[WaitingTable], list[ReadyTable], list[tuple[str, bytes]], int | None]:
        """The tables to tell the player about now (their turn; a tournament table
        ready), each claimed; the notices dropped (no longer waiting, already sent); when
        one another notifier is sending may be retried."""
        tables: list[WaitingTable] = []
        ready: list[ReadyTable] = []
        done: list[tuple[str, bytes]] = []
        busy_until: int | None = None
        for field, raw in sorted(waiting.items()):
            try:
                notice = _notice.decode(raw)
            except (msgspec.DecodeError, msgspec.ValidationError):
                done.append((field, raw))
                continue
            game = await self._still_waiting(notice)
            if game is None:
                done.append((field, raw))
                continue
            table_id = notice.table_id
            key = keys.notify_sent_key(player, table_id, waiting_field(notice)[1])
            claimed = await self.redis.set(
                key, f"sending:{now}", nx=True, ex=self.settings.dedupe_s
            )
            if not claimed:
                state = (await self.redis.get(key) or b"").decode()
                since = int(state.split(":", 1)[1]) if state.startswith("sending:") else None
                if since is None:  # sent already
                    done.append((field, raw))
                    continue
                if now - since < self.settings.lease_ms:  # another notifier's, in flight
                    until = since + self.settings.lease_ms
                    busy_until = until if busy_until is None else min(busy_until, until)
                    continue
                # a crashed notifier's claim: this one sends it
                await self.redis.set(key, f"sending:{now}", xx=True, keepttl=True)
            if isinstance(notice, TournamentPaired):
                ready.append(
                    ReadyTable(
                        table_id=table_id,
                        game=game,
                        tournament_id=notice.tournament_id,
                        round=notice.round,
                    )
                )
            else:
                tables.append(
                    WaitingTable(table_id=table_id, game=game, seat=notice.seat, seq=notice.seq)
                )
        return tables, ready, done, busy_until

    async def _still_waiting(self, notice: YourTurn | TournamentPaired) -> str | None:
        """The table's game if it still waits for the notice's seat (a tournament
        table: if it is still played), else None."""
        p = keys.partition_of(notice.table_id, self.partitions)
        raw = await self.redis.get(keys.view_key(p, notice.table_id, None))
        if raw is None:
            return None
        status = _status.decode(raw)
        if status.phase != "playing":
            return None
        if isinstance(notice, YourTurn) and notice.seat not in status.to_move:
            return None
        return status.game

    async def _send(
        self,
        player: str,
        tables: list[WaitingTable],
        ready: list[ReadyTable],
        address: str | None,
        subscriptions: list[Any],
    ) -> bool:
        """Send by every channel; whether any message went out."""
        told = [f"{t.table_id}:{t.seq}" for t in tables] + [f"{READY}{r.table_id}" for r in ready]
        ident = f"{player}|" + "|".join(told)
        sent = False
        if address is not None and self.smtp is not None:
            unsubscribe = links.sign(
                self.secret_key, "unsubscribe", player, address, links.UNSUBSCRIBE_TTL_S
            )
            message = mail.turns(
                self.settings.mail_from,
                address,
                tables,
                {g: game_title(g) for g in {t.game for t in tables} | {r.game for r in ready}},
                self.settings.public_url,
                f"{self.settings.public_url}/v1/email/unsubscribe?token={unsubscribe}",
                ident,
                ready,
            )
            try:
                await mail.send(self.smtp, message)
                sent = True
            except Exception as error:
                log.warning("notify_mail_failed", player_id=player, error=type(error).__name__)
        payload = msgspec.json.encode(push_payload(tables, ready))
        topic = hashlib.sha256(ident.encode()).hexdigest()[:32]
        for subscription in subscriptions:
            try:
                status = await self.push.send(self.http, subscription, payload, topic)
            except Exception as error:
                log.warning("notify_push_failed", player_id=player, error=type(error).__name__)
                continue
            if status in GONE:
                await contacts.remove_push(self.redis, player, subscription.endpoint)
                log.info("notify_push_dropped", player_id=player, status=status)
            elif 200 <= status < 300:
                sent = True
            else:
                log.warning("notify_push_refused", player_id=player, status=status)
        return sent

    def _fault(self, step: str) -> None:
        if self.settings.fault == step:
            os.kill(os.getpid(), signal.SIGKILL)

    async def run(self, stop: asyncio.Event) -> None:
        await self.ensure_group()
        # browsers subscribe with the public half (the gateway hands it out)
        await self.redis.set(keys.NOTIFY_VAPID, self.push.public_key)
        tasks = [
            asyncio.create_task(self.read_new(stop)),
            asyncio.create_task(self.claim_stale(stop)),
            asyncio.create_task(self.deliver_due(stop)),
        ]
        try:
            await stop.wait()
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            await self.http.aclose()


def push_payload(
    tables: list[WaitingTable], ready: list[ReadyTable] | None = None
) -> dict[str, Any]:
    """What the service worker (clients/web/sw.js) shows: a click opens ``url``."""
    ready = ready or []
    seated = {r.table_id for r in ready}
    lines = [f"{game_title(r.game)}, tournament table {r.table_id}" for r in ready]
    lines += [
        f"{game_title(t.game)}, table {t.table_id}" for t in tables if t.table_id not in seated
    ]
    ids = list(dict.fromkeys([*(r.table_id for r in ready), *(t.table_id for t in tables)]))
    what = "Your tournament table is ready" if ready else "Your turn"
    title = f"{what} — Orrery" if len(ids) == 1 else f"({len(ids)}) {what} — Orrery"
    return {
        "type": "tournament" if ready else "your_turn",
        "title": title,
        "body": "\n".join(lines),
        "url": f"/#/table/{ids[0]}" if len(ids) == 1 else "/#/",
        "tables": ids,
    }
