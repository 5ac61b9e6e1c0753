"""The ``orrery`` command line (docs/cli.md)."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from orrery.arguments import check_bot_level, check_game, check_players, parse_options
from orrery.config import DATA_DIR, command_url, redis_url_from_env
from orrery.errors import UserError
from orrery.logs import configure_logging
from orrery.settings import DEFAULT_PROJECTOR_NICE, PROJECTOR_NICE_ENV


def _flags_without_metavar() -> None:
    """typer 0.29's help shows ``<bool>`` beside every flag (``--json <bool>``), as if it
    took a value: show flags bare."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich

    def display(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    TyperOption.display_type_rich = display  # type: ignore[method-assign]


_flags_without_metavar()

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Orrery game service.",
    # user errors are one line (main); anything else is a bug and keeps its traceback
    pretty_exceptions_enable=False,
)
projections_app = typer.Typer(no_args_is_help=True, help="Read models.")
app.add_typer(projections_app, name="projections")
bench_app = typer.Typer(
    help="Benchmarks: printed tables, figures as ratios to a baseline run alongside."
)
app.add_typer(bench_app, name="bench")

# Command groups that live in modules of their own; each has register(app, bench_app).
EXTENSIONS = (
    "orrery.cli.bench",
    "orrery.cli.audit",
    "orrery.cli.play",
    "orrery.cli.ops",
    "orrery.cli.gateway",
    "orrery.cli.archive",
    "orrery.cli.accounts",
    "orrery.cli.chat",
    "orrery.cli.matchmaking",
    "orrery.cli.reports",
    "orrery.cli.notifier",
    "orrery.cli.tournament",
)

RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url", help="Redis/Valkey URL (default: $ORRERY_REDIS_URL, else embedded)"
    ),
]
DataDir = Annotated[Path, typer.Option("--data-dir", help="embedded server's data folder")]
Partitions = Annotated[
    int | None,
    typer.Option(
        "--partitions",
        envvar="ORRERY_PARTITIONS",
        help="partition count P (fixed at first use; default $ORRERY_PARTITIONS, else 16)",
    ),
]
WaitAof = Annotated[
    int | None,
    typer.Option(
        "--wait-aof",
        help="confirm the AOF fsync (WAITAOF, ms timeout) before 'accepted' "
        "(default: $ORRERY_WAIT_AOF_MS, else off)",
    ),
]
WaitReplicas = Annotated[
    int | None,
    typer.Option(
        "--wait-replicas",
        help="confirm that N replicas received the append (WAIT) before 'accepted' "
        "(default: $ORRERY_WAIT_REPLICAS, else off)",
    ),
]
MetricsPort = Annotated[
    int | None,
    typer.Option(
        "--metrics-port", help="serve Prometheus /metrics here (serve: child i on port + i)"
    ),
]
# Where a projector shares CPUs with deciders (one host, one pod), the command path goes
# first: outcomes wait for the decider, while a projection that waits a moment folds
# more of the log into one batch. Alone on its CPUs, the setting changes nothing.
ProjectorNice = Annotated[
    int,
    typer.Option(
        "--nice",
        min=0,
        max=19,
        envvar=PROJECTOR_NICE_ENV,
        help="CPU priority below the deciders' (a nice increment, 0: the same)",
    ),
]


def _process_env(
    wait_aof: int | None, metrics_port: int | None, wait_replicas: int | None = None
) -> None:
    """Settings the worker/projector processes (and their children) read at start."""
    if wait_aof is not None:
        os.environ["ORRERY_WAIT_AOF_MS"] = str(wait_aof)
    if wait_replicas is not None:
        os.environ["ORRERY_WAIT_REPLICAS"] = str(wait_replicas)
    if metrics_port is not None:
        os.environ["ORRERY_METRICS_PORT"] = str(metrics_port)


def _data(data_dir: Path) -> Path:
    return data_dir / "data"


