"""Tournaments on the wire: the commands a front door sends to the tournament organiser,
its answers, and what players read of a tournament.

A command reaches the organiser on ``keys.tournament_command_stream`` (``__data__``: JSON,
tags ``tn.*``), written by a trusted front door (the gateway) that has checked the
player. The organiser decides it into the tournament's own hash-chained log
(``competitions/``), answers it at ``keys.tournament_answer_key`` and keeps what players
read at ``keys.tournament_key`` (a :class:`TournamentView`) and
``keys.tournaments_index``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from orrery_contracts.table import ClockOption

Format = Literal["swiss", "round_robin", "single_elimination", "double_elimination"]
FORMATS: tuple[Format, ...] = ("swiss", "round_robin", "single_elimination", "double_elimination")
TournamentStateName = Literal["registering", "running", "finished", "cancelled"]
TOURNAMENT_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
ANSWER_TTL_MS = 300_000
MIN_SEATS = 2
MAX_SEATS = 5
MAX_CAPACITY = 4096
MAX_UNIX_MS = 253_402_300_799_999  # 9999-12-31: a time any log and client can hold


class TournamentSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What an organiser asks for: ``rounds`` (Swiss; elimination and round robin count
    their own), ``seats`` per table, ``capacity`` (players at most), ``registration_ends``
    (unix ms: the tournament starts by itself then), ``round_deadline_s`` (a round's
    unfinished tables are ended then), ``clock`` (each table's, as ``table.create``'s)."""

    game: str
    format: Format
    seats: Annotated[int, msgspec.Meta(ge=MIN_SEATS, le=MAX_SEATS)]
    options: dict[str, object] = {}
    rounds: Annotated[int, msgspec.Meta(ge=1, le=64)] | None = None
    capacity: Annotated[int, msgspec.Meta(ge=2, le=MAX_CAPACITY)] = 64
    registration_ends: Annotated[int, msgspec.Meta(ge=0, le=MAX_UNIX_MS)] | None = None
    round_deadline_s: Annotated[float, msgspec.Meta(ge=1, le=30 * 86_400)] = 86_400.0
    check_in: bool = False
    clock: ClockOption | None = None
    name: Annotated[str, msgspec.Meta(max_length=80)] = ""


class CreateTournament(msgspec.Struct, frozen=True, kw_only=True, tag="tn.create"):
    command_id: str
    tournament_id: str
    organiser: str  # a player id, or "operator"
    spec: TournamentSpec


class RegisterPlayer(msgspec.Struct, frozen=True, kw_only=True, tag="tn.register"):
    """``player_id`` (named ``name``) enters; ``withdraw``: leaves before the start."""

    command_id: str
    tournament_id: str
    player_id: str
    name: str
    withdraw: bool = False


class CheckIn(msgspec.Struct, frozen=True, kw_only=True, tag="tn.check_in"):
    command_id: str
    tournament_id: str
    player_id: str


class StartTournament(msgspec.Struct, frozen=True, kw_only=True, tag="tn.start"):
    """Start now (``by``: the organiser, or "operator")."""

    command_id: str
    tournament_id: str
    by: str


class PairNow(msgspec.Struct, frozen=True, kw_only=True, tag="tn.pair"):
    """An operator's nudge: end the current round's unfinished tables now (as at its
    deadline) so the next round is paired."""

    command_id: str
    tournament_id: str


TournamentCommand = CreateTournament | RegisterPlayer | CheckIn | StartTournament | PairNow
tournament_command_decoder = msgspec.json.Decoder(TournamentCommand)


class TournamentAnswer(msgspec.Struct, frozen=True, kw_only=True):
    command_id: str
    ok: bool
    code: str = ""
    message: str = ""


tournament_answer_decoder = msgspec.json.Decoder(TournamentAnswer)

# ---------------------------------------------------------------- what players read


class EntrantView(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    name: str
    rating: float
    checked_in: bool = False


class TableLine(msgspec.Struct, frozen=True, kw_only=True):
    """One table of a round: its players in seat order, and once finished each one's
    rank (1 best) and tournament points, in the same order; ``forfeit``: players who
    lost by forfeit."""

    table_id: str
    players: list[str]
    state: Literal["playing", "finished"]
    ranks: list[int] = []
    points: list[float] = []
    forfeit: list[str] = []
    bracket: str = ""  # elimination: "winners" or "losers"


class RoundLine(msgspec.Struct, frozen=True, kw_only=True):
    round: int
    tables: list[TableLine]
    byes: list[str]
    deadline: int  # unix ms
    finished: bool


class StandingRow(msgspec.Struct, frozen=True, kw_only=True):
    """``tiebreaks``: in order, Buchholz then Sonneborn-Berger (two seats) or the sum of
    opponents' points (more seats); ``draw``: the seeded draw that settles the rest."""

    rank: int
    player_id: str
    name: str
    points: float
    tiebreaks: list[float]
    draw: str
    eliminated: bool = False


class TournamentView(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str
    name: str
    game: str
    format: Format
    seats: int
    rounds: int | None
    capacity: int
    organiser: str
    state: TournamentStateName
    registration_ends: int | None
    round_deadline_s: float
    check_in: bool
    created_at: int
    players: list[EntrantView]
    round_list: list[RoundLine]
    standings: list[StandingRow]
    seed_commitment: str = ""
    seed: str = ""  # revealed when the tournament finishes


tournament_view_decoder = msgspec.json.Decoder(TournamentView)


# ---------------------------------------------------------------- seasons


class SeasonPlayer(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    league: int  # 0 the lowest; len(leagues) - 1 the elite
    rating: float  # at the season's start (or the player's first game in it)


class PastSeason(msgspec.Struct, frozen=True, kw_only=True):
    number: int
    started_at: int
    ended_at: int


class SeasonView(msgspec.Struct, frozen=True, kw_only=True):
    """A game's arena season: each rated player's league for the season (by rating band
    at its start, moved at most one league from the last season's), and the seasons
    before it (their final tables are in the archive)."""

    game: str
    number: int
    started_at: int  # unix ms
    ends_at: int
    leagues: list[str]
    players: list[SeasonPlayer]
    past: list[PastSeason] = []


class SeasonRow(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a season's final table: the league played, the rating at the end,
    the rank within the league, the league of the next season and the move."""

    player_id: str
    league: int
    rating: float
    rank: int
    next_league: int
    move: Literal["promoted", "relegated", "stayed"]


class SeasonTable(msgspec.Struct, frozen=True, kw_only=True):
    game: str
    number: int
    started_at: int
    ended_at: int
    leagues: list[str]
    rows: list[SeasonRow]


season_view_decoder = msgspec.json.Decoder(SeasonView)
season_table_decoder = msgspec.json.Decoder(SeasonTable)
