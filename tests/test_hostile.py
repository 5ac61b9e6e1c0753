"""A hostile client against the real service: every entry of a corpus of bad input is
settled (a stable code, or a dead letter with its reason) within bounded deliveries,
writes nothing outside the sender's own reply stream, and leaves no seat secret in clear
anywhere in Redis; the victim table then plays to the end and audits clean."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from orrery.cli import app
from orrery_client.bot import play_seat
from orrery_client.sdk import OrreryClient, SeatCredentials, new_seat_token
from orrery_contracts import keys
from services.assignment import LIVE_KEY
from tests.support.service import PARTITIONS, LiveService, live_service
from tests.support.tinygame import Stand

pytestmark = pytest.mark.service

REPLY = "orrery:reply:attacker"
runner = CliRunner()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("hostile"))) as service:
        yield service


def _nested_json(depth: int) -> str:
    """A placeholder for arrays nested ``depth`` deep (too deep for ``json.dumps``)."""
    return f"__nested_{depth}__"


def _json(doc: dict[str, Any]) -> bytes:
    text = json.dumps(doc)
    for depth in (200, 1000):
        text = text.replace(f'"{_nested_json(depth)}"', "[" * depth + "1" + "]" * depth)
    return text.encode()


class Case(msgspec.Struct):
    """One hostile entry and what must become of it."""

    name: str
    data: bytes
    table: str  # which partition's command stream it goes to
    code: str | None = None  # the outcome's code in the attacker's reply stream
    dead: str | None = None  # else: the start of the dead letter's reason
    command_id: str = ""  # (with code) the command id the outcome answers
    token: str | None = None  # a seat secret the entry carries


# Keys that change without any command: reply streams, and the live workers' beats
# (services/assignment.py, one a second: a corpus that takes longer under load saw it).
UNTOUCHED_BY_THE_CORPUS = ("orrery:reply:", LIVE_KEY)


async def _fingerprint(redis: Any, skip: tuple[str, ...]) -> dict[str, Any]:
    """Every key's type and contents (but those the corpus may legitimately touch)."""
    found: dict[str, Any] = {}
    async for raw in redis.scan_iter(count=1000):
        key = raw.decode()
        if key.startswith(skip):
            continue
        kind = (await redis.type(key)).decode()
        if kind == "stream":
            found[key] = (kind, await redis.xrange(key))
        elif kind == "string":
            found[key] = (kind, await redis.get(key))
        elif kind == "hash":
            found[key] = (kind, sorted((await redis.hgetall(key)).items()))
        elif kind == "set":
            found[key] = (kind, sorted(await redis.smembers(key)))
        elif kind == "zset":
            found[key] = (kind, await redis.zrange(key, 0, -1, withscores=True))
        else:
            found[key] = (kind, None)
    return found


async def _every_byte(redis: Any) -> bytes:
    """All of Redis as one blob, to search for secrets in clear."""
    parts: list[bytes] = []
    async for raw in redis.scan_iter(count=1000):
        parts.append(raw)
        kind = (await redis.type(raw)).decode()
        if kind == "stream":
            for _, fields in await redis.xrange(raw):
                parts.extend(k + v for k, v in fields.items())
        elif kind == "string":
            parts.append(await redis.get(raw))
        elif kind == "hash":
            parts.extend(k + v for k, v in (await redis.hgetall(raw)).items())
        elif kind == "set":
            parts.extend(await redis.smembers(raw))
        elif kind == "zset":
            parts.extend(await redis.zrange(raw, 0, -1))
    return b"\n".join(parts)


