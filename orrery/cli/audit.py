"""``orrery replay``, ``audit``, ``export``, ``import`` and ``bench replay`` (docs/replay-audit.md).

Every command works on a server (``--redis-url`` / ``$ORRERY_REDIS_URL``, else the
embedded server on ``--data-dir``, the folder ``orrery demo`` uses) or, where it makes
sense, on a log file (``--file``). The work is done by services.audit, services.replay
and services.transfer; this module only reads arguments and prints.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer

from orrery.config import DATA_DIR, redis_url_from_env
from orrery_contracts.envelope import RawEnvelope

EXIT_DISCREPANCY = 1
EXIT_REFUSED = 2

RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url", help="Redis/Valkey URL (default: $ORRERY_REDIS_URL, else embedded)"
    ),
]
DataDir = Annotated[Path, typer.Option("--data-dir", help="embedded server's data folder")]
Token = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar="ORRERY_TOKEN",
        help="a seat's token, or the operator's admin token ($ORRERY_ADMIN_TOKEN) for admin",
    ),
]
As = Annotated[
    str,
    typer.Option("--as", help="viewer: a seat number, 'spectator' or 'admin' (full state)"),
]
LogFile = Annotated[
    Path | None, typer.Option("--file", help="read the table's log from this JSON Lines export")
]
AsJson = Annotated[bool, typer.Option("--json", help="print JSON instead of text")]


def _fail(message: str, code: int = EXIT_REFUSED) -> typer.Exit:
    typer.echo(message, err=True)
    return typer.Exit(code)


# ---------------------------------------------------------------- loading a log


def _with_redis(redis_url: str | None, data_dir: Path, work: Callable[[Any, int], Any]) -> Any:
    """Run ``await work(redis, partitions)`` against the server (embedded if none given)."""
    from orrery.config import ensure_partitions
    from orrery.runtime import server_for
    from orrery.server.cluster import open_redis

    async def run(url: str) -> Any:
        redis = open_redis(url)
        try:
            return await work(redis, await ensure_partitions(redis))
        finally:
            await redis.aclose()

    with server_for(redis_url_from_env(redis_url), data_dir / "data") as url:
        return asyncio.run(run(url))


def _read_file(path: Path) -> list[RawEnvelope]:
    from services.transfer import LogFileError, read_log_lines

    try:
        with path.open("rb") as lines:
            return read_log_lines(lines)
    except OSError as error:
        raise _fail(f"cannot read {path}: {error}") from None
    except LogFileError as error:
        raise _fail(f"{path}: {error}", EXIT_DISCREPANCY) from None


def _load(
    table: str | None, file: Path | None, redis_url: str | None, data_dir: Path
) -> tuple[list[RawEnvelope], tuple[int, str] | None]:
    from orrery.archiving import archive_url
    from services.transfer import read_any_log

    if file is not None:
        entries = _read_file(file)
        if table and entries and entries[0].table_id != table:
            raise _fail(f"{file} holds table {entries[0].table_id!r}, not {table!r}")
        return entries, None
    if not table:
        raise _fail("name a TABLE or give --file")

    async def work(redis: Any, partitions: int) -> Any:
        # an archived table's log comes from the archive (archive/), with its head hash
        return await read_any_log(redis, partitions, table, archive_url(None, data_dir))

    stored = _with_redis(redis_url, data_dir, work)
    if not stored.entries and stored.head is None:
        raise _fail(f"no table {table!r} on this server")
    return stored.entries, stored.head


def _viewer(text: str) -> Any:
    from services.replay import parse_viewer

    try:
        return parse_viewer(text)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


def _authorize(entries: Sequence[RawEnvelope], viewer: Any, token: str | None) -> None:
    from services.replay import AccessDenied, authorize, fold

    try:
        authorize(fold(entries), viewer, token)
    except AccessDenied as error:
        raise _fail(f"access denied: {error}") from None


def _is_finished(entries: Sequence[RawEnvelope]) -> bool:
    from services.replay import fold

    return fold(entries).phase == "finished"


# ---------------------------------------------------------------- text rendering


def _scalar(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(", ", ": "))


def _tree(value: Any, indent: int = 0) -> Iterator[str]:
    pad = "  " * indent
    if isinstance(value, dict):
        for key, item in value.items():
            if (isinstance(item, dict) and item) or _nested_list(item):
                yield f"{pad}{key}:"
                yield from _tree(item, indent + 1)
            else:
                yield f"{pad}{key}: {_scalar(item)}"
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict | list) and item:
                yield f"{pad}[{i}]"
                yield from _tree(item, indent + 1)
            else:
                yield f"{pad}[{i}] {_scalar(item)}"
    else:
        yield f"{pad}{_scalar(value)}"


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _nested_list(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(x, dict | list) for x in value)


def _when(ms: int) -> str:
    moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _print_view(rendered: bytes, viewer: Any) -> None:
    doc = msgspec.json.decode(rendered)
    if viewer == "admin":
        header = f"{doc.get('table_id')} · {doc.get('game') or '-'} · seq {doc.get('seq')}"
        typer.echo(f"{header} · {doc.get('phase')} · full state (admin)")
    else:
        who = "spectator" if doc.get("viewer") is None else f"seat {doc.get('viewer')}"
        typer.echo(
            f"{doc['table_id']} · {doc['game'] or '-'} · seq {doc['seq']} · {doc['phase']}"
            f" · round {doc['round']} · as {who}"
        )
    for line in _tree(doc, 1):
        typer.echo(line)


# ---------------------------------------------------------------- replay


def replay(
    table: Annotated[str | None, typer.Argument(help="table id")] = None,
    at: Annotated[int | None, typer.Option("--at", help="seq to show (default: the end)")] = None,
    from_seq: Annotated[int | None, typer.Option("--from", help="step from this seq")] = None,
    to_seq: Annotated[int | None, typer.Option("--to", help="step to this seq")] = None,
    viewer_text: As = "spectator",
    token: Token = None,
    as_json: AsJson = False,
    file: LogFile = None,
    redis_url: RedisUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
) -> None:
    """The table as a viewer saw it at a seq, or every seq from --from to --to.

    Seats and spectators see exactly their view (the projectors' view function); admin
    sees the full state and the raw events.
    """
    from services.replay import frames, view_changes
    from services.transfer import entry_record

    viewer = _viewer(viewer_text)
    entries, _ = _load(table, file, redis_url, data_dir)
    _authorize(entries, viewer, token)
    last = len(entries)
    if at is not None and (from_seq is not None or to_seq is not None):
        raise typer.BadParameter("give --at, or --from/--to, not both")
    if from_seq is None and to_seq is None:
        seq = last if at is None else at
        if not 0 <= seq <= last:
            raise _fail(f"the log has seqs 0 to {last}, not {seq}")
        for frame in frames(entries, viewer, seq, seq):
            if as_json:
                sys.stdout.buffer.write(frame.rendered + b"\n")
            else:
                if frame.last != seq:
                    typer.echo(
                        f"(seq {seq} was appended with seqs {frame.first}-{frame.last} by one "
                        "command; every viewer saw them together)"
                    )
                _print_view(frame.rendered, viewer)
        return
    first = 1 if from_seq is None else from_seq
    final = last if to_seq is None else min(to_seq, last)
    if not 0 <= first <= final:
        raise _fail(f"nothing to step through between {first} and {final} (log: 1 to {last})")
    game = _game_name(entries) if entries else None
    previous: Any = None
    for frame in frames(entries, viewer, 0, final):
        if frame.last < first:
            previous = msgspec.json.decode(frame.rendered)
            continue
        if viewer == "admin":
            for entry in frame.entries:
                record = entry_record(entry, game)
                if as_json:
                    typer.echo(json.dumps(record))
                    continue
                seat = "-" if entry.seat is None else entry.seat
                typer.echo(
                    f"seq {entry.seq} · {_when(entry.recorded_at)} · seat {seat} · "
                    f"command {entry.command_id}"
                )
                if record["command"] is not None:
                    typer.echo(f"  command: {json.dumps(record['command'])}")
                typer.echo(f"  event:   {json.dumps(record['event'])}")
            continue
        if as_json:
            sys.stdout.buffer.write(frame.rendered + b"\n")
            continue
        doc = msgspec.json.decode(frame.rendered)
        changes = [c for c in view_changes(previous, doc) if c[0] != "seq"]
        span = (
            f"seq {frame.last}"
            if frame.first == frame.last
            else (f"seqs {frame.first}-{frame.last}")
        )
        typer.echo(f"{span}: {len(changes)} change(s) in this view")
        for path, old, new in changes:
            typer.echo(f"  {path}: {_clip(_scalar(old))} → {_clip(_scalar(new))}")
        previous = doc


def _game_name(entries: Sequence[RawEnvelope]) -> str | None:
    from services.replay import fold

    return fold(entries, 1).game or None


# ---------------------------------------------------------------- audit


def audit(
    table: Annotated[str | None, typer.Argument(help="table id (optional with --file)")] = None,
    file: LogFile = None,
    as_json: AsJson = False,
    require_complete: Annotated[
        bool,
        typer.Option(
            "--require-complete",
            help="exit 3 when some check could not run (unfinished table, other rules version)",
        ),
    ] = False,
    redis_url: RedisUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
) -> None:
    """Verify a table's log: hash chain, seed commitment, every command re-decided, standing.

    Exit 0 when nothing is wrong, 1 on the first discrepancy (named by its seq), 2 when
    the table cannot be read, 3 with --require-complete when some check could not run.
    """
    from services.audit import audit_entries

    entries, head = _load(table, file, redis_url, data_dir)
    report = audit_entries(entries, table or None, head)
    if as_json:
        typer.echo(json.dumps(report.as_dict(), indent=2))
    else:
        version = f", rules version {report.rules_version}" if report.rules_version else ""
        typer.echo(f"audit of {report.table_id} ({report.game or 'unknown game'}{version})")
        for passed in report.passed:
            typer.echo(f"  ok       {passed}")
        for skipped in report.not_checked:
            typer.echo(f"  skipped  {skipped}")
        if report.failure is not None:
            f = report.failure
            typer.echo(f"FAILED at seq {f.seq} ({f.check}): {f.detail}")
        else:
            typer.echo(
                f"{report.verdict}: {report.events} events verified, "
                f"{report.commands_redecided} of {report.commands} commands re-decided"
            )
    if report.failure is not None:
        raise typer.Exit(EXIT_DISCREPANCY)
    if require_complete and not report.complete:
        raise typer.Exit(3)


# ---------------------------------------------------------------- export / import


def export(
    table: Annotated[str, typer.Argument(help="table id")],
    viewer_text: Annotated[
        str | None,
        typer.Option(
            "--as", help="player-facing export: a seat number or 'spectator' (views only)"
        ),
    ] = None,
    token: Token = None,
    out: Annotated[Path | None, typer.Option("--out", help="write here instead of stdout")] = None,
    redis_url: RedisUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
) -> None:
    """Write a table's log as JSON Lines (hash chain intact), or what one seat saw.

    The full log of an unfinished table holds hidden facts and needs the admin token; a
    finished table's log is public (its seed is revealed, anyone may re-run it).
    """
    from services.replay import is_admin_token
    from services.transfer import export_lines, export_view_lines

    entries, _ = _load(table, None, redis_url, data_dir)
    viewer: Any = _viewer(viewer_text) if viewer_text is not None else "admin"
    if viewer == "admin":
        if not _is_finished(entries) and not is_admin_token(token):
            raise _fail(
                "access denied: the full log of an unfinished table needs the admin token "
                "($ORRERY_ADMIN_TOKEN via --token); use --as SEAT for a player's export"
            )
        lines = export_lines(entries)
    else:
        _authorize(entries, viewer, token)
        lines = export_view_lines(entries, viewer)
    target = out.open("wb") if out is not None else sys.stdout.buffer
    try:
        count = 0
        for line in lines:
            target.write(line + b"\n")
            count += 1
    finally:
        if out is not None:
            target.close()
    if out is not None:
        typer.echo(f"wrote {count} lines of table {table} to {out}", err=True)


def import_(
    file: Annotated[Path, typer.Argument(help="a JSON Lines log written by orrery export")],
    redis_url: RedisUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
    into_archive: Annotated[
        bool,
        typer.Option(
            "--archive",
            help="write an ended table straight into the archive ($ORRERY_ARCHIVE_URL, else "
            "the data folder's), not into Redis",
        ),
    ] = False,
) -> None:
    """Verify a log file's chain, then add the table to this server (its projections follow)
    or, with --archive, to the archive."""
    from orrery.archiving import archive_url
    from services.audit import Discrepancy
    from services.transfer import TableExists, import_entries, import_into_archive

    entries = _read_file(file)

    async def work(redis: Any, partitions: int) -> Any:
        if into_archive:
            return await import_into_archive(
                redis, partitions, entries, archive_url(None, data_dir)
            )
        return await import_entries(redis, partitions, entries)

    try:
        imported = _with_redis(redis_url, data_dir, work)
    except Discrepancy as error:
        raise _fail(f"{file}: not imported: {error}", EXIT_DISCREPANCY) from None
    except TableExists as error:
        raise _fail(str(error)) from None
    where = "the archive" if into_archive else f"partition {imported.partition}"
    typer.echo(
        f"imported table {imported.table_id}: {imported.events} events, {imported.phase}, {where}"
    )


# ---------------------------------------------------------------- bench


def bench_replay(
    events: Annotated[int, typer.Option(help="events in the loaded table")] = 1_000,
    repeat: Annotated[int, typer.Option(help="runs per measure (the best counts)")] = 20,
    seed: Annotated[int, typer.Option(help="seed of the generated table")] = 3,
) -> None:
    """Events/s to load (decode + fold) and to audit a table, against raw msgpack decoding."""
    from rich.console import Console
    from rich.table import Table

    rows = measure_replay(events, repeat, seed)
    table = Table(title=f"replay and audit ({rows[0]['game']}, best of {repeat})")
    for column in ("measure", "events", "ms", "events/s", "× raw decode time"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    raw_rate = rows[0]["rate"]
    for row in rows:
        table.add_row(
            row["measure"],
            f"{row['events']:,}",
            f"{row['seconds'] * 1000:.2f}",
            f"{row['rate']:,.0f}",
            f"{raw_rate / row['rate']:.1f}",
        )
    console = Console() if sys.stdout.isatty() else Console(width=120)
    console.print(table)
    load = next(r for r in rows if r["measure"] == "load: decode + fold")
    verdict = "met" if load["seconds"] <= 0.010 else "missed"
    console.print(
        f"target: load a {load['events']:,}-event table in ≤ 10 ms: "
        f"{load['seconds'] * 1000:.2f} ms ({verdict})"
    )


def measure_replay(events: int, repeat: int, seed: int) -> list[dict[str, Any]]:
    """The benchmark's figures (also used by tests with tiny sizes)."""
    import tempfile

    import redis.asyncio as aioredis

    from games.table import TableState, apply_entry
    from orrery.server.embedded import EmbeddedServer
    from orrery_contracts.envelope import decode_entry, encode_entry
    from services.audit import audit_entries
    from services.replay import frames, play_log
    from services.transfer import import_entries, read_stored_log

    game = "federation"
    entries: list[RawEnvelope] = []
    attempt = seed
    while len(entries) < events:
        entries, _ = play_log(game, 4, attempt, table_id=f"bench-{attempt}")
        attempt += 1000
    prefix = entries[:events]
    encoded = [encode_entry(e) for e in prefix]
    generic = msgspec.msgpack.Decoder()

    def best(work: Callable[[], Any]) -> float:
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            work()
            times.append(time.perf_counter() - started)
        return min(times)

    def raw() -> None:
        for data in encoded:
            generic.decode(data)

    def load() -> None:
        state = TableState(table_id=prefix[0].table_id)
        for data in encoded:
            state = apply_entry(state, decode_entry(data))

    def audit_all() -> None:
        report = audit_entries(entries)
        assert report.complete, report.as_dict()

    def replay_seat() -> None:
        for _ in frames(prefix, 0, 1, None):
            pass

    rows = [
        ("raw msgpack decode (untyped)", len(prefix), best(raw)),
        ("load: decode + fold", len(prefix), best(load)),
        (
            "audit: chain, seed, re-decide, standing",
            len(entries),
            best(audit_all),
        ),
        ("replay as a seat: a view per command", len(prefix), best(replay_seat)),
    ]

    async def from_server(url: str) -> float:
        redis = aioredis.Redis.from_url(url)
        try:
            await import_entries(redis, 16, prefix)
            times = []
            for _ in range(repeat):
                started = time.perf_counter()
                stored = await read_stored_log(redis, 16, prefix[0].table_id)
                state = TableState(table_id=prefix[0].table_id)
                for entry in stored.entries:
                    state = apply_entry(state, entry)
                times.append(time.perf_counter() - started)
            return min(times)
        finally:
            await redis.aclose()

    with tempfile.TemporaryDirectory() as folder, EmbeddedServer(Path(folder)) as server:
        rows.append(
            (
                "load from the server: XRANGE + decode + fold",
                len(prefix),
                asyncio.run(from_server(server.url)),
            )
        )
    return [
        {"game": game, "measure": m, "events": n, "seconds": s, "rate": n / s} for m, n, s in rows
    ]


# ---------------------------------------------------------------- registration


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command("replay")(replay)
    app.command("audit")(audit)
    app.command("export")(export)
    app.command("import")(import_)
    bench_app.command("replay")(bench_replay)
