"""``orrery replay``, ``audit``, ``export`` and ``import`` (docs/replay-audit.md).

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
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO

import msgspec
import typer

from orrery.config import DATA_DIR, redis_url_from_env
from orrery_contracts.envelope import RawEnvelope

if TYPE_CHECKING:
    from services.audit import AuditReport

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


# ---------------------------------------------------------------- drawing a table


def _when(ms: int) -> str:
    moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _draw(console: Any, rendered: bytes) -> None:
    """A seat's or spectator's view drawn as the terminal client draws it (the same
    screen and game renderers, without the menu: a replay takes no moves)."""
    from clients.terminal.frame import screen
    from clients.terminal.renderers import renderer_for

    tv = msgspec.json.decode(rendered)
    console.print(screen(tv, renderer_for(tv.get("game") or "")))


def _draw_admin(console: Any, entries: Sequence[RawEnvelope], seq: int) -> None:
    """The admin's picture of the table after the command holding ``seq``: the board as
    a spectator sees it, then each seat's private panel (what only that seat sees)."""
    from clients.terminal.frame import private_panel, screen
    from clients.terminal.renderers import renderer_for, seat_name
    from services.replay import SPECTATOR, fold, render

    state = fold(entries, seq)
    board = msgspec.json.decode(render(state, SPECTATOR))
    renderer = renderer_for(board.get("game") or "")
    console.print(screen(board, renderer))
    if board.get("view") is None:
        return
    for seat in range(state.seats):
        tv = msgspec.json.decode(render(state, seat))
        title = f"{seat_name(board, seat)}: only seat {seat} sees this"
        panel = private_panel(tv, renderer, title)
        if panel is not None:
            console.print(panel)


def _print_events(entries: Sequence[RawEnvelope], game: str | None, as_json: bool) -> None:
    """The admin's event list: each event with the command that produced it."""
    from services.transfer import entry_record

    for entry in entries:
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


def _command_span(first: int, last: int) -> str:
    return f"seq {last}" if first == last else f"seqs {first}-{last}"


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
    """The table as a viewer saw it at a seq, or every step from --from to --to.

    Drawn as the terminal client draws it; --json prints the data instead. Seats and
    spectators see exactly their view (the projectors' view function); admin sees the
    full state and the raw events.
    """
    from services.replay import MidCommand

    viewer = _viewer(viewer_text)
    entries, _ = _load(table, file, redis_url, data_dir)
    _authorize(entries, viewer, token)
    if at is not None and (from_seq is not None or to_seq is not None):
        raise typer.BadParameter("give --at, or --from/--to, not both")
    try:
        if from_seq is None and to_seq is None:
            _replay_at(entries, viewer, len(entries) if at is None else at, as_json)
        else:
            _replay_steps(entries, viewer, from_seq, to_seq, as_json)
    except MidCommand as error:
        raise _fail(f"orrery replay: {error}", EXIT_DISCREPANCY) from None


def _who(viewer: Any) -> str:
    return f"seat {viewer}" if isinstance(viewer, int) else str(viewer)


def _replay_at(entries: Sequence[RawEnvelope], viewer: Any, seq: int, as_json: bool) -> None:
    """The table at one seq: drawn (after the command holding it), or its JSON."""
    from clients.terminal.renderers import make_console
    from services.replay import frames

    last = len(entries)
    if not 0 <= seq <= last:
        raise _fail(f"the log has seqs 0 to {last}, not {seq}")
    for frame in frames(entries, viewer, seq, seq):
        if as_json:
            sys.stdout.buffer.write(frame.rendered + b"\n")
            continue
        _at_header(entries, seq, last, _who(viewer))
        if viewer == "admin":
            _draw_admin(make_console(), entries, _command_of(entries, seq)[1])
            typer.echo("(the full state, hidden facts included: --json)")
        else:
            _draw(make_console(), frame.rendered)