def _corpus(victim: str, seat0_join_id: str, p: int) -> list[Case]:
    table_key = f"orrery:{{{p}}}:t:{victim}"
    foreign = {
        "log": f"{table_key}:log",
        "updates": f"{table_key}:updates",
        "view": f"{table_key}:view:0",
        "meta": f"{table_key}:meta",
        "out": f"{table_key}:out",
        "feed": keys.feed_stream(p),
        "cmd": keys.command_stream((p + 1) % PARTITIONS),
        "dead": keys.dead_letter_stream(p),
        "tables": keys.tables_set(p),
        "leaderboard": keys.leaderboard_key("tiny"),
        "config": keys.CONFIG_KEY,
        "outside": "someone-elses-key",
        "prefix-only": "orrery:reply:",
        "bad-chars": "orrery:reply:a b",
    }
    cases: list[Case] = []
    for what, key in foreign.items():
        for body in ({"type": "table.start"}, {"type": "tiny.stand"}):
            cases.append(
                Case(
                    f"reply_to {what} {body['type']}",
                    _json(
                        {
                            "command_id": f"rt-{what}-{body['type']}",
                            "table_id": victim,
                            "seat": 0,
                            "token": "x",
                            "reply_to": key,
                            "body": body,
                        }
                    ),
                    victim,
                    dead="bad_reply_to",
                )
            )

    def command(name: str, body: Any, code: str, table: str = victim, **extra: Any) -> None:
        doc = {"command_id": f"c-{name}", "table_id": table, "reply_to": REPLY, "body": body}
        data = _json({**doc, **extra})
        cases.append(Case(name, data, table, code, None, f"c-{name}", extra.get("token")))

    # a resent join cannot hand out the seat (or anything else) again
    command("join replay", {"type": "table.join", "name": "Ann"}, "command_id_reused")
    cases[-1].command_id = seat0_join_id
    cases[-1].data = _json(
        {"command_id": seat0_join_id, "table_id": victim, "reply_to": REPLY,
         "body": {"type": "table.join", "name": "Ann"}}
    )  # fmt: skip
    guessed = new_seat_token()
    cases.append(
        Case(
            "join replay with a guessed token",
            _json(
                {
                    "command_id": seat0_join_id,
                    "table_id": victim,
                    "reply_to": REPLY,
                    "token": new_seat_token(),
                    "body": {"type": "table.join", "name": "Ann"},
                }
            ),
            victim,
            code="command_id_reused",
            command_id=seat0_join_id,
            token=guessed,
        )
    )
    # nesting and size
    # too deep to read even its reply_to: dead-lettered at once, with the reason
    deep = {"type": "table.create", "game": "tiny", "seats": 2, "options": _nested_json(1000)}
    cases.append(
        Case(
            "json nested 1000 deep",
            _json({"command_id": "c-deep", "table_id": "deep-1", "reply_to": REPLY, "body": deep}),
            "deep-1",
            dead="malformed: unreadable command envelope: nested too deeply",
        )
    )
    command(
        "json options nested 200 deep",
        {"type": "table.create", "game": "tiny", "seats": 2, "options": {"x": _nested_json(200)}},
        "bad_options",
        table="deep-2",
    )
    deep_msgpack = b"\x91" * 50_000 + b"\x01"
    header = msgspec.msgpack.encode(
        {"command_id": "c-msgpack-deep", "table_id": "deep-3", "reply_to": REPLY}
    )
    # a map of 4 entries: the header's 3 plus "body": <50,000 nested arrays>
    cases.append(
        Case(
            "msgpack nested 50,000 deep",
            b"\x84" + header[1:] + msgspec.msgpack.encode("body") + deep_msgpack,
            "deep-3",
            dead="malformed: unreadable command envelope: nested too deeply",
        )
    )
    cases.append(
        Case("msgpack nested 100,000 deep", b"\x91" * 100_000 + b"\x01", "deep-4", dead="too_large")
    )
    big = {"type": "table.create", "game": "spacecraft", "seats": 2, "options": {"zz": "x" * 2**20}}
    command("1 MB option", big, "too_large", table="big-1")
    command(
        "unknown option key",
        {"type": "table.create", "game": "spacecraft", "seats": 2, "options": {"zz": "y"}},
        "bad_options",
        table="opt-1",
    )
    command(
        "another game's options",
        {"type": "table.create", "game": "spacecraft", "seats": 2,
         "options": {"difficulty": "easy"}},
        "bad_options",
        table="opt-2",
    )  # fmt: skip
    command(
        "an option outside its range",
        {"type": "table.create", "game": "tiny", "seats": 2, "options": {"max_cards": 9}},
        "bad_options",
        table="opt-3",
    )
    # wrong types and unknown tags
    for field, value in (("game", None), ("seats", "2"), ("options", "x")):
        body = {"type": "table.create", "game": "tiny", "seats": 2, field: value}
        command(f"create with {field}={value!r}", body, "malformed", table=f"types-{field}")
    command("unknown command type", {"type": "zz.nope"}, "unknown_command", seat=0, token="x")
    command("no type at all", {"game": "tiny"}, "malformed", table="types-none")
    command(
        "10 KB game name",
        {"type": "table.create", "game": "g" * 10_000, "seats": 2},
        "unknown_game",
        table="echo-1",
    )
    # names and tokens
    lobby = "lobby-open"
    command("control characters in a name", {"type": "table.join", "name": "a\u0000\u001b[31m"},
            "bad_name", table=lobby, token=new_seat_token())  # fmt: skip
    command("41-character name", {"type": "table.join", "name": "n" * 41}, "bad_name",
            table=lobby, token=new_seat_token())  # fmt: skip
    for invisible in ("Eve\u200d", "\u200dEve", "E\u200dve", "E\u2060ve", "\u2066Eve"):
        command(f"format character in a name {invisible!r}",
                {"type": "table.join", "name": invisible}, "bad_name", table=lobby,
                token=new_seat_token())  # fmt: skip
    command("join without a secret", {"type": "table.join", "name": "Eve"}, "weak_token",
            table=lobby)  # fmt: skip
    command("join with a weak secret", {"type": "table.join", "name": "Eve"}, "weak_token",
            table=lobby, token="abc123")  # fmt: skip
    command("move with a forged token", {"type": "tiny.stand"}, "unauthorized", seat=0,
            token=new_seat_token())  # fmt: skip
    # unreadable entries
    cases.append(Case("garbage bytes", b"\xc1\xff\x00garbage", victim, dead="malformed"))
    cases.append(Case("truncated json", b'{"command_id": "x", "token": "sec', victim,
                      dead="malformed"))  # fmt: skip
    return cases


