"""The operations commands: ``orrery cluster up|down|drill``, ``orrery status``,
``orrery repair``, ``orrery trim`` and ``orrery bench scale`` (docs/scaling.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import structlog
import typer
from redis.exceptions import RedisError

from orrery.archiving import archive_url as archive_url_for
from orrery.bench.scale import GAMES_PER_TABLE, TARGETS, cluster_ratios, print_scale, run_scale
from orrery.config import DATA_DIR, command_url
from orrery.errors import UserError
from orrery.logs import configure_logging
from orrery.ops.drill import register as register_drill
from orrery.ops.maintenance import repair_groups, trim_streams
from orrery.ops.status import collect_status, print_status
from orrery.server.cluster import (
    STATE_DIR,
    LocalCluster,
)

log = structlog.get_logger("orrery.cli")


RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url",
        help="Redis/Valkey URL or cluster node list (default: $ORRERY_REDIS_URL, else the "
        "local cluster, else the data folder's embedded server)",
    ),
]
DataDirOption = Annotated[
    Path, typer.Option("--data-dir", help="embedded server's data folder (without a URL)")
]


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Wire the commands into the CLI (their order is the order ``--help`` lists them)."""
    cluster_app = typer.Typer(no_args_is_help=True, help="A local cluster on loopback ports.")
    app.add_typer(cluster_app, name="cluster")
    cluster_app.command("up")(cluster_up)
    cluster_app.command("down")(cluster_down)
    register_drill(cluster_app)
    app.command()(status)
    app.command()(repair)
    app.command()(trim)
    bench_app.command("scale")(bench_scale)


# --------------------------------------------------------------------------- cluster


def cluster_up(
    nodes: Annotated[int, typer.Option(help="master nodes (at least 3)")] = 3,
    replicas: Annotated[int, typer.Option(help="replicas per master (0 or 1)")] = 0,
    appendfsync: Annotated[str, typer.Option(help="always | everysec | no")] = "everysec",
    node_timeout_ms: Annotated[
        int, typer.Option(help="cluster-node-timeout: how long before a replica takes over")
    ] = 3000,
    state_dir: Annotated[Path, typer.Option(help="state and data folder")] = STATE_DIR,
) -> None:
    """Start a Valkey cluster from the embedded binary; prints its URL."""
    existing = LocalCluster.load(state_dir)
    if existing is not None and existing.running():
        print(existing.url)
        return
    if nodes < 3:
        raise UserError(f"a cluster needs at least 3 masters, not {nodes}: use --nodes 3")
    if replicas not in (0, 1):
        raise UserError(f"--replicas is 0 or 1, not {replicas}")
    cluster = LocalCluster(
        state_dir,
        masters=nodes,
        replicas=replicas,
        appendfsync=appendfsync,
        node_timeout_ms=node_timeout_ms,
    ).start()
    print(cluster.url, flush=True)


def cluster_down(
    state_dir: Annotated[Path, typer.Option(help="state and data folder")] = STATE_DIR,
    keep_data: Annotated[bool, typer.Option(help="keep the nodes' data folders")] = False,
) -> None:
    """Stop the local cluster started by `orrery cluster up` (and delete its data)."""
    import shutil

    cluster = LocalCluster.load(state_dir)
    if cluster is None:
        print("no local cluster is running")
        raise typer.Exit(1)
    cluster.stop()
    if not keep_data:
        for port in cluster.ports:
            shutil.rmtree(state_dir / str(port), ignore_errors=True)
    print(f"stopped {len(cluster.ports)} nodes")


# --------------------------------------------------------------------------- status, repair, trim


def status(
    redis_url: RedisUrl = None,
    data_dir: DataDirOption = Path(DATA_DIR),
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
    quiet: Annotated[bool, typer.Option(help="no output; exit status only")] = False,
    tables: Annotated[bool, typer.Option(help="count live/finished tables")] = True,
    archive_url: Annotated[
        str | None,
        typer.Option(
            "--archive-url",
            help="the archive (default: $ORRERY_ARCHIVE_URL, else the data folder's)",
        ),
    ] = None,
) -> None:
    """Per partition: backlog, pending/lag per group, dead letters, tables.

    Exits 1 when a consumer group is missing (run `orrery repair`), 2 when the server
    cannot be reached or was never initialised (usable as a readiness probe)."""
    configure_logging("warning")
    with command_server(redis_url, data_dir) as url:
        try:
            result = asyncio.run(
                collect_status(
                    url, tables=tables, archive_url=archive_url_for(archive_url, data_dir)
                )
            )
        except (RedisError, OSError) as error:
            if not quiet:
                print(f"cannot read {url}: {error}", file=sys.stderr)
            raise typer.Exit(2) from error
    if not quiet:
        if as_json:
            doc = asdict(result) | {"ok": result.ok, "missing": len(result.missing)}
            print(json.dumps(doc, indent=2, default=str))
        else:
            print_status(result)
    if result.partitions == 0:
        raise typer.Exit(2)
    if not result.ok:
        raise typer.Exit(1)


