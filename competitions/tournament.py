"""Deciding a tournament: the commands (create, register, check in, start, pair now)
and what falls due with time (the start when registration ends, a round's end at its
deadline, the next round when the last one is over, the finish). Pure: the caller gives
the time, the entrant's rating and a fresh seed, and appends the events it returns."""

from __future__ import annotations

from competitions.events import (
    PlayerCheckedIn,
    PlayerRegistered,
    PlayerWithdrew,
    TableFinished,
    TournamentCancelled,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    TournamentStarted,
    seed_commitment,
)
from competitions.pairing import DUTCH_MAX, finished, pair_round, planned_rounds, seed_order
from competitions.standings import draw_key, ranking, tiebreaks
from competitions.state import TournamentState, table_points
from orrery_contracts.tournaments import (
    CheckIn,
    CreateTournament,
    EntrantView,
    PairNow,
    RegisterPlayer,
    RoundLine,
    StandingRow,
    StartTournament,
    TableLine,
    TournamentCommand,
    TournamentView,
)

OPERATOR = "operator"


class Refused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def decide(
    state: TournamentState,
    command: TournamentCommand,
    *,
    seed: str,
    rating: float,
    min_seats: int,
) -> list[TournamentEvent]:
    """The events of one command, or :class:`Refused`."""
    match command:
        case CreateTournament(tournament_id=tid, organiser=organiser, spec=spec):
            if state.spec is not None:
                raise Refused("tournament_exists", "that tournament id is taken")
            return [
                TournamentCreated(
                    tournament_id=tid,
                    organiser=organiser,
                    spec=spec,
                    seed=seed,
                    min_seats=min_seats,
                )
            ]
    if state.spec is None:
        raise Refused("no_such_tournament", "no such tournament")
    match command:
        case RegisterPlayer(player_id=p, name=name, withdraw=withdraw):
            if withdraw:
                if p not in state.entrants or state.state not in ("registering", "running"):
                    raise Refused("not_registered", "you are not playing in this tournament")
                return [PlayerWithdrew(player_id=p)]
            if state.state != "registering":
                raise Refused("registration_closed", "registration has closed")
            if p in state.entrants:
                return []
            if len(state.entrants) >= state.spec.capacity:
                raise Refused("tournament_full", "the tournament is full")
            return [PlayerRegistered(player_id=p, name=name, rating=round(rating, 3))]
        case CheckIn(player_id=p):
            if p not in state.entrants:
                raise Refused("not_registered", "you are not playing in this tournament")
            if state.state != "registering":
                raise Refused("registration_closed", "registration has closed")
            return [] if state.entrants[p].checked_in else [PlayerCheckedIn(player_id=p)]
        case StartTournament(by=by):
            if by not in (state.organiser, OPERATOR):
                raise Refused("not_organiser", "only the organiser starts the tournament")
            if state.state != "registering":
                raise Refused("already_started", "the tournament has started")
            return [start_event(state)]
        case PairNow():
            if state.state != "running":
                raise Refused("not_running", "the tournament is not running")
            return adjudicate(state)
    return []


def start_event(state: TournamentState) -> TournamentEvent:
    assert state.spec is not None
    spec = state.spec
    present = {p: e.rating for p, e in state.entrants.items() if e.checked_in or not spec.check_in}
    if len(present) < max(2, state.min_seats):
        return TournamentCancelled(reason="too few players")
    rounds = planned_rounds(spec.format, len(present), spec.seats, spec.rounds)
    return TournamentStarted(rounds=rounds, players=seed_order(state.seed, present))


def adjudicate(state: TournamentState, started: bool = True) -> list[TournamentEvent]:
    """The current round's tables not finished are ended now in the tournament alone,
    every player on them sharing the rank (a player who withdrew forfeits, ranked last);
    ``started=False`` leaves out the tables that were started (the organiser ends those
    through the service, ``table.end``, and takes their standing from the table)."""
    last = state.current()
    if last is None:
        return []
    events: list[TournamentEvent] = []
    for table in last.tables:
        record = state.tables[table.table_id]
        if record.finished is None and (started or not record.started):
            gone = [p for p in table.players if state.entrants[p].withdrawn]
            ranks = [2 if p in gone else 1 for p in table.players]
            events.append(
                TableFinished(
                    round=last.round,
                    table_id=table.table_id,
                    ranks=ranks,
                    forfeit=gone,
                    adjudicated=True,
                )
            )
    return events