@app.command()
def serve(
    redis_url: RedisUrl = None,
    port: Annotated[int | None, typer.Option(help="embedded server port (default: free)")] = None,
    workers: Annotated[int, typer.Option(help="decider worker processes")] = 1,
    projectors: Annotated[int, typer.Option(help="projector processes")] = 1,
    timekeepers: Annotated[
        int, typer.Option(help="timekeeper processes (clock expiries, lobby closes)")
    ] = 1,
    partitions: Partitions = None,
    data_dir: DataDir = Path(DATA_DIR),
    appendfsync: Annotated[
        str, typer.Option(help="embedded server: always | everysec | no")
    ] = "everysec",
    wait_aof: WaitAof = None,
    wait_replicas: WaitReplicas = None,
    metrics_port: MetricsPort = None,
    http_port: Annotated[
        int, typer.Option("--http-port", help="gateway port (default: a free one)")
    ] = 0,
    no_gateway: Annotated[
        bool, typer.Option("--no-gateway", help="no HTTP gateway and no bot runner")
    ] = False,
    archive_url: Annotated[
        str | None,
        typer.Option(
            "--archive-url",
            help="where finished tables go: sqlite:///PATH or postgresql://… (default: "
            "$ORRERY_ARCHIVE_URL, else <data-dir>/data/archive.sqlite3)",
        ),
    ] = None,
    archivers: Annotated[
        int, typer.Option(help="archiver processes (finished tables to the archive)")
    ] = 1,
    matchmakers: Annotated[
        int, typer.Option(help="matchmaker processes (queued tickets to started tables)")
    ] = 1,
    notifiers: Annotated[
        int, typer.Option(help='notifier processes (Web Push and e-mail: "your turn")')
    ] = 1,
    gateways: Annotated[
        int | None,
        typer.Option(
            "--gateways",
            min=1,
            help="gateway processes sharing the HTTP port (default: one per core)",
        ),
    ] = None,
) -> None:
    """Run deciders, claimers, projectors, archivers, matchmakers, the gateways, the bot
    runner and notifiers until SIGINT/SIGTERM; first line: the Redis URL, second: the
    gateway's URL."""
    from archive import ARCHIVE_URL_ENV
    from gateway.server import raise_open_files
    from orrery.archiving import archive_url as chosen_archive
    from orrery.arguments import check_port
    from orrery.notifying import share_vapid_key
    from orrery.runtime import (
        default_gateways,
        gateway_pool,
        notifier_processes,
        server_for,
        service,
        share_secret_key,
    )
    from orrery.server.credentials import role_urls, shown_url

    if not no_gateway:  # before anything starts: one line naming the port and the fix
        check_port(http_port, "--http-port")
    configure_logging()
    raise_open_files()  # the gateways (and the embedded server) inherit it
    _process_env(wait_aof, metrics_port, wait_replicas)
    share_secret_key(_data(data_dir))  # workers, gateway and bots: one server key
    share_vapid_key(_data(data_dir))  # notifiers: one Web Push key
    # every child reads and writes the same archive
    os.environ[ARCHIVE_URL_ENV] = chosen_archive(archive_url, data_dir)

    async def run(url: str) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        # The URL once SIGTERM stops the service gracefully (a caller may send it as
        # soon as it has read the URL); the password stays in the folder (docs/cli.md).
        print(shown_url(url), flush=True)
        # each role as its own user on the folder's server (orrery/server/credentials.py)
        roles = role_urls(url, _data(data_dir))
        async with service(
            url, workers, projectors, partitions, timekeepers, archivers, roles, matchmakers
        ) as processes:
            base = None
            pool = None
            if not no_gateway:
                count = gateways or default_gateways()
                pool, bots = await gateway_pool(url, http_port, role_urls=roles, gateways=count)
                base = pool.base
                print(base, flush=True)
            # after the gateway: the links they send start with its URL
            processes.extend(notifier_processes(url, notifiers, base, roles))
            if pool is None:
                await stop.wait()
                return
            keeping = asyncio.create_task(pool.keep_up())
            try:
                await stop.wait()
            finally:
                keeping.cancel()
                processes.extend([*pool.processes, bots])  # stopped with the service

    with server_for(redis_url_from_env(redis_url), _data(data_dir), port, appendfsync) as url:
        asyncio.run(run(url))


