"""Which decider worker reads which partition's command stream.

With every worker reading every partition, two workers split each partition's entries
between them: a table's consecutive commands land in both processes, each append makes
the other's cached state stale (a version conflict, a reload, a second decide), batches
get half as big and every partition is polled twice. So each partition is read by one
worker at a time, chosen from the workers that are alive:

* every worker beats in the hash ``orrery:deciders`` (its consumer name → the server's
  time in ms, by one script: no clock of any host is compared with another's) every
  :data:`TICK_S`, and the script returns the workers whose beat is younger than the
  time to live (``ORRERY_WORKER_TTL_S``, default 5 s); older ones are removed;
* partition ``p`` belongs to the ``p % n``-th of the ``n`` live workers in name order:
  every worker computes the same assignment from the same list, and only the partitions
  of a worker that joined or left move;
* a worker stops reading the partitions it no longer owns (a read in flight is not
  cancelled: what it brings is handled as usual, so nothing is left pending) and starts
  reading the ones it now owns; a worker that stops removes itself, so the
  others take its partitions at their next beat; one that dies loses them when its beat
  is too old.

The claimers keep running on every partition in every worker: the pending entries of a
dead worker are claimed after the idle time as before. While the live list changes, two
workers may read a partition for a moment, or none for up to a beat: never wrong (the
append script dedupes and checks the version), only slower for that moment.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import structlog

from orrery_contracts.text import as_text
from services.settings import WorkerSettings
from streams.readers import StreamSwitch

log = structlog.get_logger("orrery.assignment")

LIVE_KEY = "orrery:deciders"
TICK_S = 1.0

# KEYS: 1 the live hash. ARGV: 1 this worker's name, 2 time to live (ms).
# Beats with the server's clock, drops the dead, returns the live names.
_BEAT = (Path(__file__).parent / "assignment_beat.lua").read_text()


def assigned(partitions: int, live: list[str], me: str) -> set[int]:
    """The partitions ``me`` reads when ``live`` are the live workers."""
    members = sorted(set(live) | {me})
    rank, n = members.index(me), len(members)
    return {p for p in range(partitions) if p % n == rank}


class Assignment:
    """The readers of one worker process, started and stopped by partition ownership."""

    def __init__(self, partitions: int, consumer: str, ttl_s: float | None = None) -> None:
        self.partitions = partitions
        self.consumer = consumer
        ttl = ttl_s if ttl_s is not None else WorkerSettings.from_env().worker_ttl_s
        self.ttl_ms = max(int(ttl * 1000), int(TICK_S * 2000))
        self.readers: dict[int, StreamSwitch] = {}
        self.owned: set[int] = set(range(partitions))  # every partition is read at start
        self.stopping = asyncio.Event()

    def stop(self) -> None:
        """End :meth:`run` at its next beat (besides cancelling it: a cancellation lost
        in a Redis call must not keep it beating)."""
        self.stopping.set()

    def add_reader(self, p: int, reader: StreamSwitch) -> None:
        self.readers[p] = reader

    async def beat(self, redis: Any) -> set[int]:
        """Say this worker is alive; the partitions it owns now."""
        live = await redis.eval(_BEAT, 1, LIVE_KEY, self.consumer, self.ttl_ms)
        return assigned(self.partitions, [as_text(name) for name in live], self.consumer)

    def apply(self, owned: set[int]) -> None:
        """Read the ``owned`` partitions and no other (a switch takes effect at the
        reader's next read)."""
        if owned == self.owned:
            return
        for p, reader in self.readers.items():
            if p in owned:
                reader.start()
            else:
                reader.stop()
        self.owned = owned
        parked = sorted(set(self.readers) - owned)
        log.info("partitions_assigned", owned=sorted(owned), parked=parked)

    async def run(self, redis: Any) -> None:
        """Beat and follow the assignment until cancelled; then leave the live list.

        After beats failed for longer than the time to live (the server or the hash's
        node was away), every other worker's beat looks too old too: the first beat
        back only says this worker is alive, and the assignment follows from the next
        one, once the others had a beat to come back."""
        last_ok = asyncio.get_running_loop().time()
        try:
            while not self.stopping.is_set():
                try:
                    owned = await self.beat(redis)
                    now = asyncio.get_running_loop().time()
                    if (now - last_ok) * 1000 <= self.ttl_ms:
                        self.apply(owned)
                    last_ok = now
                except Exception as error:  # Redis away: keep what we read, beat again
                    log.warning("assignment_failed", error=str(error))
                await asyncio.sleep(TICK_S)
        finally:
            with contextlib.suppress(Exception):
                await redis.hdel(LIVE_KEY, self.consumer)
