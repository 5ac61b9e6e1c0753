"""The ``orrery bench`` commands (see docs/benchmarks.md).

* ``orrery bench`` — the whole service under load against a Redis-only baseline
  measured in the same run (:mod:`orrery.bench.service`);
* ``orrery bench rules`` — the games' pure rules on one core (:mod:`orrery.bench.rules`);
* ``orrery bench replay`` — loading, auditing and replaying a table's log
  (:mod:`orrery.bench.replay`);
* ``orrery bench bots`` — the bot levels head to head, and their time per move
  (:mod:`orrery.bench.bots`).

(``bench scale``, ``bench gateway`` and ``bench archive`` are registered with their
command groups: orrery/cli/ops.py, gateway.py, archive.py.)

Figures are printed next to their targets; nothing here asserts a target. The heavy
modules are imported only when a command runs, so the CLI starts fast.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

SERVICE_GAMES = ("fractured_sky", "spacecraft", "federation", "mix")


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    del app
    bench_app.callback(invoke_without_command=True)(bench)
    bench_app.command("rules")(rules)
    bench_app.command("replay")(replay)
    bench_app.command("bots")(bots)


def bench(
    ctx: typer.Context,
    tables: Annotated[int, typer.Option("--tables", min=1, help="concurrent tables")] = 16,
    seconds: Annotated[
        float, typer.Option("--seconds", min=0.1, help="measured seconds per phase (3 phases)")
    ] = 8.0,
    rounds: Annotated[
        int,
        typer.Option(
            "--rounds", min=1, help="windows the baseline and the service phase take turns in"
        ),
    ] = 3,
    game: Annotated[
        str, typer.Option("--game", help="fractured_sky, spacecraft, federation or mix")
    ] = "fractured_sky",
    seats: Annotated[
        int,
        typer.Option("--players", "--seats", min=1, help="players per table (clamped to the game)"),
    ] = 4,
    workers: Annotated[int, typer.Option("--workers", min=1, help="decider processes")] = 1,
    projectors: Annotated[int, typer.Option("--projectors", min=1, help="projectors")] = 1,
    redis_url: Annotated[
        str | None,
        typer.Option("--redis-url", help="Redis/Valkey URL (default: a temporary embedded one)"),
    ] = None,
    baseline_db: Annotated[
        int | None,
        typer.Option("--baseline-db", help="empty logical db for the baseline (default: db+1)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Service throughput and latency vs. a Redis-only baseline (subcommands: see below)."""
    if ctx.invoked_subcommand is not None:
        return
    from orrery.bench.service import BenchConfig, BenchError, render, run_bench

    if game not in SERVICE_GAMES:
        raise typer.BadParameter(f"--game must be one of {', '.join(SERVICE_GAMES)}")
    config = BenchConfig(
        tables=tables,
        seconds=seconds,
        rounds=rounds,
        game=game,
        seats=seats,
        workers=workers,
        projectors=projectors,
        redis_url=redis_url,
        baseline_db=baseline_db,
    )
    try:
        result = run_bench(config)
    except BenchError as error:
        typer.echo(f"orrery bench: {error}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(result, indent=2) if as_json else render(result))


def rules(
    game: Annotated[
        str | None, typer.Option("--game", help="one game (default: all three)")
    ] = None,
    seconds: Annotated[
        float, typer.Option("--seconds", min=0.0, help="time budget per game (at least 1 game)")
    ] = 3.0,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Pure-rules speed on one core: decide+evolve commands/s, random games/s, view µs."""
    from games.registry import BUILTIN
    from orrery.bench.rules import measure_game, render

    names = [game] if game else list(BUILTIN)
    for name in names:
        if name not in BUILTIN:
            raise typer.BadParameter(f"--game must be one of {', '.join(BUILTIN)}")
    figures = [measure_game(name, seconds) for name in names]
    if as_json:
        typer.echo(json.dumps([f.as_dict() for f in figures], indent=2))
    else:
        typer.echo(render(figures))


def replay(
    events: Annotated[
        int,
        typer.Option(
            min=1, help="events in the loaded table (cut at a command's end at or before)"
        ),
    ] = 1_000,
    repeat: Annotated[int, typer.Option(help="runs per measure (the best counts)")] = 20,
    seed: Annotated[int, typer.Option(help="seed of the generated table")] = 3,
) -> None:
    """Events/s to load (decode + fold) and to audit a table, against raw msgpack decoding."""
    from orrery.bench.replay import measure_replay, print_replay

    print_replay(measure_replay(events, repeat, seed), repeat)


def bots(
    game: Annotated[
        str | None, typer.Option("--game", help="one game (default: all three)")
    ] = None,
    games: Annotated[int, typer.Option("--games", min=1, help="games per matchup and game")] = 20,
    budget_ms: Annotated[
        float, typer.Option("--budget-ms", min=1.0, help="ismcts time per move")
    ] = 500.0,
    max_iterations: Annotated[
        int, typer.Option("--max-iterations", min=1, help="ismcts iterations per move at most")
    ] = 20_000,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="another seed plays other deals and bot rngs")
    ] = 0,
    chosen: Annotated[
        str,
        typer.Option(
            "--matchups",
            help="comma-separated: greedy-random, greedy-random-3 (-4, -5), ismcts-greedy",
        ),
    ] = "greedy-random,greedy-random-3,ismcts-greedy",
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Bot levels head to head (win rates, 95 % intervals) and time per move, random as baseline."""
    from games.registry import BUILTIN
    from orrery.bench.bots import matchups, render, run

    names = [game] if game else list(BUILTIN)
    for name in names:
        if name not in BUILTIN:
            raise typer.BadParameter(f"--game must be one of {', '.join(BUILTIN)}")
    try:
        picked = matchups([k.strip() for k in chosen.split(",") if k.strip()])
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--matchups") from None
    if not picked:
        raise typer.BadParameter("name at least one matchup", param_hint="--matchups")
    doc = run(names, games, budget_ms / 1000, max_iterations, seed, picked)
    typer.echo(json.dumps(doc, indent=2) if as_json else render(doc))
