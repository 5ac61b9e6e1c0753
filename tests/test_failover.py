"""A cluster master dies under load (``orrery.ops.drill``, the code behind ``orrery cluster
drill``): 3 masters with one replica each from the embedded binary, a short
``cluster-node-timeout``, worker and projector processes with ``--wait-replicas 1``,
bots playing tiny games in several lanes; one master gets SIGKILL mid-load.

Afterwards: no command answered ``accepted`` is missing from its table's log (on the
promoted replica), every command got an outcome and none was applied twice, every table
finished and passes the audit, every view and score equals what its log renders, the
processes answered again on the dead master's partitions without a restart, and
``orrery status`` lists the promoted replica as a master with every group present.

(The whole standalone server killed and restarted under load with ``appendfsync
always``: ``tests/test_scaling.py::test_server_restart_with_aof_always_loses_no_accepted_event``.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orrery.ops.drill import run_drill

pytestmark = pytest.mark.cluster

REPO = Path(__file__).resolve().parents[1]


def test_a_master_killed_under_load_loses_no_answered_command(tmp_path: Path) -> None:
    figures = run_drill(
        tmp_path / "drill",
        wait_replicas=1,
        game="tiny",
        lanes=4,
        warmup=30,
        after=20,
        node_timeout_ms=1500,
        claim_idle_ms=2000,
        timeout=240,  # one deadline for the whole drill; generous for a loaded 2-core machine
        extra_env={"PYTHONPATH": str(REPO)},
    )
    assert not figures.lane_errors, figures
    assert figures.killed and figures.promoted, figures
    assert figures.lost_answered == 0, figures
    assert figures.unanswered == 0 and figures.applied_twice == 0, figures
    assert figures.accepted > 50 and figures.tables >= 4, figures
    assert figures.finished == figures.tables, figures
    assert not figures.audits_failed and not figures.projections_differ, figures
    assert figures.status_shows_promoted, figures
    assert figures.rto_s is not None and figures.in_flight_settled_s is not None, figures
    assert figures.passed