@app.command()
def worker(
    redis_url: RedisUrl = None,
    partitions: Partitions = None,
    consumer: Annotated[str | None, typer.Option(help="consumer name (default: host-pid)")] = None,
    wait_aof: WaitAof = None,
    wait_replicas: WaitReplicas = None,
    metrics_port: MetricsPort = None,
) -> None:
    """Run one decider worker process (command intake + claimer) against a server."""
    _process_env(wait_aof, metrics_port, wait_replicas)
    _run_role("worker", redis_url, partitions, consumer)


@app.command()
def projector(
    redis_url: RedisUrl = None,
    partitions: Partitions = None,
    consumer: Annotated[str | None, typer.Option(help="consumer name (default: host-pid)")] = None,
    metrics_port: MetricsPort = None,
    nice: ProjectorNice = DEFAULT_PROJECTOR_NICE,
) -> None:
    """Run one projector process (views + scoreboard) against a server."""
    _process_env(None, metrics_port)
    if nice and hasattr(os, "nice"):
        os.nice(nice)  # (before any thread starts: the threads inherit it)
    _run_role("projector", redis_url, partitions, consumer)


@app.command()
def timekeeper(redis_url: RedisUrl = None, partitions: Partitions = None) -> None:
    """Run one timekeeper: sends table.expire / table.close when deadlines pass (safe to
    run several)."""
    from orrery.timekeeper import run_timekeeper

    configure_logging()
    url = command_url(redis_url, _data(Path(DATA_DIR)))
    if not url:
        raise typer.BadParameter("a timekeeper needs --redis-url or ORRERY_REDIS_URL")
    asyncio.run(run_timekeeper(url, partitions))


def _run_role(
    role: str, redis_url: str | None, partitions: int | None, consumer: str | None
) -> None:
    from archive import ARCHIVE_URL_ENV
    from gateway.gc_tuning import tune_gc
    from orrery.archiving import archive_url
    from orrery.runtime import run_role, server_for

    configure_logging()
    tune_gc()  # (its live tables' objects: rarer full collections, gateway/gc_tuning.py)
    # a projector's ratings recompute reads archived finishes (projections/scoreboard.py)
    os.environ.setdefault(ARCHIVE_URL_ENV, archive_url(None, Path(DATA_DIR)))
    # without a URL: the data folder's server (the running `orrery serve`, or its own)
    with server_for(redis_url_from_env(redis_url), _data(Path(DATA_DIR))) as url:
        asyncio.run(run_role(role, url, partitions, consumer))


def _game_names(game: str | None) -> list[str]:
    from games.registry import BUILTIN, all_games

    available = all_games()
    if game:
        return [check_game(game, list(available))]
    return [name for name in available if name in BUILTIN] or list(available)


def _players_for(game: str, players: int | None) -> int:
    from games.registry import get_game

    g = get_game(game)
    if g is None:
        raise UserError(f"unknown game {game!r}")
    wanted = players if players is not None else 3
    check_players(game, players, g.min_seats, g.max_seats)
    return min(max(wanted, g.min_seats), g.max_seats)


OptionsArg = Annotated[
    list[str] | None,
    typer.Option(
        "--options",
        metavar="KEY=VALUE|JSON",
        help="game options: key=value (repeatable) or a JSON object, e.g. difficulty=hard",
    ),
]


