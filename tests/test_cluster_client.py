"""The cluster client's local key look-up for stream reads (orrery_client/cluster.py) and
``bench scale``'s error count and turns (orrery/bench/scale.py): pure functions, no
server."""

from __future__ import annotations

import json

import pytest

from orrery.bench.scale import ScaleFigures, cluster_ratios, count_errors, turn_order
from orrery_client.cluster import read_stream_keys_locally, stream_read_keys

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("args", "keys"),
    [
        (("XREAD", "COUNT", 10, "BLOCK", 500, "STREAMS", "a{1}", "$"), ["a{1}"]),
        (("XREAD", "STREAMS", "a{1}", "b{1}", "0", "0"), ["a{1}", "b{1}"]),
        (("XREADGROUP", "GROUP", "g", "c", "COUNT", 1, "STREAMS", "s{2}", ">"), ["s{2}"]),
        # a group and a consumer named "streams" are names, not the keyword
        (("XREADGROUP", "GROUP", "streams", "STREAMS", "STREAMS", "k{3}", ">"), ["k{3}"]),
        ((b"xreadgroup", b"GROUP", b"g", b"c", b"NOACK", b"streams", b"k", b">"), [b"k"]),
        (("XREAD", "STREAMS", "a", "b", "0"), None),  # keys and ids do not pair up
        (("XREAD", "COUNT", 1), None),
        (("GET", "k"), None),
        ((), None),
    ],
)
def test_stream_read_keys(args: tuple[object, ...], keys: list[object] | None) -> None:
    assert stream_read_keys(args) == keys


async def test_only_stream_reads_skip_the_server() -> None:
    asked: list[tuple[object, ...]] = []

    class Parser:
        async def get_keys(self, *args: object) -> list[object]:
            asked.append(args)
            return ["from-server"]

    class Client:
        commands_parser = Parser()

    client = read_stream_keys_locally(read_stream_keys_locally(Client()))  # twice: once
    parser = client.commands_parser
    assert await parser.get_keys("XREAD", "STREAMS", "s", "$") == ["s"]
    assert await parser.get_keys("SORT", "k", "STORE", "d") == ["from-server"]
    assert asked == [("SORT", "k", "STORE", "d")]


def test_count_errors_reads_structlog_and_stdlib_lines() -> None:
    lines = [
        json.dumps({"event": "projection_failed", "level": "error"}),
        json.dumps({"event": "projection_failed", "level": "error"}),
        json.dumps({"event": "projection_retried", "level": "warning"}),
        json.dumps({"event": "boom", "level": "critical"}),
        "ERROR:orrery.faststream:Message fetch error",
        "Traceback (most recent call last):",
        "{not json",
    ]
    counted = count_errors("\n".join(lines).encode())
    assert counted == {"projection_failed": 2, "boom": 1, "orrery.faststream": 1}


def _figure(run: int, target: str, workers: int, play: float, errors: int) -> ScaleFigures:
    return ScaleFigures(
        target=target,
        workers=workers,
        burst_commands=100,
        burst_per_s=play * 2,
        play_commands=100,
        play_per_s=play,
        baseline_per_s=1000.0,
        burst_ratio=0.0,
        play_ratio=0.0,
        events=0,
        finished=0,
        bytes_per_event=0.0,
        bytes_per_game=0.0,
        run=run,
        errors=errors,
    )


def test_cluster_ratios_pair_runs_and_worker_counts() -> None:
    figures = [
        _figure(1, "standalone", 1, 200.0, 0),
        _figure(1, "cluster-3", 1, 180.0, 3),
        _figure(1, "standalone", 2, 100.0, 0),
        _figure(1, "cluster-3", 2, 150.0, 0),
        _figure(2, "cluster-3", 1, 50.0, 0),  # no standalone in run 2: no ratio
    ]
    ratios = cluster_ratios(figures)
    assert [(r.run, r.workers, r.play_ratio, r.errors) for r in ratios] == [
        (1, 1, 0.9, 3),
        (1, 2, 1.5, 0),
    ]


def test_the_targets_take_turns_and_neither_always_follows_the_other() -> None:
    rounds = [turn_order(r, 2) for r in range(4)]
    assert rounds == [[0, 1], [1, 0], [0, 1], [1, 0]]
    # over an even number of rounds each target plays first as often as second
    assert sum(order[0] == 0 for order in rounds) == 2
    assert turn_order(0, 1) == turn_order(1, 1) == [0]  # one target alone
