"""The command line tells the truth (issue 28): what each command prints matches its data.

* ``orrery status``: every cell of the printed partition table equals ``--json``, on a
  server with live, finished and dead-lettered tables;
* ``orrery demo``: the summary keeps each table id whole at 80 columns.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from orrery.runtime import prepare, spawn, stop_processes
from orrery.server.embedded import EmbeddedServer
from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from tests.support.tinygame import Stand

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "ORRERY_LOG_LEVEL": "warning", "COLUMNS": "80"}
PARTITIONS = 4


def orrery(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orrery.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=ENV,
        cwd=REPO,
    )


def table_in(partition: int, prefix: str) -> str:
    for i in range(1000):
        if keys.partition_of(f"{prefix}-{i}", PARTITIONS) == partition:
            return f"{prefix}-{i}"
    raise AssertionError("unreachable")


# ---------------------------------------------------------------- status


async def _tables_of_every_kind(url: str) -> None:
    """Partition 0: a finished table; 1: a live one (seated, not finished); 2: a command
    dead-lettered (its reply_to names no reply stream); 3: nothing."""
    async with OrreryClient(url) as client:
        finished = table_in(0, "done")
        await client.create_table("tiny", 2, table_id=finished)
        a = await client.join(finished, "Ann")
        b = await client.join(finished, "Bob")
        await client.start(a)
        await client.accept(finished, Stand(), seat=a.seat, token=a.token)
        last = await client.accept(finished, Stand(), seat=b.seat, token=b.token)
        await client.wait_view(finished, None, last.last_seq, timeout=30)
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
    env = {"ORRERY_LOG_LEVEL": "critical"}
    with EmbeddedServer(tmp_path) as server:
        asyncio.run(prepare(server.url, PARTITIONS))
        processes = [spawn("worker", server.url, 0, env), spawn("projector", server.url, 1, env)]
        try:
            asyncio.run(_tables_of_every_kind(server.url))
        finally:
            stop_processes(processes)  # nothing moves between the two reads below
        text = orrery("status", "--redis-url", server.url)
        data = orrery("status", "--redis-url", server.url, "--json")
    assert text.returncode == 0 and data.returncode == 0, text.stderr + data.stderr
    doc = json.loads(data.stdout)
    header, rows = printed_partitions(text.stdout)
    assert max(len(line) for line in text.stdout.splitlines()) <= 80
    assert header == ["p", "backlog", "deciders", "projections", "dead", "live", "finished"]
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
