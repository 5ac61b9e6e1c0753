"""``orrery reports list | show | resolve``: an operator reads players' chat reports and
resolves each: delete the message, mute its author for some days, or dismiss it. Every
report and resolution stays recorded (orrery/moderation.py)."""

from __future__ import annotations

import asyncio
import datetime as dt
import getpass
import json
from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer

from orrery.cli import DataDir, RedisUrl
from orrery.config import DATA_DIR, redis_url_from_env
from orrery.errors import UserError

reports_app = typer.Typer(no_args_is_help=True, help="Players' chat reports (moderation).")
ArchiveUrl = Annotated[
    str | None,
    typer.Option(
        "--archive-url",
        help="the archive, for an archived table's chat (default: $ORRERY_ARCHIVE_URL, "
        "else <data-dir>/data/archive.sqlite3)",
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="one JSON document")]


def _when(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M")


def _run(redis_url: str | None, data_dir: Path, work: Any) -> Any:
    from orrery.logs import configure_logging
    from orrery.runtime import server_for
    from orrery.server.cluster import open_redis

    configure_logging("warning")

    async def run(url: str) -> Any:
        redis = open_redis(url)
        try:
            return await work(redis, url)
        finally:
            await redis.aclose()

    with server_for(redis_url_from_env(redis_url), data_dir / "data") as url:
        return asyncio.run(run(url))


def _document(report: Any) -> dict[str, Any]:
    return {
        **msgspec.to_builtins(report.filed),
        "state": report.state,
        "resolutions": msgspec.to_builtins(report.resolutions),
    }


@reports_app.command("list")
def reports_list(
    show_all: Annotated[bool, typer.Option("--all", help="resolved ones too")] = False,
    redis_url: RedisUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
    as_json: AsJson = False,
) -> None:
    """The open reports (with --all: every report), oldest first."""
    from orrery.moderation import reports

    found = _run(redis_url, data_dir, lambda redis, _url: reports(redis))
    shown = [r for r in found.values() if show_all or r.state == "open"]
    if as_json:
        print(json.dumps({"reports": [_document(r) for r in shown]}, indent=2))
        return
    if not shown:
        print("no open reports" if not show_all else "no reports")
        return
    for report in shown:
        filed = report.filed
        said = next((m for m in filed.messages if m.id == filed.message_id), None)
        text = (said.text if said else "")[:40]
        print(
            f"{filed.report_id}  {_when(filed.at)}  {report.state:<8} table {filed.table_id} "
            f"message {filed.message_id} by {said.name if said else '?'}: {text!r}"
        )


@reports_app.command("show")
def reports_show(
    report_id: Annotated[str, typer.Argument(help="the report (as `reports list` shows)")],
    redis_url: RedisUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
    as_json: AsJson = False,
) -> None:
    """One report: who reported what and why, the chat it carries, what was done."""
    from orrery.moderation import reports

    found = _run(redis_url, data_dir, lambda redis, _url: reports(redis)).get(report_id)
    if found is None:
        raise UserError(f"no report {report_id!r}")
    if as_json:
        print(json.dumps(_document(found), indent=2))
        return
    filed = found.filed
    print(f"report {filed.report_id} ({found.state}), filed {_when(filed.at)}")
    print(f"  table {filed.table_id}, message {filed.message_id}, author {filed.author}")
    print(f"  reporter {filed.reporter}: {filed.reason or '(no reason given)'}")
    for message in filed.messages:
        mark = ">" if message.id == filed.message_id else " "
        who = f"seat {message.seat}" if message.seat is not None else "spectator"
        print(
            f"  {mark} {_when(message.at)} {message.name} ({who}, {message.player_id}): "
            f"{message.text}"
        )
    for done in found.resolutions:
        days = f" for {done.days} days" if done.days else ""
        print(f"  resolved {_when(done.at)} by {done.by or '?'}: {done.action}{days} {done.note}")


@reports_app.command("resolve")
def reports_resolve(
    report_id: Annotated[str, typer.Argument(help="the report (as `reports list` shows)")],
    delete: Annotated[bool, typer.Option("--delete", help="delete the message")] = False,
    mute: Annotated[
        int | None, typer.Option("--mute", help="mute the message's author for DAYS days")
    ] = None,
    dismiss: Annotated[bool, typer.Option("--dismiss", help="do nothing")] = False,
    note: Annotated[str, typer.Option("--note", help="why, recorded with it")] = "",
    redis_url: RedisUrl = None,
    archive_url_option: ArchiveUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
) -> None:
    """Resolve a report: --delete, --mute DAYS or --dismiss (recorded with the
    operator's login name)."""
    from orrery.archiving import archive_url
    from orrery.cli.chat import delete_message
    from orrery.moderation import ModerationError, resolve
    from orrery_contracts.social import ResolveAction

    options: list[tuple[ResolveAction, bool]] = [
        ("delete", delete),
        ("mute", mute is not None),
        ("dismiss", dismiss),
    ]
    chosen = [action for action, on in options if on]
    if len(chosen) != 1:
        raise UserError("give one of --delete, --mute DAYS or --dismiss")
    store = archive_url(archive_url_option, data_dir)

    async def work(redis: Any, url: str) -> Any:
        async def deleted(table_id: str, message_id: str) -> bool:
            return bool(await delete_message(url, store, table_id, message_id))

        return await resolve(
            redis, report_id, chosen[0], days=mute, note=note, by=getpass.getuser(),
            delete_message=deleted,
        )  # fmt: skip

    try:
        done = _run(redis_url, data_dir, work)
    except ModerationError as error:
        raise UserError(str(error)) from None
    days = f" for {done.days} days" if done.days else ""
    print(f"report {report_id} resolved: {done.action}{days}")


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(reports_app, name="reports")
