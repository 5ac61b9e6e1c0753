"""The OpenAPI document says what the server does, checked with a tool nobody here wrote:
Schemathesis (``--checks all``) against a real gateway process (rate limits raised),
a bounded number of examples per operation and a time budget. Also: the document's
structure (tags, short ids, one error schema, typed play), the AsyncAPI document, the
HTTP details (405 + Allow, OPTIONS, repeated parameters) and the rejection codes list.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openapi_spec_validator import validate

from orrery_contracts.rejections import REJECTION_CODES
from tests.support.gateway import LiveGateway, live_gateway, sign_up, unique
from tests.support.service import REPO

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
# Per operation, Hypothesis's examples, and the whole run's time budget (seconds): each
# phase (coverage, fuzzing, stateful) takes every operation once, and fuzzing and the
# stateful phase repeat until the budget is spent (about 15 s is one pass on 2 busy
# cores). The default run has a budget of one pass and a bit; the slow one
# (``pytest -m slow``) repeats for 50 s.
EXAMPLES = 12
BUDGETS_S = [pytest.param(20, id="one-pass"), pytest.param(50, id="50s", marks=pytest.mark.slow)]

# Statuses a schema-valid request may still get, beyond Schemathesis' defaults (2xx,
# 401, 403, 404, 409, 429, 5xx), where the refusal depends on what no request schema can
# say: a name's Unicode categories after normalisation (bad_name), the rules' refusal
# of a command for the table's state (seats_open, not_your_turn, …), a game's options
# that do not fit its number of seats (bad_options), a seat number past the table's
# seats (no_such_seat), both ``at`` and ``step`` (bad_seq), a chat line with a control
# character or, once stripped, empty (bad_text).
RULES_DECIDE = [
    "createPlayer",
    "createTable",
    "joinTable",
    "addBot",
    "startTable",
    "leaveTable",
    "sendCommand",
    "postChat",
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
        yield gw


@pytest.mark.parametrize("budget_s", BUDGETS_S)
async def test_schemathesis_finds_the_document_and_the_server_agree(
    live: LiveGateway, http: httpx.AsyncClient, tmp_path: Path, budget_s: int
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
            str(EXAMPLES),
            "--max-time",
            str(budget_s),
            "--workers",
            "1",
            "--seed",
            "29",
            "--suppress-health-check",
            "all",
            "--no-color",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=budget_s * 3,
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
    assert document["channels"]["tableLive"]["address"] == "/v1/tables/{table_id}/live"
    schemas = document["components"]["schemas"]
    assert schemas["ViewFrame"]["properties"]["view"] == {"$ref": "#/components/schemas/TableView"}
    assert "TableView" in schemas and "Command" in schemas
    notice = schemas[schemas["Notice"]["$ref"].rsplit("/", 1)[1]]
    assert notice["properties"]["type"] == {"enum": ["your_turn"]}
    openapi = (await http.get("/v1/openapi.json")).json()
    assert "/v1/asyncapi.json" in openapi["info"]["description"]


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
