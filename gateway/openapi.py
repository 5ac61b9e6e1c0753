"""The OpenAPI 3.1 document (``/v1/openapi.json``), finished from Litestar's.

Litestar lays out the paths, parameters, tags and operation ids from the handlers;
this module then makes the document say exactly what the server does:

* **One schema source.** Every body schema is msgspec's own
  (``msgspec.json.schema_components``) for the type the server decodes or encodes:
  the gateway's models, and for play the wire contract's types: one ``TableView``
  per hosted game (``game`` fixes which, ``view`` is the game's view, ``legal`` its
  command union), the command union a client sends, the outcome union. Tagged unions
  are ``oneOf`` with a ``discriminator``, as generators expect.
* **One error schema** (:class:`gateway.models.ErrorBody`) on every error answer: 400,
  422 and 429 (with ``Retry-After``) and 503 everywhere, 401 where a session is needed,
  413 where there is a body; Litestar's ``{status_code, detail, extra}`` never appears.
* **Parameters as strict as the handlers**: enums of games, states and viewers, the
  cursor's and table id's patterns, no ``null`` in a query string.
* **What the server always sends is required**: a member with a default that every
  answer carries anyway (``Accepted.seat``, ``TableMade.invite``, …) is listed in
  ``required``, so generated clients type it as present.
* **Every operation says its security** (``security: []`` where no session is needed),
  and the document lists only components an operation uses (the AsyncAPI document and
  ``orrery schema`` get them all).

It is built once per app (the types do not change while it runs).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Annotated, Any, Literal, Union

import msgspec

from gateway.chat import ChatHistory
from gateway.hosted import HostedGame, HostedGames, camel
from gateway.models import (
    CURSOR_PATTERN,
    TABLE_ID_PATTERN,
    BotIn,
    ChatIn,
    CommandId,
    Credentials,
    ErrorBody,
    Health,
    JoinIn,
    Leaderboard,
    Me,
    NewPlayer,
    NewTable,
    PastGames,
    PastSeat,
    PlayerCreated,
    Readiness,
    ReplayStep,
    SeatOut,
    Session,
    TableDetail,
    TableList,
    TableMade,
)
from gateway.notify_routes import NOTIFY_MODELS, NOTIFY_TAGS
from gateway.queue import BlockIn, Blocks, QueueIn, QueueTicket, QueueTickets
from gateway.replays import REPLAY_AS
from gateway.social import SOCIAL_MODELS, SOCIAL_TAGS
from gateway.tournaments import TOURNAMENT_MODELS, TOURNAMENT_TAGS
from orrery_contracts.base import ViewBody
from orrery_contracts.chat import ChatMessage
from orrery_contracts.envelope import Accepted, Duplicate, Rejection
from orrery_contracts.lobby import LISTED_STATES, LobbySeat
from orrery_contracts.table import (
    ClientTableCommand,
    LeaveTable,
    StartTable,
    UndoTable,
)
from orrery_contracts.views import TableView

REF = "#/components/schemas/{name}"
ASYNCAPI_PATH = "/v1/asyncapi.json"

# The models Litestar refers to by name (their msgspec schemas replace its own).
MODELS: tuple[type[msgspec.Struct], ...] = (
    NewPlayer,
    PlayerCreated,
    Credentials,
    Session,
    Me,
    PastGames,
    TableList,
    TableDetail,
    TableMade,
    JoinIn,
    BotIn,
    SeatOut,
    Leaderboard,
    ErrorBody,
    Health,
    Readiness,
    ReplayStep,
    ChatIn,
    ChatMessage,
    ChatHistory,
    QueueIn,
    QueueTicket,
    QueueTickets,
    BlockIn,
    Blocks,
    *SOCIAL_MODELS,
    *NOTIFY_MODELS,
    *TOURNAMENT_MODELS,
)

# Answers whose every member the server sends, defaults included (no ``omit_defaults``,
# no UNSET): each member is required in the document.
ALWAYS_SENT: tuple[type[msgspec.Struct], ...] = (
    Accepted,
    Rejection,
    TableMade,
    ChatMessage,
    LobbySeat,
    PastSeat,
)
# Lobby answers whose ``options`` are the table's game's options (as its creator gave them)
WITH_OPTIONS = ("TableSummary", "TableDetail", "MyTable")
# Request bodies whose ``seat`` is a seat number of some hosted game
WITH_SEAT = ("JoinIn", "BotIn")

TAGS = [
    {"name": "players", "description": "accounts: sign up, my page"},
    {"name": "sessions", "description": "sign in: a bearer token"},
    {"name": "tables", "description": "the lobby: create, list, join, bots, start, leave"},
    {"name": "play", "description": "my seat's view and my commands"},
    {"name": "replay", "description": "a table's views after each command"},
    {"name": "chat", "description": "a table's chat: say something, read it"},
    {"name": "leaderboard", "description": "ratings by game"},
    {"name": "queue", "description": "quick play: queue a ticket, be seated at a started table"},
    *NOTIFY_TAGS,
    *SOCIAL_TAGS,
    *TOURNAMENT_TAGS,
    {"name": "health", "description": "liveness and readiness"},
]

# The project grants no licence of its own (it ships none): say so, rather than leave
# a client developer to guess. Change this with the project's licence.
LICENSE = {"name": "All rights reserved"}

DESCRIPTION = f"""Accounts, sessions, a lobby, tables, bots, views and live pushes.

