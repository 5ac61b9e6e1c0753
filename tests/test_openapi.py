"""The OpenAPI document says what the server does, checked with a tool nobody here wrote:
Schemathesis (``--checks all``) against a real gateway process (rate limits raised),
a bounded number of examples per operation, a fixed seed and a time budget. Both served
documents pass the validators of their formats' own tooling (tests/apidocs/, installed by
``python3 dev.py test``): ``@asyncapi/parser`` on the AsyncAPI document, Redocly's linter
on the OpenAPI one, without an error or a warning. Also: the document's structure (tags,
short ids, one error schema, typed play, what is always sent), the AsyncAPI document's
frames, the HTTP details (405 + Allow, OPTIONS, repeated parameters) and the rejection
codes list.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openapi_spec_validator import validate

from orrery_contracts.rejections import REJECTION_CODES
from orrery_contracts.table import UNDO_REASONS
from tests.support.gateway import LiveGateway, live_gateway, sign_up, unique
from tests.support.service import REPO

pytestmark = pytest.mark.gateway

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
APIDOCS = REPO / "tests" / "apidocs"
REDOCLY = APIDOCS / "node_modules" / ".bin" / "redocly"
# Per operation, Hypothesis's examples, and the whole run's time budget (seconds): each
# phase (coverage, fuzzing, stateful) takes every operation once, with a fixed seed; with
# a budget, fuzzing and the stateful phase repeat until it is spent. The default run is
# that one pass with a few examples and no budget (so a busy machine makes it slower,
# never shorter); the slow one (``pytest -m slow``) takes 12 examples and repeats for 50 s.
SEED = 29
BUDGETS_S = [
    pytest.param(None, 4, id="one-pass"),
    pytest.param(50, 12, id="50s", marks=pytest.mark.slow),
]

# Statuses a schema-valid request may still get, beyond Schemathesis' defaults (2xx,
# 401, 403, 404, 409, 429, 5xx): each operation's documented 422, where the refusal
# depends on what no request schema can say: a guessable password (weak_password), a
# name's Unicode categories after normalisation (bad_name), the rules' refusal of a
# command for the table's state (seats_open, not_your_turn, …), a game's options that do
# not fit its number of seats (bad_options), a seat number past the table's own seats
# (no_such_seat: the schema's maximum is the largest table's), both ``at`` and ``step``
# (bad_seq), a chat line with an invisible or unassigned character (bad_text: the
# schema's pattern states the control characters and the length), my own player id as
# a friend, a block or an invitation's (bad_friend, bad_block: my id is no schema's), an
# address of no mail domain (bad_email), a push endpoint on no known push service
# (bad_endpoint), a time zone name no zone has (bad_time_zone), a tournament of a game
# this gateway does not host or of more seats than its tables take (unknown_game,
# bad_seats: the request schema lists no game).
# What a schema can say, it says: integers (``2.0`` is one, and is taken as one), bounds,
# patterns, lengths.
RULES_DECIDE = [
    "createPlayer",
    "createTable",
    "joinTable",
    "addBot",
    "startTable",
    "leaveTable",
    "sendCommand",
    "postChat",
    "joinQueue",
    "blockPlayer",
    "befriendPlayer",
    "blockPlayerById",
    "inviteFriend",
    "setEmail",
    "addPushSubscription",
    "setNotifications",
    "createTournament",
]
ACCEPTED = ["2xx", "401", "403", "404", "409", "422", "429"]
CONFIG = """
[[operations]]
include-operation-id-regex = "^({ops})$"
checks.positive_data_acceptance.expected-statuses = {accepted}

[[operations]]
include-operation-id = "getReplay"
checks.positive_data_acceptance.expected-statuses = {replay}
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    roomy = {
        "ORRERY_GATEWAY_RATE": "100000",
        "ORRERY_GATEWAY_BURST": "100000",
        "ORRERY_GATEWAY_ANON_RATE": "100000",
        "ORRERY_GATEWAY_ANON_BURST": "100000",
    }
    with live_gateway(Path(tmp_path_factory.mktemp("gw-openapi")), bots=False, **roomy) as gw:
        # the queue's and the tournaments' answers come from a matchmaker
        gw.service.start("matchmaker", ORRERY_SECRET_KEY=gw.key)
        yield gw


