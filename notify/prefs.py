"""A player's notification preferences: stored, checked, and the quiet hours worked out
in their own time zone (pure functions of the preferences and a time)."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec

from notify.models import NotificationPrefs
from orrery_contracts import keys

_decode = msgspec.json.Decoder(NotificationPrefs)
DEFAULT = NotificationPrefs()
_MINUTE_MS = 60_000


def zone(name: str) -> ZoneInfo | None:
    """The IANA time zone ``name`` (None: no such zone)."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def quiet_until(prefs: NotificationPrefs, now_ms: int) -> int | None:
    """When the quiet hours around ``now_ms`` end (unix ms), or None when it is not
    quiet now. A window whose end is before its start runs past midnight; start ==
    end is no window."""
    quiet = prefs.quiet_hours
    tz = zone(prefs.time_zone)
    if quiet is None or tz is None:
        return None
    start, end = _minutes(quiet.start), _minutes(quiet.end)
    if start == end:
        return None

    def inside(ms: int) -> bool:
        local = dt.datetime.fromtimestamp(ms / 1000, tz)
        minute = local.hour * 60 + local.minute
        return start <= minute < end if start < end else (minute >= start or minute < end)

    if not inside(now_ms):
        return None
    local = dt.datetime.fromtimestamp(now_ms / 1000, tz)
    minute = local.hour * 60 + local.minute
    day = local.date() if minute < end else local.date() + dt.timedelta(days=1)
    ends = int(dt.datetime.combine(day, dt.time(end // 60, end % 60), tz).timestamp() * 1000)
    # an end the clocks skip (a daylight-saving jump) reads as after the jump: the
    # hours end at the jump itself, the first minute outside them
    while ends - _MINUTE_MS > now_ms and not inside(ends - _MINUTE_MS):
        ends -= _MINUTE_MS
    return ends


def check(prefs: NotificationPrefs) -> str | None:
    """Why the preferences cannot be kept (None: they can)."""
    if zone(prefs.time_zone) is None:
        return f"no such time zone: {prefs.time_zone[:64]}"
    if len(set(prefs.channels)) != len(prefs.channels):
        return "name each channel once"
    return None


async def load(redis: Any, player_id: str) -> NotificationPrefs:
    raw = await redis.get(keys.notify_prefs_key(player_id))
    if raw is None:
        return DEFAULT
    try:
        return _decode.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return DEFAULT


async def save(redis: Any, player_id: str, prefs: NotificationPrefs) -> None:
    await redis.set(keys.notify_prefs_key(player_id), msgspec.json.encode(prefs))


def without_email(prefs: NotificationPrefs) -> NotificationPrefs:
    return msgspec.structs.replace(prefs, channels=[c for c in prefs.channels if c != "email"])