Every error answer is `ErrorBody`: `{{"error": "<stable code>", "message": "<text>"}}`
(a command the rules refused also carries its outcome's members). Play is typed with
the wire contract's own types: one `TableView` per game (`game` says which), the
commands a seat may send (`Command`, tagged by `type`) and the outcomes (tagged by
`outcome`).

The WebSockets (`/v1/tables/{{table_id}}/live`, `/v1/players/me/live`) are described,
frame by frame and with the same schemas, by the AsyncAPI 3 document at
`{ASYNCAPI_PATH}`."""

_BODY_ERRORS = {413: "the request body is too large (`too_large`)"}
_COMMON_ERRORS = {
    400: "the request cannot be read",
    422: "the request does not fit the API (`malformed`), or the rules refused it",
    429: "rate limited (`rate_limited`): retry after `Retry-After` seconds",
    503: "the service is unreachable or the gateway is still connecting (`unavailable`)",
}
_SESSION_ERRORS = {401: "no valid session (`unauthorized`, `session_expired`)"}
RETRY_AFTER = {
    "Retry-After": {
        "description": "seconds to wait before the next request",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}


def _union(types: tuple[Any, ...]) -> Any:
    return Union[types]  # noqa: UP007 - built at run time from a tuple


def _table_view(game: HostedGame) -> type[msgspec.Struct]:
    """The game's TableView: ``game`` fixed, its view, its seats' legal commands."""
    legal = _union((*ClientTableCommand.__args__, *game.command_types))
    return msgspec.defstruct(
        f"{camel(game.name)}TableView",
        [
            ("game", Literal[game.name]),
            ("view", game.view_type | None),
            ("legal", list[legal]),  # type: ignore[valid-type]
        ],
        bases=(TableView,),
        kw_only=True,
        frozen=True,
    )


def _replay_view(name: str, base: type[msgspec.Struct]) -> type[msgspec.Struct]:
    return msgspec.defstruct(
        name, [("replay", ReplayStep)], bases=(base,), kw_only=True, frozen=True
    )


def _blank_view() -> type[msgspec.Struct]:
    """A table before its first event (a replay's step 0): no game yet."""
    return msgspec.defstruct(
        "BlankTableView",
        [
            ("game", Literal[""]),
            ("view", ViewBody | None),
            ("legal", list[_union(ClientTableCommand.__args__)]),  # type: ignore[misc]
        ],
        bases=(TableView,),
        kw_only=True,
        frozen=True,
    )


def _new_table(game: HostedGame) -> type[msgspec.Struct]:
    """``POST /v1/tables`` for one game: its seat bounds and its own options."""
    return msgspec.defstruct(
        f"New{camel(game.name)}Table",
        [
            ("game", Literal[game.name]),
            (
                "seats",
                Annotated[int, msgspec.Meta(ge=game.min_seats, le=game.max_seats)],
            ),
            ("options", game.options_type, msgspec.field(default_factory=game.options_type)),
            ("private", bool, False),
        ],
        kw_only=True,
        frozen=True,
        forbid_unknown_fields=True,
    )


def client_commands(games: HostedGames) -> tuple[Any, ...]:
    """What ``POST …/commands`` may carry: start, leave, undo and every game's moves
    (tables are created and joined through their own endpoints: ``use_endpoint``)."""
    return (
        StartTable,
        LeaveTable,
        UndoTable,
        *(t for game in games for t in game.command_types),
    )


def _command_in(games: HostedGames) -> type[msgspec.Struct]:
    return msgspec.defstruct(
        "CommandIn",
        [("command_id", CommandId), ("body", _union(client_commands(games)))],
        kw_only=True,
        frozen=True,
        forbid_unknown_fields=True,
    )


class Schemas:
    """The components of both documents (OpenAPI, AsyncAPI) and the named unions."""

    def __init__(self, games: HostedGames) -> None:
        games = list(games)
        views = {g.name: _table_view(g) for g in games}
        views[""] = _blank_view()
        replays = {n: _replay_view(f"{camel(n) or 'Blank'}ReplayView", v) for n, v in views.items()}
        new_tables = {g.name: _new_table(g) for g in games}
        unions = {"Command": _union(client_commands(games)), "CommandOutcome": Accepted | Duplicate}
        types = [
            *MODELS,
            _command_in(games),
            *unions.values(),
            *views.values(),
            *replays.values(),
            *(new_tables.values() or [NewTable]),
        ]
        schemas, components = msgspec.json.schema_components(types, ref_template=REF)
        names = _short_names(components)
        components = {names[k]: v for k, v in components.items()}
        for game in games:
            # the rules refuse an option they do not know (bad_options)
            options = game.options_type
            for name in (options.__name__, f"{options.__module__}.{options.__qualname__}"):
                if name in names:
                    components[names[name]]["additionalProperties"] = False
        start = len(MODELS) + 1
        for name, schema in zip(unions, schemas[start : start + len(unions)], strict=True):
            components[name] = schema
        components["CommandIn"]["properties"]["body"] = self.ref("Command")
        _type_options(components, [names[_key(g.options_type, names)] for g in games])
        _type_details(components)
        _require_always_sent(components, names)
        if games:
            top = max(g.max_seats for g in games) - 1  # seats are numbered from 0
            for name in WITH_SEAT:
                _seat_maximum(components[name]["properties"]["seat"], top)
        live = {n: v for n, v in views.items() if n}
        components["TableView"] = _by_game(live) if live else components.pop("TableView", {})
        components["ReplayView"] = _by_game(replays)
        if new_tables:
            components["NewTable"] = _by_game(new_tables)
        # generators name classes after titles: two games' ``Build`` must not collide
        components = {k: {**v, "title": k} if "title" in v else v for k, v in components.items()}
        prefix = REF.format(name="")
        self.components: dict[str, Any] = moved_refs(_one_of(components), prefix, prefix, names)
        self.games = [g.name for g in games]

    @staticmethod
    def ref(name: str) -> dict[str, str]:
        return {"$ref": REF.format(name=name)}


def _key(struct: type[msgspec.Struct], names: dict[str, str]) -> str:
    """msgspec's name of a Struct's component (its module path when two share a name)."""
    plain = struct.__name__
    return plain if plain in names else f"{struct.__module__}.{struct.__qualname__}"


def _type_options(components: dict[str, Any], options: list[str]) -> None:
    """A lobby answer's ``options`` are one game's options: any of the hosted games'
    (``anyOf``, not ``oneOf``: ``{}``, every option left at its default, fits them all;
    ``game`` beside it says which)."""
    if not options:
        return
    refs = [{"$ref": REF.format(name=name)} for name in dict.fromkeys(options)]
    schema = refs[0] if len(refs) == 1 else {"anyOf": refs}
    for name in WITH_OPTIONS:
        components[name]["properties"]["options"] = {
            **schema,
            "description": "the table's options as its creator gave them (those left out "
            "are the game's defaults)",
        }


def _type_details(components: dict[str, Any]) -> None:
    """A rejection's ``detail`` in an outcome is the error body's: an ``ErrorDetail``."""
    detail = components["ErrorBody"]["properties"]["detail"]
    components["Rejection"]["properties"]["detail"] = copy.deepcopy(detail)


def _require_always_sent(components: dict[str, Any], names: dict[str, str]) -> None:
    for struct in ALWAYS_SENT:
        config = struct.__struct_config__
        if config.omit_defaults:
            raise ValueError(f"{struct.__name__} leaves defaults out: it is not always sent")
        schema = components[names[_key(struct, names)]]
        required = list(schema.get("required", []))
        schema["required"] = required + [p for p in schema["properties"] if p not in required]


def _seat_maximum(schema: dict[str, Any], top: int) -> None:
    """The seat of a join or a bot: at most the largest seat number of a hosted game (a
    seat the table itself does not have is ``no_such_seat``)."""
    for option in schema.get("anyOf", [schema]):
        if option.get("type") == "integer":
            option["maximum"] = top
    schema["description"] = (
        "a seat of the table, numbered from 0 (one it does not have: 422 no_such_seat); "
        "none: the first open seat"
    )


def _by_game(types: dict[str, type[msgspec.Struct]]) -> dict[str, Any]:
    """One of a Struct per game, told apart by their ``game``."""
    refs = {game: REF.format(name=t.__name__) for game, t in types.items()}
    return {
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {"propertyName": "game", "mapping": refs},
    }


def _short_names(components: dict[str, Any]) -> dict[str, str]:
    """msgspec names a Struct by its module path when two share a class name (each
    game has a ``SeatView``): name it ``<Game><Class>`` instead."""
    names = {}
    for name in components:
        if "." in name:
            parts = name.split(".")
            package = parts[1] if parts[0] == "orrery_contracts" else parts[-2]
            names[name] = camel(package) + parts[-1]
        else:
            names[name] = name
    if len(set(names.values())) != len(names):
        raise ValueError("two schema components would share a name")
    return names


def moved_refs(value: Any, old: str, new: str, names: dict[str, str] | None = None) -> Any:
    """Every reference under ``old`` (``$ref`` values and discriminator mappings alike)
    moved under ``new``, its name renamed by ``names``."""
    if isinstance(value, dict):
        return {k: moved_refs(v, old, new, names) for k, v in value.items()}
    if isinstance(value, list):
        return [moved_refs(v, old, new, names) for v in value]
    if isinstance(value, str) and value.startswith(old):
        name = value.removeprefix(old)
        return new + (names or {}).get(name, name)
    return value


def _one_of(value: Any) -> Any:
    """A tagged union is exactly one of its members: ``oneOf`` (msgspec says ``anyOf``)."""
    if isinstance(value, dict):
        out = {k: _one_of(v) for k, v in value.items()}
        if "discriminator" in out and "anyOf" in out:
            out["oneOf"] = out.pop("anyOf")
        return out
    if isinstance(value, list):
        return [_one_of(v) for v in value]
    return value


# ---------------------------------------------------------------- the OpenAPI document

# Operations whose body may be left out (the handler's ``data: … | None = None``).
_OPTIONAL_BODIES = {"joinTable", "addBot", "reportChat", "registerTournament"}
_PLAY_BODIES = {
    "getView": "TableView",
    "getReplay": "ReplayView",
    "startTable": "CommandOutcome",
    "leaveTable": "CommandOutcome",
    "sendCommand": "CommandOutcome",
}


def _error(description: str, status: int) -> dict[str, Any]:
    response: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": Schemas.ref("ErrorBody")}},
    }
    if status == 429:
        response["headers"] = copy.deepcopy(RETRY_AFTER)
    return response


def _parameter_schema(parameter: dict[str, Any], schemas: Schemas) -> dict[str, Any]:
    schema: dict[str, Any] = dict(parameter.get("schema") or {})
    options = schema.pop("oneOf", None)
    if options:  # ``T | None``: a query string has no null, the parameter is just absent
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1:
            schema = {**kept[0], **schema}
        else:
            schema["oneOf"] = kept
    name = parameter["name"]
    if name == "game" and schemas.games:
        schema["enum"] = list(schemas.games)
    elif name == "state":
        schema["enum"] = list(LISTED_STATES)
    elif name == "as":
        schema["enum"] = list(REPLAY_AS)
    elif name == "cursor":
        schema["pattern"] = CURSOR_PATTERN
    elif name in ("at", "step"):
        schema["minimum"] = 0
    elif name == "table_id":
        schema["pattern"] = TABLE_ID_PATTERN
    return schema


def _finish_operation(operation: dict[str, Any], schemas: Schemas) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    errors = dict(_COMMON_ERRORS)
    if operation.get("security"):
        errors.update(_SESSION_ERRORS)
    if "requestBody" in operation:
        errors.update(_BODY_ERRORS)
    for code, description in errors.items():
        responses[str(code)] = _error(description, code)
    for status, response in list(responses.items()):
        if int(status) >= 400 and int(status) not in errors:
            responses[status] = _error(response.get("description", "error"), int(status))
        if not response.get("headers"):
            response.pop("headers", None)
    if operation["operationId"] in _OPTIONAL_BODIES:
        operation["requestBody"]["required"] = False
    body = _PLAY_BODIES.get(operation["operationId"])
    if body is not None:
        responses["200"]["content"] = {"application/json": {"schema": Schemas.ref(body)}}
    operation.setdefault("security", [])  # none needed: say so
    for parameter in operation.get("parameters", []):
        parameter["schema"] = _parameter_schema(parameter, schemas)
        for loose in ("allowEmptyValue", "allowReserved", "deprecated"):
            parameter.pop(loose, None)
    operation.pop("deprecated", None)
    if operation.get("summary") and operation.get("description"):
        operation["summary"] = operation["description"].split("\n", 1)[0].rstrip(".")


def _used(document: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """The components the paths use, directly or through one another."""
    prefix = REF.format(name="")
    found: set[str] = set()
    todo = [document.get("paths", {})]
    while todo:
        text = json.dumps(todo.pop())
        for name in set(re.findall(re.escape(prefix) + r'([^"]+)"', text)) - found:
            found.add(name)
            todo.append(schemas[name])
    return {name: schema for name, schema in schemas.items() if name in found}


def openapi_document(litestar_document: dict[str, Any], schemas: Schemas) -> dict[str, Any]:
    """Litestar's document with the server's exact schemas, errors and parameters."""
    document = copy.deepcopy(litestar_document)
    for item in document.get("paths", {}).values():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete", "head", "options"):
                _finish_operation(operation, schemas)
    components = document.setdefault("components", {})
    components["schemas"] = _used(document, schemas.components)
    document["tags"] = TAGS
    info = document.setdefault("info", {})
    info["description"] = DESCRIPTION
    info["license"] = LICENSE
    return document
