"""Rolling a game's arena season over exactly once, whoever runs it (``orrery season
rollover``, or the tournament organiser when the season's end has passed) and however
it is cut short.

The rollover of season N: (1) its final table to the archive (a second write of the same
game and number changes nothing); (2) the soft reset that begins season N + 1 marked
``pending`` beside the ratings (``keys.season_reset_key``); (3) season N + 1 written in
place of N by a script that compares the key with the season read, so of two rollovers
of N one writes and the other finds N + 1; (4) the pending reset applied by a script
that widens each rating only if it is still the one read (else it reads again) and marks
the reset ``done``: each season's reset happens once, and a game rated meanwhile is rated
on the ratings before it or after it, never half. Every call first finishes a reset left
``pending`` by a rollover killed between (3) and (4).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec

from competitions.seasons import Rating, first_season, rollover, widened
from competitions.settings import SeasonSettings
from orrery_contracts import keys
from orrery_contracts.tournaments import SeasonTable, SeasonView, season_view_decoder

SWAP = (Path(__file__).parent / "season_swap.lua").read_text()
RESET = (Path(__file__).parent / "season_reset.lua").read_text()
PENDING = "pending"
_RETRIES = 20

PutTable = Callable[[SeasonTable], Awaitable[None]]


class _Stored(msgspec.Struct):
    mu: float
    sigma: float
    games: int = 0


_stored = msgspec.json.Decoder(_Stored)
_json = msgspec.json.Encoder()


def _players(raw: dict[bytes, bytes]) -> dict[str, bytes]:
    """The players' stored ratings (the bot levels are rated but play in no league)."""
    return {k.decode(): v for k, v in raw.items() if not k.startswith(b"bot:")}


async def ratings_of(redis: Any, game: str) -> dict[str, Rating]:
    found = {}
    for name, value in _players(await redis.hgetall(keys.ratings_key(game))).items():
        r = _stored.decode(value)
        found[name] = Rating(r.mu, r.sigma, r.games)
    return found


async def current(redis: Any, game: str) -> SeasonView | None:
    raw = await redis.get(keys.season_key(game))
    return season_view_decoder.decode(raw) if raw else None


async def finish_reset(redis: Any, game: str, number: int, settings: SeasonSettings) -> bool:
    """Apply season ``number``'s soft reset if it is pending; True when this call did."""
    marks = keys.season_reset_key(game)
    for _ in range(_RETRIES):
        if await redis.hget(marks, str(number)) != PENDING.encode():
            return False
        args: list[Any] = [str(number)]
        for player, raw in _players(await redis.hgetall(keys.ratings_key(game))).items():
            stored = msgspec.json.decode(raw)
            stored["sigma"] = widened(float(stored["sigma"]), settings)
            args += [player, raw, _json.encode(stored)]
        done = int(await redis.eval(RESET, 2, keys.ratings_key(game), marks, *args))
        if done >= 0:
            return done == 1
    raise RuntimeError(f"{game}: the ratings kept changing during season {number}'s reset")


async def roll(
    redis: Any,
    put_table: PutTable,
    game: str,
    settings: SeasonSettings,
    *,
    force: bool = False,
    start: bool = True,
    now: int,
    swapped: Callable[[], None] | None = None,
) -> tuple[SeasonTable | None, SeasonView | None]:
    """Start the game's first season (``start``), or end the current one when it is over
    (``force``: now) and begin the next. Returns the season table this call ended (None:
    none) and the season now current (None: none yet). ``swapped`` is called once the next
    season is written, before its reset (the tests' fault injection)."""
    raw = await redis.get(keys.season_key(game))
    if raw is None:
        if not start:
            return None, None
        started = first_season(game, await ratings_of(redis, game), now, settings)
        await redis.set(keys.season_key(game), _json.encode(started), nx=True)
        return None, await current(redis, game)
    season = season_view_decoder.decode(raw)
    await finish_reset(redis, game, season.number, settings)
    if now < season.ends_at and not force:
        return None, season
    table, following, _ = rollover(season, await ratings_of(redis, game), now, settings)
    await put_table(table)
    # never over a "done": a rollover that lost the race must not make a reset pending again
    await redis.hsetnx(keys.season_reset_key(game), str(following.number), PENDING)
    written = int(await redis.eval(SWAP, 1, keys.season_key(game), raw, _json.encode(following)))
    if not written:
        return None, await current(redis, game)
    if swapped is not None:
        swapped()
    await finish_reset(redis, game, following.number, settings)
    return table, following
