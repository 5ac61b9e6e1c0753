"""A projector runs below the deciders' CPU priority (``ORRERY_PROJECTOR_NICE``, default
2), so that on shared CPUs an outcome does not wait behind a projection batch; 0 keeps
the same priority. Read from the live processes' ``/proc/<pid>/stat``."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from orrery.cli import DEFAULT_PROJECTOR_NICE
from orrery_contracts import keys
from tests.support.service import LiveService, live_service

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def _nice(pid: int) -> int:
    # the 19th field; the fields after the command name's closing parenthesis start at 3
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def _projector_reading(service: LiveService) -> None:
    """Wait until the projector reads its feeds (it set its priority before that)."""
    redis = service.sync_redis()
    try:
        for _ in range(300):
            try:
                if redis.xinfo_consumers(keys.feed_stream(0), keys.PROJECTIONS_GROUP):
                    return
            except Exception:
                pass  # the group is not there yet
            time.sleep(0.05)
    finally:
        redis.close()
    raise AssertionError("the projector never read its feed")


def test_the_projector_runs_below_the_deciders_priority(tmp_path: Path) -> None:
    ours = _nice(os.getpid())
    with live_service(tmp_path) as service:
        worker, projector = service.processes
        _projector_reading(service)
        # (the kernel caps a nice value at 19)
        assert _nice(projector.pid) == min(ours + DEFAULT_PROJECTOR_NICE, 19)
        assert _nice(worker.pid) == ours


def test_a_projector_nice_of_zero_keeps_the_same_priority(tmp_path: Path) -> None:
    ours = _nice(os.getpid())
    with live_service(tmp_path, workers=0, ORRERY_PROJECTOR_NICE="0") as service:
        (projector,) = service.processes
        _projector_reading(service)
        assert _nice(projector.pid) == ours
