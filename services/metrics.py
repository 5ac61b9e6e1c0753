"""Prometheus metrics of a worker or projector process (served on an optional port).

``orrery worker --metrics-port 9100`` (or ``ORRERY_METRICS_PORT``) exposes ``/metrics``:

- ``orrery_commands_total{outcome, code}`` — outcomes sent (accepted / rejected by code /
  duplicate / dead-lettered);
- ``orrery_append_seconds`` — latency of the atomic Lua append (WAITAOF included when on);
- ``orrery_projection_lag_seconds{projection}`` — time from feed entry to projection written;
- ``orrery_group_lag{stream_kind, group, partition}`` / ``orrery_group_pending{...}`` —
  per partition from ``XINFO GROUPS`` (entries not yet delivered / delivered, not acked),
  exported by one worker only (the holder of ``orrery:exporter:worker``);
- ``orrery_dead_letters`` — entries in the dead-letter streams;
- ``orrery_process{role, consumer}`` — 1: which process this is (join on it for the role).

Without a port nothing is served and the counters cost a dictionary lookup each.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from prometheus_client import REGISTRY, Counter, Gauge, Histogram, start_http_server

ENV_PORT = "ORRERY_METRICS_PORT"

COMMANDS = Counter(
    "orrery_commands", "Command outcomes sent, by outcome and rejection code", ["outcome", "code"]
)
APPEND_SECONDS = Histogram(
    "orrery_append_seconds",
    "Latency of the atomic append script (and WAITAOF when enabled)",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0),
)
PROJECTION_LAG = Histogram(
    "orrery_projection_lag_seconds",
    "Time from a feed notification to its projection being written",
    ["projection"],
    buckets=(0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0),
)
GROUP_LAG = Gauge(
    "orrery_group_lag",
    "Entries not yet delivered to a consumer group",
    ["stream_kind", "group", "partition"],
)
GROUP_PENDING = Gauge(
    "orrery_group_pending",
    "Entries delivered but not acknowledged",
    ["stream_kind", "group", "partition"],
)
PROCESS = Gauge("orrery_process", "This process: its role and consumer name", ["role", "consumer"])
DEAD_LETTERS = Gauge("orrery_dead_letters", "Entries in the dead-letter streams")
GROUPS_MISSING = Gauge("orrery_groups_missing", "Consumer groups that do not exist")


def count_outcome(outcome: Any, dead_letter: bool = False) -> None:
    """Count one handled command by its outcome (``Accepted``/``Rejection``/``Duplicate``)."""
    if dead_letter:
        _commands("dead_letter", "").inc()
    if outcome is None:
        return
    _commands(_kind(outcome.__class__), getattr(outcome, "code", "") or "").inc()


@functools.cache
def _kind(outcome_type: type) -> str:
    tag = getattr(outcome_type, "__struct_config__", None)
    return str(tag.tag) if tag is not None and tag.tag else outcome_type.__name__.lower()


@functools.cache
def _commands(kind: str, code: str) -> Any:
    """The counter of one outcome kind and code: looked up once (``labels`` takes a lock
    and builds the key on every call); rejection codes are a fixed set."""
    return COMMANDS.labels(kind, code)


def observe_append(seconds: float) -> None:
    APPEND_SECONDS.observe(seconds)


def observe_projection_lag(projection: str, seconds: float) -> None:
    PROJECTION_LAG.labels(projection).observe(max(seconds, 0.0))


def name_process(role: str, consumer: str) -> None:
    PROCESS.labels(role, consumer).set(1)


def serve_metrics(port: int | None) -> int | None:
    """Start the ``/metrics`` HTTP endpoint on ``port`` (or ``$ORRERY_METRICS_PORT``)."""
    if port is None:
        env = os.environ.get(ENV_PORT)
        port = int(env) if env else None
    if not port:
        return None
    start_http_server(port, addr=os.environ.get("ORRERY_METRICS_ADDR", "0.0.0.0"))
    _serving.append(port)
    return port


_serving: list[int] = []


def serving() -> bool:
    return bool(_serving)


def export_status(rows: list[Any]) -> None:
    """Per-partition group figures (``orrery.ops.status.PartitionStatus`` rows) into gauges."""
    missing = dead = 0
    for row in rows:
        dead += row.dead_letters
        for group in row.groups:
            kind = "commands" if group.stream.endswith(":cmd") else "feed"
            if not group.exists:
                missing += 1
                continue
            label = (kind, group.group, str(row.partition))
            GROUP_LAG.labels(*label).set(group.lag or 0)
            GROUP_PENDING.labels(*label).set(group.pending)
    DEAD_LETTERS.set(dead)
    GROUPS_MISSING.set(missing)


def clear_status() -> None:
    """Export no group figures from this process (another one exports them)."""
    for gauge in (GROUP_LAG, GROUP_PENDING):
        gauge.clear()


def registry() -> Any:
    return REGISTRY