def repair(
    redis_url: RedisUrl = None,
    data_dir: DataDirOption = Path(DATA_DIR),
    partitions: Annotated[
        int | None, typer.Option(help="P for new data (default 16); must match stored P")
    ] = None,
) -> None:
    """Recreate missing consumer groups so processing resumes (deciders at 0,
    projections where they stand); on new data, record P and create every group (a
    deployment's init step)."""
    configure_logging("warning")
    with command_server(redis_url, data_dir) as url:
        created = asyncio.run(repair_groups(url, partitions))
    for name in created:
        print(f"created {name}")
    print(f"{len(created)} group(s) recreated" if created else "nothing to repair")


def trim(redis_url: RedisUrl = None, data_dir: DataDirOption = Path(DATA_DIR)) -> None:
    """Trim command streams and feeds to what a consumer group still needs (pending or
    undelivered entries stay). Logs are never trimmed. Safe to run from cron."""
    configure_logging("warning")
    with command_server(redis_url, data_dir) as url:
        removed = asyncio.run(trim_streams(url))
    for stream, count in removed.items():
        print(f"{stream}: {count} entries removed")
    print(f"{sum(removed.values())} entries removed")


# --------------------------------------------------------------------------- bench scale


def bench_scale(
    tables: Annotated[
        int, typer.Option(help="tables played at once per run (x20 in the burst)")
    ] = 12,
    games: Annotated[
        int, typer.Option(min=1, help="complete games each of those tables plays in turn")
    ] = GAMES_PER_TABLE,
    game: Annotated[str, typer.Option(help="game the bots play")] = "spacecraft",
    seed: Annotated[int, typer.Option(help="seed of the bots")] = 1,
    runs: Annotated[
        int, typer.Option(min=1, help="repeat the whole comparison this many times")
    ] = 1,
    workers: Annotated[
        list[int] | None, typer.Option(help="worker counts (repeatable; default 1 and 2)")
    ] = None,
    target: Annotated[
        list[str] | None,
        typer.Option(help="standalone and/or cluster-3 (repeatable; default both)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
    data_dir: Annotated[Path, typer.Option(help="scratch folder")] = Path(DATA_DIR) / "bench",
) -> None:
    """Commands/s with 1 and 2 workers, standalone and 3-node local cluster, vs a raw
    transport baseline measured in the same run; per run the cluster ÷ standalone
    ratio and the error lines the processes logged."""
    configure_logging("error")
    targets = tuple(target or TARGETS)
    unknown = sorted(set(targets) - set(TARGETS))
    if unknown:
        raise UserError(f"--target is one of {', '.join(TARGETS)}, not {unknown[0]!r}")
    figures = run_scale(
        data_dir,
        tables=tables,
        game=game,
        seed=seed,
        runs=runs,
        workers=tuple(workers or (1, 2)),
        targets=targets,
        games=games,
    )
    if as_json:
        ratios = [asdict(r) for r in cluster_ratios(figures)]
        print(json.dumps({"runs": [asdict(f) for f in figures], "ratios": ratios}, indent=2))
    else:
        print_scale(figures)


# --------------------------------------------------------------------------- which server


@contextlib.contextmanager
def command_server(redis_url: str | None, data_dir: Path) -> Iterator[str]:
    """The server a command works on: ``--redis-url`` (or ``$ORRERY_REDIS_URL``), else the
    local cluster of ``orrery cluster up``, else the data folder's embedded server (the
    running one, or one started for this command)."""
    url = command_url(redis_url, data_dir / "data")
    if url:
        yield url
        return
    cluster = LocalCluster.load(STATE_DIR)
    if cluster is not None and cluster.running():
        yield cluster.url
        return
    from orrery.runtime import server_for

    with server_for(None, data_dir / "data") as folder_url:
        yield folder_url
