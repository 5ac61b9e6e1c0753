"""``orrery play``: a person plays one seat in the terminal; bots take the other seats.

Four ways in: a new table (``--game``; bots fill every seat but ``--open-seats``), an
open seat of an existing table (``--table ID``), back to a seat (``--table ID --seat N
--token T``), or quick play (``--quick GAME``: a ticket to the matchmaker, which seats
the player at a started table of players near their rating, bots after
``--bots-after`` seconds). At the join it prints the table id, the seat and its secret, and the
command that comes back. Bad arguments end with one line naming the problem and the
fix (exit 2) before any server starts. ``q`` leaves (exit 0) and Ctrl-C ends the program
at once (exit 130); both say how to come back, in the command the user typed
(``$ORRERY_PROG``: ``python3 dev.py orrery`` when run through dev.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import os
import re
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from orrery import arguments
from orrery.config import DATA_DIR, program, redis_url_from_env
from orrery.errors import UserError

if TYPE_CHECKING:
    from clients.terminal.seating import Seating
    from orrery_client.bot import Chooser
    from orrery_client.sdk import OrreryClient

INTERRUPTED = 130


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command()(play)


def _fail(message: str) -> NoReturn:
    typer.echo(f"orrery play: {message}", err=True)
    raise typer.Exit(2)


def check_game(game: str, available: list[str]) -> str:
    try:
        return arguments.check_game(game, available)
    except UserError as error:
        _fail(str(error))


def parse_options(items: list[str]) -> dict[str, Any]:
    try:
        return arguments.parse_options(items)
    except UserError as error:
        _fail(str(error))


def _check_options(game: str, options: dict[str, Any]) -> None:
    import msgspec

    from games.registry import get_game

    g = get_game(game)
    assert g is not None
    known = sorted(f.encode_name for f in msgspec.structs.fields(g.options_type))
    for key in options:
        if key not in known:
            choices = ", ".join(known) if known else "none"
            _fail(f"{game} has no option {key!r}; its options are: {choices}")


def _seats_for(game: str, players: int | None) -> int:
    from games.registry import get_game

    g = get_game(game)
    assert g is not None
    try:
        arguments.check_players(game, players, g.min_seats, g.max_seats)
    except UserError as error:
        _fail(str(error))
    return players if players is not None else min(max(3, g.min_seats), g.max_seats)


def play(
    game: Annotated[
        str | None,
        typer.Option(help="game of a new table: fractured_sky | spacecraft | federation"),
    ] = None,
    players: Annotated[
        int | None, typer.Option(help="seats at a new table (default 3, within the game's range)")
    ] = None,
    seat: Annotated[
        int | None, typer.Option(help="your seat, 0-based (default: 0, or any open seat)")
    ] = None,
    name: Annotated[str, typer.Option(help="your name at the table")] = "You",
    options: Annotated[
        list[str] | None,
        typer.Option(
            "--options",
            metavar="K=V|JSON",
            help="game options of a new table, repeatable: difficulty=hard, "
            "variant=advanced, or a JSON object",
        ),
    ] = None,
    open_seats: Annotated[
        int,
        typer.Option(
            "--open-seats", help="seats of a new table left for people joining with --table"
        ),
    ] = 0,
    table: Annotated[
        str | None,
        typer.Option(help="an existing table: take an open seat, or with --seat/--token resume"),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="ORRERY_SEAT_TOKEN", help="your seat's secret (printed when you joined)"
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="seed of the bots' choices")] = None,
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            metavar="LEVEL",
            help="the bots' level: random, greedy (one move ahead) or ismcts (a search)",
        ),
    ] = "greedy",
    quick: Annotated[
        str | None,
        typer.Option(
            "--quick",
            metavar="GAME",
            help="quick play: the matchmaker seats you at a started GAME table of players "
            "near your rating (--players seats; bots after --bots-after)",
        ),
    ] = None,
    bots_after: Annotated[
        float,
        typer.Option("--bots-after", min=1, help="quick play: seconds before bots fill in"),
    ] = 20.0,
    redis_url: Annotated[
        str | None,
        typer.Option(
            "--redis-url", help="a running service (default: $ORRERY_REDIS_URL, else embedded)"
        ),
    ] = None,
    data_dir: Annotated[
        Path, typer.Option("--data-dir", help="embedded server's data folder")
    ] = Path(DATA_DIR),
) -> None:
    """Play a seat in the terminal, against bots or people, through the real service.

    Keys: a number chooses, b goes back, r refreshes, h helps, Ctrl-C exits at once.

    q leaves the client; the seat stays: come back with --table ID --seat N --token T.
    """
    if quick is not None:
        if game is not None or table is not None or seat is not None or open_seats:
            _fail("--quick GAME finds you a table: leave out --game, --table, --seat, --open-seats")
        game, seat = quick, 0
    plan = _plan(game, players, seat, options or [], open_seats, table, token)
    plan = dataclasses.replace(plan, bot_level=arguments.check_bot_level(bots))
    if quick is not None:
        plan = dataclasses.replace(plan, quick=True, bots_after_s=bots_after)
    from clients.terminal.renderers import make_console
    from gateway.settings import SECRET_KEY_ENV, load_secret_key
    from orrery.logs import configure_logging
    from orrery.runtime import server_for, service, spawn

    configure_logging("warning")
    os.environ.setdefault("ORRERY_LOG_LEVEL", "warning")
    console = make_console()
    explicit = redis_url_from_env(redis_url)
    again = _again_arguments(explicit if redis_url else None, data_dir)

    if plan.quick:
        # the matchmaker seats me with a secret derived from the service's key
        os.environ[SECRET_KEY_ENV] = load_secret_key(data_dir / "data")

    async def run(url: str) -> int:
        if explicit is None:
            matchmakers = 1 if plan.quick else 0
            async with service(url, 1, 1, matchmakers=matchmakers) as processes:
                if plan.quick:  # the bot runner plays the bot seats a match gets
                    processes.append(spawn("bots", url, len(processes)))
                return await _interruptible(_session(url, plan, name, seed, console, again))
        return await _interruptible(_session(url, plan, name, seed, console, again))

    with server_for(explicit, data_dir / "data") as url:
        code = asyncio.run(run(url))
    raise typer.Exit(code)


@dataclass(frozen=True)
class _Plan:
    """What to do, from the checked arguments."""

    game: str | None
    seats: int
    seat: int | None
    options: dict[str, Any]
    open_seats: int
    table: str | None
    token: str | None
    quick: bool = False  # a ticket to the matchmaker instead of a new table
    bots_after_s: float = 20.0
    bot_level: str = "greedy"  # the level of the bots at my table (--bots)


def _plan(
    game: str | None,
    players: int | None,
    seat: int | None,
    option_items: list[str],
    open_seats: int,
    table: str | None,
    token: str | None,
) -> _Plan:
    """Every argument checked before a server starts."""
    if token is not None and (table is None or seat is None):
        _fail("--token resumes a seat: give it with --table ID and --seat N")
    if table is not None:
        if players is not None or option_items or open_seats:
            _fail(
                "--players, --options and --open-seats set up a new table; "
                f"leave them out to join table {table}"
            )
        return _Plan(
            game=None, seats=0, seat=seat, options={}, open_seats=0, table=table, token=token
        )
    if game is None:
        _fail(
            "give --game G to start a table (fractured_sky, spacecraft, federation), "
            "or --table ID to join one"
        )
    from games.registry import all_games

    game = check_game(game, list(all_games()))
    seats = _seats_for(game, players)
    seat = 0 if seat is None else seat
    if not 0 <= seat < seats:
        _fail(f"--seat {seat} is not a seat of a {seats}-seat table; choose 0 to {seats - 1}")
    if not 0 <= open_seats < seats:
        _fail(f"--open-seats {open_seats}: leave 0 to {seats - 1} seats open for other people")
    options = parse_options(option_items)
    _check_options(game, options)
    return _Plan(
        game=game,
        seats=seats,
        seat=seat,
        options=options,
        open_seats=open_seats,
        table=None,
        token=None,
    )


def _again_arguments(redis_url: str | None, data_dir: Path) -> str:
    """What a resume command needs besides the seat: the same server or data folder."""
    if redis_url:
        from urllib.parse import urlsplit

        return " --redis-url " + ("URL" if urlsplit(redis_url).password else redis_url)
    if data_dir != Path(DATA_DIR):
        return f" --data-dir {data_dir}"
    return ""


async def _interruptible(work: Any) -> int:
    """Run ``work``; the first Ctrl-C cancels it (it says how to come back and returns
    130), a second one ends the process at once."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    presses = 0

    def interrupt() -> None:
        nonlocal presses
        presses += 1
        if presses > 1:
            os._exit(INTERRUPTED)
        task.cancel()

    loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        result: int = await task
        return result
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def _chooser(level: str) -> Chooser | None:
    """The bots' chooser at ``level`` (None: the terminal bots' own random choice)."""
    from orrery.demo import level_chooser

    return None if level == "random" else level_chooser(level)


