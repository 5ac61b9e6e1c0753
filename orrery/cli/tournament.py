"""Tournaments and seasons for operators: ``orrery tournament create|list|show|pair|audit``,
``orrery season show|rollover`` and ``orrery bench tournament``. Tournament commands go to
the organiser (which runs inside every matchmaker) through its command stream, as the
gateway's do, as the operator."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Annotated, Any

import typer

from orrery.config import DATA_DIR, redis_url_from_env
from orrery.logs import configure_logging

RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url", help="Redis/Valkey URL (default: $ORRERY_REDIS_URL, else embedded)"
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="print one JSON document")]


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    tournament_app = typer.Typer(no_args_is_help=True, help="Tournaments (operators).")
    app.add_typer(tournament_app, name="tournament")
    tournament_app.command("create")(tournament_create)
    tournament_app.command("list")(tournament_list)
    tournament_app.command("show")(tournament_show)
    tournament_app.command("pair")(tournament_pair)
    tournament_app.command("audit")(tournament_audit)
    tournament_app.command("archive")(tournament_archive)
    bench_app.command("tournament")(bench_tournament)
    season_app = typer.Typer(no_args_is_help=True, help="The arena's seasons (operators).")
    app.add_typer(season_app, name="season")
    season_app.command("show")(season_show)
    season_app.command("rollover")(season_rollover)


async def _ask(url: str, command: Any, timeout: float = 15.0) -> None:
    import msgspec

    from orrery.errors import UserError
    from orrery.server.cluster import open_redis
    from orrery_contracts import keys
    from orrery_contracts.tournaments import tournament_answer_decoder

    redis = open_redis(url)
    try:
        await redis.xadd(
            keys.tournament_command_stream(), {"__data__": msgspec.json.encode(command)}
        )
        deadline = time.monotonic() + timeout
        key = keys.tournament_answer_key(command.command_id)
        while (raw := await redis.get(key)) is None:
            if time.monotonic() > deadline:
                raise UserError("no answer from the tournament organiser: is a matchmaker running?")
            await asyncio.sleep(0.05)
    finally:
        await redis.aclose()
    answer = tournament_answer_decoder.decode(raw)
    if not answer.ok:
        raise UserError(f"{answer.code}: {answer.message}")


async def _views(url: str, tournament_id: str | None) -> list[bytes]:
    from orrery.server.cluster import open_redis
    from orrery_contracts import keys

    redis = open_redis(url)
    try:
        if tournament_id is not None:
            raw = await redis.get(keys.tournament_key(tournament_id))
            return [raw] if raw else []
        ids = await redis.zrevrange(keys.tournaments_index(), 0, 99)
        raws = await redis.mget([keys.tournament_key(i.decode()) for i in ids]) if ids else []
        return [r for r in raws if r]
    finally:
        await redis.aclose()


def tournament_create(
    game: Annotated[str, typer.Argument(help="the game")],
    format: Annotated[
        str, typer.Option(help="swiss, round_robin, single_elimination or double_elimination")
    ] = "swiss",
    seats: Annotated[int, typer.Option(min=2, max=5, help="seats a table")] = 2,
    rounds: Annotated[int | None, typer.Option(min=1, help="Swiss rounds")] = None,
    capacity: Annotated[int, typer.Option(min=2, help="players at most")] = 64,
    registration_s: Annotated[
        float | None, typer.Option(help="registration ends this many seconds from now")
    ] = None,
    round_deadline_s: Annotated[float, typer.Option(help="a round's deadline")] = 86_400.0,
    name: Annotated[str, typer.Option(help="its name")] = "",
    redis_url: RedisUrl = None,
) -> None:
    """Create a tournament as the operator (its organiser); prints its id."""
    import msgspec

    from orrery.runtime import server_for
    from orrery_contracts.tournaments import CreateTournament, TournamentSpec

    configure_logging("warning")
    ends = int((time.time() + registration_s) * 1000) if registration_s else None
    try:
        spec = msgspec.convert(
            {
                "game": game,
                "format": format,
                "seats": seats,
                "rounds": rounds,
                "capacity": capacity,
                "registration_ends": ends,
                "round_deadline_s": round_deadline_s,
                "name": name,
            },
            TournamentSpec,
        )
    except msgspec.ValidationError as error:
        raise typer.BadParameter(str(error)) from None
    tournament_id = "tn" + uuid.uuid4().hex[:16]
    command = CreateTournament(
        command_id=uuid.uuid4().hex, tournament_id=tournament_id, organiser="operator", spec=spec
    )
    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        asyncio.run(_ask(url, command))
    print(tournament_id)


def tournament_list(redis_url: RedisUrl = None, as_json: AsJson = False) -> None:
    """The newest tournaments: id, game, format, state, players, round."""
    from orrery.runtime import server_for
    from orrery_contracts.tournaments import tournament_view_decoder

    configure_logging("warning")
    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        raws = asyncio.run(_views(url, None))
    views = [tournament_view_decoder.decode(r) for r in raws]
    if as_json:
        print(json.dumps([json.loads(r) for r in raws], indent=2))
        return
    for v in views:
        print(
            f"{v.tournament_id}  {v.game}  {v.format} ({v.seats} seats)  {v.state}  "
            f"{len(v.players)} players  round {len(v.round_list)}/{v.rounds or '?'}"
        )


def tournament_show(
    tournament_id: Annotated[str, typer.Argument(help="the tournament")],
    redis_url: RedisUrl = None,
) -> None:
    """One tournament as players read it (JSON): players, rounds, tables, standings."""
    from orrery.errors import UserError
    from orrery.runtime import server_for

    configure_logging("warning")
    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        raws = asyncio.run(_views(url, tournament_id))
    if not raws:
        raise UserError("no such tournament")
    print(json.dumps(json.loads(raws[0]), indent=2))


def tournament_pair(
    tournament_id: Annotated[str, typer.Argument(help="the tournament")],
    redis_url: RedisUrl = None,
) -> None:
    """End the current round's unfinished tables now (as at its deadline: their players
    share the rank), so the organiser pairs the next round."""
    from orrery.runtime import server_for
    from orrery_contracts.tournaments import PairNow

    configure_logging("warning")
    command = PairNow(command_id=uuid.uuid4().hex, tournament_id=tournament_id)
    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        asyncio.run(_ask(url, command))
    print("ok")


def tournament_audit(
    tournament_id: Annotated[str, typer.Argument(help="the tournament")],
    redis_url: RedisUrl = None,
    archive_url: Annotated[
        str | None, typer.Option(help="the archive's URL (an archived tournament's log)")
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Recompute the tournament log's hash chain, re-derive every round's pairing from
    the log before it and its recorded seed, and the final standings; exit 1 if any
    differs."""
    from orrery.archiving import archive_url as archive_url_of
    from orrery.matchmaking import audit_tournament
    from orrery.runtime import server_for

    configure_logging("warning")
    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        report = asyncio.run(audit_tournament(url, tournament_id, archive_url_of(archive_url)))
    if as_json:
        print(json.dumps({
            "tournament_id": tournament_id, "ok": report.ok and report.entries > 0,
            "entries": report.entries, "rounds": report.rounds_checked,
            "problems": report.problems,
        }, indent=2))  # fmt: skip
    else:
        print(
            f"{tournament_id}: {report.entries} entries, {report.rounds_checked} rounds re-derived"
        )
        for problem in report.problems:
            print(f"  PROBLEM {problem}")
        print("ok" if report.ok and report.entries else "FAILED")
    raise typer.Exit(0 if report.ok and report.entries else 1)


