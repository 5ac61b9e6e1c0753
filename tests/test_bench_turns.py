"""``orrery bench`` takes its baseline and service windows in turns and pools each side's
windows (orrery/bench/service.py): the pooling and the turn order, without a server."""

from __future__ import annotations

import pytest

from orrery.bench.service import SIDES, Recorder, pooled_use, turn_order

pytestmark = pytest.mark.unit


def _window(start: float, seconds: float, latencies: list[float], answered: int) -> Recorder:
    recorder = Recorder(start=start, end=start + seconds)
    recorder.latencies += latencies
    recorder.answered = recorder.accepted = answered
    return recorder


def test_a_sides_windows_pool_into_one_rate_and_one_set_of_samples() -> None:
    fast = _window(10.0, 2.0, [0.001, 0.002], answered=400)  # 200/s
    slow = _window(50.0, 2.0, [0.004], answered=200)  # 100/s
    pooled = Recorder.pooled([fast, slow])
    # commands over the time measured together: not the mean of the windows' rates
    # weighted otherwise, and not the span from the first window's start to the last's end
    assert pooled.rate == pytest.approx(600 / 4.0)
    assert sorted(pooled.latencies) == [0.001, 0.002, 0.004]
    assert (pooled.answered, pooled.accepted, pooled.rejected) == (600, 600, 0)


def test_cpu_shares_are_weighted_by_window_length_and_counts_summed() -> None:
    short = {"workers": 90.0, "server calls": 1_000.0, "aof bytes/s": 2_000.0}
    long = {"workers": 30.0, "server calls": 3_000.0, "aof bytes/s": 1_000.0}
    used = pooled_use([(1.0, short), (3.0, long)])
    assert used["workers"] == pytest.approx((90 * 1 + 30 * 3) / 4)  # % of a core
    assert used["aof bytes/s"] == pytest.approx((2_000 * 1 + 1_000 * 3) / 4)
    assert used["server calls"] == 4_000  # a count over each window: summed
    # a part one window could not measure is not known for the side
    assert pooled_use([(1.0, {"server": None}), (1.0, {"server": 5.0})]) == {"server": None}


def test_the_sides_take_turns_and_neither_always_measures_first() -> None:
    assert turn_order(0) == SIDES == ("baseline", "service")
    assert turn_order(1) == ("service", "baseline")
    assert turn_order(2) == turn_order(0)
