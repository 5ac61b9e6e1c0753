"""The tournament organiser's and the seasons' settings (read by ``orrery matchmaker``,
which runs the organiser, and by ``orrery season``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from orrery_contracts.settings import DEVELOPMENT, MATCHMAKING, Setting, number, whole

LEASE_ENV = "ORRERY_TOURNAMENT_LEASE_MS"
CYCLE_ENV = "ORRERY_TOURNAMENT_CYCLE_S"
DUTCH_MAX_ENV = "ORRERY_TOURNAMENT_DUTCH_MAX_PLAYERS"
END_GRACE_ENV = "ORRERY_TOURNAMENT_END_GRACE_S"
FAULT_ENV = "ORRERY_FAULT_KILL_ORGANISER_AFTER"
SEASON_DAYS_ENV = "ORRERY_SEASON_DAYS"
SEASON_LEAGUES_ENV = "ORRERY_SEASON_LEAGUES"
SEASON_BAND_ENV = "ORRERY_SEASON_LEAGUE_BAND"
SEASON_FLOOR_ENV = "ORRERY_SEASON_LEAGUE_FLOOR"
SEASON_WIDEN_ENV = "ORRERY_SEASON_SIGMA_WIDEN"
SEASON_SIGMA_MAX_ENV = "ORRERY_SEASON_SIGMA_MAX"
SEASON_BEGIN_ENV = "ORRERY_SEASON_BEGIN"


@dataclass(frozen=True)
class OrganiserSettings:
    lease_ms: int = 10_000
    cycle_s: float = 1.0
    dutch_max: int = 128
    end_grace_s: float = 60.0
    fault: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> OrganiserSettings:
        return cls(
            lease_ms=whole(environ, LEASE_ENV, 10_000),
            cycle_s=number(environ, CYCLE_ENV, 1.0),
            dutch_max=whole(environ, DUTCH_MAX_ENV, 128),
            end_grace_s=number(environ, END_GRACE_ENV, 60.0),
            fault=environ.get(FAULT_ENV, ""),
        )


@dataclass(frozen=True)
class SeasonSettings:
    days: float = 91.0
    leagues: int = 6
    band: float = 100.0
    floor: float = 1300.0
    widen: float = 1.5
    sigma_max: float = 500.0
    begin: bool = True  # the organiser begins a game's first season

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> SeasonSettings:
        return cls(
            days=number(environ, SEASON_DAYS_ENV, 91.0),
            leagues=whole(environ, SEASON_LEAGUES_ENV, 6),
            band=number(environ, SEASON_BAND_ENV, 100.0),
            floor=number(environ, SEASON_FLOOR_ENV, 1300.0),
            widen=number(environ, SEASON_WIDEN_ENV, 1.5),
            sigma_max=number(environ, SEASON_SIGMA_MAX_ENV, 500.0),
            begin=whole(environ, SEASON_BEGIN_ENV, 1) != 0,
        )


SETTINGS = (
    Setting(
        LEASE_ENV,
        "10000",
        "matchmaker",
        "how long the tournament organiser (inside a matchmaker) holds the tournaments "
        "without renewing its lease (a crashed organiser's rounds wait this long)",
        MATCHMAKING,
    ),
    Setting(
        CYCLE_ENV,
        "1",
        "matchmaker",
        "how often the organiser looks for finished tables, deadlines and rounds to pair",
        MATCHMAKING,
    ),
    Setting(
        DUTCH_MAX_ENV,
        "128",
        "matchmaker, tournament audit",
        "the largest two-seat Swiss field paired by the FIDE Dutch system; larger fields "
        "are paired by score-group pods",
        MATCHMAKING,
    ),
    Setting(
        END_GRACE_ENV,
        "60",
        "matchmaker",
        "after a round's deadline, how long the organiser waits for the tables it ended "
        "(`table.end`) to report their standing before it ends them in the tournament "
        "alone, their players sharing the rank",
        MATCHMAKING,
    ),
    Setting(
        SEASON_BEGIN_ENV,
        "1",
        "matchmaker",
        "1: the tournament organiser begins each hosted game's first arena season by "
        "itself; 0: an operator begins it (`orrery season rollover GAME`)",
        MATCHMAKING,
    ),
    Setting(
        SEASON_DAYS_ENV,
        "91",
        "season",
        "how long an arena season lasts (days)",
        MATCHMAKING,
    ),
    Setting(
        SEASON_LEAGUES_ENV,
        "6",
        "season",
        "leagues below the elite league, by rating band",
        MATCHMAKING,
    ),
    Setting(
        SEASON_BAND_ENV,
        "100",
        "season",
        "the rating width of each league",
        MATCHMAKING,
    ),
    Setting(
        SEASON_FLOOR_ENV,
        "1300",
        "season",
        "the rating where the second league begins (below it: the first league)",
        MATCHMAKING,
    ),
    Setting(
        SEASON_WIDEN_ENV,
        "1.5",
        "season",
        "the soft reset: each rating's uncertainty (sigma) is multiplied by this",
        MATCHMAKING,
    ),
    Setting(
        SEASON_SIGMA_MAX_ENV,
        "500",
        "season",
        "the soft reset never widens an uncertainty beyond this",
        MATCHMAKING,
    ),
    Setting(
        FAULT_ENV,
        "–",
        "matchmaker",
        "SIGKILL the organiser right after `paired`, `create`, `join` or `start` (its first "
        "table), or `season` (a season rolled over, its soft reset not yet applied)",
        DEVELOPMENT,
    ),
)