def tournament_archive(
    older_than_s: Annotated[
        float, typer.Option(help="only tournaments finished at least this long ago")
    ] = 86_400.0,
    redis_url: RedisUrl = None,
    archive_url: Annotated[str | None, typer.Option(help="the archive's URL")] = None,
) -> None:
    """Move finished tournaments' logs to the archive (their tables go there with the
    archiver); their views stay readable and ``audit`` reads the log from the archive."""
    from orrery.archiving import archive_url as archive_url_of
    from orrery.matchmaking import archive_tournaments
    from orrery.runtime import server_for

    configure_logging("warning")
    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        moved = asyncio.run(archive_tournaments(url, archive_url_of(archive_url), older_than_s))
    print(f"{len(moved)} tournaments archived" + (": " + ", ".join(moved) if moved else ""))


def bench_tournament(
    players: Annotated[int, typer.Option(min=8, help="the large field")] = 1000,
    repeats: Annotated[int, typer.Option(min=1, help="pairings timed per field")] = 5,
    dutch_players: Annotated[
        int, typer.Option(min=4, help="the field the FIDE Dutch engine is timed on")
    ] = 64,
    as_json: AsJson = False,
) -> None:
    """One Swiss round of a large field at two and four seats (target <= 1 s each), the
    Dutch engine on a smaller one, and the rating range a table beside random pods."""
    from competitions.settings import OrganiserSettings
    from orrery.bench.tournament import as_dict, render, run_tournament_bench

    figures = run_tournament_bench(
        players, repeats, dutch_players, OrganiserSettings.from_env().dutch_max
    )
    if as_json:
        print(json.dumps(as_dict(figures), indent=2))
    else:
        render(figures)


