"""Arena seasons: each game's season (``ORRERY_SEASON_DAYS``, three months by default)
sorts its rated players into leagues by rating band: the first league below
``ORRERY_SEASON_LEAGUE_FLOOR``, then one league every ``ORRERY_SEASON_LEAGUE_BAND``
rating points (``ORRERY_SEASON_LEAGUES`` of them, six by default), and above the last
band the elite.

At a season's end (``orrery season rollover``) its final table is written to the archive
(each player's league, end rating, rank within the league, next league) and the next
season begins: a player moves at most one league a season, up (promoted) when their
rating's band is above their league and down (relegated) when below; a player new to
the arena enters at their band. The soft reset widens every rating's uncertainty
(sigma × ``ORRERY_SEASON_SIGMA_WIDEN``, at most ``ORRERY_SEASON_SIGMA_MAX``, never
narrower than it was) and leaves the rating itself alone, so the first games of a season
move ratings more without throwing away what is known. Pure: the caller reads and
writes the ratings, the season and the archive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from competitions.settings import SeasonSettings
from orrery_contracts.tournaments import (
    PastSeason,
    SeasonPlayer,
    SeasonRow,
    SeasonTable,
    SeasonView,
)

DAY_MS = 86_400_000
Move = Literal["promoted", "relegated", "stayed"]


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0


def league_names(settings: SeasonSettings) -> list[str]:
    return [f"league {i + 1}" for i in range(settings.leagues)] + ["elite"]


def league_of(mu: float, settings: SeasonSettings) -> int:
    """0 below the floor, one more each band above it, the elite (``leagues``) above
    the last band."""
    if mu < settings.floor:
        return 0
    return min(1 + int((mu - settings.floor) // settings.band), settings.leagues)


def first_season(
    game: str, ratings: dict[str, Rating], now: int, settings: SeasonSettings
) -> SeasonView:
    return SeasonView(
        game=game,
        number=1,
        started_at=now,
        ends_at=now + int(settings.days * DAY_MS),
        leagues=league_names(settings),
        players=[
            SeasonPlayer(player_id=p, league=league_of(r.mu, settings), rating=round(r.mu, 3))
            for p, r in sorted(ratings.items())
        ],
    )


def rollover(
    season: SeasonView, ratings: dict[str, Rating], now: int, settings: SeasonSettings
) -> tuple[SeasonTable, SeasonView, dict[str, Rating]]:
    """The ended season's final table, the next season, and the soft-reset ratings."""
    leagues = {p.player_id: p.league for p in season.players}
    top = len(league_names(settings)) - 1
    rows: list[SeasonRow] = []
    next_players: list[SeasonPlayer] = []
    by_league: dict[int, list[str]] = {}
    for player in sorted(ratings):
        band = league_of(ratings[player].mu, settings)
        played = leagues.get(player, band)
        by_league.setdefault(played, []).append(player)
    for league in sorted(by_league, reverse=True):
        ranked = sorted(by_league[league], key=lambda p: (-ratings[p].mu, p))
        for rank, player in enumerate(ranked, start=1):
            band = league_of(ratings[player].mu, settings)
            if player in leagues:
                step = max(-1, min(1, band - league))
                following = max(0, min(top, league + step))
            else:
                following = band
            move: Move = (
                "promoted"
                if following > league
                else "relegated"
                if following < league
                else "stayed"
            )
            rows.append(
                SeasonRow(
                    player_id=player,
                    league=league,
                    rating=round(ratings[player].mu, 3),
                    rank=rank,
                    next_league=following,
                    move=move,
                )
            )
            next_players.append(
                SeasonPlayer(
                    player_id=player, league=following, rating=round(ratings[player].mu, 3)
                )
            )
    table = SeasonTable(
        game=season.game,
        number=season.number,
        started_at=season.started_at,
        ended_at=now,
        leagues=season.leagues,
        rows=rows,
    )
    following_season = SeasonView(
        game=season.game,
        number=season.number + 1,
        started_at=now,
        ends_at=now + int(settings.days * DAY_MS),
        leagues=league_names(settings),
        players=sorted(next_players, key=lambda p: p.player_id),
        past=[
            *season.past,
            PastSeason(number=season.number, started_at=season.started_at, ended_at=now),
        ],
    )
    reset = {p: Rating(r.mu, widened(r.sigma, settings), r.games) for p, r in ratings.items()}
    return table, following_season, reset


def widened(sigma: float, settings: SeasonSettings) -> float:
    """The soft reset of one rating's uncertainty: wider, at most ``sigma_max``, never
    narrower than it was."""
    return max(sigma, min(sigma * settings.widen, settings.sigma_max))
