"""The matchmaker's commands: ``orrery matchmaker`` (the process) and ``orrery matchmaking
audit GAME`` (every decision of the game's matchmaking log re-derived)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer

from orrery.config import DATA_DIR, redis_url_from_env
from orrery.logs import configure_logging

RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url", help="Redis/Valkey URL (default: $ORRERY_REDIS_URL, else embedded)"
    ),
]


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command()(matchmaker)
    matchmaking_app = typer.Typer(no_args_is_help=True, help="The matchmaker's log.")
    app.add_typer(matchmaking_app, name="matchmaking")
    matchmaking_app.command("audit")(matchmaking_audit)
    bench_app.command("matchmaking")(bench_matchmaking)


def matchmaker(redis_url: RedisUrl = None) -> None:
    """Run one matchmaker: owns game queues by lease, matches tickets, makes and starts
    their tables. Any number may run side by side."""
    from orrery.matchmaking import run_matchmaker
    from orrery.runtime import server_for

    configure_logging()
    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        asyncio.run(run_matchmaker(url))


def matchmaking_audit(
    game: Annotated[str, typer.Argument(help="the game whose queue to audit")],
    redis_url: RedisUrl = None,
    offline_s: Annotated[
        float | None,
        typer.Option(
            help="the offline window for expiries that do not record theirs (default: as now)"
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Recompute the game's matchmaking log's hash chain and re-derive every decision
    (each matcher pass, each expiry) from the log and its recorded clock; exit 1 if any
    differs."""
    from games.registry import all_games
    from orrery.arguments import check_game
    from orrery.matchmaking import audit_queue
    from orrery.runtime import server_for

    configure_logging("warning")
    game = check_game(game, list(all_games()))
    with server_for(redis_url_from_env(redis_url), Path(DATA_DIR) / "data") as url:
        report = asyncio.run(audit_queue(url, game, offline_s))
    if as_json:
        print(json.dumps({
            "game": game, "ok": report.ok, "entries": report.entries,
            "passes": report.passes, "matches": report.matches, "expired": report.expired,
            "pending": report.pending, "problems": report.problems,
        }, indent=2))  # fmt: skip
    else:
        print(
            f"{game}: {report.entries} entries, {report.passes} matcher passes, "
            f"{report.matches} matches, {report.expired} expiries re-derived"
        )
        for problem in report.problems:
            print(f"  PROBLEM {problem}")
        print("ok" if report.ok else "FAILED")
    raise typer.Exit(0 if report.ok else 1)


def bench_matchmaking(
    tickets: Annotated[
        int, typer.Option(min=10, help="waiting tickets in the full queue")
    ] = 10_000,
    cycles: Annotated[int, typer.Option(min=1, help="passes timed over the full queue")] = 20,
    rate: Annotated[float, typer.Option(min=0.1, help="arrivals a second (simulated)")] = 5.0,
    seconds: Annotated[int, typer.Option(min=1, help="simulated seconds of arrivals")] = 900,
    seed: Annotated[int, typer.Option(help="seed of the pool and the arrivals")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
) -> None:
    """The matcher on a ladder-shaped pool beside a random pairing of it: a pass's time,
    two-seat spread, time to match under arrivals, seats bots took; with targets."""
    from orrery.bench.matchmaking import as_dict, render, run_matchmaking_bench

    figures = run_matchmaking_bench(tickets, cycles, rate, seconds, seed)
    if as_json:
        print(json.dumps(as_dict(figures), indent=2))
    else:
        render(figures)