@pytest.mark.parametrize(("budget_s", "examples"), BUDGETS_S)
async def test_schemathesis_finds_the_document_and_the_server_agree(
    live: LiveGateway,
    http: httpx.AsyncClient,
    tmp_path: Path,
    budget_s: int | None,
    examples: int,
) -> None:
    player = await sign_up(http, unique("Sam"))
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        CONFIG.format(
            ops="|".join(RULES_DECIDE),
            accepted=json.dumps(ACCEPTED),
            replay=json.dumps([*ACCEPTED, "501"]),  # a gateway without a replayer
        )
    )
    run = subprocess.run(
        [
            str(SCHEMATHESIS),
            "--config-file",
            str(config),
            "run",
            f"{live.url}/v1/openapi.json",
            "--checks",
            "all",
            "--header",
            f"Authorization: Bearer {player.token}",
            "--max-examples",
            str(examples),
            *(["--max-time", str(budget_s)] if budget_s else []),
            "--workers",
            "1",
            # longer than the gateway's own wait for an answer (10 s), so a slow organiser
            # or worker is its documented 504, not a request cut short
            "--request-timeout",
            "30",
            "--seed",
            str(SEED),
            "--generation-deterministic",
            "--suppress-health-check",
            "all",
            "--no-color",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=(budget_s or 100) * 3,
        check=False,
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-12_000:]
    assert re.search(r"\b\d+ passed\b", report), report[-4_000:]
    # every operation was tested, within the budget too
    assert re.search(r"Selected: (\d+)/\1\s+Tested: \1\b", report), report[-4_000:]
    assert not re.search(r"\b[1-9]\d* (failed|errors?)\b", report), report[-12_000:]


async def test_the_document_types_play_and_errors(http: httpx.AsyncClient) -> None:
    document = (await http.get("/v1/openapi.json")).json()
    validate(document)
    schemas = document["components"]["schemas"]
    operations = {
        op["operationId"]: op
        for item in document["paths"].values()
        for method, op in item.items()
        if method in ("get", "post")
    }
    assert {"getView", "sendCommand", "getReplay", "createTable", "listTables"} <= set(operations)
    tags = {t["name"] for t in document["tags"]}
    assert tags == {
        "players",
        "sessions",
        "tables",
        "play",
        "chat",
        "replay",
        "leaderboard",
        "queue",
        "friends",
        "reports",
        "notifications",
        "tournaments",
        "health",
    }
    for op_id, op in operations.items():
        assert len(op["tags"]) == 1 and op["tags"][0] in tags, op_id
        for status, response in op["responses"].items():
            if int(status) >= 400:
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (op_id, status)
        assert {"400", "422", "429"} <= set(op["responses"]), op_id
        assert "Retry-After" in op["responses"]["429"]["headers"]
        if "requestBody" in op:
            assert "413" in op["responses"], op_id
    assert "status_code" not in str(document)
    # what Litestar injects (gateway.app's dependencies) is no request parameter
    for op_id, op in operations.items():
        names = {p["name"] for p in op.get("parameters", [])}
        assert not names & {"gateway", "player", "request"}, op_id
    # every reference resolves: $refs and discriminator mappings alike
    refs = set(re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(document)))
    assert refs and refs <= set(schemas), sorted(refs - set(schemas))
    # play: one TableView per game, told apart by "game"; commands tagged by "type"
    view = schemas["TableView"]
    assert view["discriminator"]["propertyName"] == "game"
    assert set(view["discriminator"]["mapping"]) >= {"fractured_sky", "spacecraft", "federation"}
    command = schemas["Command"]
    assert command["discriminator"]["propertyName"] == "type" and "oneOf" in command
    assert "sc.visit" in command["discriminator"]["mapping"]
    assert schemas["ErrorBody"]["properties"]["code"]["enum"] == list(REJECTION_CODES)
    ok = operations["getView"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/TableView"}
    # strict inputs
    assert schemas["NewPlayer"]["additionalProperties"] is False
    assert schemas["NewPlayer"]["properties"]["name"]["minLength"] == 1
    assert schemas["Session"]["properties"]["expires_at"]["format"] == "date-time"
    new_sc = schemas["NewSpacecraftTable"]["properties"]
    assert new_sc["game"] == {"enum": ["spacecraft"]} and new_sc["seats"]["minimum"] >= 1
    assert schemas["SpacecraftOptions"]["additionalProperties"] is False
    game = next(p for p in operations["listTables"]["parameters"] if p["name"] == "game")
    assert "spacecraft" in game["schema"]["enum"]
    assert (await http.get("/readyz")).json() == {"status": "ready"}
    ready = operations["getReadiness"]["responses"]["200"]["content"]["application/json"]
    assert ready["schema"] == {"$ref": "#/components/schemas/Readiness"}


async def test_asyncapi_document_describes_the_sockets(http: httpx.AsyncClient) -> None:
    document = (await http.get("/v1/asyncapi.json")).json()
    assert document["asyncapi"].startswith("3.")
    table_live = document["channels"]["tableLive"]
    assert table_live["address"] == "/v1/tables/{table_id}/live"
    schemas = document["components"]["schemas"]
    assert schemas["ViewFrame"]["properties"]["view"] == {"$ref": "#/components/schemas/TableView"}
    assert "TableView" in schemas and "Command" in schemas
    notices = [schemas[r["$ref"].rsplit("/", 1)[1]] for r in schemas["Notice"]["anyOf"]]
    assert [n["properties"]["type"] for n in notices] == [
        {"enum": ["your_turn"]},
        {"enum": ["matched"]},
        {"enum": ["friend_request"]},
        {"enum": ["friend_accepted"]},
        {"enum": ["table_invite"]},
        {"enum": ["party_invite"]},
        {"enum": ["tournament"]},
    ]
    assert schemas["Notice"]["discriminator"] == "type"
    openapi = (await http.get("/v1/openapi.json")).json()
    assert "/v1/asyncapi.json" in openapi["info"]["description"]
    # AsyncAPI Schema Objects: a discriminator is a property's name, never OpenAPI's object
    assert schemas["Command"]["discriminator"] == "type"
    assert schemas["TableView"]["discriminator"] == "game"
    assert '"propertyName"' not in json.dumps(document)
    # where the sockets are: the gateway's own host, with or without TLS
    servers = document["servers"]
    assert {s["protocol"] for s in servers.values()} == {"ws", "wss"}
    assert all(s["host"] == "{host}" and s["variables"]["host"] for s in servers.values())
    # what a client sends (auth first, commands, chat lines) and what it gets (chat too)
    assert set(table_live["messages"]) == {
        "auth", "view", "outcome", "chat", "error", "command", "say", "presenceState"
    }  # fmt: skip
    assert set(document["channels"]["playerLive"]["messages"]) == {
        "auth", "notice", "presence", "error", "presenceState"
    }  # fmt: skip
    sides: dict[tuple[str, str], set[str]] = {}
    for operation in document["operations"].values():
        channel = operation["channel"]["$ref"].rsplit("/", 1)[1]
        names = {m["$ref"].rsplit("/", 1)[1] for m in operation["messages"]}
        sides.setdefault((channel, operation["action"]), set()).update(names)
    assert sides == {
        ("tableLive", "receive"): {"auth", "command", "say", "presenceState"},
        ("tableLive", "send"): {"view", "outcome", "chat", "error"},
        ("playerLive", "receive"): {"auth", "presenceState"},
        ("playerLive", "send"): {"notice", "presence", "error"},
    }
    assert schemas["AuthFrame"]["required"] == ["type", "token"]
    assert schemas["SayFrame"]["properties"]["text"]["maxLength"] == 500
    assert {"$ref": "#/components/schemas/ChatMessage"} in schemas["ChatFrame"]["allOf"]
    # the session goes in the auth frame: no query parameter asks for it (it is refused)
    for channel in document["channels"].values():
        query = channel["bindings"]["ws"]["query"]
        assert "token" not in query["properties"] and not query.get("required")


def _node_tool(*command: str | Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None or not REDOCLY.exists():
        pytest.fail("Node.js and tests/apidocs/node_modules are needed: python3 dev.py test")
    # Redocly: no usage report and no update check (no network in a test)
    env = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}
    return subprocess.run(
        [str(part) for part in command],
        capture_output=True, text=True, timeout=120, cwd=APIDOCS, env=env, check=False,
    )  # fmt: skip


async def test_the_asyncapi_parser_finds_no_error_or_warning(
    http: httpx.AsyncClient, tmp_path: Path
) -> None:
    served = tmp_path / "asyncapi.json"
    served.write_bytes((await http.get("/v1/asyncapi.json")).content)
    run = _node_tool("node", APIDOCS / "asyncapi.mjs", served)
    assert run.stdout, run.stderr[-4_000:]
    found = json.loads(run.stdout)
    assert found["parsed"] and found["errors"] == [] and found["warnings"] == [], found
    assert run.returncode == 0, run.stderr[-4_000:]


async def test_redocly_lint_finds_no_error_or_warning(
    http: httpx.AsyncClient, tmp_path: Path
) -> None:
    served = tmp_path / "openapi.json"
    served.write_bytes((await http.get("/v1/openapi.json")).content)
    config = APIDOCS / "redocly.yaml"
    run = _node_tool(REDOCLY, "lint", served, "--config", config, "--format", "json")
    assert run.stdout, run.stderr[-4_000:]
    found = json.loads(run.stdout)
    assert found["totals"] == {"errors": 0, "warnings": 0, "ignored": 0}, found["problems"]
    assert run.returncode == 0, run.stderr[-4_000:]


async def test_the_document_says_what_the_server_sends_and_takes(
    http: httpx.AsyncClient,
) -> None:
    document = (await http.get("/v1/openapi.json")).json()
    schemas = document["components"]["schemas"]
    # every command a seat may send, undo included, in the HTTP body and the socket's
    command = schemas["Command"]
    assert schemas["CommandIn"]["properties"]["body"] == {"$ref": "#/components/schemas/Command"}
    assert command["discriminator"]["mapping"]["table.undo"] == "#/components/schemas/UndoTable"
    assert {"$ref": "#/components/schemas/UndoTable"} in command["oneOf"]
    # a table's options are one of the games' options (anyOf: `{}` fits them all)
    for name in ("TableSummary", "TableDetail", "MyTable"):
        options = schemas[name]["properties"]["options"]
        refs = {o["$ref"].rsplit("/", 1)[1] for o in options["anyOf"]}
        assert {"FracturedSkyOptions", "SpacecraftOptions", "FederationOptions"} <= refs, name
    # an error's detail: a documented object, the same in an outcome's rejection
    detail = {"anyOf": [{"$ref": "#/components/schemas/ErrorDetail"}, {"type": "null"}]}
    assert schemas["ErrorBody"]["properties"]["detail"] == detail
    assert schemas["Rejection"]["properties"]["detail"] == detail
    error_detail = schemas["ErrorDetail"]
    assert error_detail["additionalProperties"] is False
    assert set(error_detail["properties"]["reason"]["enum"]) == set(UNDO_REASONS)
    assert set(error_detail["properties"]) == {"reason", "field", "retry_after_ms"}
    # members the server always sends are required, defaults and nulls included
    for name, members in {
        "Accepted": {"seat", "chat_id"},
        "Rejection": {"detail"},
        "TableMade": {"invite"},
        "ChatMessage": {"seat", "spectator", "name", "text", "at", "deleted"},
        "LobbySeat": {"bot", "left"},
        "PastSeat": {"player_id", "bot", "rank", "score"},
    }.items():
        assert members <= set(schemas[name]["required"]), name
    # what the server refuses, where a schema can say it
    largest = max(
        schemas[ref["$ref"].rsplit("/", 1)[1]]["properties"]["seats"]["maximum"]
        for ref in schemas["NewTable"]["oneOf"]
    )
    for name in ("JoinIn", "BotIn"):
        seat = schemas[name]["properties"]["seat"]["anyOf"][0]
        assert (seat["minimum"], seat["maximum"]) == (0, largest - 1), name
    text = schemas["ChatIn"]["properties"]["text"]
    assert (text["minLength"], text["maxLength"]) == (1, 500)
    assert re.fullmatch(text["pattern"], " gl hf ") and not re.search(text["pattern"], "   ")
    assert not re.search(text["pattern"], "bad\x07bell")
    # security said on every operation; the public ones need none
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert "security" in operation, (method, path)
    for path, method in (
        ("/healthz", "get"),
        ("/readyz", "get"),
        ("/v1/players", "post"),
        ("/v1/sessions", "post"),
    ):
        assert document["paths"][path][method]["security"] == [], path
    assert document["info"]["license"]["name"]


async def test_what_the_server_sends_carries_every_required_member(
    http: httpx.AsyncClient,
) -> None:
    ann = await sign_up(http, unique("Ann"))
    made = await ann.create_table("tiny", 1)
    assert made == {"table_id": made["table_id"], "invite": None}
    table = made["table_id"]
    await ann.join(table)
    started = await ann.start(table)
    assert started["outcome"] == "accepted"
    assert started["seat"] is None and started["chat_id"] is None, started
    said = await ann.post(f"/v1/tables/{table}/chat", {"text": "gl hf"})
    assert said.status_code == 201, said.text
    message = said.json()
    assert message["seat"] == 0 and message["spectator"] is False and message["deleted"] is False
    listed = (await ann.get(f"/v1/tables/{table}/chat")).json()["messages"]
    assert listed == [message]
    # a chat line as long as the schema allows, and one more: refused as the schema says
    longest = await ann.post(f"/v1/tables/{table}/chat", {"text": "x" * 500})
    assert longest.status_code == 201, longest.text
    padded = await ann.post(f"/v1/tables/{table}/chat", {"text": "x" + " " * 500})
    assert padded.status_code == 422 and padded.json()["error"] == "bad_text"


async def test_unknown_games_methods_and_repeated_parameters(http: httpx.AsyncClient) -> None:
    player = await sign_up(http, unique("Hal"))
    for path in ("/v1/tables?game=chess", "/v1/leaderboard/chess"):
        refused = await player.http.get(path, headers=player.headers)
        assert refused.status_code == 422 and refused.json()["error"] == "unknown_game", path
    assert (await player.get("/v1/leaderboard/tiny")).status_code == 200
    repeated = await player.http.get("/v1/tables?limit=abc&limit=1", headers=player.headers)
    assert repeated.status_code == 422 and repeated.json()["error"] == "repeated_parameter"
    for path, allowed in (
        ("/v1/tables", {"GET", "POST", "OPTIONS"}),
        ("/v1/tables/t1/view", {"GET", "OPTIONS"}),
        ("/v1/players", {"POST", "OPTIONS"}),
    ):
        options = await http.options(path)
        assert options.status_code == 204
        assert set(options.headers["allow"].split(", ")) == allowed, path
        wrong = await http.put(path)
        assert wrong.status_code == 405 and wrong.json()["error"] == "method_not_allowed"
        assert set(wrong.headers["allow"].split(", ")) == allowed, path
    low = await player.http.get("/v1/tables?limit=0", headers=player.headers)
    assert low.status_code == 422 and low.json()["error"] == "malformed"
    null = await player.http.get("/v1/tables/t1/replay?at=null", headers=player.headers)
    assert null.status_code == 422 and null.json()["error"] == "malformed"


def test_every_rejection_code_the_source_can_raise_is_listed() -> None:
    constants: dict[str, str] = {}
    for path in (REPO / "games").rglob("*.py"):
        constants |= dict(re.findall(r'^([A-Z_]+) = "([a-z_]+)"$', path.read_text(), re.M))
    codes: set[str] = set()
    for root in ("games", "services"):
        for path in (REPO / root).rglob("*.py"):
            text = path.read_text()
            codes |= set(re.findall(r'Rejected\(\s*"([a-z_]+)"', text))
            codes |= {constants[c] for c in re.findall(r"Rejected\(\s*([A-Z_]+)\b", text)}
            codes |= set(re.findall(r'\bcode="([a-z_]+)"', text))
            codes |= set(
                re.findall(r'_(?:reject_unstored|unreadable)\([^"]*?"([a-z_]+)"', text, re.S)
            )
    assert len(codes) > 50  # the scan still finds them
    assert codes <= set(REJECTION_CODES), sorted(codes - set(REJECTION_CODES))