async def _session(
    url: str, plan: _Plan, name: str, seed: int | None, console: Any, again: str
) -> int:
    """Take the seat, play it, and say how to come back; the exit code."""
    from redis.exceptions import RedisError
    from rich.text import Text

    from clients.terminal import play_terminal
    from clients.terminal.bots import Bots
    from clients.terminal.keyboard import StdinLines
    from clients.terminal.seating import SeatingError
    from orrery_client.sdk import OrreryClient

    client = OrreryClient(url, reply_prefix="play")
    try:
        await client.connect(timeout=10)
    except (RedisError, OSError, TimeoutError) as error:
        await client.close()
        _say(
            f"orrery play: cannot reach the service ({error}); check --redis-url, "
            "or leave it out to start one here"
        )
        return 2
    seating: Seating | None = None
    bots: Bots | None = None
    try:
        seating = await _take_seat(client, plan, name)
        me = seating.me
        _print_command(
            console, f"table {me.table_id} · you are seat {me.seat} · seat secret {me.token}"
        )
        console.print(Text("keep the secret: it is the only way back. Come back with:"))
        _print_command(console, f"  {_come_back(seating, again)}")
        if plan.open_seats:
            others = f"{program()} play --table {me.table_id}{again}"
            _print_command(console, f"others join with: {others}")
        bots = Bots(client, seating.bots, seed, _chooser(plan.bot_level))
        result = await play_terminal(client, me, StdinLines(), console)
    except SeatingError as error:
        _say(f"orrery play: {error}")
        return 2
    except asyncio.CancelledError:  # Ctrl-C
        where = f"; come back with:\n  {_come_back(seating, again)}" if seating else ""
        _say(f"\ninterrupted: your seat stays at the table{where}")
        return INTERRUPTED
    finally:
        if bots is not None:
            await bots.stop()
        await client.close()
    if result.reason == "finished":
        console.print(Text("the game is over."))
    else:
        console.print(Text("\nyou left the client; your seat stays at the table. Come back with:"))
        _print_command(console, f"  {_come_back(seating, again)}")
    return 0


