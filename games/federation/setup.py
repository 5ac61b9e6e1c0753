"""The opening: every random draw of the setup, recorded in one SetUp event, then the
automatic part of the setup (start-tile picks in reverse order, round 1) up to the first
choice."""

from __future__ import annotations

from random import Random

from games.federation.automatic import start
from games.federation.state import FederationState, initial_state
from games.federation.working_copy import Ctx
from orrery_contracts.base import EventBody
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation.options import FederationOptions


def deal(seats: int, rng: Random) -> ev.SetUp:
    """The setup event: every random draw, and the content the fold needs."""
    asteroids = rng.sample(range(len(cat.ASTEROIDS)), len(cat.ORANGE_TOKEN_LEVELS))
    orange = [-1] * (cat.ORANGE_MAX + 1)
    for lvl, token in zip(cat.ORANGE_TOKEN_LEVELS, asteroids, strict=True):
        orange[lvl] = token
    by_power: dict[int, list[int]] = {}
    for i, (power, _, _) in enumerate(cat.ALTERATIONS):
        by_power.setdefault(power, []).append(i)
    for pool in by_power.values():
        rng.shuffle(pool)
    blue = [[by_power[power].pop() for _ in range(cat.BLUE_SPOTS)] for power in cat.BLUE_POWER]
    production = rng.sample(range(len(cat.PRODUCTION)), cat.N_PRODUCTION)
    criteria = list(range(len(cat.MEGA_CRITERIA)))
    rng.shuffle(criteria)
    mega = [criteria[2 * i : 2 * i + 2] for i in range(cat.N_MEGA)]
    start_tiles = sorted(rng.sample(range(len(cat.START_TILES)), seats + 1))
    deep = rng.sample(range(len(cat.DEEP_SPACE)), seats + 1)
    laws = [rng.sample(range(5), 5), rng.sample(range(5), 5)]
    return ev.SetUp(
        orange_tokens=orange,
        blue_tokens=blue,
        production=production,
        mega=mega,
        start_tiles=start_tiles,
        deep_space=deep,
        laws=laws,
        start_player=rng.randrange(seats),
        start_ships=cat.START_SHIPS,
        dead_asteroids=cat.DEAD_ASTEROIDS,
        erudite_stock=list(cat.ERUDITE_STOCK),
        medal_thresholds=list(cat.MEDAL_THRESHOLDS[seats]),
    )


def empty_state(options: FederationOptions, seats: int) -> FederationState:
    """The state before the setup event: the table's options and seats, no content."""
    return initial_state(seats, options.law_effect, options.project_prizes, options.president_medal)


def setup(options: FederationOptions, seats: int, rng: Random) -> list[EventBody]:
    """The opening events: the deal, the start-tile picks and round 1's start."""
    ctx = Ctx(empty_state(options, seats), rng)
    ctx.emit(deal(seats, rng))
    start(ctx)
    return ctx.events