def season_show(
    game: Annotated[str, typer.Argument(help="the game")],
    number: Annotated[
        int | None, typer.Option(help="a past season's final table, from the archive")
    ] = None,
    redis_url: RedisUrl = None,
    archive_url: Annotated[str | None, typer.Option(help="the archive's URL")] = None,
) -> None:
    """The game's current season (JSON: each player's league), or a past one's final
    table; the past seasons' numbers are in ``past``."""
    import msgspec

    from orrery.archiving import archive_url as archive_url_of
    from orrery.archiving import opened_archive
    from orrery.errors import UserError
    from orrery.runtime import server_for
    from orrery.seasons import current
    from orrery.server.cluster import open_redis

    configure_logging("warning")

    async def read(url: str) -> object:
        if number is not None:
            from archive.seasons import season_table

            async with opened_archive(archive_url_of(archive_url)) as archive:
                return await season_table(archive, game, number)
        redis = open_redis(url)
        try:
            return await current(redis, game)
        finally:
            await redis.aclose()

    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        found = asyncio.run(read(url))
    if found is None:
        raise UserError("no such season")
    print(json.dumps(msgspec.to_builtins(found), indent=2))


def season_rollover(
    game: Annotated[str, typer.Argument(help="the game")],
    force: Annotated[bool, typer.Option(help="end the current season now")] = False,
    redis_url: RedisUrl = None,
    archive_url: Annotated[str | None, typer.Option(help="the archive's URL")] = None,
) -> None:
    """Start the game's first season, or end the current one once it is over (or with
    ``--force``): its final table to the archive, promotion and relegation, the soft
    reset, and the next season. Run it from a scheduler (daily is enough)."""
    from competitions.settings import SeasonSettings
    from orrery.archiving import archive_url as archive_url_of
    from orrery.archiving import opened_archive
    from orrery.runtime import server_for
    from orrery.seasons import roll
    from orrery.server.cluster import open_redis

    configure_logging("warning")

    async def run(url: str) -> str:
        redis = open_redis(url)
        try:
            async with opened_archive(archive_url_of(archive_url)) as archive:
                ended, season = await roll(redis, archive, game, force, SeasonSettings.from_env())
        finally:
            await redis.aclose()
        moves = (
            ", ".join(
                f"{sum(r.move == m for r in ended.rows)} {m}"
                for m in ("promoted", "relegated", "stayed")
            )
            if ended
            else "none ended"
        )
        return f"{game}: season {season.number}, {len(season.players)} players ({moves})"

    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        print(asyncio.run(run(url)))
