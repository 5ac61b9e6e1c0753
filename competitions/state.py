"""A tournament's state, folded from its log. ``evolve`` applies one fact; everything a
pairing or a standing needs (points, opponents, colours, losses) is derived here from
the events, never read from anywhere else."""

from __future__ import annotations

from dataclasses import dataclass, field

from competitions.draws import draw_key
from competitions.events import (
    GENESIS,
    PairedTable,
    PlayerCheckedIn,
    PlayerRegistered,
    PlayerWithdrew,
    RoundPaired,
    TableFinished,
    TableStarted,
    TournamentCancelled,
    TournamentCreated,
    TournamentEntry,
    TournamentFinished,
    TournamentStarted,
)
from orrery_contracts.tournaments import TournamentSpec


def table_points(ranks: list[int]) -> list[float]:
    """Tournament points of each seat from its rank: one for every player ranked below,
    a half for every other player sharing the rank (two seats: win 1, draw ½, loss 0;
    four seats: 3, 2, 1, 0)."""
    return [
        sum(1.0 if other > mine else 0.5 if other == mine else 0.0 for other in ranks) - 0.5
        for mine in ranks
    ]


@dataclass
class Game:
    """One table a player sat at: the others, the points won, the seat."""

    round: int
    table_id: str
    seat: int
    opponents: list[str]
    points: float
    forfeit: bool = False


@dataclass
class Entrant:
    player_id: str
    name: str
    rating: float
    checked_in: bool = False
    withdrawn: bool = False
    games: list[Game] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)  # rounds
    bye_points: float = 0.0
    losses: int = 0  # elimination: tables not won
    out_after: int = 0  # elimination: the round that eliminated the player (0: still in)

    @property
    def points(self) -> float:
        return sum(g.points for g in self.games) + self.bye_points


@dataclass
class TableRecord:
    round: int
    table: PairedTable
    started: bool = False
    finished: TableFinished | None = None


@dataclass
class TournamentState:
    tournament_id: str = ""
    organiser: str = ""
    spec: TournamentSpec | None = None
    seed: str = ""
    min_seats: int = 2
    created_at: int = 0
    state: str = "registering"
    entrants: dict[str, Entrant] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # seed order once started
    rounds: int = 0
    paired: list[RoundPaired] = field(default_factory=list)
    tables: dict[str, TableRecord] = field(default_factory=dict)
    standings: list[str] = field(default_factory=list)
    seq: int = 0
    head: str = GENESIS
    at: int = 0

    @property
    def round(self) -> int:
        return len(self.paired)

    def current(self) -> RoundPaired | None:
        return self.paired[-1] if self.paired else None

    def round_done(self) -> bool:
        last = self.current()
        if last is None:
            return True
        return all(self.tables[t.table_id].finished is not None for t in last.tables)

    def active(self) -> list[str]:
        """Players still paired, in seed order."""
        lives = 2 if self.spec and self.spec.format == "double_elimination" else 1
        eliminating = self.spec is not None and self.spec.format.endswith("elimination")
        return [
            p
            for p in self.order
            if not self.entrants[p].withdrawn
            and not (eliminating and self.entrants[p].losses >= lives)
        ]

    def meetings(self, a: str, b: str) -> int:
        return sum(b in g.opponents for g in self.entrants[a].games)


def evolve(state: TournamentState, entry: TournamentEntry) -> None:
    state.seq, state.head, state.at = entry.seq, entry.hash, entry.at
    match entry.event:
        case TournamentCreated() as created:
            state.tournament_id = created.tournament_id
            state.organiser = created.organiser
            state.spec = created.spec
            state.seed = created.seed
            state.min_seats = created.min_seats
            state.created_at = entry.at
        case PlayerRegistered(player_id=p, name=name, rating=rating):
            state.entrants[p] = Entrant(p, name, rating)
        case PlayerWithdrew(player_id=p):
            if state.state == "registering":
                state.entrants.pop(p, None)
            elif p in state.entrants:
                state.entrants[p].withdrawn = True
        case PlayerCheckedIn(player_id=p):
            state.entrants[p].checked_in = True
        case TournamentStarted(rounds=rounds, players=players):
            state.state = "running"
            state.rounds = rounds
            state.order = list(players)
            for p in list(state.entrants):
                if p not in players:
                    del state.entrants[p]
        case RoundPaired() as paired:
            state.paired.append(paired)
            for table in paired.tables:
                state.tables[table.table_id] = TableRecord(paired.round, table)
            for p in paired.byes:
                entrant = state.entrants[p]
                entrant.byes.append(paired.round)
                entrant.bye_points += bye_points(state, paired)
        case TableStarted(table_id=t):
            state.tables[t].started = True
        case TableFinished() as finished:
            _finish(state, finished)
        case TournamentFinished(standings=standings):
            state.state = "finished"
            state.standings = list(standings)
        case TournamentCancelled():
            state.state = "cancelled"


def bye_points(state: TournamentState, paired: RoundPaired) -> float:
    """A bye is worth a win at two seats, and the middle of the table (what a table's
    points average) at more."""
    seats = state.spec.seats if state.spec else 2
    if seats == 2:
        return 1.0
    return (seats - 1) / 2


def _finish(state: TournamentState, finished: TableFinished) -> None:
    record = state.tables[finished.table_id]
    record.finished = finished
    players = record.table.players
    points = table_points(finished.ranks)
    best = min(finished.ranks)
    for seat, player in enumerate(players):
        others = [o for o in players if o != player]
        entrant = state.entrants[player]
        entrant.games.append(
            Game(
                finished.round,
                finished.table_id,
                seat,
                others,
                points[seat],
                player in finished.forfeit,
            )
        )
        if finished.ranks[seat] != best or _lost_draw(state, players, finished.ranks, player):
            entrant.losses += 1
            entrant.out_after = finished.round


def _lost_draw(state: TournamentState, players: list[str], ranks: list[int], player: str) -> bool:
    """Elimination needs one winner a table: among those sharing first place, the best
    seeded draw goes through (the others count the table as lost)."""
    best = min(ranks)
    first = [p for p, r in zip(players, ranks, strict=True) if r == best]
    if len(first) < 2:
        return False
    return min(first, key=lambda p: draw_key(state.seed, p)) != player


def fold(entries: list[TournamentEntry]) -> TournamentState:
    state = TournamentState()
    for entry in entries:
        evolve(state, entry)
    return state