def _replay_steps(
    entries: Sequence[RawEnvelope],
    viewer: Any,
    from_seq: int | None,
    to_seq: int | None,
    as_json: bool,
) -> None:
    """Every command from ``from_seq`` to ``to_seq``: drawn under a rule (seats and
    spectators), or the events (admin); or their JSON."""
    from clients.terminal.renderers import make_console
    from services.replay import frames, view_changes

    last = len(entries)
    first = 1 if from_seq is None else from_seq
    final = last if to_seq is None else min(to_seq, last)
    if not 0 <= first <= final:
        raise _fail(f"nothing to step through between {first} and {final} (log: 1 to {last})")
    if viewer == "admin":
        game = _game_name(entries) if entries else None
        for frame in frames(entries, viewer, first, final):
            _print_events(frame.entries, game, as_json)
        return
    console = make_console()
    previous: Any = None
    for frame in frames(entries, viewer, 0, final):
        doc = msgspec.json.decode(frame.rendered)
        changes = [c for c in view_changes(previous, doc) if c[0] != "seq"]
        previous = doc
        if frame.last < first:  # folded only to count the first step's changes
            continue
        if as_json:
            sys.stdout.buffer.write(frame.rendered + b"\n")
            continue
        span = f"{_command_span(frame.first, frame.last)} (of {last}) · as {_who(viewer)}"
        console.rule(f"{span} · {len(changes)} change(s) in this view")
        _draw(console, frame.rendered)


def _command_of(entries: Sequence[RawEnvelope], seq: int) -> tuple[int, int]:
    """The first and last seq of the command holding ``seq`` (seq 0: (0, 0))."""
    if not seq:
        return 0, 0
    command = entries[seq - 1].command_id
    span = [e.seq for e in entries if e.command_id == command]
    return span[0], span[-1]


def _at_header(entries: Sequence[RawEnvelope], seq: int, last: int, who: str) -> None:
    """Where the picture stands in the log, and (inside a command) what is shown."""
    typer.echo(f"seq {seq} of {last} · as {who}")
    start, end = _command_of(entries, seq)
    if end != seq:
        typer.echo(
            f"(seq {seq} was appended with {_command_span(start, end)} by one command; "
            f"every viewer saw them together: shown is the table after seq {end})"
        )


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
        _print_report(report)
    if report.failure is not None:
        raise typer.Exit(EXIT_DISCREPANCY)
    if require_complete and not report.complete:
        raise typer.Exit(3)


def _print_report(report: AuditReport) -> None:
    """The audit as text: each check passed or skipped, then the verdict or the failure."""
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
    entries, _ = _load(table, None, redis_url, data_dir)
    viewer: Any = _viewer(viewer_text) if viewer_text is not None else "admin"
    lines = _export_lines(entries, viewer, token)
    if out is None:
        _write_lines(lines, sys.stdout.buffer)
        return
    with out.open("wb") as target:
        count = _write_lines(lines, target)
    typer.echo(f"wrote {count} lines of table {table} to {out}", err=True)


def _export_lines(
    entries: Sequence[RawEnvelope], viewer: Any, token: str | None
) -> Iterable[bytes]:
    """The lines ``viewer`` may export: the full log (admin: an unfinished table's needs
    the admin token), or what one seat or a spectator saw."""
    from services.replay import is_admin_token
    from services.transfer import export_lines, export_view_lines

    if viewer != "admin":
        _authorize(entries, viewer, token)
        return export_view_lines(entries, viewer)
    if not _is_finished(entries) and not is_admin_token(token):
        raise _fail(
            "access denied: the full log of an unfinished table needs the admin token "
            "($ORRERY_ADMIN_TOKEN via --token); use --as SEAT for a player's export"
        )
    return export_lines(entries)


def _write_lines(lines: Iterable[bytes], target: BinaryIO) -> int:
    """Write each line with its newline; how many were written."""
    count = 0
    for line in lines:
        target.write(line + b"\n")
        count += 1
    return count


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


# ---------------------------------------------------------------- registration


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command("replay")(replay)
    app.command("audit")(audit)
    app.command("export")(export)
    app.command("import")(import_)
    del bench_app
