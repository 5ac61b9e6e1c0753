"""The command line tells the truth: what each command prints matches its data.

* ``orrery status``: every cell of the printed partition table equals ``--json``, on a
  server with live, finished and dead-lettered tables;
* a log that ends inside a command (the prefix ``orrery bench replay`` used to cut) is
  never rendered: ``frames`` raises, ``audit``/``replay``/``import`` of such a file say so
  in one line and exit non-zero; every command's end of real games still renders;
* ``orrery replay`` draws the table with the terminal client's screen, ``--json`` is the
  data it is drawn from;
* a port in use (``serve --http-port``, ``serve --port``, ``gateway --port``): one line
  naming the port and the fix, exit 2, nothing left running;
* ``orrery demo``: the summary keeps each table id whole at 80 columns.
"""

from __future__ import annotations

import asyncio
import functools
import json
import socket
import subprocess
from pathlib import Path

import pytest
import redis

from games.table import TableState, apply_entry
from orrery.runtime import stop_processes
from orrery.server.embedded import EmbeddedServer
from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import RawEnvelope
from services.replay import (
    MidCommand,
    command_ends,
    frames,
    play_log,
    unfinished_command,
)
from services.transfer import export_lines
from tests.support import tables
from tests.support.cli import run_orrery
from tests.support.logs import game_log
from tests.support.service import PARTITIONS, live_service

pytestmark = pytest.mark.service

COLUMNS = {"ORRERY_LOG_LEVEL": "warning", "COLUMNS": "80"}  # what a user's 80 columns show


