"""Servers get ports no client socket can take meanwhile, and a cluster node whose port
was taken anyway is started again elsewhere (the cause of a flaky ``cluster up``: a
chosen port, or its bus port + 10000, inside the kernel's range for outgoing
connections, taken by one of them before the node bound it)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import redis

from orrery.server import cluster
from orrery.server.embedded import ephemeral_low, free_port

pytestmark = pytest.mark.service


def test_server_ports_lie_below_the_outgoing_range() -> None:
    low = ephemeral_low()
    for _ in range(50):
        port = free_port()
        bus = free_port(bus=True)
        assert port < low and bus + 10000 < low


@pytest.mark.cluster
def test_a_node_whose_port_was_taken_starts_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    squatter = socket.socket()  # holds a port as an outgoing connection would: not listening
    squatter.bind(("127.0.0.1", free_port()))
    taken = squatter.getsockname()[1]
    choices = iter([[taken, free_port(bus=True), free_port(bus=True)]])
    chosen = cluster.free_ports
    monkeypatch.setattr(cluster, "free_ports", lambda n: next(choices, None) or chosen(n))
    nodes = cluster.LocalCluster(tmp_path / "c")
    try:
        nodes.start()
        assert taken not in nodes.ports and len(nodes.ports) == 3
        client = redis.Redis(port=nodes.ports[0], decode_responses=True)
        assert client.cluster("info")["cluster_state"] == "ok"
        client.close()
    finally:
        nodes.stop()
        squatter.close()
