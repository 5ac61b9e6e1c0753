"""Tournaments over HTTP (``/v1/tournaments…``) and the arena's seasons
(``/v1/seasons/{game}``).

The gateway never decides a tournament: it checks what it can (the game, the seats, the
options), mints the tournament's id, sends the command to the tournament organiser's
stream (``keys.tournament_command_stream``) and waits for its answer
(``keys.tournament_answer_key``); tournaments are read where the organiser keeps them
(``keys.tournament_key``, ``keys.tournaments_index``). Every tournament is public: its
players, rounds, tables and standings (the seed only once it is over).
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from typing import Annotated, Any

import msgspec
from litestar import get, post
from litestar.openapi import ResponseSpec

from gateway.core import Gateway
from gateway.errors import ApiError
from gateway.models import ErrorBody, Struct
from gateway.queue import service as queue_service
from orrery_contracts import keys
from orrery_contracts.table import ClockOption
from orrery_contracts.tournaments import (
    MAX_CAPACITY,
    MAX_SEATS,
    MAX_UNIX_MS,
    MIN_SEATS,
    CheckIn,
    CreateTournament,
    Format,
    RegisterPlayer,
    SeasonView,
    StartTournament,
    TournamentCommand,
    TournamentSpec,
    TournamentView,
    season_view_decoder,
    tournament_answer_decoder,
    tournament_view_decoder,
)

ANSWER_POLL_S = 0.02
LISTED = 100
REFUSAL_STATUS = {
    "no_such_tournament": 404,
    "not_organiser": 403,
    "tournament_full": 409,
    "registration_closed": 409,
    "already_started": 409,
    "not_registered": 409,
    "tournament_exists": 409,
}
_json = msgspec.json.Encoder()


class TournamentIn(Struct, frozen=True, kw_only=True):
    """A tournament: ``format`` and ``seats`` a table; ``rounds`` (Swiss; absent: enough
    for one winner); ``capacity`` (players at most); ``registration_ends`` (unix ms: it
    starts by itself then); ``round_deadline_s`` (a round's unfinished tables are ended
    then, the players to move losing on time); ``clock`` (each table's, as a table's)."""

    game: str
    format: Format
    seats: Annotated[int, msgspec.Meta(ge=MIN_SEATS, le=MAX_SEATS)]
    options: dict[str, Any] = {}
    rounds: Annotated[int, msgspec.Meta(ge=1, le=64)] | None = None
    capacity: Annotated[int, msgspec.Meta(ge=2, le=MAX_CAPACITY)] = 64
    registration_ends: Annotated[int, msgspec.Meta(ge=0, le=MAX_UNIX_MS)] | None = None
    round_deadline_s: Annotated[float, msgspec.Meta(ge=1, le=30 * 86_400)] = 86_400.0
    check_in: bool = False
    clock: ClockOption | None = None
    name: Annotated[str, msgspec.Meta(max_length=80)] = ""


class TournamentCreated(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str


class RegisterIn(Struct, frozen=True, kw_only=True):
    """Absent: register me. ``withdraw``: leave (after the start: I forfeit what is
    left); ``check_in``: confirm I play (a tournament with check-in starts with those
    who did)."""

    withdraw: bool = False
    check_in: bool = False


class TournamentList(msgspec.Struct, frozen=True, kw_only=True):
    tournaments: list[TournamentView]


def _errors(*statuses: int) -> dict[int, ResponseSpec]:
    described = {
        403: "only the organiser starts a tournament",
        404: "no such tournament",
        409: "full, registration closed, already started, or not registered",
        504: "no answer from the tournament organiser in time; try again",
    }
    return {
        status: ResponseSpec(ErrorBody, description=described[status], generate_examples=False)
        for status in statuses
    }


async def _ask(gateway: Gateway, command: TournamentCommand) -> None:
    redis = gateway.client.redis
    await redis.xadd(
        keys.tournament_command_stream(),
        {"__data__": _json.encode(command)},
        maxlen=100_000,
        approximate=True,
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + gateway.settings.command_timeout_s
    key = keys.tournament_answer_key(command.command_id)
    while True:
        raw = await redis.get(key)
        if raw is not None:
            break
        if loop.time() > deadline:
            raise ApiError(504, "outcome_timeout", "no answer from the organiser in time")
        await asyncio.sleep(ANSWER_POLL_S)
    answer = tournament_answer_decoder.decode(raw)
    if not answer.ok:
        raise ApiError(REFUSAL_STATUS.get(answer.code, 422), answer.code, answer.message)


async def _read(gateway: Gateway, tournament_id: str) -> TournamentView:
    if len(tournament_id) > 64:
        raise ApiError(404, "no_such_tournament", "no such tournament")
    raw = await gateway.client.redis.get(keys.tournament_key(tournament_id))
    if raw is None:
        raise ApiError(404, "no_such_tournament", "no such tournament")
    return tournament_view_decoder.decode(raw)


@post(
    "/tournaments",
    status_code=201,
    responses=_errors(504),
    operation_id="createTournament",
    tags=["tournaments"],
)
async def create_tournament(data: TournamentIn, player: str, gateway: Gateway) -> TournamentCreated:
    """Organise a tournament of a game (I am its organiser: I may start it early)."""
    game = gateway.tables.check_game(data.game)
    hosted = queue_service(gateway).games.get(game)
    if hosted is not None:
        if not max(hosted.min_seats, 2) <= data.seats <= hosted.max_seats:
            raise ApiError(422, "bad_seats", "that many seats is not a table of this game")
        try:
            msgspec.convert(data.options, hosted.options_type)
        except msgspec.ValidationError as error:
            raise ApiError(422, "bad_options", f"bad options: {error}"[:200]) from None
    if data.registration_ends is not None and data.registration_ends < time.time() * 1000:
        raise ApiError(422, "bad_time", "registration must end in the future")
    spec = msgspec.convert(msgspec.to_builtins(data), TournamentSpec)
    tournament_id = "tn" + secrets.token_hex(8)
    await _ask(
        gateway,
        CreateTournament(
            command_id=uuid.uuid4().hex, tournament_id=tournament_id, organiser=player, spec=spec
        ),
    )
    return TournamentCreated(tournament_id=tournament_id)


@get("/tournaments", operation_id="listTournaments", tags=["tournaments"])
async def list_tournaments(player: str, gateway: Gateway) -> TournamentList:
    """The newest tournaments, newest first."""
    redis = gateway.client.redis
    ids = await redis.zrevrange(keys.tournaments_index(), 0, LISTED - 1)
    if not ids:
        return TournamentList(tournaments=[])
    raws = await redis.mget([keys.tournament_key(i.decode()) for i in ids])
    return TournamentList(tournaments=[tournament_view_decoder.decode(r) for r in raws if r])


@get(
    "/tournaments/{tournament_id:str}",
    responses=_errors(404),
    operation_id="getTournament",
    tags=["tournaments"],
)
async def get_tournament(tournament_id: str, player: str, gateway: Gateway) -> TournamentView:
    """One tournament: its players, rounds with their tables, standings with tie-breaks."""
    return await _read(gateway, tournament_id)


@post(
    "/tournaments/{tournament_id:str}/register",
    status_code=200,
    responses=_errors(404, 409, 504),
    operation_id="registerTournament",
    tags=["tournaments"],
)
async def register_tournament(
    tournament_id: str, player: str, gateway: Gateway, data: RegisterIn | None = None
) -> TournamentView:
    """Enter a tournament (again: nothing changes), check in, or withdraw."""
    await _read(gateway, tournament_id)
    body = data or RegisterIn()
    command: TournamentCommand
    if body.check_in:
        command = CheckIn(
            command_id=uuid.uuid4().hex, tournament_id=tournament_id, player_id=player
        )
    else:
        name = await gateway.accounts.name_of(player) or player
        command = RegisterPlayer(
            command_id=uuid.uuid4().hex,
            tournament_id=tournament_id,
            player_id=player,
            name=name,
            withdraw=body.withdraw,
        )
    await _ask(gateway, command)
    return await _read(gateway, tournament_id)


@post(
    "/tournaments/{tournament_id:str}/start",
    status_code=200,
    responses=_errors(403, 404, 409, 504),
    operation_id="startTournament",
    tags=["tournaments"],
)
async def start_tournament(tournament_id: str, player: str, gateway: Gateway) -> TournamentView:
    """Start now (the organiser): the first round is paired and its tables started."""
    await _read(gateway, tournament_id)
    await _ask(
        gateway,
        StartTournament(command_id=uuid.uuid4().hex, tournament_id=tournament_id, by=player),
    )
    return await _read(gateway, tournament_id)


@get(
    "/seasons/{game:str}",
    responses={404: ResponseSpec(ErrorBody, description="no season", generate_examples=False)},
    operation_id="getSeason",
    tags=["tournaments"],
)
async def get_season(game: str, player: str, gateway: Gateway) -> SeasonView:
    """The game's arena season: each rated player's league, when it ends, and the past
    seasons (their final tables are kept in the archive: ``orrery season show``)."""
    game = gateway.tables.check_game(game)
    raw = await gateway.client.redis.get(keys.season_key(game))
    if raw is None:
        raise ApiError(404, "no_season", "this game has no season yet")
    return season_view_decoder.decode(raw)


TOURNAMENT_ROUTES = [
    create_tournament,
    list_tournaments,
    get_tournament,
    register_tournament,
    start_tournament,
    get_season,
]

# the OpenAPI document's models and tag (gateway/openapi.py)
TOURNAMENT_MODELS: tuple[type[msgspec.Struct], ...] = (
    TournamentIn,
    TournamentCreated,
    RegisterIn,
    TournamentList,
    TournamentView,
    SeasonView,
)
TOURNAMENT_TAGS = [
    {
        "name": "tournaments",
        "description": "Swiss, round robin and elimination tournaments: create, register, "
        "start, standings; the arena's seasons",
    }
]