async def _settled(redis: Any, timeout: float = 60.0) -> None:
    """Every command stream empty and nothing pending: each entry was settled."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        left = 0
        for p in range(PARTITIONS):
            left += await redis.xlen(keys.command_stream(p))
            left += (await redis.xpending(keys.command_stream(p), keys.DECIDERS_GROUP))["pending"]
        if not left:
            return
        assert loop.time() < deadline, f"{left} entries not settled"
        await asyncio.sleep(0.1)


async def _projected(redis: Any, timeout: float = 60.0) -> None:
    """The projectors have caught up with every feed (nothing pending, no lag)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        behind = 0
        for p in range(PARTITIONS):
            for group in await redis.xinfo_groups(keys.feed_stream(p)):
                behind += int(group.get("pending") or 0) + int(group.get("lag") or 0)
        if not behind:
            return
        assert loop.time() < deadline, "projectors did not catch up"
        await asyncio.sleep(0.1)


async def test_hostile_corpus(live: LiveService) -> None:
    async with OrreryClient(live.url) as client:
        redis = client.redis
        victim = await client.create_table("tiny", 2, table_id="victim")
        join_id = "victim-join-0"
        secret_a = new_seat_token()
        await client.accept(
            victim, msgspec.json.decode(b'{"type":"table.join","name":"Ann"}'),
            command_id=join_id, token=secret_a,
        )  # fmt: skip
        a = SeatCredentials(victim, 0, secret_a)
        b = await client.join(victim, "Bob")
        started = await client.start(a)
        await client.wait_view(victim, 1, started.last_seq)
        await client.create_table("tiny", 3, table_id="lobby-open")
        await client.wait_view("lobby-open", None, 1)
        await _settled(redis)

        p = client.partition(victim)
        await _projected(redis)
        before = await _fingerprint(redis, UNTOUCHED_BY_THE_CORPUS)
        # a reply stream key made into a string by its own client: the outcome cannot be
        # delivered, and the entry still settles (as a dead letter saying why)
        await redis.set("orrery:reply:attacker-string", b"not a stream")
        cases = _corpus(victim, join_id, p)
        cases.append(
            Case(
                "reply stream that is a string",
                _json(
                    {
                        "command_id": "c-str",
                        "table_id": victim,
                        "seat": 0,
                        "token": "x",
                        "reply_to": "orrery:reply:attacker-string",
                        "body": {"type": "tiny.stand"},
                    }
                ),
                victim,
                dead="outcome rejected not delivered",
            )
        )
        entry_ids = {}  # entry ids are per stream: (partition, id)
        for case in cases:
            q = client.partition(case.table)
            entry = await redis.xadd(keys.command_stream(q), {"__data__": case.data})
            entry_ids[case.name] = (q, entry.decode())
        await _settled(redis)

        # every case settled as expected: its outcome, or its dead letter
        outcomes: dict[str, dict[str, Any]] = {}
        for _, fields in await redis.xrange(REPLY):
            outcome = msgspec.json.decode(fields[b"__data__"])
            outcomes[outcome["command_id"]] = outcome
        dead: dict[tuple[int, str], str] = {}
        for q in range(PARTITIONS):
            for _, fields in await redis.xrange(keys.dead_letter_stream(q)):
                dead[q, fields[b"entry"].decode()] = fields[b"reason"].decode()
        for case in cases:
            if case.code is not None:
                got = outcomes.get(case.command_id)
                assert got is not None, f"{case.name}: no outcome"
                assert got["code"] == case.code, f"{case.name}: {got}"
                assert len(got["message"]) < 300, f"{case.name}: message echoes input"
            else:
                assert case.dead is not None
                reason = dead.get(entry_ids[case.name])
                assert reason is not None, f"{case.name}: not dead-lettered"
                assert reason.startswith(case.dead), f"{case.name}: {reason}"
        # each entry was dead-lettered at most once (deliveries are bounded)
        dead_entries = [
            (q, fields[b"entry"])
            for q in range(PARTITIONS)
            for _, fields in await redis.xrange(keys.dead_letter_stream(q))
        ]
        assert len(dead_entries) == len(set(dead_entries))
        # nothing outside the attacker's own reply streams changed, but dead letters
        await _projected(redis)
        after = await _fingerprint(redis, UNTOUCHED_BY_THE_CORPUS)
        for q in range(PARTITIONS):
            for name in (keys.dead_letter_stream(q), keys.command_stream(q)):
                before.pop(name, None)
                after.pop(name, None)
        # the workers' liveness beats change with time, corpus or not
        before.pop(LIVE_KEY, None)
        after.pop(LIVE_KEY, None)
        assert after.keys() == before.keys()
        for key, value in before.items():
            assert after[key] == value, f"{key} was changed by the corpus"

        # the victim plays on to the end, and its log audits clean
        rng = random.Random(7)
        await client.play(a, Stand())
        final = await asyncio.wait_for(play_seat(client, b, rng), 60)
        assert final["phase"] == "finished"
        # a join with a name that NFC-normalises: stored normalised
        await client.join("lobby-open", "Re\u0301ne")
        view = await client.wait_view("lobby-open", None, 2)
        assert view["seats"][0]["name"] == "R\u00e9ne"

        # no seat secret in clear anywhere in Redis (every key, every field): the
        # victim's, and every one the corpus sent
        blob = await _every_byte(redis)
        secrets = [secret_a, b.token, *(c.token for c in cases if c.token and len(c.token) >= 22)]
        assert len(secrets) > 4
        for secret in secrets:
            assert secret.encode() not in blob
    audited = await asyncio.to_thread(
        runner.invoke, app, ["audit", victim, "--redis-url", live.url]
    )
    assert audited.exit_code == 0 and "PASSED" in audited.output, audited.output