@app.command()
def demo(
    redis_url: RedisUrl = None,
    game: Annotated[str | None, typer.Option(help="only this game")] = None,
    players: Annotated[int | None, typer.Option(help="seats per table")] = None,
    seed: Annotated[int | None, typer.Option(help="seed of the bots' choices")] = None,
    games: Annotated[int, typer.Option("--games", help="tables per game")] = 1,
    options: OptionsArg = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
    data_dir: DataDir = Path(DATA_DIR),
    workers: Annotated[int, typer.Option(help="decider worker processes")] = 1,
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            metavar="LEVEL",
            help="the bots' level: random, greedy (one move ahead) or ismcts (a search)",
        ),
    ] = "random",
) -> None:
    """Bots play complete games of every game (or --game) through the real service."""
    from orrery.demo import PlayedTable, play_table
    from orrery.runtime import server_for, service
    from orrery.server.credentials import role_urls

    configure_logging("warning")
    # The worker and projector processes inherit this: the board, not their logs.
    os.environ.setdefault("ORRERY_LOG_LEVEL", "warning")
    names = _game_names(game)
    plan = [(name, _players_for(name, players)) for name in names for _ in range(games)]
    game_options = parse_options(options or [])
    level = check_bot_level(bots)
    rng = random.Random(seed)

    async def run(url: str) -> list[PlayedTable]:
        from orrery_client.sdk import OrreryClient

        roles = role_urls(url, _data(data_dir))
        async with service(url, workers, 1, role_urls=roles), OrreryClient(url) as client:
            tables = [PlayedTable(game=name, table_id="", seats=[]) for name, _ in plan]
            tasks = [
                play_table(
                    client,
                    name,
                    n,
                    random.Random(rng.getrandbits(64)),
                    tables[i],
                    game_options,
                    level,
                )
                for i, (name, n) in enumerate(plan)
            ]
            if as_json:
                return list(await asyncio.gather(*tasks))
            return await _with_live_board(client, tables, tasks)

    with server_for(redis_url_from_env(redis_url), _data(data_dir)) as url:
        started = time.monotonic()
        played = asyncio.run(run(url))
    if as_json:
        print(json.dumps({"tables": [_table_json(t) for t in played]}, indent=2))
    else:
        _print_final(played, time.monotonic() - started)


def _table_json(table: Any) -> dict[str, Any]:
    return {
        "game": table.game,
        "table_id": table.table_id,
        "seats": table.seats,
        "ais": table.ais,
        "scores": table.points,
        "ranks": table.ranks,
        "events": table.seq,
    }


async def _with_live_board(client: Any, tables: list[Any], tasks: list[Any]) -> list[Any]:
    from rich.live import Live

    async def refresh(live: Live) -> None:
        while True:
            for table in tables:  # progress: the seq each running table has reached
                if table.table_id and not table.done:
                    view = await client.view(table.table_id)
                    table.seq = view["seq"] if view else table.seq
            live.update(demo_board(tables))
            await asyncio.sleep(0.25)

    with Live(demo_board(tables), refresh_per_second=4, transient=False) as live:
        ticker = asyncio.create_task(refresh(live))
        try:
            done = await asyncio.gather(*tasks)
        finally:
            ticker.cancel()
        live.update(demo_board(tables))
    return list(done)


def demo_board(tables: list[Any]) -> Any:
    """The demo's board, live while the bots play and left on screen as the summary.

    Table ids stay whole on one line (they are what ``orrery replay``/``audit`` take, and
    each starts with its game's name, so no game column); only the players' cell wraps,
    between players, which keeps the board readable at 80 columns."""
    from rich import box
    from rich.table import Table

    board = Table(title="Orrery demo", box=box.SIMPLE_HEAD)
    board.add_column("table", no_wrap=True)
    board.add_column("state", no_wrap=True)
    board.add_column("events", justify="right", no_wrap=True)
    board.add_column("players: points, rank")
    for t in tables:
        board.add_row(
            t.table_id or f"{t.game}-…",
            "finished" if t.done else "playing",
            str(t.seq),
            _players_cell(t),
        )
    return board


def _players_cell(table: Any) -> str:
    seats = list(table.seats)
    if table.done and len(table.points) == len(seats) == len(table.ranks):
        seats = [
            f"{name} {points} #{rank}"
            for name, points, rank in zip(seats, table.points, table.ranks, strict=True)
        ]
    ais = [f"{ai} (AI)" for ai in table.ais]
    if table.done and len(table.ai_points) == len(ais) == len(table.ai_ranks):
        ais = [
            f"{ai} {points} #{rank}"
            for ai, points, rank in zip(ais, table.ai_points, table.ai_ranks, strict=True)
        ]
    return ", ".join([*seats, *ais])


