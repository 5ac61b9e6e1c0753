"""Quiet hours in the player's own time zone (notify/prefs.py ``quiet_until``), against a
walk minute by minute through the player's local clock: the hours are quiet exactly
when the local time is inside the window, and they end at the first minute whose local
time is outside it, across midnight, daylight-saving changes and zones whose offsets
are not whole hours. Also which preferences are refused."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from notify.models import NotificationPrefs, QuietHours
from notify.prefs import check, quiet_until

pytestmark = pytest.mark.unit

ZONES = [
    "UTC",
    "Europe/Paris",
    "America/New_York",
    "Australia/Lord_Howe",  # half an hour of daylight saving
    "Asia/Kathmandu",  # +05:45
    "Pacific/Chatham",  # +12:45 / +13:45
    "America/St_Johns",  # -03:30 / -02:30
    "Pacific/Kiritimati",  # +14:00
]
MINUTE = 60_000
START = int(dt.datetime(2024, 1, 1, tzinfo=dt.UTC).timestamp() * 1000)
END = int(dt.datetime(2030, 12, 31, tzinfo=dt.UTC).timestamp() * 1000)


def _clock(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def _inside(local: dt.datetime, start: int, end: int) -> bool:
    minute = local.hour * 60 + local.minute
    if start < end:
        return start <= minute < end
    return minute >= start or minute < end


def _walked(now_ms: int, zone: str, start: int, end: int) -> int | None:
    """When the quiet hours around ``now_ms`` end, walking the local clock a minute at a
    time (None: not quiet now)."""
    tz = ZoneInfo(zone)
    if start == end or not _inside(dt.datetime.fromtimestamp(now_ms / 1000, tz), start, end):
        return None
    at = (now_ms // MINUTE + 1) * MINUTE
    while _inside(dt.datetime.fromtimestamp(at / 1000, tz), start, end):
        at += MINUTE
        assert at - now_ms < 26 * 3600 * 1000, "quiet for more than a day"
    return at


def _prefs(zone: str, start: int, end: int) -> NotificationPrefs:
    quiet = QuietHours(start=_clock(start), end=_clock(end))
    return NotificationPrefs(quiet_hours=quiet, time_zone=zone)


def _ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).timestamp() * 1000)


@settings(max_examples=300, deadline=None)
@given(
    now_ms=st.integers(START, END),
    zone=st.sampled_from(ZONES),
    start=st.integers(0, 24 * 60 - 1),
    end=st.integers(0, 24 * 60 - 1),
)
# a window ending inside the hour the clocks skip (Paris, 29 March 2026, 02:00 → 03:00):
# quiet until the jump, not until an 02:30 that never comes
@example(now_ms=_ms("2026-03-29T00:45:00+00:00"), zone="Europe/Paris", start=60, end=150)
# ending inside the hour that comes twice (Paris, 25 October 2026): the first time
@example(now_ms=_ms("2026-10-25T00:10:00+00:00"), zone="Europe/Paris", start=60, end=150)
# past midnight, in New York (a day's end there is not UTC's)
@example(now_ms=_ms("2026-01-15T04:00:00+00:00"), zone="America/New_York", start=1320, end=450)
def test_quiet_hours_end_when_the_local_clock_leaves_them(
    now_ms: int, zone: str, start: int, end: int
) -> None:
    assert quiet_until(_prefs(zone, start, end), now_ms) == _walked(now_ms, zone, start, end)


def test_the_players_zone_decides_not_the_servers() -> None:
    """22:00 to 07:30: 23:00 in Paris is quiet until 07:30 in Paris (06:30 UTC in
    winter); the same instant is 18:00 in New York, not quiet there."""
    night = _ms("2026-01-15T22:00:00+00:00")  # 23:00 in Paris
    paris = _prefs("Europe/Paris", 22 * 60, 7 * 60 + 30)
    assert quiet_until(paris, night) == _ms("2026-01-16T06:30:00+00:00")
    new_york = _prefs("America/New_York", 22 * 60, 7 * 60 + 30)
    assert quiet_until(new_york, night) is None
    assert quiet_until(NotificationPrefs(time_zone="Europe/Paris"), night) is None  # no window
    assert quiet_until(_prefs("Europe/Paris", 600, 600), night) is None  # start == end


def test_preferences_refused() -> None:
    assert check(NotificationPrefs(time_zone="Mars/Olympus")) is not None
    assert check(NotificationPrefs(channels=["push", "push"])) is not None
    assert check(NotificationPrefs(channels=[], time_zone="Asia/Kathmandu")) is None