def forfeits(state: TournamentState) -> list[TournamentEvent]:
    """A table whose every other player withdrew is over: they forfeit."""
    last = state.current()
    if last is None:
        return []
    events: list[TournamentEvent] = []
    for table in last.tables:
        if state.tables[table.table_id].finished is not None:
            continue
        gone = [p for p in table.players if state.entrants[p].withdrawn]
        if gone and len(table.players) - len(gone) <= 1:
            ranks = [2 if p in gone else 1 for p in table.players]
            events.append(
                TableFinished(round=last.round, table_id=table.table_id, ranks=ranks, forfeit=gone)
            )
    return events


def due(
    state: TournamentState, now: int, dutch_max: int = DUTCH_MAX, grace_ms: int = 0
) -> list[TournamentEvent]:
    """What time and the finished tables make due now (apply each before the next). At a
    round's deadline the tables never started are ended at once; the started ones, which
    the organiser ends through the service, only ``grace_ms`` later if their standing
    has still not come."""
    if state.spec is None or state.state in ("finished", "cancelled"):
        return []
    spec = state.spec
    if state.state == "registering":
        if spec.registration_ends is not None and now >= spec.registration_ends:
            return [start_event(state)]
        return []
    events = forfeits(state)
    if events:
        return events
    last = state.current()
    if last is not None and not state.round_done():
        if now < last.deadline:
            return []
        return adjudicate(state, started=now >= last.deadline + grace_ms)
    if finished(state):
        return [TournamentFinished(standings=ranking(state), seed=state.seed)]
    deadline = now + int(spec.round_deadline_s * 1000)
    return [pair_round(state, deadline, dutch_max)]


def result_event(state: TournamentState, table_id: str, ranks: list[int]) -> TournamentEvent | None:
    """A table of the current tournament finished with ``ranks`` (per seat)."""
    record = state.tables.get(table_id)
    if record is None or record.finished is not None:
        return None
    gone = [p for p in record.table.players if state.entrants[p].withdrawn]
    if gone:
        worst = max(ranks) + 1
        ranks = [
            worst if p in gone else r for p, r in zip(record.table.players, ranks, strict=True)
        ]
    return TableFinished(round=record.round, table_id=table_id, ranks=ranks, forfeit=gone)


def view(state: TournamentState) -> TournamentView:
    assert state.spec is not None
    spec = state.spec
    rounds: list[RoundLine] = []
    for paired in state.paired:
        lines = []
        for table in paired.tables:
            done = state.tables[table.table_id].finished
            lines.append(
                TableLine(
                    table_id=table.table_id,
                    players=table.players,
                    state="finished" if done else "playing",
                    ranks=list(done.ranks) if done else [],
                    points=table_points(list(done.ranks)) if done else [],
                    forfeit=list(done.forfeit) if done else [],
                    bracket=table.bracket,
                )
            )
        rounds.append(
            RoundLine(
                round=paired.round,
                tables=lines,
                byes=paired.byes,
                deadline=paired.deadline,
                finished=all(line.state == "finished" for line in lines),
            )
        )
    standings: list[StandingRow] = []
    if state.state != "registering":
        order = state.standings or ranking(state)
        lives = 2 if spec.format == "double_elimination" else 1
        for rank, p in enumerate(order, start=1):
            e = state.entrants[p]
            standings.append(
                StandingRow(
                    rank=rank,
                    player_id=p,
                    name=e.name,
                    points=e.points,
                    tiebreaks=[round(t, 3) for t in tiebreaks(state, p)],
                    draw=draw_key(state.seed, p)[:16],
                    eliminated=spec.format.endswith("elimination")
                    and (e.losses >= lives or e.withdrawn),
                )
            )
    return TournamentView(
        tournament_id=state.tournament_id,
        name=spec.name or state.tournament_id,
        game=spec.game,
        format=spec.format,
        seats=spec.seats,
        rounds=state.rounds or spec.rounds,
        capacity=spec.capacity,
        organiser=state.organiser,
        state=state.state,  # type: ignore[arg-type]
        registration_ends=spec.registration_ends,
        round_deadline_s=spec.round_deadline_s,
        check_in=spec.check_in,
        created_at=state.created_at,
        players=[
            EntrantView(player_id=p, name=e.name, rating=e.rating, checked_in=e.checked_in)
            for p, e in state.entrants.items()
        ],
        round_list=rounds,
        standings=standings,
        seed_commitment=seed_commitment(state.seed) if state.seed else "",
        seed=state.seed if state.state == "finished" else "",
    )