def _print_final(tables: list[Any], seconds: float) -> None:
    from rich.console import Console

    console = Console()
    console.print(f"\n{len(tables)} tables finished in {seconds:.1f}s")
    for t in tables:
        winners = [s for s, r in zip(t.seats, t.ranks, strict=True) if r == 1]
        winners += [a for a, r in zip(t.ais, t.ai_ranks, strict=False) if r == 1]
        against = f" (against {', '.join(t.ais)})" if t.ais else ""
        console.print(
            f"{t.game} {t.table_id}{against}: winner {', '.join(winners) or 'an AI'}; "
            f"points {t.points}"
        )


@app.command()
def leaderboard(
    game: Annotated[str, typer.Argument(help="the game")],
    limit: Annotated[int, typer.Option(help="how many players")] = 20,
    redis_url: RedisUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """The game's rated players (verified players of the gateway), best first."""
    from games.registry import all_games
    from gateway.accounts import Accounts
    from orrery.runtime import server_for
    from orrery.server.cluster import open_redis
    from orrery_contracts.lobby import bot_level_of
    from projections.scoreboard import leaderboard as top_players

    configure_logging("warning")
    game = check_game(game, list(all_games()))

    async def run(url: str) -> list[dict[str, Any]]:
        redis = open_redis(url)
        try:
            lines = await top_players(redis, game, limit)
            names = await Accounts(redis).names_of([line.player for line in lines])
        finally:
            await redis.aclose()
        entries = []
        for i, line in enumerate(lines):
            # a bot of a level is rated like a player (``bot:<level>``): "Bot (<level>)"
            level = bot_level_of(line.player)
            name = f"Bot ({level})" if level else names.get(line.player, "")
            entries.append(
                {"rank": i + 1, "player_id": line.player, "name": name,
                 "rating": line.rating, "games": line.games, "bot": level is not None}
            )  # fmt: skip
        return entries

    with server_for(redis_url_from_env(redis_url), _data(data_dir)) as url:
        entries = asyncio.run(run(url))
    if as_json:
        print(json.dumps({"game": game, "entries": entries}, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    board = Table(title=f"{game} leaderboard")
    for column in ("rank", "player", "rating", "games"):
        board.add_column(column)
    for entry in entries:
        board.add_row(
            str(entry["rank"]), entry["name"] or entry["player_id"], f"{entry['rating']:.1f}",
            str(entry["games"]),
        )  # fmt: skip
    Console().print(board if entries else f"nobody is rated at {game} yet")


@app.command()
def schema(
    out: Annotated[Path, typer.Option("--out", help="folder for the JSON Schema files")],
) -> None:
    """Write JSON Schema for every envelope, command, event and view."""
    from orrery.schemas import write_schemas

    for path in write_schemas(out):
        print(path)


@projections_app.command("rebuild")
def projections_rebuild(redis_url: RedisUrl = None, data_dir: DataDir = Path(DATA_DIR)) -> None:
    """Delete and rebuild every read model from the logs (archived tables are left alone;
    the ratings count them, from the archive)."""
    import redis.asyncio as aioredis

    from orrery.archiving import archive_url, opened_archive
    from orrery.config import ensure_partitions
    from orrery.runtime import server_for
    from projections.rebuild import rebuild

    configure_logging("warning")

    async def run(url: str) -> int:
        redis = aioredis.Redis.from_url(url)
        try:
            async with opened_archive(archive_url(None, data_dir)) as archive:
                return await rebuild(redis, await ensure_partitions(redis), archive)
        finally:
            await redis.aclose()

    with server_for(redis_url_from_env(redis_url), _data(data_dir)) as url:
        print(f"rebuilt the read models of {asyncio.run(run(url))} tables")


def _register_extensions() -> None:
    for name in EXTENSIONS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name == name:
                continue
            raise
        module.register(app, bench_app)


_register_extensions()


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main() -> None:
    # SIGTERM before a command installs its own handler (a service still starting, a
    # one-shot command) unwinds like Ctrl-C instead of killing the process at once, so
    # the ``with`` blocks that started an embedded server stop it again.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except UserError as error:
        # a problem the user can fix: one line, no traceback
        print(f"orrery: {error}", file=sys.stderr)
        sys.exit(error.exit_code)


if __name__ == "__main__":
    main()
