"""The timekeeper process: turns due deadlines into commands (``orrery timekeeper``).

It polls every partition's deadlines index (``orrery:{p}:deadlines``, written by the
views projector, projections/notices.py) and, for each member whose due time has
passed, XADDs a system command to the partition's command stream like any client:

* ``<table>|<seat>|<turn>`` → ``table.expire {seat, turn}``, command id
  ``expire:<table>:<seat>:<turn>``;
* ``<table>|close`` → ``table.close``, command id ``close:<table>``;

with ``reply_to`` its own ``orrery:reply:tk:<uuid>`` stream. Choices:

* nothing it holds matters: the index lives in Redis and the command ids are
  deterministic, so a restarted timekeeper (or several side by side) sends the same
  commands, and the append's command-id dedupe applies each one once. The decider checks
  every deadline against the log's recorded times, so an early or stale command is
  refused (``not_expired``) and harms nothing;
* a member still due after its command was sent (the projector has not caught up, or it
  was refused: another host's clock) is sent again after a backoff (0.25 s doubling to
  30 s), keyed by member and due time, so a new deadline is never held back;
* it sleeps until the earliest deadline it knows of or the poll interval
  (``ORRERY_TIMEKEEPER_POLL_MS``, default 250), whichever comes first: a deadline the
  projector adds meanwhile is seen within one poll;
* it says it is alive in the hash ``orrery:timekeepers`` (its name → when it last
  polled, about once a second), takes its entry out when it stops, and drops entries
  silent for a minute (a timekeeper killed without its goodbye).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import msgspec
import structlog
from redis.exceptions import RedisError

from orrery.settings import DEFAULT_TIMEKEEPER_POLL_MS, TimekeeperSettings
from orrery_contracts import keys
from orrery_contracts.envelope import REPLY_PREFIX, CommandEnvelope, Duplicate, Outcome, Rejection
from orrery_contracts.table import CloseRequest, ExpireClock, close_command_id, expire_command_id
from orrery_contracts.text import as_text

log = structlog.get_logger("orrery.timekeeper")

BATCH = 500  # due members read per partition and poll
HEARTBEAT_MS = 1_000
FORGET_SILENT_MS = 60_000
FIRST_RETRY_MS = 250
MAX_RETRY_MS = 30_000

_json = msgspec.json.Encoder()
_outcome = msgspec.json.Decoder(Outcome)


def now_ms() -> int:
    return int(time.time() * 1000)


def command_for(member: str) -> tuple[str, str, bytes] | None:
    """``(table_id, command_id, envelope JSON without reply_to)`` for a deadlines member."""
    try:
        table_id, seat, turn = keys.parse_deadline_member(member)
    except ValueError:
        return None
    if seat is None:
        return table_id, close_command_id(table_id), _json.encode(CloseRequest())
    body = ExpireClock(seat=seat, turn=turn)
    return table_id, expire_command_id(table_id, seat, turn), _json.encode(body)


@dataclass
class _Sent:
    next_try: int  # unix ms: do not send again before
    attempts: int = 1


@dataclass
class Timekeeper:
    redis: Any
    partitions: int
    poll_ms: int = DEFAULT_TIMEKEEPER_POLL_MS
    name: str = field(default_factory=lambda: f"timekeeper-{socket.gethostname()}-{os.getpid()}")
    reply_stream: str = field(default_factory=lambda: f"{REPLY_PREFIX}tk:{uuid.uuid4().hex}")
    heartbeat_at: int = 0
    sent: dict[tuple[str, int], _Sent] = field(default_factory=dict)
    last_reply: str = "0-0"
    commands_sent: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)  # by outcome / rejection code

    async def tick(self) -> int:
        """One poll: send the commands of due members; returns ms until the next poll."""
        now = now_ms()
        pipe = self.redis.pipeline(transaction=False)
        for p in range(self.partitions):
            index = keys.deadlines_zset(p)
            pipe.zrangebyscore(index, "-inf", now, start=0, num=BATCH, withscores=True)
            pipe.zrangebyscore(index, f"({now}", "+inf", start=0, num=1, withscores=True)
        beat = now - self.heartbeat_at >= HEARTBEAT_MS
        if beat:
            pipe.hset(keys.TIMEKEEPERS, self.name, now)
            pipe.hgetall(keys.TIMEKEEPERS)
            self.heartbeat_at = now
        results = await pipe.execute()
        if beat:
            silent = [k for k, at in results[-1].items() if now - int(at) > FORGET_SILENT_MS]
            if silent:
                await self.redis.hdel(keys.TIMEKEEPERS, *silent)
        due: list[tuple[int, str, int]] = []
        upcoming = now + self.poll_ms
        for p in range(self.partitions):
            for member, score in results[2 * p]:
                due.append((p, as_text(member), int(score)))
            for _, score in results[2 * p + 1]:
                upcoming = min(upcoming, int(score))
        sends = []
        still_due: dict[tuple[str, int], _Sent] = {}
        for p, member, score in due:
            key = (member, score)
            record = self.sent.get(key)
            if record is not None:
                still_due[key] = record
                if record.next_try > now:
                    upcoming = min(upcoming, record.next_try)
                    continue
            command = command_for(member)
            if command is None:
                log.warning("deadline_member_unreadable", member=member[:80])
                continue
            attempts = record.attempts + 1 if record else 1
            delay = min(FIRST_RETRY_MS * 2 ** (attempts - 1), MAX_RETRY_MS)
            still_due[key] = _Sent(next_try=now + delay, attempts=attempts)
            upcoming = min(upcoming, now + delay)
            sends.append((p, command))
        # Forget members that are no longer due (played, expired, or the table moved on).
        self.sent = still_due
        if sends:
            await self._send(sends)
        await self._read_replies()
        return max(1, upcoming - now_ms())

    async def _send(self, sends: list[tuple[int, tuple[str, str, bytes]]]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for p, (table_id, command_id, body) in sends:
            envelope = CommandEnvelope(
                command_id=command_id,
                table_id=table_id,
                body=msgspec.Raw(body),
                reply_to=self.reply_stream,
            )
            pipe.xadd(keys.command_stream(p), {"__data__": _json.encode(envelope)})
        await pipe.execute()
        self.commands_sent += len(sends)
        log.debug("timekeeper_sent", commands=len(sends))

    async def _read_replies(self) -> None:
        replies = await self.redis.xread({self.reply_stream: self.last_reply}, count=1000)
        for _, entries in replies:
            for entry_id, fields in entries:
                self.last_reply = as_text(entry_id)
                try:
                    outcome = _outcome.decode(fields[b"__data__"])
                except (msgspec.DecodeError, KeyError):
                    continue
                self._note(outcome)

    def _note(self, outcome: Outcome) -> None:
        if isinstance(outcome, Rejection):
            kind = outcome.code
            log.info("timekeeper_refused", command_id=outcome.command_id, code=outcome.code)
        elif isinstance(outcome, Duplicate):
            kind = "duplicate"
        else:
            kind = "accepted"
            log.info("timekeeper_applied", command_id=outcome.command_id)
        self.outcomes[kind] = self.outcomes.get(kind, 0) + 1

    async def close(self) -> None:
        with contextlib.suppress(RedisError):
            await self.redis.delete(self.reply_stream)
            await self.redis.hdel(keys.TIMEKEEPERS, self.name)


async def run_timekeeper(url: str, partitions: int | None = None) -> None:
    """Run until SIGINT/SIGTERM."""
    from orrery.config import ensure_partitions
    from orrery.server.cluster import open_redis
    from services import metrics

    redis = open_redis(url)
    # /metrics on $ORRERY_METRICS_PORT: its liveness endpoint in Kubernetes, like the others
    metrics.serve_metrics(None)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    poll_ms = TimekeeperSettings.from_env().poll_ms
    try:
        keeper = Timekeeper(redis, await ensure_partitions(redis, partitions), poll_ms)
        log.info("timekeeper_started", partitions=keeper.partitions, poll_ms=poll_ms)
        while not stop.is_set():
            try:
                wait_ms = await keeper.tick()
            except (RedisError, AttributeError) as error:
                # The server is restarting or failing over (redis-py's cluster client can
                # raise AttributeError while it refreshes its topology): try again shortly.
                log.warning("timekeeper_redis_error", error=str(error)[:200])
                wait_ms = 1_000
            except Exception:
                # A bug must not end the loop that makes every clock run out.
                log.exception("timekeeper_error")
                wait_ms = 1_000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait_ms / 1000)
        await keeper.close()
    finally:
        await redis.aclose()