async def _take_seat(client: OrreryClient, plan: _Plan, name: str) -> Seating:
    from clients.terminal.seating import join_open_seat, new_table, resume
    from orrery_client.sdk import SeatCredentials

    if plan.quick:
        return await resume(client, await _quick_seat(client, plan, name))
    if plan.table is None:
        assert plan.game is not None and plan.seat is not None
        _, seating = await new_table(
            client,
            plan.game,
            plan.seats,
            plan.options,
            seat=plan.seat,
            name=name,
            open_seats=plan.open_seats,
        )
        return seating
    if plan.token is None:
        return await join_open_seat(client, plan.table, name, plan.seat)
    assert plan.seat is not None
    return await resume(client, SeatCredentials(plan.table, plan.seat, plan.token))


def local_player(name: str) -> str:
    """The player id a terminal player is queued (and rated) under: from their name."""
    kept = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:40]
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"local-{kept or 'player'}-{digest}"


async def _quick_seat(client: OrreryClient, plan: _Plan, name: str) -> Any:
    """Queue a ticket and wait, saying how long, until the matchmaker seats me; Ctrl-C
    takes the ticket out of the queue."""
    from clients.terminal.seating import SeatingError
    from gateway.settings import SECRET_KEY_ENV
    from orrery_client.sdk import QueueRefused, TicketEnded

    assert plan.game is not None
    player = local_player(name)
    try:
        ticket = await client.queue(
            plan.game,
            player,
            name,
            seats=plan.seats,
            options=plan.options,
            pace="turn_based",
            bots_ok=True,
            bots_after_s=plan.bots_after_s,
        )
    except QueueRefused as error:
        raise SeatingError(f"the matchmaker refused the ticket: {error}") from None
    except TimeoutError:
        raise SeatingError(
            "no matchmaker answered: is `orrery serve` (or `orrery matchmaker`) running?"
        ) from None
    started = time.monotonic()
    _say(f"looking for a {plan.seats}-player {plan.game} table (Ctrl-C cancels) …")
    try:
        while True:
            try:
                return await client.matched(
                    ticket, player, secret_key=os.environ[SECRET_KEY_ENV], timeout=5.0
                )
            except TimeoutError:
                _say(f"  still looking: {time.monotonic() - started:.0f} s")
            except TicketEnded as ended:
                raise SeatingError(f"the ticket {ended.ticket.state}; try again") from None
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await asyncio.shield(client.cancel_ticket(ticket, player))
        raise


def _come_back(seating: Seating, again: str) -> str:
    me = seating.me
    return f"{program()} play --table {me.table_id} --seat {me.seat} --token {me.token}{again}"


def _print_command(console: Any, line: str) -> None:
    """A line holding a command to copy: never wrapped, however narrow the terminal (a
    hard line break inside it would break the command when pasted)."""
    from rich.text import Text

    console.print(Text(line), soft_wrap=True)


def _say(message: str) -> None:
    from clients.terminal.printable import printable

    print(printable(message, keep_lines=True), file=sys.stderr, flush=True)