def orrery(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_orrery(*args, timeout=timeout, env=COLUMNS)


def table_in(partition: int, prefix: str) -> str:
    return tables.table_in(partition, prefix, PARTITIONS)


# ---------------------------------------------------------------- status


async def _tables_of_every_kind(url: str) -> None:
    """Partition 0: a finished table; 1: a live one (seated, not finished); 2: a command
    dead-lettered (its reply_to names no reply stream); 3: nothing."""
    async with OrreryClient(url) as client:
        finished = table_in(0, "done")
        last = await tables.play_tiny(client, finished)
        await client.wait_view(finished, None, last, timeout=30)
        live = table_in(1, "live")
        await client.create_table("tiny", 2, table_id=live)
        await client.join(live, "Cy")
        await client.wait_view(live, None, 2, timeout=30)
        bad = {"command_id": "c-bad", "table_id": table_in(2, "x"), "reply_to": "elsewhere"}
        await client.redis.xadd(keys.command_stream(2), {"__data__": json.dumps(bad)})
        for _ in range(300):
            if await client.redis.xlen(keys.dead_letter_stream(2)):
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the command was not dead-lettered")


def printed_partitions(output: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the printed partition table, split on white space."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["p", "backlog"])
    header = lines[start].split()
    rows = []
    for line in lines[start + 2 :]:  # after the header's rule
        if not line.strip():
            break
        rows.append(line.split())
    return header, rows


def test_status_table_matches_json_cell_for_cell(tmp_path: Path) -> None:
    with live_service(tmp_path, ORRERY_LOG_LEVEL="critical") as live:
        asyncio.run(_tables_of_every_kind(live.url))
        stop_processes(live.processes)  # nothing moves between the two reads below
        text = orrery("status", "--redis-url", live.url)
        data = orrery("status", "--redis-url", live.url, "--json")
    assert text.returncode == 0 and data.returncode == 0, text.stderr + data.stderr
    doc = json.loads(data.stdout)
    header, rows = printed_partitions(text.stdout)
    assert max(len(line) for line in text.stdout.splitlines()) <= 80
    assert header == [
        "p",
        "backlog",
        "deciders",
        "projections",
        "dead",
        "live",
        "finished",
        "unarchived",
    ]
    assert len(rows) == len(doc["rows"]) == PARTITIONS
    for cells, record in zip(rows, doc["rows"], strict=True):
        shown = dict(zip(header, cells, strict=True))
        groups = {g["group"]: g for g in record["groups"]}
        assert shown == {
            "p": str(record["partition"]),
            "backlog": str(record["backlog"]),
            "deciders": f"{groups['deciders']['pending']}/{groups['deciders']['lag']}",
            "projections": f"{groups['projections']['pending']}/{groups['projections']['lag']}",
            "dead": str(record["dead_letters"]),
            "live": str(record["tables_live"]),
            "finished": str(record["tables_finished"]),
            "unarchived": str(record["unarchived"]),
        }
    # the server holds what the test made, and the table says so where it is
    by_partition = {int(cells[0]): dict(zip(header, cells, strict=True)) for cells in rows}
    assert by_partition[0]["finished"] == "1" and by_partition[0]["live"] == "0"
    assert by_partition[1]["live"] == "1" and by_partition[1]["finished"] == "0"
    assert by_partition[2]["dead"] == "1"
    assert [by_partition[p]["dead"] for p in (0, 1, 3)] == ["0", "0", "0"]


def test_status_of_a_server_never_initialised_says_so(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path) as server:
        done = orrery("status", "--redis-url", server.url)
    assert done.returncode == 2
    assert "never initialised" in done.stdout and "orrery repair --partitions P" in done.stdout
    assert "p   backlog" not in done.stdout


# ---------------------------------------------------------------- logs cut inside a command


def cut_federation_log() -> list[RawEnvelope]:
    """The 1,000-event prefix ``orrery bench replay`` took by default: it ends half-way
    through a Federation command (an automatic die step, whose options the rules do not
    answer for: ``KeyError: 'fx_die'``)."""
    entries = _federation_log()
    assert 1000 not in command_ends(entries)
    return list(entries[:1000])


@functools.cache
def _federation_log() -> tuple[RawEnvelope, ...]:
    entries, _ = play_log("federation", 4, 3, table_id="bench-3")
    return tuple(entries)


def write_log(path: Path, entries: list[RawEnvelope]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in export_lines(entries)))
    return path


def test_frames_never_render_inside_a_command() -> None:
    cut = cut_federation_log()
    with pytest.raises(MidCommand) as raised:
        list(frames(cut, 0))
    assert raised.value.seq == 1000 and "ends inside a command" in str(raised.value)
    with pytest.raises(MidCommand):
        list(frames(cut, "spectator", 1000, 1000))
    # every frame before the cut command was rendered first, and the admin's raw states
    # (event by event) are not views
    shown = []
    with pytest.raises(MidCommand):
        for frame in frames(cut, "spectator"):
            shown.append(frame.last)
    assert shown[-1] == max(end for end in command_ends(cut) if end < 1000)
    assert sum(1 for _ in frames(cut, "admin")) == 1001


@pytest.mark.parametrize(
    ("game", "seats"),
    [("fractured_sky", 1), ("fractured_sky", 3), ("spacecraft", 4), ("federation", 3), ("tiny", 2)],
)
def test_every_command_end_of_real_games_is_one(game: str, seats: int) -> None:
    """The test for "inside a command" never refuses a state a command really ended in."""
    for seed in (1, 2):
        leaves = {1: 9} if seed == 2 and seats > 1 else None
        entries, _ = play_log(game, seats, seed, leaves=leaves)
        ends = set(command_ends(entries))
        state = TableState(table_id=entries[0].table_id)
        for entry in entries:
            state = apply_entry(state, entry)
            if entry.seq in ends:
                assert unfinished_command(state) is None, (game, seed, entry.seq)


def test_a_log_cut_inside_a_command_is_refused_in_one_line(tmp_path: Path) -> None:
    log = write_log(tmp_path / "cut.jsonl", cut_federation_log())
    audit = orrery("audit", "--file", str(log))
    assert audit.returncode == 1, audit.stdout + audit.stderr
    said = [line for line in audit.stdout.splitlines() if "inside a command" in line]
    assert said == [
        "FAILED at seq 1000 (end): the log ends inside a command (the rules cannot say who "
        "moves next); a log holds whole commands: export the table again"
    ]
    assert "Traceback" not in audit.stderr
    for args in (("replay", "--file", str(log)), ("replay", "--file", str(log), "--json")):
        replay = orrery(*args)
        assert replay.returncode == 1 and "Traceback" not in replay.stderr
        assert replay.stderr.strip().splitlines() == [
            "orrery replay: the log ends inside a command after seq 1000 (the rules cannot "
            "say who moves next); a log holds whole commands: export the table again"
        ]
    with EmbeddedServer(tmp_path / "server") as server:
        imported = orrery("import", str(log), "--redis-url", server.url)
        assert imported.returncode == 1 and "Traceback" not in imported.stderr
        assert "not imported: seq 1000: end: the log ends inside a command" in imported.stderr
        assert not redis.Redis.from_url(server.url).keys("orrery:{*}:t:bench-3:*")
    # cut at the end of the command before, the same log audits and replays
    cut = cut_federation_log()
    whole = write_log(
        tmp_path / "whole.jsonl", cut[: max(e for e in command_ends(cut) if e < 1000)]
    )
    assert orrery("audit", "--file", str(whole)).returncode == 0
    assert orrery("replay", "--file", str(whole)).returncode == 0


# ---------------------------------------------------------------- replay draws the table


def drawn(tv: dict[str, object]) -> str:
    """A view as the terminal client draws it, on an 80-column console."""
    from io import StringIO

    from clients.terminal.frame import screen
    from clients.terminal.renderers import make_console, renderer_for

    out = StringIO()
    make_console(file=out, width=80).print(screen(tv, renderer_for(str(tv["game"]))))
    return out.getvalue()


# one game in the default run, the others in the slow run
@pytest.mark.parametrize(
    "game",
    [
        "spacecraft",
        *(pytest.param(g, marks=pytest.mark.slow) for g in ("fractured_sky", "federation")),
    ],
)
def test_replay_draws_the_table_as_the_terminal_client(tmp_path: Path, game: str) -> None:
    entries, tokens = game_log(game, 2)
    log = write_log(tmp_path / "log.jsonl", entries)
    at = str(command_ends(entries)[len(command_ends(entries)) // 2])
    for viewer in (["--as", "spectator"], ["--as", "1", "--token", tokens[1]]):
        data = orrery("replay", "--file", str(log), "--at", at, "--json", *viewer)
        text = orrery("replay", "--file", str(log), "--at", at, *viewer)
        assert data.returncode == 0 and text.returncode == 0, data.stderr + text.stderr
        tv = json.loads(data.stdout)
        who = "spectator" if viewer[1] == "spectator" else "seat 1"
        assert text.stdout == f"seq {at} of {len(entries)} · as {who}\n" + drawn(tv)
        assert len(text.stdout.splitlines()) < 80  # not a key/value dump of the view
    # a seq inside a command: the table after the whole command, and the output says so
    inside = next(e.seq for e in entries if e.seq not in set(command_ends(entries)))
    text = orrery("replay", "--file", str(log), "--at", str(inside))
    assert text.returncode == 0 and f"seq {inside} was appended with seqs" in text.stdout
    # stepping: one drawn table per command, under a rule naming its seqs
    first, second = command_ends(entries)[5:7]
    steps = orrery("replay", "--file", str(log), "--from", str(first), "--to", str(second))
    assert steps.returncode == 0
    rules = [line for line in steps.stdout.splitlines() if "change(s) in this view" in line]
    assert len(rules) == 2
    assert f"{first} (of {len(entries)})" in rules[0] and f"{second} (of" in rules[1]


# ---------------------------------------------------------------- a port in use


@pytest.mark.parametrize(
    ("command", "option"),
    [(("serve",), "--http-port"), (("serve",), "--port"), (("gateway",), "--port")],
)
def test_a_port_in_use_is_one_line(tmp_path: Path, command: tuple[str, ...], option: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        where = ["--data-dir", str(tmp_path)]
        if command == ("gateway",):
            where += ["--redis-url", "redis://127.0.0.1:1/0"]  # never reached
        done = orrery(*command, option, str(port), *where, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"orrery: port {port} ({option}) is in use: stop what listens there, choose another "
        f"port, or leave {option} out for a free one"
    ]
    assert done.stdout == ""
    # nothing was started: no server record, and the data folder's lock is free
    assert not (tmp_path / "data" / "server.json").exists()


# ---------------------------------------------------------------- the demo's board


def test_demo_board_keeps_table_ids_whole_at_80_columns() -> None:
    from io import StringIO

    from rich.console import Console

    from orrery.cli import demo_board
    from orrery.demo import BOT_NAMES, PlayedTable

    tables = [
        PlayedTable(
            game="fractured_sky",
            table_id="fractured_sky-3f0c9a51d2",
            seats=BOT_NAMES[:5],
            points=[104, 97, 88, 120, 61],
            ranks=[2, 3, 4, 1, 5],
            seq=1146,
            done=True,
        ),
        PlayedTable(
            game="fractured_sky",
            table_id="fractured_sky-77aa01bc3e",
            seats=BOT_NAMES[:1],
            points=[40],
            ranks=[3],
            seq=290,
            done=True,
            ais=["black", "orange"],
            ai_points=[52, 47],
            ai_ranks=[1, 2],
        ),
        PlayedTable(game="spacecraft", table_id="spacecraft-5e0512eb8f", seats=BOT_NAMES[:4]),
        PlayedTable(game="federation", table_id="", seats=[]),
    ]
    out = StringIO()
    Console(file=out, width=80).print(demo_board(tables))
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    for table in tables[:3]:  # each id whole, on one line
        assert sum(table.table_id in line for line in lines) == 1, out.getvalue()
    assert any("federation-…" in line for line in lines)
    # the players' cell of each table, read from its column (it wraps between words)
    start = next(line for line in lines if "players" in line).index("players")
    cells: dict[str, str] = {}
    current = ""
    for line in lines:
        ids = [t.table_id for t in tables[:3] if t.table_id in line]
        current = ids[0] if ids else current
        if current and line[start:].strip():
            cells[current] = " ".join([cells.get(current, ""), line[start:].strip()]).strip()
    assert cells["fractured_sky-3f0c9a51d2"] == (
        "Ada 104 #2, Brahe 97 #3, Cassini 88 #4, Dyson 120 #1, Encke 61 #5"
    )
    assert cells["fractured_sky-77aa01bc3e"] == ("Ada 40 #3, black (AI) 52 #1, orange (AI) 47 #2")
    assert cells["spacecraft-5e0512eb8f"] == "Ada, Brahe, Cassini, Dyson"
