"""``orrery bench replay``: how fast a table's log loads, audits and replays (docs/replay-audit.md).

A Federation table is played with random legal moves (no server, ``services.replay.play_log``)
until it has ``events`` events; the measured log is cut at the end of the command that
holds the last of them (a log never ends inside a command, and a seat never saw the
table there). Each measure is the best of ``repeat`` runs, next to the baseline measured
in the same run: raw untyped msgpack decoding of the same entries. The last measure
loads the table from a temporary embedded server (XRANGE + decode + fold).

Figures are printed next to the target (load 1,000 events in ≤ 10 ms); nothing here
asserts it.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import redis.asyncio as aioredis
from rich.console import Console
from rich.table import Table

from games.table import TableState, apply_entry
from orrery.server.embedded import EmbeddedServer
from orrery_contracts.envelope import RawEnvelope, decode_entry, encode_entry
from services.audit import audit_entries
from services.replay import command_ends, frames, play_log
from services.transfer import import_entries, read_stored_log

GAME = "federation"
SEATS = 4
PARTITIONS = 16  # the temporary server's partition count
TARGET_LOAD_S = 0.010
LOAD = "load: decode + fold"


@dataclass(frozen=True, slots=True)
class ReplayFigure:
    """One measure: how many events it handled in how many seconds (the best run)."""

    game: str
    measure: str
    events: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.events / self.seconds


def measure_replay(events: int, repeat: int, seed: int) -> list[ReplayFigure]:
    """The benchmark's figures, the raw-decode baseline first (also used by tests with
    tiny sizes)."""
    entries, prefix = _bench_log(events, seed)
    encoded = [encode_entry(e) for e in prefix]
    generic = msgspec.msgpack.Decoder()

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

    timed = [
        ("raw msgpack decode (untyped)", len(prefix), _best_of(repeat, raw)),
        (LOAD, len(prefix), _best_of(repeat, load)),
        ("audit: chain, seed, re-decide, standing", len(entries), _best_of(repeat, audit_all)),
        ("replay as a seat: a view per command", len(prefix), _best_of(repeat, replay_seat)),
        (
            "load from the server: XRANGE + decode + fold",
            len(prefix),
            _load_from_server(prefix, repeat),
        ),
    ]
    return [ReplayFigure(GAME, measure, n, seconds) for measure, n, seconds in timed]


def _bench_log(events: int, seed: int) -> tuple[list[RawEnvelope], list[RawEnvelope]]:
    """A complete log of at least ``events`` events, and its first ``events`` cut at the
    end of a command."""
    entries: list[RawEnvelope] = []
    attempt = seed
    while len(entries) < events:
        entries, _ = play_log(GAME, SEATS, attempt, table_id=f"bench-{attempt}")
        attempt += 1000
    # cut at the end of a command: a log never ends inside one (its events are appended
    # together), and a viewer never saw the table there
    cut = max(end for end in command_ends(entries) if end <= max(events, 1))
    return entries, entries[:cut]


def _best_of(repeat: int, work: Callable[[], Any]) -> float:
    """The shortest of ``repeat`` runs of ``work``, in seconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def _load_from_server(prefix: Sequence[RawEnvelope], repeat: int) -> float:
    """The best time to read the table back from a temporary embedded server and fold it."""
    table_id = prefix[0].table_id

    async def timed(url: str) -> float:
        redis = aioredis.Redis.from_url(url)
        try:
            await import_entries(redis, PARTITIONS, prefix)
            times = []
            for _ in range(repeat):
                started = time.perf_counter()
                stored = await read_stored_log(redis, PARTITIONS, table_id)
                state = TableState(table_id=table_id)
                for entry in stored.entries:
                    state = apply_entry(state, entry)
                times.append(time.perf_counter() - started)
            return min(times)
        finally:
            await redis.aclose()

    with tempfile.TemporaryDirectory() as folder, EmbeddedServer(Path(folder)) as server:
        return asyncio.run(timed(server.url))


def print_replay(figures: Sequence[ReplayFigure], repeat: int) -> None:
    """The figures as a table (times against the raw decode's), then the target's verdict."""
    table = Table(title=f"replay and audit ({figures[0].game}, best of {repeat})")
    for column in ("measure", "events", "ms", "events/s", "× raw decode time"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    raw_rate = figures[0].rate
    for figure in figures:
        table.add_row(
            figure.measure,
            f"{figure.events:,}",
            f"{figure.seconds * 1000:.2f}",
            f"{figure.rate:,.0f}",
            f"{raw_rate / figure.rate:.1f}",
        )
    console = Console() if sys.stdout.isatty() else Console(width=120)
    console.print(table)
    load = next(f for f in figures if f.measure == LOAD)
    verdict = "met" if load.seconds <= TARGET_LOAD_S else "missed"
    console.print(
        f"target: load a {load.events:,}-event table in ≤ 10 ms: "
        f"{load.seconds * 1000:.2f} ms ({verdict})"
    )
